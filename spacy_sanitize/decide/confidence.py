"""decide_confidence: keep in clear the undecided spans whose confidence is low.

``pii_confidence`` gives each span a calibrated probability that it is a mention to mask
(``Span._.confidence``; an entity's is its best mention's, ``detect.confidence.entity_confidence``).
With ``min_confidence`` above 0, this decider sets ``Span._.mask = False`` on each span that
no other decider decided (``Span._.mask`` None), whose entity's confidence is below it, whose
label is not in ``confidence_protect`` and that holds no part of the person to protect
(``Doc._.protect``); it records ``risk_explain["kept_below_confidence"]`` (the two values), which
the span's ``why`` reads. A span without a confidence stays undecided, so masked (fail closed,
W041). The masker still masks every mention of an entity with a masked mention, and counts in
``Doc._.kept_below_confidence`` the kept spans it left in clear.

It runs after the other deciders (their decisions win: W040 says so) and before the masker.
The command line's ``--min-confidence`` sets it; the shipped pipelines hold it at 0 (off).
"""
import warnings
from typing import Any, Dict, Iterable, List, Optional, Sequence

from spacy.language import Language
from spacy.tokens import Doc

from ..errors import Errors, Warnings
from ..extensions import register_extensions
from ..detect.confidence import entity_confidence
from ..spans import SortedRanges, entity_key
from ..risk.base import AFTER_DECISION_FACTORIES, is_decider
from ..types import PII_TYPES
from .protect import matched_parts, name_parts, protected_names

# the key of risk_explain that marks a span this decider kept in clear
KEPT = "kept_below_confidence"


def check_settings(min_confidence: Any, confidence_protect: Iterable[str]) -> None:
    if not isinstance(min_confidence, (int, float)) or isinstance(min_confidence, bool) or not 0.0 <= min_confidence <= 1.0:
        raise ValueError(Errors.E042.format(value=min_confidence))
    for label in confidence_protect:
        if label not in PII_TYPES:
            raise ValueError(Errors.E001.format(label=label, labels=", ".join(PII_TYPES)))


def below_confidence(doc: Doc, spans: Sequence[Any], min_confidence: float, confidence_protect: Iterable[str],
                     confidence: Optional[Dict[str, float]] = None) -> List[bool]:
    """For each span, whether ``min_confidence`` keeps it in clear (see the module docstring);
    ``confidence``: the spans' ``entity_confidence`` when the caller has it."""
    if min_confidence <= 0.0:
        return [False] * len(spans)
    protect = frozenset(confidence_protect)
    parts = name_parts(protected_names(doc._.protect))
    confidence = entity_confidence(spans) if confidence is None else confidence
    kept = []
    for span in spans:
        value = confidence.get(entity_key(span))
        kept.append(
            span._.mask is None
            and value is not None
            and value < min_confidence
            and span.label_ not in protect
            and not (parts and matched_parts(span.text, parts))
        )
    return kept


class ConfidenceDecider:
    def __init__(self, nlp: Optional[Language], name: str, spans_key: str, min_confidence: float, confidence_protect: Iterable[str]) -> None:
        check_settings(min_confidence, confidence_protect)
        self.nlp = nlp
        self.name = name
        self.spans_key = spans_key
        self.min_confidence = float(min_confidence)
        self.confidence_protect = list(confidence_protect)
        self._checked = nlp is None
        self._unscored_warned = False

    @staticmethod
    def reads(key: str) -> bool:
        """No risk score: it decides from the confidence (the indicators' decider is another)."""
        return False

    def _check_pipeline(self) -> None:
        """min_confidence cannot apply to spans a decider before it decides, nor without a
        confidence component: say so (W040), not ignore the setting silently."""
        self._checked = True
        nlp = self.nlp
        if nlp is None or self.name not in nlp.pipe_names:
            return
        before = nlp.pipe_names[: nlp.pipe_names.index(self.name)]
        deciders = [n for n in before if is_decider(nlp, n)]
        value = self.min_confidence
        if deciders:
            warnings.warn(Warnings.W040.format(
                name=self.name, value=value, what=f"the decider(s) {deciders} decide the spans",
                effect="their decisions win, so the threshold only applies to spans they leave undecided. Set min_confidence = 0, or use a pipeline without a decider.",
            ), UserWarning, stacklevel=3)
        if not any(nlp.get_pipe_meta(n).factory == "pii_confidence" for n in before):
            warnings.warn(Warnings.W040.format(
                name=self.name, value=value, what=f"no pii_confidence component comes before {self.name}",
                effect="no span has a confidence, so every span stays masked. Add pii_confidence (the shipped pipelines have it).",
            ), UserWarning, stacklevel=3)

    def __call__(self, doc: Doc) -> Doc:
        if self.min_confidence <= 0.0:
            return doc
        if not self._checked:
            self._check_pipeline()
        spans = list(doc.spans.get(self.spans_key, []))
        scored = entity_confidence(spans)
        kept = below_confidence(doc, spans, self.min_confidence, self.confidence_protect, scored)
        for span, below in zip(spans, kept):
            if below:
                span._.mask = False
                span._.risk_explain[KEPT] = {"confidence": round(scored[entity_key(span)], 4), "min_confidence": self.min_confidence}
        doc._.kept_below_confidence = sum(kept)  # the masker leaves out those its plan masks anyway
        unscored = sum(1 for s in spans if s._.mask is None and entity_key(s) not in scored)
        if unscored and not self._unscored_warned:
            self._unscored_warned = True
            warnings.warn(Warnings.W041.format(n=unscored, key=self.spans_key, value=self.min_confidence), UserWarning, stacklevel=2)
        return doc


@Language.factory(
    "decide_confidence",
    default_config={"spans_key": "pii", "min_confidence": 0.0, "confidence_protect": ["CODE", "PERSON"]},
    requires=["doc.spans", "span._.confidence"],
    assigns=["span._.mask", "span._.risk_explain"],
)
def make_confidence_decider(nlp: Language, name: str, spans_key: str, min_confidence: float, confidence_protect: List[str]) -> ConfidenceDecider:
    """min_confidence (float): undecided spans whose entity's ``Span._.confidence`` is below it
    stay in clear (0: off). confidence_protect (List[str]): labels that always stay masked."""
    register_extensions()
    return ConfidenceDecider(nlp, name, spans_key, min_confidence, confidence_protect)


def add_confidence_decider(nlp: Language, config: Dict[str, Any], name: str = "decide_confidence") -> ConfidenceDecider:
    """Put a ``decide_confidence`` with ``config`` into ``nlp`` (its ``nlp.config`` says so): in
    place of one there already is, else after the last decider, before what runs after the
    decision (``risk_infer``) and the masker."""
    if name in nlp.pipe_names:
        return nlp.replace_pipe(name, "decide_confidence", config=config)
    names = nlp.pipe_names
    later = [n for n in names if nlp.get_pipe_meta(n).factory in AFTER_DECISION_FACTORIES + ("masker",)]
    return nlp.add_pipe("decide_confidence", name=name, before=later[0], config=config) if later else nlp.add_pipe("decide_confidence", name=name, config=config)


def kept_in_clear(doc: Doc, spans_key: str, regions: Sequence[Any]) -> int:
    """How many spans ``decide_confidence`` kept in clear that no region of the masker's plan
    covers (not masked through their entity or propagation either)."""
    covered = SortedRanges([(r.start, r.end) for r in regions])
    return sum(1 for span in doc.spans.get(spans_key, [])
               if KEPT in span._.risk_explain and covered.covering(span.start_char, span.end_char) is None)


def confidence_explain(explain: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """``decide_confidence``'s record of a span (its confidence and the threshold), or None."""
    value = explain.get(KEPT)
    return value if isinstance(value, dict) else None
