META = {'exercise': '09.PatchEmbedding',
        'cause': 'num_patches = img_size // patch_size, the patches along one side, not their number',
        'keywords': [r'num_patches', r'square', r'\*\* ?2', r'one side'],
        'kind': 'math',
        'single_edit': True}


class PatchEmbedding(nn.Module):
    def __init__(self, img_size: int, patch_size: int, in_channels: int, d_model: int):
        super().__init__()
        self.num_patches = img_size // patch_size
        self.proj = nn.Conv2d(in_channels, d_model, patch_size, stride=patch_size)

    def forward(self, images):
        x = self.proj(images)
        return x.flatten(2).transpose(1, 2)
