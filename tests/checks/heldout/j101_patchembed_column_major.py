META = {"exercise": "09.PatchEmbedding",
        "cause": "permutes the conv output to (B, W/p, H/p, d_model) before flattening, giving the patches in column-major order",
        "keywords": [r"row.?major", r"column", r"order", r"permute"]}


class PatchEmbedding(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_channels, d_model, patch_size, stride=patch_size)

    def forward(self, images):
        x = self.proj(images)
        return x.permute(0, 3, 2, 1).reshape(x.size(0), -1, x.size(1))
