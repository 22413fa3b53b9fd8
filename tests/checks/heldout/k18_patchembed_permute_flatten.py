META = {"exercise": "09.PatchEmbedding", "correct": True, "source": "channels-last permute then flatten(1, 2)"}


class PatchEmbedding(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__()
        self.num_patches = (img_size // patch_size) * (img_size // patch_size)
        self.proj = nn.Conv2d(in_channels, d_model, kernel_size=patch_size, stride=patch_size)

    def forward(self, images):
        return self.proj(images).permute(0, 2, 3, 1).flatten(1, 2)
