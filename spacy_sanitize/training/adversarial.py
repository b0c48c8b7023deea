"""Adversarial rounds for risk_infer, cross-fitted by fold.

The defender's attackers of round 0 are trained on the raw text. In each later round the
attackers an adversary would train on the sanitized text join the ensemble:

- the documents are split into folds; fold k is always sanitized by an ensemble trained
  on the other folds only;
- after round r, fold k's new attackers are trained on the round-r SANITIZED text of the
  other folds (never on fold k, the text they will sanitize), and added to fold k's
  ensemble for round r + 1;
- the rounds stop when the adaptive attacker of the last round (the same attackers, scored
  on the held-out fold) is no better than ``target`` (e.g. the majority rate + 0.05), or
  after ``rounds``.

Every training set is recorded by its fold ids (``RoundsResult.trace``) so that the
cross-fitting can be checked. The ensemble to ship is trained on all folds: the raw
attackers on every document, and one adapted set per round on the cross-fitted sanitized
text of every fold (``final_attackers``).
"""
import logging
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc

from ..errors import Errors
from ..decide.infer import RiskInfer, parse_kind
from ..decide.infer.attacker import LinearAttacker, accuracy_at_k, attr_nlp, gram_set, kind_sizes, sequences_of, train_attacker

logger = logging.getLogger(__name__)

Kind = Tuple[str, str]  # (analyzer, attr)


def fold_indices(n: int, folds: int, seed: int = 0) -> Tuple[List[np.ndarray], np.ndarray]:
    """Documents split into ``folds`` folds (by document): the document indices of each fold,
    and the fold of each document; ``evaluation.document_folds`` with its numpy generator
    permutation (the committed attack tables were made with it)."""
    from ..evaluation.folds import document_folds, index_ids

    parts = [np.asarray(part, dtype=np.int64) for part in document_folds(index_ids(n), folds, seed, permutation="numpy-generator")]
    fold_of = np.empty(n, dtype=np.int64)
    for k, part in enumerate(parts):
        fold_of[part] = k
    return parts, fold_of


@dataclass
class Sanitized:
    """One sanitization of every document: text, replacements, risk_infer reports."""

    texts: List[str]
    replacements: List[List[Any]]
    reports: List[Dict[str, Any]]


@dataclass
class RoundsResult:
    """sanitized[r]: the round-r sanitization (cross-fitted: document i by its fold's
    ensemble of that round). ensembles[r][k]: fold k's ensemble of round r. adaptive[r]:
    per document, the probabilities of the attacker trained on the round-r sanitized text
    of the other folds (and its classes). trace: one row per training (round, fold,
    purpose, folds of the texts trained on, fold sanitized with it)."""

    folds: List[np.ndarray]
    sanitized: List[Sanitized] = field(default_factory=list)
    ensembles: List[List[List[LinearAttacker]]] = field(default_factory=list)
    adaptive: List[List[Tuple[np.ndarray, List[str]]]] = field(default_factory=list)
    trace: List[Dict[str, Any]] = field(default_factory=list)
    final_attackers: List[LinearAttacker] = field(default_factory=list)
    stopped: str = "rounds"


class AttackerFactory:
    """Trains the attackers of the kinds given (token sequences cached per text)."""

    def __init__(self, kinds: Sequence[str], lang: str = "en", **params: Any) -> None:
        self.kinds: List[Kind] = [parse_kind(k) for k in kinds]
        self.params = params
        self.tokenizers: Dict[str, Language] = {}
        self._seqs: Dict[Tuple[str, str], List[str]] = {}
        self._grams: Dict[Tuple[str, str, str], List[str]] = {}
        self.lang = lang

    def sequences(self, texts: Sequence[str], attr: str) -> List[List[str]]:
        if attr not in self.tokenizers:
            self.tokenizers[attr] = attr_nlp(attr, self.lang)
        missing = [t for t in dict.fromkeys(texts) if (attr, t) not in self._seqs]
        for text, seq in zip(missing, sequences_of(missing, self.tokenizers[attr], attr)):
            self._seqs[(attr, text)] = seq
        return [self._seqs[(attr, t)] for t in texts]

    def train(self, texts: Sequence[str], labels: Sequence[str], kinds: Optional[Sequence[Kind]] = None) -> List[LinearAttacker]:
        out = []
        params = {k: v for k, v in self.params.items() if k != "ngram_max"}
        for analyzer, attr in kinds or self.kinds:
            sizes = kind_sizes(analyzer, self.params.get("ngram_max", 2))
            seqs = self.sequences(texts, attr)
            grams = []
            for text, seq in zip(texts, seqs):  # feature sets cached: every fold trains on them again
                key = (analyzer, attr, text)
                if key not in self._grams:
                    self._grams[key] = gram_set(seq, analyzer, **sizes)
                grams.append(self._grams[key])
            out.append(train_attacker(seqs, labels, attr=attr, analyzer=analyzer, grams=grams, **sizes, **params))
        return out


def sanitize(docs: Sequence[Doc], indices: Sequence[int], infer: RiskInfer, masker: Callable[[Doc], Doc], attackers: Sequence[LinearAttacker], out: Sanitized) -> None:
    """Run risk_infer (with ``attackers``) and the masker on copies of ``docs[indices]``
    (the docs stay as the pipeline left them, so every round starts from the same
    decisions); write the results into ``out`` at the same indices."""
    infer.set_attackers(attackers)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # W601/W710 per document: the reports say it
        for i in indices:
            doc = masker(infer(docs[i].copy()))
            out.texts[i] = doc._.sanitized
            out.replacements[i] = [list(r) for r in doc._.replacements or []]
            out.reports[i] = dict(doc._.risk_infer)


def adversarial_rounds(
    docs: Sequence[Doc],
    labels: Sequence[str],
    infer: RiskInfer,
    masker: Callable[[Doc], Doc],
    factory: AttackerFactory,
    *,
    folds: int = 5,
    seed: int = 0,
    rounds: int = 2,
    target: Optional[float] = None,
    extra_texts: Sequence[str] = (),
    extra_labels: Sequence[str] = (),
    adapt_kinds: Optional[Sequence[str]] = None,
    train_final: bool = False,
    initial: Optional[Sequence[Sequence[LinearAttacker]]] = None,
    progress: Callable[[str], None] = lambda message: None,
) -> RoundsResult:
    """Cross-fitted adversarial rounds (see the module docstring). ``docs``: the documents
    as the pipeline decided them (risk_infer not run). ``extra_texts``: raw labelled texts
    for the round-0 attackers only (they cannot be sanitized cheaply). ``adapt_kinds``:
    the kinds of the attackers trained on sanitized text (default: the factory's).
    ``target``: stop when the adaptive attacker's accuracy is at or below it. ``initial``:
    the round-0 ensembles per fold when the caller trained them (on the other folds' raw
    text, as here; the trace records them the same way)."""
    n = len(docs)
    labels = [str(x) for x in labels]
    if folds < 2 or n < folds:
        raise ValueError(Errors.E714.format(folds=folds, n=n))
    parts, fold_of = fold_indices(n, folds, seed)
    raw = [d.text for d in docs]
    adapt = [parse_kind(k) for k in adapt_kinds] if adapt_kinds else factory.kinds
    result = RoundsResult(folds=parts)
    ensembles = []
    for k, test in enumerate(parts):
        train = np.flatnonzero(fold_of != k)
        if initial is not None:
            ensembles.append(list(initial[k]))
        else:
            ensembles.append(factory.train([raw[i] for i in train] + list(extra_texts), [labels[i] for i in train] + list(extra_labels)))
        result.trace.append({"round": 0, "fold": k, "purpose": "defender", "trained_on_folds": sorted({int(fold_of[i]) for i in train}), "sanitizes_fold": k})
    for round_ in range(rounds + 1):
        out = Sanitized([""] * n, [[] for _ in range(n)], [{} for _ in range(n)])
        for k, test in enumerate(parts):
            sanitize(docs, test, infer, masker, ensembles[k], out)
        result.sanitized.append(out)
        result.ensembles.append([list(e) for e in ensembles])
        # the adversary of this round: trained on the sanitized text of the other folds;
        # only its first kind scores, so the other kinds are trained once the round goes on
        adaptive, scorers = adaptive_attack(factory, out.texts, labels, parts, fold_of, adapt[0])
        for k in range(len(parts)):
            result.trace.append({"round": round_, "fold": k, "purpose": "adaptive", "trained_on_folds": sorted({int(f) for f in fold_of if f != k}), "sanitizes_fold": k})
        result.adaptive.append(adaptive)
        accuracy = accuracy_of(adaptive, labels)
        progress(f"round {round_}: adaptive accuracy {accuracy:.3f}")
        if target is not None and accuracy <= target:
            result.stopped = "target"
            break
        if round_ == rounds:
            break
        for k, (ensemble, scorer) in enumerate(zip(ensembles, scorers)):
            train = np.flatnonzero(fold_of != k)
            rest = factory.train([out.texts[i] for i in train], [labels[i] for i in train], adapt[1:]) if len(adapt) > 1 else []
            ensemble += [scorer] + rest  # the order factory.train(adapt) gives
    if train_final:
        final = factory.train(raw + list(extra_texts), labels + list(extra_labels))
        for sanitized in result.sanitized[:-1]:  # the rounds whose adversaries joined the ensembles
            final += factory.train(sanitized.texts, labels, adapt)
        result.final_attackers = final
    return result


def adaptive_attack(
    factory: AttackerFactory,
    texts: Sequence[str],
    labels: Sequence[str],
    parts: Sequence[np.ndarray],
    fold_of: np.ndarray,
    kind: Kind,
) -> Tuple[List[Tuple[np.ndarray, List[str]]], List[LinearAttacker]]:
    """The adaptive attacker of ``kind``, cross-fitted: per fold, trained on ``texts`` of the
    other folds and scored on the fold's own. RETURNS: per document, its probabilities
    and classes; per fold, the attacker."""
    rows: List[Tuple[np.ndarray, List[str]]] = [(np.zeros(0), [])] * len(texts)
    attackers = []
    for k, test in enumerate(parts):
        train = np.flatnonzero(fold_of != k)
        attacker = factory.train([texts[i] for i in train], [labels[i] for i in train], [kind])[0]
        for i, seq in zip(test, factory.sequences([texts[i] for i in test], attacker.attr)):
            rows[i] = (attacker.proba_seq(seq), list(attacker.classes))
        attackers.append(attacker)
    return rows, attackers


def accuracy_of(proba: Sequence[Tuple[np.ndarray, List[str]]], labels: Sequence[str], k: int = 1) -> float:
    """Top-k accuracy of per-document (probabilities, classes) rows."""
    hits = [accuracy_at_k(p[None, :], classes, [g], k) for (p, classes), g in zip(proba, labels)]
    return float(np.mean(hits)) if hits else 0.0


__all__ = ["AttackerFactory", "RoundsResult", "Sanitized", "accuracy_of", "adaptive_attack", "adversarial_rounds", "fold_indices", "sanitize"]
