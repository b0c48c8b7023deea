"""Detection scores of the default pipeline on the annotated Wikipedia biographies, with
and without pii_gazetteer, with noise-control settings chosen by 5-fold cross-validation
by document.

For each gazetteer (the shipped one, and optionally the larger benchmark list from
shared/data/gazetteer_sources/terms.jsonl) and each fold, the filter settings are chosen
on the four training folds (best DEM F1 for the DEM settings, best MISC F1 for the MISC
settings) and applied to the held-out fold; scores are computed on the pooled
out-of-fold predictions of all documents. The settings chosen most often across the
folds are reported as the ones to ship.

    python benchmarks/quality/gazetteer_eval.py ../shared/data/wiki/wiki_dev.json \
        --extra ../shared/data/gazetteer_sources/terms.jsonl --output benchmarks/results/gazetteer_eval.json
"""

import argparse
import itertools
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

from spacy_sanitize import load_pipeline
from spacy_sanitize.corpus.tab import load_tab
from spacy_sanitize.evaluation import Tokens, detection_scores
from spacy_sanitize.evaluation.folds import document_folds
from spacy_sanitize.spans import longest_non_overlapping

DEM_GRID = {"max_zipf": [4.0, 4.5, 5.0, 5.5, 6.0], "max_zipf_capitalized": [5.0, 5.5, 6.0, 7.0]}
MISC_GRID = {"max_zipf": [3.5, 4.0, 4.5, 5.0], "max_zipf_capitalized": [4.5, 5.0, 5.5, 6.0]}
LABELS = ("DEM", "MISC")

Triple = Tuple[int, int, str]


def folds(doc_ids: Sequence[str], k: int, seed: int) -> List[List[str]]:
    """The document ids of each fold (``evaluation.document_folds``)."""
    return [[doc_ids[i] for i in fold] for fold in document_folds(doc_ids, k, seed)]


def grid(options: Dict[str, List[float]]) -> List[Dict[str, float]]:
    names = sorted(options)
    return [dict(zip(names, values)) for values in itertools.product(*(options[n] for n in names))]


def raw_matches(gazetteer: Any, base_docs: Dict[str, Any]) -> Dict[str, Any]:
    """The gazetteer's and the deny list's raw matches per document: they do not depend on
    the filter settings, so one matching pass serves the whole grid."""
    return dict(zip(base_docs, gazetteer._find(list(base_docs.values()))))


def predict(
    gazetteer: Any, base_docs: Dict[str, Any], settings: Dict[str, Dict[str, float]], found: Dict[str, Any]
) -> Dict[str, List[Triple]]:
    """Triples of the pipeline without the gazetteer plus the gazetteer under ``settings``
    (``found``: ``raw_matches`` of the documents)."""
    gazetteer.set_filters({"all": {"min_chars": 3, "min_count": 0}, **settings})
    out: Dict[str, List[Triple]] = {}
    for doc_id, doc in base_docs.items():
        spans = longest_non_overlapping(list(doc.spans["pii"]), gazetteer._match(doc, found[doc_id])[0])
        out[doc_id] = [(s.start_char, s.end_char, s.label_) for s in spans]
    return out


def score(gold: List[Any], predictions: Dict[str, List[Triple]], tokens: Tokens) -> Dict[str, Any]:
    scores = detection_scores(gold, predictions, tokens=tokens)
    return {
        "DEM": scores.per_type.get("DEM", {}),
        "MISC": scores.per_type.get("MISC", {}),
        "micro_labelled": scores.micro_labelled,
        "micro_unlabelled": scores.micro_unlabelled,
        "per_type": scores.per_type,
    }


def cross_validate(
    gazetteer: Any,
    base_docs: Dict[str, Any],
    documents: List[Any],
    tokens: Tokens,
    k: int,
    seed: int,
) -> Dict[str, Any]:
    by_id = {d.doc_id: d for d in documents}
    found = raw_matches(gazetteer, base_docs)
    pooled: Dict[str, List[Triple]] = {}
    chosen: List[Dict[str, Dict[str, float]]] = []
    defaults = {"DEM": {"max_zipf": 5.0, "max_zipf_capitalized": 6.0}, "MISC": {"max_zipf": 4.5, "max_zipf_capitalized": 5.0}}
    for held_out in folds(list(by_id), k, seed):
        train = [by_id[i] for i in by_id if i not in held_out]
        train_docs = {d.doc_id: base_docs[d.doc_id] for d in train}
        best: Dict[str, Dict[str, float]] = {}
        for label, options in (("DEM", DEM_GRID), ("MISC", MISC_GRID)):
            best_f1, best_setting = -1.0, None
            for setting in grid(options):
                other = {**defaults, label: setting}
                f1 = score(train, predict(gazetteer, train_docs, other, found), tokens)[label].get(
                    "F1", 0.0
                )
                if f1 > best_f1:
                    best_f1, best_setting = f1, setting
            best[label] = best_setting  # type: ignore[assignment]
        chosen.append(best)
        held_docs = {i: base_docs[i] for i in held_out}
        pooled.update(predict(gazetteer, held_docs, best, found))
    votes = {
        label: Counter(json.dumps(c[label], sort_keys=True) for c in chosen).most_common(1)[0][0]
        for label in LABELS
    }
    return {
        "scores": score(documents, pooled, tokens),
        "chosen_per_fold": chosen,
        "majority_settings": {label: json.loads(v) for label, v in votes.items()},
    }


def component_throughput(
    gazetteer: Any, base_docs: Dict[str, Any], repeats: int = 5
) -> Dict[str, float]:
    """Tokens/s of the whole pii_gazetteer component (matching, noise control, merging into
    the span group, explanations) on copies of the documents; the best of ``repeats``."""
    docs = list(base_docs.values())
    n_tokens = sum(len(doc) for doc in docs)
    best = float("inf")
    for _ in range(repeats):
        copies = [doc.copy() for doc in docs]
        started = time.perf_counter()
        for doc in copies:
            gazetteer(doc)
        best = min(best, time.perf_counter() - started)
    return {"tokens": n_tokens, "tokens_per_s": n_tokens / best}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wiki", type=Path)
    parser.add_argument(
        "--extra", type=Path, default=None, help="a larger gazetteer JSONL to compare"
    )
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--output", type=Path, default=Path("benchmarks/results/gazetteer_eval.json")
    )
    args = parser.parse_args()

    documents = load_tab(args.wiki)
    nlp = load_pipeline("accurate")  # the ensemble detector the gazetteer settings were chosen in
    gazetteer = nlp.get_pipe("pii_gazetteer")
    tokens = Tokens()
    started = time.time()
    # Without pii_relabel (trained on these documents: its types would make every row in-sample).
    with nlp.select_pipes(disable=["pii_gazetteer", "pii_coref", "pii_relabel", "masker"]):
        base_docs = {
            d.doc_id: doc for d, doc in zip(documents, nlp.pipe(d.text for d in documents))
        }
    results: Dict[str, Any] = {"documents": len(documents), "folds": args.folds, "seed": args.seed}
    without = {
        i: [(s.start_char, s.end_char, s.label_) for s in doc.spans["pii"]]
        for i, doc in base_docs.items()
    }
    results["without_gazetteer"] = score(documents, without, tokens)
    results["shipped_gazetteer_config_defaults"] = score(
        documents, predict(gazetteer, base_docs, {"DEM": {}, "MISC": {}}, raw_matches(gazetteer, base_docs)), tokens
    )
    results["component_throughput"] = component_throughput(gazetteer, base_docs)
    results["shipped_gazetteer_cv"] = cross_validate(
        gazetteer, base_docs, documents, tokens, args.folds, args.seed
    )
    results["shipped_gazetteer_entries"] = len(gazetteer.matcher)
    if args.extra:
        gazetteer.initialize(gazetteer=str(args.extra))
        results["extra_gazetteer"] = str(args.extra)
        results["extra_gazetteer_entries"] = len(gazetteer.matcher)
        results["extra_gazetteer_cv"] = cross_validate(
            gazetteer, base_docs, documents, tokens, args.folds, args.seed
        )
    results["seconds"] = time.time() - started
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1))
    for name in ("without_gazetteer", "shipped_gazetteer_config_defaults"):
        print(name, _row(results[name]))
    for name in ("shipped_gazetteer_cv", "extra_gazetteer_cv"):
        if name in results:
            print(name, _row(results[name]["scores"]), results[name]["majority_settings"])


def _row(scores: Dict[str, Any]) -> str:
    parts = []
    for key in ("DEM", "MISC", "micro_labelled", "micro_unlabelled"):
        s = scores[key]
        parts.append(f"{key} P={s.get('P', 0):.3f} R={s.get('R', 0):.3f} F1={s.get('F1', 0):.3f}")
    return " | ".join(parts)


if __name__ == "__main__":
    main()
