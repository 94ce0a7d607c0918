// placeholder; replaced by the BreezeAgent implementation
