META = {'exercise': '09.PatchEmbedding',
        'cause': 'the convolution runs under torch.no_grad(): the patch embedding never trains',
        'keywords': [r'detach', r'no[_ ]grad', r'gradient', r'backward', r'autograd', r'requires_grad', r'\bgrads?\b', r'never train'],
        'kind': 'gradient',
        'single_edit': False}


class PatchEmbedding(nn.Module):
    def __init__(self, img_size: int, patch_size: int, in_channels: int, d_model: int):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_channels, d_model, patch_size, stride=patch_size)

    def forward(self, images):
        with torch.no_grad():
            x = self.proj(images)
        return x.flatten(2).transpose(1, 2)
