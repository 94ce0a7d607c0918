// placeholder; replaced by the BreezeHTTP implementation
