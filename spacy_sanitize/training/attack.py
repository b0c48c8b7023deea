"""Attribute-inference attack benchmark for risk_infer.

Cross-validated by document: on each fold an attacker is trained on the other folds (plus
optional extra labelled texts), then it guesses the attribute of the held-out documents

(a) as written, (b) after the pipeline's masking (``doc._.sanitized``), (c) after masking
plus ``risk_infer`` (whose attacker is the fold's attacker),

reported as accuracy and top-k accuracy against the majority-class rate. An *adaptive*
attacker, retrained on the training folds as masked by the pipeline, is scored on (b) and
(c) too. The cost in utility is the fraction of word tokens masked and, with TAB gold data,
the TAB precision/recall with and without risk_infer. Exact, greedy and beam search are
compared (same threshold) on short snippets of the held-out documents.
"""
import logging
import re
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc

from ..risk.infer.attacker import LinearAttacker, accuracy_at_k, attr_nlp, sequences_of, train_attacker
from ..risk.infer import RiskInfer
from ..risk.infer.search import build_problem, run_search

logger = logging.getLogger(__name__)
WORD = re.compile(r"\w+")
FACTS_HEADINGS = ("THE CIRCUMSTANCES OF THE CASE", "THE FACTS")


def masked_token_fraction(text: str, replacements: Sequence[Sequence[Any]]) -> Tuple[int, int]:
    """(masked, total) word tokens (``\\w+``) of ``text``; a token is masked when it lies
    inside a replaced region."""
    covered = np.zeros(len(text) + 1, dtype=bool)
    for row in replacements:
        covered[int(row[0]) : int(row[1])] = True
    spans = [m.span() for m in WORD.finditer(text)]
    return sum(bool(covered[s:e].all()) for s, e in spans), len(spans)


def short_snippet(text: str, chars: int = 300, section: str = "start") -> str:
    """A short piece of a case, cut at a word boundary: its start (``start``: the opening
    sentence names the state) or the start of its facts section (``facts``)."""
    start = 0
    for heading in FACTS_HEADINGS if section == "facts" else ():
        found = text.find(heading)
        if found >= 0:
            start = found + len(heading)
            break
    piece = text[start : start + chars + 1]
    if len(piece) > chars:
        piece = piece[:chars].rsplit(" ", 1)[0]
    return piece.strip()


def _fold_indices(n: int, folds: int, seed: int) -> List[np.ndarray]:
    order = np.random.default_rng(seed).permutation(n)
    return [np.sort(order[f::folds]) for f in range(folds)]


def run_attack_benchmark(
    texts: Sequence[str],
    labels: Sequence[str],
    nlp: Language,
    *,
    extra_texts: Sequence[str] = (),
    extra_labels: Sequence[str] = (),
    folds: int = 5,
    seed: int = 0,
    k: int = 3,
    infer_name: str = "risk_infer",
    attacker_params: Optional[Dict[str, Any]] = None,
    gold_path: Optional[str] = None,
    compare_searches: bool = True,
    snippet_chars: int = 300,
    search_params: Optional[Dict[str, Dict[str, Any]]] = None,
    progress: Callable[[str], None] = lambda message: None,
) -> Dict[str, Any]:
    """Run the benchmark; ``nlp`` must contain a ``masker`` and the risk_infer component
    ``infer_name`` (its settings, threshold included, are used as they are)."""
    attacker_params = dict(attacker_params or {})
    infer: RiskInfer = nlp.get_pipe(infer_name)
    masker = nlp.get_pipe("masker")
    attr = attacker_params.get("attr", "LOWER")
    tokenizer = attr_nlp(attr, nlp.lang)
    labels = [str(x) for x in labels]
    started = time.perf_counter()
    raw_seqs = sequences_of(texts, tokenizer, attr)
    extra_seqs = sequences_of(extra_texts, tokenizer, attr) if len(extra_texts) else []
    progress(f"running the pipeline on {len(texts)} documents")
    t0 = time.perf_counter()
    with nlp.select_pipes(disable=[infer_name]):
        docs: List[Doc] = list(nlp.pipe(texts, batch_size=8))
    pipeline_seconds = time.perf_counter() - t0
    sanitized_b = [doc._.sanitized for doc in docs]
    masked_b = [masked_token_fraction(doc.text, doc._.replacements or []) for doc in docs]
    seqs_b = sequences_of(sanitized_b, tokenizer, attr)
    n = len(texts)
    proba: Dict[str, List[Tuple[np.ndarray, np.ndarray, List[str]]]] = {key: [] for key in ("a", "b", "c", "adaptive_b", "adaptive_c")}
    majority_hits = 0
    sanitized_c: List[Optional[str]] = [None] * n
    masked_c: List[Tuple[int, int]] = [(0, 0)] * n
    infer_reports: List[Dict[str, Any]] = []
    comparisons: List[Dict[str, Any]] = []
    infer_seconds = 0.0
    for fold, test in enumerate(_fold_indices(n, folds, seed)):
        train = np.setdiff1d(np.arange(n), test)
        train_labels = [labels[i] for i in train] + list(extra_labels)
        attacker = train_attacker([raw_seqs[i] for i in train] + list(extra_seqs), train_labels, **attacker_params)
        adaptive = train_attacker([seqs_b[i] for i in train], [labels[i] for i in train], **attacker_params)
        majority = max(set(train_labels), key=train_labels.count)
        majority_hits += sum(labels[i] == majority for i in test)
        infer.attacker = attacker
        t0 = time.perf_counter()
        for i in test:
            masker(infer(docs[i]))
            sanitized_c[i] = docs[i]._.sanitized
            masked_c[i] = masked_token_fraction(docs[i].text, docs[i]._.replacements or [])
            infer_reports.append(dict(docs[i]._.risk_infer))
        infer_seconds += time.perf_counter() - t0
        seqs_c = sequences_of([sanitized_c[i] for i in test], tokenizer, attr)  # type: ignore[misc]
        for key, model, seqs in (
            ("a", attacker, [raw_seqs[i] for i in test]),
            ("b", attacker, [seqs_b[i] for i in test]),
            ("c", attacker, seqs_c),
            ("adaptive_b", adaptive, [seqs_b[i] for i in test]),
            ("adaptive_c", adaptive, seqs_c),
        ):
            proba[key].append((test, np.array([model.proba_seq(s) for s in seqs]), model.classes))
        if compare_searches:
            comparisons += compare_on_snippets(attacker, [texts[i] for i in test], tokenizer, infer.threshold, snippet_chars, search_params)
        progress(f"fold {fold + 1}/{folds} done")
    result: Dict[str, Any] = {
        "n_docs": n,
        "n_extra_train": len(extra_texts),
        "folds": folds,
        "seed": seed,
        "threshold": infer.threshold,
        "search": infer.search,
        "classes_in_data": dict(sorted({c: labels.count(c) for c in set(labels)}.items(), key=lambda item: -item[1])),
        "majority_class_rate": majority_hits / n,
        "attack": {},
        "utility": {
            "masked_token_fraction_b": sum(m for m, _ in masked_b) / max(1, sum(t for _, t in masked_b)),
            "masked_token_fraction_c": sum(m for m, _ in masked_c) / max(1, sum(t for _, t in masked_c)),
        },
        "risk_infer": summarize_reports(infer_reports),
        "seconds": {"pipeline": pipeline_seconds, "risk_infer": infer_seconds, "total": 0.0},
    }
    for key, rows in proba.items():
        hits1 = hitsk = confident = p_true = p_max = 0.0
        for test, p, classes in rows:
            gold = [labels[i] for i in test]
            hits1 += accuracy_at_k(p, classes, gold, 1) * len(test)
            hitsk += accuracy_at_k(p, classes, gold, k) * len(test)
            true = np.array([p[j, classes.index(g)] if g in classes else 0.0 for j, g in enumerate(gold)])
            right = np.array([classes[int(np.argmax(row))] == g for row, g in zip(p, gold)])
            confident += float(np.sum(right & (p.max(axis=1) >= infer.threshold)))
            p_true += float(true.sum())
            p_max += float(p.max(axis=1).sum())
        result["attack"][key] = {
            "accuracy": hits1 / n,
            f"top{k}": hitsk / n,
            "confident_accuracy": confident / n,
            "mean_p_true": p_true / n,
            "mean_p_max": p_max / n,
        }
    if comparisons:
        result["search_comparison"] = summarize_comparisons(comparisons)
    if gold_path:
        progress("TAB scores on the gold data")
        attacker = train_attacker(list(raw_seqs) + list(extra_seqs), labels + list(extra_labels), **attacker_params)
        result["gold"] = gold_scores(gold_path, nlp, infer, attacker)
    result["seconds"]["total"] = time.perf_counter() - started
    return result


def summarize_reports(reports: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    if not reports:
        return {}
    return {
        "docs": len(reports),
        "above_threshold_before": float(np.mean([r["p_max_before"] >= r["threshold"] for r in reports])),
        "success_rate": float(np.mean([r["success"] for r in reports])),
        "mean_p_max_before": float(np.mean([r["p_max_before"] for r in reports])),
        "mean_p_max_after": float(np.mean([r["p_max_after"] for r in reports])),
        "mean_removed_tokens": float(np.mean([r["n_removed_tokens"] for r in reports])),
        "mean_removed_words": float(np.mean([len(r["removed_words"]) for r in reports])),
        "mean_seconds": float(np.mean([r["seconds"] for r in reports])),
        "examples_removed_words": [r["removed_words"][:12] for r in reports[:5]],
    }


def compare_on_snippets(
    attacker: LinearAttacker,
    texts: Sequence[str],
    tokenizer: Language,
    threshold: float,
    chars: int = 300,
    search_params: Optional[Dict[str, Dict[str, Any]]] = None,
) -> List[Dict[str, Any]]:
    """Exact, greedy and beam search on the same short snippets (raw text)."""
    params = {"exact": {"max_m": 4, "budget": 200_000}, "greedy": {}, "beam": {"beam_width": 5}}
    params.update(search_params or {})
    rows = []
    for text in texts:
        snippet = short_snippet(text, chars)
        seq = sequences_of([snippet], tokenizer, attacker.attr)[0]
        problem = build_problem(attacker, seq, [True] * len(seq))
        if float(np.max(problem.proba())) < threshold:
            continue
        row: Dict[str, Any] = {"n_units": len(problem.units)}
        for search in ("exact", "greedy", "beam"):
            res = run_search(problem, threshold, search, **params[search])
            row[search] = {"success": res.success, "p_after": res.p_after, "removed": len(res.removed), "seconds": res.seconds, "reason": res.reason, "p_before": res.p_before}
        rows.append(row)
    return rows


def summarize_comparisons(rows: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    out: Dict[str, Any] = {"snippets": len(rows), "mean_units": float(np.mean([r["n_units"] for r in rows]))}
    solved = [r for r in rows if r["exact"]["success"]]
    for search in ("exact", "greedy", "beam"):
        out[search] = {
            "success_rate": float(np.mean([r[search]["success"] for r in rows])),
            "mean_p_after": float(np.mean([r[search]["p_after"] for r in rows])),
            "mean_removed": float(np.mean([r[search]["removed"] for r in rows])),
            "mean_seconds": float(np.mean([r[search]["seconds"] for r in rows])),
            "max_seconds": float(np.max([r[search]["seconds"] for r in rows])),
        }
        if solved and search != "exact":
            out[search]["on_exact_solved"] = {
                "n": len(solved),
                "success_rate": float(np.mean([r[search]["success"] for r in solved])),
                "mean_extra_words": float(np.mean([r[search]["removed"] - r["exact"]["removed"] for r in solved if r[search]["success"]] or [0.0])),
            }
    out["exact_failure_reasons"] = {reason: sum(r["exact"]["reason"] == reason for r in rows) for reason in {r["exact"]["reason"] for r in rows}}
    return out


def gold_scores(gold_path: str, nlp: Language, infer: RiskInfer, attacker: LinearAttacker) -> Dict[str, Any]:
    """TAB metrics of the pipeline's masking with and without risk_infer on gold data."""
    from ..corpus.tab import load_tab
    from ..evaluation import Tokens, predicted_mask_offsets, tab_scores

    gold = load_tab(gold_path)
    with nlp.select_pipes(disable=[infer.name]):
        docs = list(nlp.pipe([d.text for d in gold], batch_size=8))
    before = {d.doc_id: [list(x) for x in predicted_mask_offsets(doc)] for d, doc in zip(gold, docs)}
    infer.attacker = attacker
    masker = nlp.get_pipe("masker")
    reports = []
    for doc in docs:
        masker(infer(doc))
        reports.append(dict(doc._.risk_infer))
    after = {d.doc_id: [list(x) for x in predicted_mask_offsets(doc)] for d, doc in zip(gold, docs)}
    tokens = Tokens()
    keys = ("P", "R_all", "F1", "R_ent", "R_direct", "R_quasi")
    b = tab_scores(gold, before, tokens=tokens).as_dict()
    c = tab_scores(gold, after, tokens=tokens).as_dict()
    return {"path": str(gold_path), "n_docs": len(gold), "b": {key: b[key] for key in keys}, "c": {key: c[key] for key in keys}, "risk_infer": summarize_reports(reports)}
