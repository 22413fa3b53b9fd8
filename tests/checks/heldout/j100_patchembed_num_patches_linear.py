META = {"exercise": "09.PatchEmbedding",
        "name": "PatchEmbedding",
        "cause": "sets num_patches to img_size // patch_size, the patches along one side, instead of its square",
        "keywords": [r"num_patches", r"squar", r"\*\* ?2|\^2", r"one side"]}


class PatchEmbedding(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__()
        self.num_patches = img_size // patch_size
        self.proj = nn.Conv2d(in_channels, d_model, patch_size, stride=patch_size)

    def forward(self, images):
        return self.proj(images).flatten(2).transpose(1, 2)
