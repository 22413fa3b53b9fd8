META = {"exercise": "09.PatchEmbedding",
        "cause": "builds the Conv2d with kernel_size=patch_size but the default stride 1, so patches overlap and there are far too many tokens",
        "keywords": [r"stride", r"overlap", r"number of (patches|tokens)", r"shape"]}


class PatchEmbedding(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_channels, d_model, kernel_size=patch_size)

    def forward(self, images):
        return self.proj(images).flatten(2).transpose(1, 2)
