// placeholder; replaced by the BreezeTestSupport implementation
