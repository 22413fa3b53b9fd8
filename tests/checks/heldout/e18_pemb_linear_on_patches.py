META = {"exercise": "09.PatchEmbedding", "correct": True,
        "source": "forward via F.conv2d with the module's weight, then einops-like rearrange with permute + flatten (b c h w -> b (h w) c)"}


class PatchEmbedding(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, d_model):
        super().__init__()
        self.patch_size = patch_size
        self.num_patches = (img_size // patch_size) * (img_size // patch_size)
        self.proj = nn.Conv2d(in_channels, d_model, patch_size, stride=patch_size)

    def forward(self, images):
        x = F.conv2d(images, self.proj.weight, self.proj.bias, stride=self.patch_size)
        return x.permute(0, 2, 3, 1).flatten(1, 2)
