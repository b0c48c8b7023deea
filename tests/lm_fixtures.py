"""A tiny random-weight BERT masked LM saved to disk (no downloads)."""
from pathlib import Path

WORDS = (
    "the a of in and was born is he she his her to at from on by for with as an who "
    "john smith mary jones paris london oslo court judge applicant case number year "
    "university studied law married died played football team club 1988 march born".split()
)
PIECES = ["##s", "##son", "##ing", "##ed", "##er", "##1", "##2", "##3", "##4", "##5", "##6", "##7", "##8", "##9", "##0"]
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
PUNCT = list(".,;:()-/'\"") + [str(d) for d in range(10)] + list("abcdefghijklmnopqrstuvwxyz")


def build_tiny_bert(path: Path, seed: int = 0, max_positions: int = 128) -> str:
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    path.mkdir(parents=True, exist_ok=True)
    vocab = list(dict.fromkeys(SPECIAL + WORDS + PIECES + PUNCT))
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf8")
    tokenizer = BertTokenizerFast(vocab=str(path / "vocab.txt"), do_lower_case=True)
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=48,
        max_position_embeddings=max_positions,
    )
    model = BertForMaskedLM(config)
    model.save_pretrained(str(path))
    tokenizer.save_pretrained(str(path))
    return str(path)


def direct_logprobs(model_dir, text, span, also=()):
    """The reference computation: the whole text in one sequence, the span's subwords
    (and those of ``also``) replaced by [MASK], log-softmax at the span's positions."""
    import torch
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForMaskedLM.from_pretrained(model_dir).eval()
    enc = tok(text, return_offsets_mapping=True)
    ids = list(enc["input_ids"])
    offsets = enc["offset_mapping"]

    def pos(s, e):
        return [i for i, (a, b) in enumerate(offsets) if b > a and a < e and b > s]

    own = pos(*span)
    masked = set(own)
    for r in also:
        masked.update(pos(*r))
    originals = list(ids)
    for i in masked:
        ids[i] = tok.mask_token_id
    with torch.no_grad():
        logp = torch.log_softmax(model(input_ids=torch.tensor([ids])).logits[0], -1)
    return [float(logp[i, originals[i]]) for i in own]
