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

from ..decide.infer.attacker import LinearAttacker, accuracy_at_k, attr_nlp, sequences_of, train_attacker
from ..decide.infer import RiskInfer
from ..decide.infer.search import build_problem, run_search

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
    from .adversarial import fold_indices

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
    for fold, test in enumerate(fold_indices(n, folds, seed)[0]):
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


# --- adversarial rounds: privacy per sanitization level ---------------------------------------

def _level_row(
    name: str,
    texts: Sequence[str],
    replacements: Optional[Sequence[Sequence[Sequence[Any]]]],
    labels: Sequence[str],
    folds: Sequence[np.ndarray],
    fixed: Sequence[Sequence[LinearAttacker]],
    adaptive: Sequence[Tuple[np.ndarray, List[str]]],
    factory: Any,
    k: int,
    tab: Optional[Tuple[Any, Sequence[str]]],
    extra: Optional[Dict[str, Any]] = None,
) -> Dict[str, Any]:
    """One sanitization level: the fixed attackers (fold k's raw-trained ensemble, the
    first one reported as *the* fixed attacker, each kind apart) and the adaptive attacker
    (trained on this level's text of the other folds) on the held-out folds."""
    from .adversarial import accuracy_of

    n = len(texts)
    by_kind: List[List[Tuple[np.ndarray, List[str]]]] = [[(np.zeros(0), [])] * n for _ in fixed[0]]
    for fold, test in enumerate(folds):
        for m, attacker in enumerate(fixed[fold]):
            for i, seq in zip(test, factory.sequences([texts[i] for i in test], attacker.attr)):
                by_kind[m][i] = (attacker.proba_seq(seq), list(attacker.classes))
    masked = [masked_token_fraction(t, r) for t, r in zip(texts, replacements)] if replacements is not None else [(0, 1)] * n
    row: Dict[str, Any] = {
        "level": name,
        "fixed_accuracy": accuracy_of(by_kind[0], labels),
        f"fixed_top{k}": accuracy_of(by_kind[0], labels, k),
        "fixed_accuracy_by_attacker": {f"{a.analyzer}:{a.attr}": accuracy_of(rows, labels) for a, rows in zip(fixed[0], by_kind)},
        "adaptive_accuracy": accuracy_of(adaptive, labels),
        f"adaptive_top{k}": accuracy_of(adaptive, labels, k),
        "masked_token_fraction": sum(m for m, _ in masked) / max(1, sum(t for _, t in masked)) if replacements is not None else 0.0,
    }
    if tab is not None and replacements is not None:
        from ..evaluation import Tokens, tab_scores

        gold, ids = tab
        predictions = {doc_id: [[int(r[0]), int(r[1])] for r in rows] for doc_id, rows in zip(ids, replacements)}
        scores = tab_scores([d for d in gold if d.doc_id in predictions], predictions, tokens=Tokens()).as_dict()
        row.update({"tab_P": scores["P"], "tab_R_all": scores["R_all"]})
    row.update(extra or {})
    return row


def run_rounds_benchmark(
    texts: Sequence[str],
    labels: Sequence[str],
    nlp: Language,
    *,
    doc_ids: Optional[Sequence[str]] = None,
    extra_texts: Sequence[str] = (),
    extra_labels: Sequence[str] = (),
    kinds: Sequence[str] = ("word:LOWER", "word:NORM", "char:LOWER"),
    adapt_kinds: Optional[Sequence[str]] = None,
    tv_bounds: Sequence[float] = (0.05,),
    rounds: int = 2,
    folds: int = 5,
    seed: int = 0,
    k: int = 3,
    attacker_params: Optional[Dict[str, Any]] = None,
    tab_gold_path: Optional[str] = None,
    infer_name: str = "risk_infer",
    docs: Optional[Sequence[Doc]] = None,
    criterion: str = "guess",
    progress: Callable[[str], None] = lambda message: None,
) -> Dict[str, Any]:
    """Privacy and utility per sanitization level, by CV (folds by document): the text as
    written, the pipeline's masking, and risk_infer (``criterion``: prior or guess) at each
    ``tv_bound`` and adversarial round (``training.adversarial``). Per level: the fixed
    and adaptive attackers' accuracy and top-k, the fraction of word tokens masked and,
    with ``tab_gold_path`` (TAB gold of the same documents, matched by ``doc_ids``), the
    TAB P and R_all of the masking. ``docs``: the documents already run through ``nlp``
    without risk_infer (else they are run here)."""
    from .adversarial import AttackerFactory, adaptive_attack, adversarial_rounds, fold_indices

    started = time.perf_counter()
    labels = [str(x) for x in labels]
    infer: RiskInfer = nlp.get_pipe(infer_name)
    masker = nlp.get_pipe("masker")
    factory = AttackerFactory(kinds, nlp.lang, **dict(attacker_params or {}))
    if docs is None:
        progress(f"running the pipeline on {len(texts)} documents")
        with nlp.select_pipes(disable=[infer_name]):
            docs = list(nlp.pipe(texts, batch_size=8))
    n = len(docs)
    parts, fold_of = fold_indices(n, folds, seed)
    tab = None
    if tab_gold_path:
        from ..corpus.tab import load_tab

        tab = (load_tab(tab_gold_path), list(doc_ids or [str(i) for i in range(n)]))
    progress("training the fixed attackers")
    fixed = [factory.train([texts[i] for i in np.flatnonzero(fold_of != f)] + list(extra_texts), [labels[i] for i in np.flatnonzero(fold_of != f)] + list(extra_labels)) for f in range(folds)]
    majority = 0
    for fold, test in enumerate(parts):
        train_labels = [labels[i] for i in np.flatnonzero(fold_of != fold)] + list(extra_labels)
        top = max(set(train_labels), key=train_labels.count)
        majority += sum(labels[i] == top for i in test)

    raw_texts = [d.text for d in docs]
    b_texts = [d._.sanitized for d in docs]
    b_rows = [[list(r) for r in d._.replacements or []] for d in docs]
    levels = [
        _level_row("raw", raw_texts, None, labels, parts, fixed, adaptive_attack(factory, raw_texts, labels, parts, fold_of, factory.kinds[0])[0], factory, k, None),
        _level_row("masking", b_texts, b_rows, labels, parts, fixed, adaptive_attack(factory, b_texts, labels, parts, fold_of, factory.kinds[0])[0], factory, k, tab),
    ]
    traces: Dict[str, Any] = {}
    saved = (infer.criterion, infer.tv_bound, list(infer.attackers))
    infer.criterion = criterion
    try:
        for bound in tv_bounds:
            infer.tv_bound = float(bound)
            progress(f"adversarial rounds at tv_bound {bound}")
            result = adversarial_rounds(
                docs, labels, infer, masker, factory, folds=folds, seed=seed, rounds=rounds,
                extra_texts=extra_texts, extra_labels=extra_labels, adapt_kinds=adapt_kinds, initial=fixed, progress=progress,
            )
            traces[str(bound)] = {"stopped": result.stopped, "trace": result.trace}
            for round_, (sanitized, adaptive) in enumerate(zip(result.sanitized, result.adaptive)):
                reports = sanitized.reports
                extra = {
                    "tv_bound": float(bound),
                    "round": round_,
                    "n_attackers": len(result.ensembles[round_][0]),
                    "success_rate": float(np.mean([r.get("success", False) for r in reports])),
                    "mean_removed_tokens": float(np.mean([r.get("n_removed_tokens", 0) for r in reports])),
                    "mean_seconds": float(np.mean([r.get("seconds", 0.0) for r in reports])),
                }
                levels.append(_level_row(f"risk_infer {criterion} tv<={bound} round {round_}", sanitized.texts, sanitized.replacements, labels, parts, fixed, adaptive, factory, k, tab, extra))
                progress(json_line(levels[-1]))
    finally:
        infer.criterion, infer.tv_bound = saved[0], saved[1]
        infer.attackers = saved[2]
    return {
        "n_docs": n,
        "n_extra_train": len(extra_texts),
        "folds": folds,
        "seed": seed,
        "kinds": list(kinds),
        "adapt_kinds": list(adapt_kinds or kinds),
        "rounds": rounds,
        "criterion": criterion,
        "tv_bounds": [float(b) for b in tv_bounds],
        "classes_in_data": dict(sorted({c: labels.count(c) for c in set(labels)}.items(), key=lambda item: -item[1])),
        "majority_class_rate": majority / n,
        "levels": levels,
        "rounds_trace": traces,
        "seconds": time.perf_counter() - started,
    }


def json_line(row: Dict[str, Any]) -> str:
    keys = ("level", "fixed_accuracy", "adaptive_accuracy", "masked_token_fraction", "tab_P")
    return " ".join(f"{key}={row[key]:.3f}" if isinstance(row.get(key), float) else f"{key}={row.get(key)}" for key in keys)


def plot_levels(result: Dict[str, Any], path: str) -> None:
    """The privacy-utility curve: attacker accuracy against the fraction of tokens masked,
    one point per level, the majority rate as a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    levels = result["levels"]
    x = [row["masked_token_fraction"] for row in levels]
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    ax.plot(x, [row["fixed_accuracy"] for row in levels], "o-", label="fixed attacker")
    ax.plot(x, [row["adaptive_accuracy"] for row in levels], "s--", label="adaptive attacker")
    for row, xi in zip(levels, x):
        ax.annotate(row["level"].replace("risk_infer ", ""), (xi, row["adaptive_accuracy"]), fontsize=6, xytext=(3, -8), textcoords="offset points")
    majority = result["majority_class_rate"]
    ax.axhline(majority, color="grey", lw=0.8, ls=":", label=f"majority class ({majority:.3f})")
    ax.axhspan(majority, majority + 0.05, color="grey", alpha=0.12, label="target (majority + 0.05)")
    ax.set_xlabel("fraction of word tokens masked")
    ax.set_ylabel("attacker accuracy (respondent state)")
    ax.set_title("risk_infer: privacy against masking (TAB dev, 5-fold CV)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
