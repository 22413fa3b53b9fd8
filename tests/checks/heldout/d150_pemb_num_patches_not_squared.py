META = {"exercise": "09.PatchEmbedding",
        "cause": "num_patches = img_size // patch_size, the patches along one side, instead of its square",
        "keywords": [r"num_patches", r"square|\*\* ?2|\^2", r"one side|per side"]}

class PatchEmbedding(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__()
        self.num_patches = img_size // patch_size
        self.proj = nn.Conv2d(in_channels, d_model, kernel_size=patch_size, stride=patch_size)

    def forward(self, images):
        x = self.proj(images)  # (B, d_model, H/p, W/p)
        return x.flatten(2).transpose(1, 2)  # (B, N, d_model)
