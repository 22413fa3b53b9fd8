META = {"exercise": "09.PatchEmbedding", "cause": "the Conv2d has kernel_size=patch_size but the default stride 1, so the patches overlap and there are (img_size - p + 1)^2 of them instead of (img_size / p)^2", "keywords": [r"stride", r"overlap", r"num_patches|number of (patches|tokens)", r"kernel"]}


class PatchEmbedding(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_channels, d_model, kernel_size=patch_size)

    def forward(self, images):
        x = self.proj(images)                   # (B, d_model, H', W')
        return x.flatten(2).transpose(1, 2)      # (B, N, d_model)
