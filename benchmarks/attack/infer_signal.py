"""Where an adaptive attacker finds the respondent state in sanitized court cases (issue #17).

The rounds benchmark (`spacy-sanitize attack --rounds`) shows an attacker retrained on the
sanitized text keeps about 0.80 accuracy whatever risk_infer removes. This benchmark asks
which part of the text carries that signal. The texts are masked by a pipeline (default:
`default`); then the attacker reads one *view* of them, in which the other tokens are gaps
(n-grams do not cross a gap, as for the words risk_infer removes):

- the text as written, and as masked;
- only stop words and placeholders: what risk_infer may never remove with `keep_stop_words`;
- only stop words; only content words (stop words and placeholders removed);
- the masked text with a random share of its tokens kept (the masking budget an attacker
  would still beat);
- the document length alone.

Each view is attacked by adaptive attackers, cross-fitted by document (5 folds, the folds of
`spacy-sanitize attack`): trained on the other folds' view, scored on the fold's. They are
the project's binary n-gram logistic regressions (`word:LOWER`, `char:LOWER`) and, with
`--embedding`, a logistic regression over all-MiniLM-L6-v2 document vectors (the mean of the
subword states of the project's windowed encoder, never truncated).

Usage:
  python benchmarks/attack/infer_signal.py ../shared/data/tab/tab_dev_texts.jsonl --embedding minilm \
      --output benchmarks/results/infer_signal.json
"""
import argparse
import re
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import srsly

ROOT = Path(__file__).resolve().parents[2]

from spacy_sanitize.decide.infer.attacker import accuracy_at_k, sequences_of, train_attacker, attr_nlp  # noqa: E402
from spacy_sanitize.training.adversarial import fold_indices  # noqa: E402

PLACEHOLDER = re.compile(r"\[([A-Z_]+)(?: ?\d+)?\]")
KEEP_FRACTIONS = (0.5, 0.25, 0.1, 0.05)
Seq = List[Optional[str]]


def rename_placeholders(text: str) -> str:
    """Each typed placeholder as one word (``[ORG]`` -> ``zzphorg``): a one-to-one renaming,
    so the attacker's features are the masked text's, and a view can tell placeholders apart."""
    return PLACEHOLDER.sub(lambda m: f" zzph{m.group(1).lower()} ", text)


def keep(seq: Sequence[str], test: Callable[[str], bool]) -> Seq:
    return [form if test(form) else None for form in seq]


def views_of(masked: List[List[str]], raw: List[List[str]], stop: set, seed: int) -> Dict[str, List[Seq]]:
    is_ph = lambda f: f.startswith("zzph")  # noqa: E731
    views: Dict[str, List[Seq]] = {
        "text as written": [list(s) for s in raw],
        "masked": [list(s) for s in masked],
        "masked: stop words and placeholders only": [keep(s, lambda f: f in stop or is_ph(f)) for s in masked],
        "masked: stop words only": [keep(s, lambda f: f in stop) for s in masked],
        "masked: content words only": [keep(s, lambda f: f not in stop and not is_ph(f)) for s in masked],
    }
    rng = np.random.default_rng(seed)
    for fraction in KEEP_FRACTIONS:
        views[f"masked: {fraction:.0%} of tokens kept at random"] = [[f if rng.random() < fraction else None for f in s] for s in masked]
    return views


def kept_share(view: List[Seq], masked: List[List[str]]) -> float:
    return sum(sum(f is not None for f in s) for s in view) / max(1, sum(len(s) for s in masked))


def cross_fit(
    n: int,
    labels: Sequence[str],
    parts: Sequence[np.ndarray],
    fold_of: np.ndarray,
    fit_predict: Callable[[np.ndarray, np.ndarray], Tuple[np.ndarray, List[str]]],
) -> Dict[str, float]:
    """Top-1 and top-3 accuracy of an attacker trained per fold on the other folds;
    ``fit_predict(train, test)`` returns (probabilities, classes) rows for ``test``."""
    top1: List[float] = []
    top3: List[float] = []
    for k, test in enumerate(parts):
        train = np.flatnonzero(fold_of != k)
        proba, classes = fit_predict(train, test)
        gold = [labels[i] for i in test]
        top1.append(accuracy_at_k(proba, classes, gold, 1) * len(test))
        top3.append(accuracy_at_k(proba, classes, gold, 3) * len(test))
    return {"accuracy": sum(top1) / n, "top3": sum(top3) / n}


def ngram_attack(view: List[Seq], labels: Sequence[str], parts, fold_of, analyzer: str):
    sizes = {"ngram_min": 3, "ngram_max": 5} if analyzer == "char" else {"ngram_min": 1, "ngram_max": 2}

    def fit_predict(train: np.ndarray, test: np.ndarray):
        attacker = train_attacker([view[i] for i in train], [labels[i] for i in train], analyzer=analyzer, **sizes)
        return np.stack([attacker.proba_seq(view[i]) for i in test]), list(attacker.classes)

    return cross_fit(len(view), labels, parts, fold_of, fit_predict)


def vector_attack(X: np.ndarray, labels: Sequence[str], parts, fold_of, C: float = 1.0):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    y = np.array(labels)

    def fit_predict(train: np.ndarray, test: np.ndarray):
        model = make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=5000)).fit(X[train], y[train])
        return model.predict_proba(X[test]), [str(c) for c in model.classes_]

    return cross_fit(len(X), labels, parts, fold_of, fit_predict)


def doc_vectors(encoder, texts: Sequence[str]) -> np.ndarray:
    """One vector per text: the mean of its subwords' hidden states, read by the project's
    windowed encoder (``lm.context.ContextEncoder``: overlapping windows, never truncated)."""
    rows = encoder.token_states_batch(list(texts))  # loads the model: encoder.dim is set
    return np.stack([states.mean(0) if len(states) else np.zeros(encoder.dim, dtype=np.float32) for states, _, _ in rows])


def text_of(seq: Seq) -> str:
    """A view as text for the encoder: kept words with spaces, a gap as a line break."""
    return " ".join(f if f is not None else "\n" for f in seq).replace(" \n ", "\n")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("texts", help="JSONL with text and the label (TAB texts: meta.countries)")
    parser.add_argument("--label-field", default="meta.countries")
    parser.add_argument("--pipeline", default="default", help="the masking pipeline")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--embedding", default=None, help="also a MiniLM-vector attacker: minilm, or an encoder path")
    parser.add_argument("--output", default=str(ROOT / "benchmarks/results/infer_signal.json"))
    args = parser.parse_args(argv)

    from spacy.lang.en.stop_words import STOP_WORDS

    from spacy_sanitize.pipeline import load_pipeline
    from spacy_sanitize.decide.infer.attacker import read_labeled

    _, texts, labels = read_labeled(args.texts, label_field=args.label_field)
    started = time.perf_counter()
    nlp = load_pipeline(args.pipeline)
    masked_texts = [doc._.sanitized for doc in nlp.pipe(texts, batch_size=8)]
    mask_seconds = time.perf_counter() - started
    tok = attr_nlp("LOWER")
    raw = sequences_of(texts, tok)
    masked = sequences_of([rename_placeholders(t) for t in masked_texts], tok)
    stop = {w.lower() for w in STOP_WORDS}
    parts, fold_of = fold_indices(len(texts), args.folds, args.seed)
    counts = {c: labels.count(c) for c in set(labels)}
    majority = max(counts.values()) / len(labels)

    rows = []
    encoder = None
    if args.embedding:
        from spacy_sanitize.lm.context import ContextEncoder

        encoder = ContextEncoder(args.embedding, batch_size=16)
    for name, view in views_of(masked, raw, stop, args.seed).items():
        row: Dict[str, object] = {"view": name, "tokens kept": round(kept_share(view, masked if name != "text as written" else raw), 4)}
        for analyzer in ("word", "char"):
            scores = ngram_attack(view, labels, parts, fold_of, analyzer)
            row[f"{analyzer}:LOWER accuracy"], row[f"{analyzer}:LOWER top-3"] = round(scores["accuracy"], 4), round(scores["top3"], 4)
        if encoder is not None and "random" not in name:
            scores = vector_attack(doc_vectors(encoder, [text_of(s) for s in view]), labels, parts, fold_of)
            row["MiniLM accuracy"], row["MiniLM top-3"] = round(scores["accuracy"], 4), round(scores["top3"], 4)
        rows.append(row)
        print(srsly.json_dumps(row), flush=True)
    lengths = np.log1p(np.array([[len(s)] for s in masked], dtype=float))
    scores = vector_attack(lengths, labels, parts, fold_of)
    rows.append({"view": "document length only", "length accuracy": round(scores["accuracy"], 4), "length top-3": round(scores["top3"], 4)})
    print(srsly.json_dumps(rows[-1]), flush=True)
    result = {
        "command": "python benchmarks/attack/infer_signal.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "documents": len(texts),
        "classes": counts,
        "majority_rate": round(majority, 4),
        "folds": args.folds,
        "pipeline": args.pipeline,
        "mask_seconds": round(mask_seconds, 1),
        "embedding": args.embedding,
        "rows": rows,
        "seconds": round(time.perf_counter() - started, 1),
    }
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(args.output, result)
    print(f"majority {majority:.3f}; wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
