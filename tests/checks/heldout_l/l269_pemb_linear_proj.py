META = {'exercise': '09.PatchEmbedding',
        'cause': "proj is an nn.Linear on the patchified image, not the nn.Conv2d the contract names: the conv's weights do not load",
        'keywords': [r'Conv2d', r'Linear', r'state_dict', r'shape', r'size mismatch'],
        'kind': 'mode/state',
        'single_edit': False}


class PatchEmbedding(nn.Module):
    def __init__(self, img_size: int, patch_size: int, in_channels: int, d_model: int):
        super().__init__()
        self.patch_size = patch_size
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Linear(in_channels * patch_size * patch_size, d_model)

    def forward(self, images):
        B, C, H, W = images.shape
        p = self.patch_size
        x = images.reshape(B, C, H // p, p, W // p, p).permute(0, 2, 4, 1, 3, 5).reshape(B, -1, C * p * p)
        return self.proj(x)
