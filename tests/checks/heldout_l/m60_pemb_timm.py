META = {'exercise': '09.PatchEmbedding',
        'correct': True,
        'source': 'timm PatchEmbed (grid_size, num_patches = grid[0] * grid[1], proj, flatten(2).transpose(1, 2), norm = Identity)'}


class PatchEmbedding(nn.Module):
    def __init__(self, img_size: int, patch_size: int, in_channels: int, d_model: int):
        super().__init__()
        self.img_size = (img_size, img_size)
        self.patch_size = (patch_size, patch_size)
        self.grid_size = (img_size // patch_size, img_size // patch_size)
        self.num_patches = self.grid_size[0] * self.grid_size[1]
        self.proj = nn.Conv2d(in_channels, d_model, kernel_size=self.patch_size, stride=self.patch_size, bias=True)
        self.norm = nn.Identity()

    def forward(self, x):
        x = self.proj(x)
        x = x.flatten(2).transpose(1, 2)
        return self.norm(x)
