"""TAB evaluation metrics (Pilán et al. 2022; seed 000, "Evaluation Metrics").

All scores are micro-averaged over annotators: every (document, annotator) pair adds its
counts. A system output is a set of masked character spans per document.

- P: token-level precision. Each system-masked token is checked against every annotator;
  it is correct for an annotator who masked (DIRECT/QUASI) a mention overlapping it.
- P_w: the same with each token weighted (``token_weighting``; uniform by default).
- R_all: token-level recall over the tokens of the mentions to mask. Tokens whose POS is
  ADP, PART, CCONJ or DET and the tokens mr, mrs, ms, no, nr, about are not counted.
  A token is masked when all its characters are inside masked spans.
- R_ent / R_direct / R_quasi: entity-level recall; an entity is protected only when all of
  its mentions to mask are masked. An entity is direct when any of its mentions is DIRECT.
"""
import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np
from spacy.language import Language

from ..corpus.tab import TabDocument
from ..models import load_english

POS_TO_IGNORE = frozenset({"ADP", "PART", "CCONJ", "DET"})
WORDS_TO_IGNORE = frozenset({"mr", "mrs", "ms", "no", "nr", "about"})

WORD = re.compile(r"\w+")

TokenWeighting = Callable[[str, Sequence[Tuple[int, int]]], Sequence[float]]


def uniform_weighting(text: str, token_spans: Sequence[Tuple[int, int]]) -> List[float]:
    return [1.0] * len(token_spans)


@dataclass
class TokenInfo:
    spans: List[Tuple[int, int]]
    ignorable: List[bool]


class Tokens:
    """Splits texts into word units (``\\w+``, as TAB's evaluation does, so punctuation is
    not counted) and marks the ignorable ones with spaCy's POS tags, once per text."""

    def __init__(self, nlp: Optional[Language] = None) -> None:
        self._nlp = nlp
        self._cache: Dict[str, TokenInfo] = {}

    @property
    def nlp(self) -> Language:
        if self._nlp is None:
            self._nlp = _tagger()
        return self._nlp

    def __call__(self, text: str) -> TokenInfo:
        if text not in self._cache:
            ignorable_chars = np.zeros(len(text) + 1, dtype=bool)
            for token in self.nlp(text):
                if token.pos_ in POS_TO_IGNORE or token.lower_ in WORDS_TO_IGNORE:
                    ignorable_chars[token.idx : token.idx + len(token)] = True
            spans = [m.span() for m in WORD.finditer(text)]
            self._cache[text] = TokenInfo(spans, [bool(ignorable_chars[s:e].all()) for s, e in spans])
        return self._cache[text]


@lru_cache(maxsize=1)
def _tagger() -> Language:
    nlp = load_english(exclude=["parser", "ner", "lemmatizer", "senter"])
    nlp.max_length = 10**8
    return nlp


def _char_mask(length: int, spans: Iterable[Sequence[int]]) -> np.ndarray:
    mask = np.zeros(length + 1, dtype=bool)
    for start, end in spans:
        mask[max(0, int(start)) : max(0, int(end))] = True
    return mask


def _runs(mask: np.ndarray) -> List[Tuple[int, int]]:
    """The [start, end) runs of True in a character mask."""
    edges = np.flatnonzero(np.diff(np.concatenate(([False], mask, [False])).astype(np.int8)))
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2])]


def _token_masked(mask: np.ndarray, start: int, end: int) -> bool:
    return bool(mask[start:end].all())


def _token_touched(mask: np.ndarray, start: int, end: int) -> bool:
    return bool(mask[start:end].any())


@dataclass
class TabScores:
    precision: float
    weighted_precision: float
    recall: float
    f1: float
    entity_recall: float
    direct_recall: float
    quasi_recall: float
    recall_per_type: Dict[str, float] = field(default_factory=dict)
    counts: Dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> Dict[str, object]:
        return {
            "P": self.precision,
            "P_w": self.weighted_precision,
            "R_all": self.recall,
            "F1": self.f1,
            "R_ent": self.entity_recall,
            "R_direct": self.direct_recall,
            "R_quasi": self.quasi_recall,
            "R_per_type": dict(self.recall_per_type),
            "counts": dict(self.counts),
        }


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def tab_scores(
    gold: Iterable[TabDocument],
    predictions: Mapping[str, Iterable[Sequence[int]]],
    tokens: Optional[Tokens] = None,
    token_weighting: TokenWeighting = uniform_weighting,
) -> TabScores:
    """Compute the TAB metrics of ``predictions`` (doc_id -> masked [start, end] pairs)."""
    tokens = tokens or Tokens()
    tp_w = sys_w = tp = sys_n = 0.0
    rec_num = rec_den = 0
    type_num: Dict[str, int] = defaultdict(int)
    type_den: Dict[str, int] = defaultdict(int)
    ent = {"all": [0, 0], "direct": [0, 0], "quasi": [0, 0]}
    for document in gold:
        info = tokens(document.text)
        mask = _char_mask(len(document.text), predictions.get(document.doc_id, []))
        masked_units = [m.span() for s, e in _runs(mask) for m in WORD.finditer(document.text, s, e)]
        weights = token_weighting(document.text, masked_units) if masked_units else []
        for _annotator, mentions in document.annotations.items():
            to_mask = [m for m in mentions if m.needs_masking]
            gold_mask = _char_mask(len(document.text), ((m.start, m.end) for m in to_mask))
            for (s, e), weight in zip(masked_units, weights):
                hit = _token_touched(gold_mask, s, e)
                sys_n += 1
                sys_w += weight
                tp += hit
                tp_w += weight * hit
            entities: Dict[str, List[bool]] = defaultdict(list)
            direct: Dict[str, bool] = defaultdict(bool)
            for mention in to_mask:
                mention_ok = True
                for (s, e), ignore in zip(info.spans, info.ignorable):
                    if e <= mention.start or s >= mention.end or ignore:
                        continue
                    s, e = max(s, mention.start), min(e, mention.end)
                    ok = _token_masked(mask, s, e)
                    rec_den += 1
                    rec_num += ok
                    type_den[mention.entity_type] += 1
                    type_num[mention.entity_type] += ok
                    mention_ok &= ok
                entities[mention.entity_id].append(mention_ok)
                direct[mention.entity_id] |= mention.identifier_type == "DIRECT"
            for entity_id, oks in entities.items():
                protected = all(oks)
                for group in ("all", "direct" if direct[entity_id] else "quasi"):
                    ent[group][0] += protected
                    ent[group][1] += 1
    precision = _ratio(tp, sys_n)
    recall = _ratio(rec_num, rec_den)
    f1 = _ratio(2 * precision * recall, precision + recall)
    return TabScores(
        precision=precision,
        weighted_precision=_ratio(tp_w, sys_w),
        recall=recall,
        f1=f1,
        entity_recall=_ratio(*ent["all"]),
        direct_recall=_ratio(*ent["direct"]),
        quasi_recall=_ratio(*ent["quasi"]),
        recall_per_type={t: _ratio(type_num[t], type_den[t]) for t in sorted(type_den)},
        counts={
            "system_masked_tokens": sys_n,
            "true_positive_tokens": tp,
            "tokens_to_mask": rec_den,
            "entities": ent["all"][1],
            "direct_entities": ent["direct"][1],
            "quasi_entities": ent["quasi"][1],
        },
    )


@dataclass
class DetectionScores:
    """Token-level P/R/F1 of detected PII spans against gold PII mentions (seed 000, "perf1")."""

    per_type: Dict[str, Dict[str, float]]
    micro_labelled: Dict[str, float]
    micro_unlabelled: Dict[str, float]

    def as_dict(self) -> Dict[str, object]:
        return {"per_type": self.per_type, "micro_labelled": self.micro_labelled, "micro_unlabelled": self.micro_unlabelled}


def _prf(tp: float, n_pred: float, n_gold: float) -> Dict[str, float]:
    p, r = _ratio(tp, n_pred), _ratio(tp, n_gold)
    return {"P": p, "R": r, "F1": _ratio(2 * p * r, p + r), "support": n_gold, "predicted": n_pred}


def detection_scores(
    gold: Iterable[TabDocument],
    predictions: Mapping[str, Iterable[Sequence]],
    tokens: Optional[Tokens] = None,
) -> DetectionScores:
    """``predictions``: doc_id -> [start, end, label] triples. Every gold mention counts
    (NO_MASK ones too): this scores detection, not masking."""
    tokens = tokens or Tokens()
    return pool_detection_counts(detection_counts(document, predictions.get(document.doc_id, []), tokens) for document in gold)


def pool_detection_counts(per_doc: Iterable[Mapping[str, Sequence[int]]]) -> DetectionScores:
    """The scores of summed ``detection_counts`` (of any set of documents: all of them,
    cross-validation folds, bootstrap samples)."""
    counts: Dict[str, List[int]] = defaultdict(lambda: [0, 0, 0])
    for doc_counts in per_doc:
        for label, c in doc_counts.items():
            for i in range(3):
                counts[label][i] += c[i]
    unlabelled = counts.pop(UNLABELLED, [0, 0, 0])
    per_type = {label: _prf(*c) for label, c in sorted(counts.items())}
    labelled = [sum(c[i] for c in counts.values()) for i in range(3)]
    return DetectionScores(per_type, _prf(*labelled), _prf(*unlabelled))


UNLABELLED = "_unlabelled"
# The masking scores reported in tables, in order.
MASKING_KEYS = ("P", "P_w", "R_all", "F1", "R_ent", "R_direct", "R_quasi")


def detection_counts(document: TabDocument, predictions: Iterable[Sequence], tokens: Tokens) -> Dict[str, List[int]]:
    """Token counts ``[tp, predicted, gold]`` per PII type for one document and its predicted
    ``[start, end, label]`` triples, summed over annotators, with the counts that ignore
    labels under ``UNLABELLED`` (what ``detection_scores`` adds up; sums of these give pooled
    scores for any subset of documents, e.g. cross-validation folds or bootstrap samples)."""
    info = tokens(document.text)
    pred_labels = _token_labels(info, predictions)
    counts: Dict[str, List[int]] = defaultdict(lambda: [0, 0, 0])
    unlabelled = counts[UNLABELLED]
    for mentions in document.annotations.values():
        gold_labels = _token_labels(info, [(m.start, m.end, m.entity_type) for m in mentions])
        for p, g in zip(pred_labels, gold_labels):
            if p:
                counts[p][1] += 1
                unlabelled[1] += 1
            if g:
                counts[g][2] += 1
                unlabelled[2] += 1
            if p and g:
                unlabelled[0] += 1
                counts[p][0] += p == g
    return dict(counts)


def _token_labels(info: TokenInfo, spans: Iterable[Sequence]) -> List[Optional[str]]:
    labels: List[Optional[str]] = [None] * len(info.spans)
    starts = np.array([s for s, _ in info.spans], dtype=np.int64)
    ends = np.array([e for _, e in info.spans], dtype=np.int64)
    for start, end, label in spans:
        hit = np.nonzero((starts < int(end)) & (ends > int(start)))[0]
        for i in hit:
            labels[i] = labels[i] or str(label)
    return labels
