META = {"exercise": "09.PatchEmbedding", "cause": "returns (B, d_model, N) without transposing to (B, N, d_model)",
        "keywords": [r"transpose", r"shape", r"\(B, N, d_model\)", r"dims?"]}


class PatchEmbedding(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_channels, d_model, kernel_size=patch_size, stride=patch_size)

    def forward(self, images):
        return self.proj(images).flatten(2)
