META = {"exercise": "09.PatchEmbedding", "correct": True,
        "source": "https://github.com/huggingface/pytorch-image-models/blob/main/timm/layers/patch_embed.py",
        "adapted": "PatchEmbed with its defaults (flatten=True, norm_layer=None, strict_img_size=True); in_chans/embed_dim renamed"}


class PatchEmbedding(nn.Module):
    def __init__(self, img_size, patch_size, in_channels, d_model, norm_layer=None, flatten=True, bias=True):
        super().__init__()
        self.patch_size = (patch_size, patch_size)
        self.img_size = (img_size, img_size)
        self.grid_size = tuple(s // p for s, p in zip(self.img_size, self.patch_size))
        self.num_patches = self.grid_size[0] * self.grid_size[1]
        self.flatten = flatten
        self.proj = nn.Conv2d(in_channels, d_model, kernel_size=patch_size, stride=patch_size, bias=bias)
        self.norm = norm_layer(d_model) if norm_layer else nn.Identity()

    def forward(self, x):
        B, C, H, W = x.shape
        assert H == self.img_size[0], f"Input height ({H}) doesn't match model ({self.img_size[0]})."
        assert W == self.img_size[1], f"Input width ({W}) doesn't match model ({self.img_size[1]})."
        x = self.proj(x)
        if self.flatten:
            x = x.flatten(2).transpose(1, 2)  # NCHW -> NLC
        x = self.norm(x)
        return x
