// placeholder; replaced by the BreezeMQTT implementation
