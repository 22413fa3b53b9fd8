META = {'exercise': '08.kv_cache_step',
        'correct': True,
        'source': 'Hugging Face DynamicCache.update (key_cache / value_cache lists, torch.cat along dim -2), then attention'}


from helpers.blocks.attention import scaled_dot_product_attention


class DynamicCache:
    def __init__(self, key_states=None, value_states=None):
        self.key_cache, self.value_cache = key_states, value_states

    def update(self, key_states, value_states):
        if self.key_cache is None:
            self.key_cache, self.value_cache = key_states, value_states
        else:
            self.key_cache = torch.cat([self.key_cache, key_states], dim=-2)
            self.value_cache = torch.cat([self.value_cache, value_states], dim=-2)
        return self.key_cache, self.value_cache


def kv_cache_step(q, k, v, cache=None):
    c = DynamicCache(*cache) if cache is not None else DynamicCache()
    k_all, v_all = c.update(k, v)
    out, _ = scaled_dot_product_attention(q, k_all, v_all)
    return out, (k_all, v_all)
