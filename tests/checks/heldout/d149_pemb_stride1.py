META = {"exercise": "09.PatchEmbedding",
        "cause": "Conv2d with kernel_size=patch_size but the default stride 1, so the patches overlap and there are far more than N tokens",
        "keywords": [r"stride", r"overlap", r"number of (patches|tokens)|\bN\b"]}

class PatchEmbedding(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_channels, d_model, kernel_size=patch_size)

    def forward(self, images):
        x = self.proj(images)  # (B, d_model, H/p, W/p)
        return x.flatten(2).transpose(1, 2)  # (B, N, d_model)
