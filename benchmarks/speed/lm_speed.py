"""Span-scoring speed: the batched HF scorer (many spans of many documents per forward pass)
versus a naive loop of one span per forward pass (same windows), on the annotated
biographies (gold spans) and on long TAB court texts (spans: capitalised words and numbers,
a stand-in for detected PII), plus the frequency scorer.

    python benchmarks/speed/lm_speed.py --model minilm_mlm --output benchmarks/results/lm_speed.json
"""
import argparse
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Dict

import srsly

from spacy_sanitize.corpus import shared_data_dir, tab, wiki_dev_path
from spacy_sanitize.lm import FrequencyScorer, HFMaskedLMScorer, SpanQuery

CANDIDATE = re.compile(r"\b(?:[A-Z][a-z]+(?: [A-Z][a-z]+)*|\d[\d/.-]*)\b")


def run(scorer, texts, queries, naive: bool) -> Dict[str, Any]:
    n_spans = sum(len(q) for q in queries)
    t0 = time.time()
    if naive:
        for text, qs in zip(texts, queries):
            for q in qs:
                scorer.score([text], [[q]])
    else:
        scorer.score(texts, queries)
    dt = time.time() - t0
    tokens = getattr(scorer, "stats", {}).get("tokens", 0)
    return {"spans": n_spans, "seconds": round(dt, 2), "spans_per_s": round(n_spans / dt, 1), "tokens_per_s": round(tokens / dt, 1) if tokens else None}


def main() -> None:
    data = shared_data_dir()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="minilm_mlm")
    parser.add_argument("--wiki", default=str(wiki_dev_path()))
    parser.add_argument("--tab", default=f"{data}/tab/tab_dev_texts.jsonl")
    parser.add_argument("--wiki-spans", type=int, default=200)
    parser.add_argument("--tab-spans", type=int, default=100)
    parser.add_argument("--window", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--output", default="benchmarks/results/lm_speed.json")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    sets: Dict[str, Any] = {}
    texts, queries, left = [], [], args.wiki_spans
    for doc in tab.load_tab(args.wiki):
        mentions = sorted({(m.start, m.end) for ms in doc.annotations.values() for m in ms})[:left]
        if mentions:
            texts.append(doc.text)
            queries.append([SpanQuery(s, e) for s, e in mentions])
            left -= len(mentions)
        if left <= 0:
            break
    sets["wiki_dev"] = (texts, queries)
    rows = sorted(srsly.read_jsonl(args.tab), key=lambda r: -len(r["text"]))[:2]
    per_doc = args.tab_spans // 2
    sets["tab_long"] = ([r["text"] for r in rows], [[SpanQuery(*m.span()) for m in CANDIDATE.finditer(r["text"])][:: 7][:per_doc] for r in rows])
    # the ratio moves with the machine's load: record it
    results: Dict[str, Any] = {"model": args.model, "window": args.window, "batch_size": args.batch_size, "threads": args.threads,
                               "load_average_before": [round(x, 2) for x in os.getloadavg()]}
    for name, (texts, queries) in sets.items():
        entry: Dict[str, Any] = {"docs": len(texts), "chars": sum(len(t) for t in texts)}
        warm = HFMaskedLMScorer(args.model, window=args.window, batch_size=args.batch_size)
        warm.score(texts[:1], [queries[0][:2]])  # load the model outside the timing
        for label, naive, bs in (("batched", False, args.batch_size), ("naive_one_span_per_pass", True, 1)):
            scorer = HFMaskedLMScorer(args.model, window=args.window, batch_size=bs)
            scorer._tokenizer, scorer._model = warm._tokenizer, warm._model
            scorer.window = warm.window
            entry[label] = dict(run(scorer, texts, queries, naive), forward_passes=scorer.stats["forward_passes"])
        # from the times, not the rounded rates (5.6 / 0.7 spans/s read 8.0x for a 7.58x run)
        entry["speedup"] = round(entry["naive_one_span_per_pass"]["seconds"] / entry["batched"]["seconds"], 2)
        entry["frequency"] = run(FrequencyScorer(), texts, queries, naive=False)
        results[name] = entry
        print(name, entry, file=sys.stderr)
    results["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(args.output, results)


if __name__ == "__main__":
    main()
