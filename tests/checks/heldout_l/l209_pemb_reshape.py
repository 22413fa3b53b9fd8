META = {'exercise': '09.PatchEmbedding',
        'cause': 'reshapes (B, d_model, H/p, W/p) to (B, N, d_model) without the transpose: features of different patches are mixed',
        'keywords': [r'transpose', r'reshape', r'mix', r'\(B, ?d_model, ?N\)'],
        'kind': 'math',
        'single_edit': True}


class PatchEmbedding(nn.Module):
    def __init__(self, img_size: int, patch_size: int, in_channels: int, d_model: int):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_channels, d_model, patch_size, stride=patch_size)

    def forward(self, images):
        x = self.proj(images)
        return x.reshape(x.size(0), -1, x.size(1))
