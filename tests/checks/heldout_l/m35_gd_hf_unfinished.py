META = {'exercise': '07.greedy_decode',
        'correct': True,
        'source': "Hugging Face generate's greedy loop: unfinished_sequences, next_tokens * unfinished + pad * (1 - unfinished)"}


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    input_ids = src.new_full((src.shape[0], 1), bos_id, dtype=torch.long)
    unfinished_sequences = torch.ones(src.shape[0], dtype=torch.long, device=src.device)
    while input_ids.shape[-1] < max_len:
        next_token_logits = model(src, input_ids)[:, -1, :]
        next_tokens = torch.argmax(next_token_logits, dim=-1)
        next_tokens = next_tokens * unfinished_sequences + eos_id * (1 - unfinished_sequences)
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        unfinished_sequences = unfinished_sequences & ~(next_tokens == eos_id)
        if unfinished_sequences.max() == 0:
            break
    return input_ids
