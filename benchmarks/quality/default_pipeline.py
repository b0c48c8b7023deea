"""End-to-end TAB metrics of detection + masking of everything detected, on the annotated
Wikipedia biographies, for each stage of a pipeline (and the plain generic NER when it has one).

    python benchmarks/quality/default_pipeline.py [--pipeline default] [--wiki PATH] [--output benchmarks/results/default_pipeline.json]
"""
import argparse
import time
from pathlib import Path

import srsly

from spacy_sanitize import load_pipeline
from spacy_sanitize.corpus import load_tab, wiki_dev_path
from spacy_sanitize.evaluation import MASKING_KEYS, Tokens, detected_triples, detection_scores, predicted_mask_offsets, tab_scores

DEFAULT_WIKI = wiki_dev_path()
KEYS = MASKING_KEYS


def run(wiki: Path, pipeline: str = "strict") -> dict:
    gold = load_tab(wiki)
    texts = [d.text for d in gold]
    tokens = Tokens()
    full = load_pipeline(pipeline)
    variants = {"plain NER (all labels)": ["ner"]} if "ner" in full.pipe_names else {}
    stages = [name for name in full.pipe_names if name.startswith("pii_") or name == "masker"]
    for i in range(1, len(stages) + 1):
        variants[" + ".join(stages[:i])] = stages[:i]
    results = {}
    for variant, enabled in variants.items():
        start = time.perf_counter()
        docs = list(full.pipe(texts, disable=[n for n in stages if n not in enabled]))
        seconds = time.perf_counter() - start
        if enabled == ["ner"]:
            masked = {d.doc_id: [[e.start_char, e.end_char] for e in doc.ents] for d, doc in zip(gold, docs)}
            detected = {d.doc_id: [[e.start_char, e.end_char, e.label_] for e in doc.ents] for d, doc in zip(gold, docs)}
        else:
            masked = {d.doc_id: predicted_mask_offsets(doc) for d, doc in zip(gold, docs)}
            detected = {d.doc_id: detected_triples(doc) for d, doc in zip(gold, docs)}
        scores = tab_scores(gold, masked, tokens=tokens).as_dict()
        results[variant] = {
            "masking": {k: round(scores[k], 3) for k in KEYS},
            "detection": detection_scores(gold, detected, tokens=tokens).as_dict() if enabled != ["ner"] else None,
            "docs_per_s": round(len(texts) / seconds, 1),
        }
        print(f"| {variant} | " + " | ".join(f"{scores[k]:.3f}" for k in KEYS) + f" | {len(texts) / seconds:.1f} |")
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--pipeline", default="strict", help="strict: the fast detector, everything masked (the default pipeline's detection stage)")
    parser.add_argument("--wiki", type=Path, default=DEFAULT_WIKI)
    parser.add_argument("--output", type=Path, default=Path(__file__).parents[1] / "results" / "default_pipeline.json")
    args = parser.parse_args()
    print("| pipeline | " + " | ".join(KEYS) + " | docs/s |\n|---|" + "---|" * (len(KEYS) + 1))
    results = run(args.wiki, args.pipeline)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(args.output, results)
