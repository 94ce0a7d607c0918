// placeholder; replaced by the BreezeYAML implementation
