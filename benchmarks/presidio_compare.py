"""spacy-sanitize against Microsoft Presidio on the annotated Wikipedia biographies: TAB
masking metrics (mask everything each system detects, or what our risk pipeline decides),
token-level detection P/R/F1 (unlabelled: Presidio's types do not map one to one onto
TAB's) and speed, on the same texts and the same spaCy model (en_core_web_sm) under both.

Presidio is not a dependency of this project: install it next to it for this benchmark,
without letting it change spaCy's own packages, e.g.

    pip install --no-deps --target /tmp/presidio_pkgs presidio-analyzer phonenumbers tldextract requests-file
    PYTHONPATH=/tmp/presidio_pkgs python benchmarks/presidio_compare.py [--pipelines default risk_seq]

Presidio runs with its default recognizers and an `en_core_web_sm` NLP engine, keeping every
result (score threshold 0, its default) or only those above ``--presidio-threshold``.
"""
import argparse
import time
from pathlib import Path
from typing import Dict, List

import srsly

from spacy_sanitize import load_pipeline
from spacy_sanitize.corpus import load_tab, wiki_dev_path
from spacy_sanitize.evaluation import MASKING_KEYS, Tokens, detected_triples, detection_scores, predicted_mask_offsets, tab_scores
from spacy_sanitize.models import english_model_name

DEFAULT_WIKI = wiki_dev_path()
KEYS = MASKING_KEYS


def make_analyzer():  # type: ignore[no-untyped-def]
    """Presidio's analyzer with its default recognizers and our English spaCy model."""
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    provider = NlpEngineProvider(nlp_configuration={"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": english_model_name()}]})
    return AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])


def presidio_spans(analyzer, texts: List[str], threshold: float) -> List[List[list]]:  # type: ignore[no-untyped-def]
    out = []
    for text in texts:
        results = analyzer.analyze(text=text, language="en")
        out.append([[r.start, r.end, r.entity_type] for r in results if r.score >= threshold])
    return out


def row(gold, tokens, masked: Dict[str, list], detected: Dict[str, list], seconds: float) -> Dict:
    scores = tab_scores(gold, masked, tokens=tokens).as_dict()
    detection = detection_scores(gold, detected, tokens=tokens).as_dict()
    return {
        "masking": {k: round(scores[k], 3) for k in KEYS},
        "detection_unlabelled": {k: round(v, 3) for k, v in detection["micro_unlabelled"].items() if k in ("P", "R", "F1")},
        "docs_per_s": round(len(gold) / seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wiki", type=Path, default=DEFAULT_WIKI)
    # Only pipelines whose masking owes nothing to these documents: the shipped risk models
    # were trained on all 70 biographies (cross-validated figures in docs/risk_*.md). The
    # default pipeline's pii_relabel was too, but it only changes span types, which neither
    # the masking scores nor the unlabelled detection scores below read.
    parser.add_argument("--pipelines", nargs="+", default=["default"])
    parser.add_argument("--presidio-threshold", type=float, default=0.0)
    parser.add_argument("--output", type=Path, default=Path(__file__).parent / "results" / "presidio_compare.json")
    args = parser.parse_args()
    gold = load_tab(args.wiki)
    texts = [d.text for d in gold]
    tokens = Tokens()
    results: Dict[str, Dict] = {}

    analyzer = make_analyzer()  # model loading is not timed
    presidio_spans(analyzer, texts[:2], args.presidio_threshold)  # warm-up
    start = time.perf_counter()
    found = presidio_spans(analyzer, texts, args.presidio_threshold)
    seconds = time.perf_counter() - start
    detected = {d.doc_id: spans for d, spans in zip(gold, found)}
    masked = {d.doc_id: [s[:2] for s in spans] for d, spans in zip(gold, found)}
    results[f"Presidio (threshold {args.presidio_threshold})"] = row(gold, tokens, masked, detected, seconds)

    for name in args.pipelines:
        nlp = load_pipeline(name)
        list(nlp.pipe(texts[:2]))  # warm-up
        start = time.perf_counter()
        docs = list(nlp.pipe(texts))
        seconds = time.perf_counter() - start
        masked = {d.doc_id: predicted_mask_offsets(doc) for d, doc in zip(gold, docs)}
        detected = {d.doc_id: detected_triples(doc) for d, doc in zip(gold, docs)}
        results[f"spacy-sanitize {name}"] = row(gold, tokens, masked, detected, seconds)

    print("| system | " + " | ".join(KEYS) + " | detection P/R/F1 | docs/s |\n|---|" + "---|" * (len(KEYS) + 2))
    for system, r in results.items():
        d = r["detection_unlabelled"]
        print(f"| {system} | " + " | ".join(f"{r['masking'][k]:.3f}" for k in KEYS) + f" | {d['P']:.2f}/{d['R']:.2f}/{d['F1']:.2f} | {r['docs_per_s']} |")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(args.output, {"documents": len(gold), "results": results})


if __name__ == "__main__":
    main()
