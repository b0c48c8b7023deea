"""pii_confidence: a calibrated detection confidence per PII span (``Span._.confidence``).

The confidence is the probability that a detected span is a mention an annotator masks,
estimated from what the detectors already recorded: which detector kept the span
(``risk_explain["detector"]``), whether the generic NER (``doc.ents``) agrees, its label, a
validated code (checksums, formats), the number of mentions of its text and the detectors
that found them, its length and shape, and the document's length. It runs before pii_coref:
a mention coreference adds repeats a scored one, and the masker takes an entity's confidence
as its best mention's (``entity_confidence``). A logistic regression over these indicators,
fit on the annotated biographies and court cases with grouped CV by document
(``training/confidence_cv.py``, docs/confidence.md), so the value is the empirical precision
of such spans.

It informs review and the masker's ``min_confidence`` threshold only; it never unmasks a
span by itself: with the default threshold 0 every span is masked, and a span without a
confidence (none learned, or added after this component) stays masked.
"""
import bisect
import math
import warnings
from collections import defaultdict
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

from spacy.attrs import IDX, IS_ALPHA, IS_LOWER, IS_PUNCT, IS_SPACE, IS_TITLE, LENGTH, LIKE_NUM
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example

from ..doc_reads import doc_text
from ..errors import Errors, Warnings
from ..extensions import register_extensions
from ..learned import LearnedState
from ..spans import entity_key
from ..shipped import artefact_path
from ..spans import is_validated
from ..types import DEFAULT_SPANS_KEY
from .ent_mapper import DEFAULT_LABEL_MAP

def _bucket(n: int, edges: Sequence[int]) -> str:
    for edge in edges:
        if n <= edge:
            return str(edge)
    return f">{edges[-1]}"


class _EntIndex:
    """The generic NER's entities of one doc, for the NER-agreement feature by bisection: ``doc.ents``
    are sorted and do not overlap, so the ones overlapping a span are consecutive (a scan of
    every entity per span was quadratic on long court texts)."""

    def __init__(self, ents: Sequence[Span]) -> None:
        self.ends = [ent.end for ent in ents]
        self.rows = [(ent.start, ent.start_char, ent.end_char, DEFAULT_LABEL_MAP.get(ent.label_)) for ent in ents]

    def agreement(self, start: int, end: int, start_char: int, end_char: int, label: str) -> str:
        if not self.rows:
            return "no_ner"
        found = "none"
        for i in range(bisect.bisect_right(self.ends, start), len(self.rows)):
            ent_start, ent_start_char, ent_end_char, mapped = self.rows[i]
            if ent_start >= end:
                break
            if mapped != label:
                found = found if found != "none" else "other_label"
                continue
            if ent_start_char == start_char and ent_end_char == end_char:
                return "same"
            found = "overlap"
        return found


# per token, from one Doc.to_array: the lexical flags the span indicators read
_FLAGS = [IS_PUNCT, IS_SPACE, IS_TITLE, IS_ALPHA, LIKE_NUM, IS_LOWER, IDX, LENGTH]


def doc_features(doc: Doc, spans_key: str = DEFAULT_SPANS_KEY) -> List[List[str]]:
    """The indicator names of each span of ``doc.spans[spans_key]``, in order."""
    spans = list(doc.spans.get(spans_key, []))
    if not spans:
        return []
    text = doc_text(doc)
    ents = _EntIndex(doc.ents)
    flags = doc.to_array(_FLAGS).tolist()
    user_data = doc.user_data
    keys = [entity_key(span) for span in spans]  # the masker joins confidences by the same key
    detectors_of = [_detector(span, user_data) for span in spans]
    validated = [is_validated(span) for span in spans]
    mentions: Dict[str, int] = defaultdict(int)
    detectors: Dict[str, set] = defaultdict(set)
    entity_validated: Dict[str, bool] = defaultdict(bool)
    for key, detector, valid in zip(keys, detectors_of, validated):
        mentions[key] += 1
        detectors[key].add(detector.split(":", 1)[0])
        entity_validated[key] |= valid
    # the annotated court cases are long and masked sparsely, the biographies short and
    # masked densely: the document's length carries that difference to new text
    length = _bucket(len(text), (1000, 3000, 10000))
    rows = []
    for span, key, detector, valid in zip(spans, keys, detectors_of, validated):
        family = detector.split(":", 1)[0]
        label = span.label_
        agreement = ents.agreement(span.start, span.end, span.start_char, span.end_char, label)
        tokens = flags[span.start : span.end]
        words = [t for t in tokens if not (t[0] or t[1])] or tokens
        row = [
            "bias",
            f"label={label}",
            f"family={family}",
            f"family_label={family}|{label}",
            f"ner={agreement}",
            f"ner_label={agreement}|{label}",
            f"mentions={_bucket(mentions[key], (1, 2, 5))}",
            f"detectors={_bucket(len(detectors[key]), (1, 2))}",
            f"tokens={_bucket(len(words), (1, 2, 3))}",
            f"title={all(t[2] or not t[3] for t in words)}|{label}",
            f"digit={any(t[4] or any(c.isdigit() for c in text[t[6] : t[6] + t[7]]) for t in words)}|{label}",
            f"lower={all(t[5] for t in words)}",
            f"doc_chars={length}",
            f"doc_chars_label={length}|{label}",
        ]
        if ":" in detector and family not in ("pii_gazetteer",):
            row.append(f"detector={detector}")  # pii_ent_mapper:GPE, pii_codes:iban...
        if valid:
            row.append("validated")
        elif entity_validated[key]:
            row.append("entity_validated")
        rows.append(row)
    return rows


def _detector(span: Span, user_data: Dict[Any, Any]) -> str:
    """``risk_explain["detector"]`` of ``span`` ("none" when unset), read from ``user_data``
    (the extension's getter would store an empty dict for every span without one)."""
    explain = user_data.get(("._.", "risk_explain", span.start_char, span.end_char))
    return str(explain.get("detector", "none")) if isinstance(explain, dict) else "none"


class ConfidenceModel:
    """A logistic regression over indicator names, as plain numbers (JSON-able)."""

    def __init__(self, weights: Dict[str, float], meta: Optional[Dict[str, Any]] = None) -> None:
        self.weights = weights
        self.meta = meta or {}

    def predict(self, rows: Iterable[Sequence[str]]) -> List[float]:
        out = []
        for row in rows:
            z = sum(self.weights.get(name, 0.0) for name in row)
            out.append(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z)))))
        return out

    @classmethod
    def fit(cls, rows: Sequence[Sequence[str]], targets: Sequence[int], C: float = 1.0) -> "ConfidenceModel":
        """Fit on indicator rows and 0/1 targets (1: the span is a mention to mask)."""
        from sklearn.feature_extraction import DictVectorizer
        from sklearn.linear_model import LogisticRegression

        if len(set(targets)) < 2:
            raise ValueError(Errors.E043.format(n=len(targets)))
        vectorizer = DictVectorizer()
        X = vectorizer.fit_transform([{name: 1.0 for name in row} for row in rows])
        # "bias" is a feature of every row: the model's intercept is its weight
        model = LogisticRegression(C=C, fit_intercept=False, max_iter=2000)
        model.fit(X, list(targets))
        weights = {name: round(float(w), 6) for name, w in zip(vectorizer.get_feature_names_out(), model.coef_[0])}
        return cls(weights, {"C": C, "n": len(targets), "positives": int(sum(targets))})

    def to_dict(self) -> Dict[str, Any]:
        return {"weights": self.weights, "meta": self.meta}

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "ConfidenceModel":
        return cls({str(k): float(v) for k, v in data["weights"].items()}, dict(data.get("meta", {})))


class PIIConfidence(LearnedState):
    """Writes ``Span._.confidence`` for every span of ``doc.spans[spans_key]``."""

    def __init__(self, name: str, spans_key: str = DEFAULT_SPANS_KEY) -> None:
        self.name = name
        self.spans_key = spans_key
        self.model: Optional[ConfidenceModel] = None
        self._warned = False

    def __call__(self, doc: Doc) -> Doc:
        spans = list(doc.spans.get(self.spans_key, []))
        if not spans:
            return doc
        if self.model is None:
            # nothing learned: the spans keep no confidence, so they stay masked (fail closed)
            if not self._warned:
                self._warned = True
                warnings.warn(Warnings.W042.format(name=self.name), UserWarning, stacklevel=2)
            return doc
        for span, p in zip(spans, self.model.predict(doc_features(doc, self.spans_key))):
            span._.confidence = round(p, 4)
        return doc

    def initialize(
        self,
        get_examples: Optional[Callable[[], Iterable[Example]]] = None,
        *,
        nlp: Optional[Language] = None,
        shipped: Optional[str] = None,
        data: Optional[str] = None,
        C: float = 1.0,
    ) -> None:
        """Load the shipped model ``shipped`` under ``data`` (None: the package's data folder),
        or fit on gold examples: the predicted docs run through the components before this one
        in ``nlp``; a span is a positive when most of its characters are in mentions an
        annotator of the reference masks (``doc.spans["mask"]``)."""
        if shipped is not None:
            self.from_disk(artefact_path(shipped, data, component=self.name))
            if self.model is None:
                raise OSError(Errors.E044.format(name=self.name, shipped=shipped))
            return
        if get_examples is None:
            return  # nothing to learn from: __call__ warns (W042) and scores nothing
        examples = list(get_examples())
        predicted = [eg.predicted for eg in examples]
        if nlp is not None and self.name in nlp.pipe_names:
            for upstream in nlp.pipe_names[: nlp.pipe_names.index(self.name)]:
                proc = nlp.get_pipe(upstream)
                predicted = [proc(doc) for doc in predicted]
        rows: List[List[str]] = []
        targets: List[int] = []
        for doc, eg in zip(predicted, examples):
            rows += doc_features(doc, self.spans_key)
            targets += span_targets(doc, [[s.start_char, s.end_char] for s in eg.reference.spans.get("mask", [])], self.spans_key)
        if rows:  # spaCy's stand-in example when none are given has no spans: nothing learned
            self.model = ConfidenceModel.fit(rows, targets, C=C)

    def _learned(self) -> Dict[str, Any]:
        return {} if self.model is None else self.model.to_dict()

    def _set_learned(self, learned: Dict[str, Any]) -> None:
        self.model = ConfidenceModel.from_dict(learned) if learned.get("weights") else None


def span_targets(doc: Doc, masked: Sequence[Sequence[int]], spans_key: str = DEFAULT_SPANS_KEY) -> List[int]:
    """1 for each span of ``doc.spans[spans_key]`` with most of its non-space characters
    inside the gold ``masked`` character spans (any annotator), else 0."""
    covered = set()
    for start, end in masked:
        covered.update(range(start, end))
    text = doc_text(doc)
    out = []
    for span in doc.spans.get(spans_key, []):
        chars = [i for i in range(span.start_char, span.end_char) if not text[i].isspace()]
        inside = sum(1 for i in chars if i in covered)
        out.append(int(bool(chars) and inside * 2 > len(chars)))
    return out


@Language.factory(
    "pii_confidence",
    default_config={"spans_key": DEFAULT_SPANS_KEY},
    requires=["doc.spans"],
    assigns=["span._.confidence"],
)
def make_pii_confidence(nlp: Language, name: str, spans_key: str) -> PIIConfidence:
    """spans_key (str): the span group whose spans get a confidence. The model is loaded by
    ``initialize`` (``shipped = "pii_confidence"`` in the shipped configs)."""
    register_extensions()
    return PIIConfidence(name, spans_key)


def entity_confidence(spans: Sequence[Any]) -> Dict[str, float]:
    """Each entity's confidence: the highest ``Span._.confidence`` of its mentions (the
    mentions coreference adds have none of their own: they repeat a detected one)."""
    out: Dict[str, float] = {}
    for span in spans:
        if span._.confidence is not None:
            key = entity_key(span)
            out[key] = max(out.get(key, 0.0), float(span._.confidence))
    return out


def reported_confidences(spans: Sequence[Any]) -> List[Optional[float]]:
    """The confidence to report for each span: its own, or for a mention without one (coreference
    added it after pii_confidence) its entity's, the value ``min_confidence`` compares; None when
    no mention of the entity has one."""
    scored = entity_confidence(spans)
    return [span._.confidence if span._.confidence is not None else scored.get(entity_key(span)) for span in spans]
