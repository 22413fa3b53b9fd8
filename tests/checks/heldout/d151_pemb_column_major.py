META = {"exercise": "09.PatchEmbedding",
        "cause": "orders the tokens column by column (permute(0, 3, 2, 1): W before H) instead of row-major",
        "keywords": [r"row.major|row by row", r"column"]}

class PatchEmbedding(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_channels, d_model, kernel_size=patch_size, stride=patch_size)

    def forward(self, images):
        x = self.proj(images)  # (B, d_model, H/p, W/p)
        return x.permute(0, 3, 2, 1).reshape(x.size(0), -1, x.size(1))  # (B, N, d_model)
