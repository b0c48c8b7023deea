"""pii_patterns: your own recognizers (token or phrase patterns) added to ``doc.spans["pii"]``.

spaCy's ``span_ruler`` with ``spans_key = "pii"`` replaces the whole group by default
(``overwrite = true``), which silently throws away every other detector's spans. This
component takes span_ruler-style patterns and *merges* its matches by the project's
longest-span rule (``spans.add_pii_spans``), like every other detector.

A pattern is a dict: ``label`` (a PII type), ``pattern`` (a phrase string, matched with the
``PhraseMatcher`` on ``phrase_matcher_attr``, or a list of token dicts for the ``Matcher``),
and optionally ``id``, ``score`` (the confidence of a bare match) and ``context`` (words
that raise the score when one occurs within ``context_window`` tokens of the match).
Matches scoring below ``threshold`` are not added. Each kept span records why in
``Span._.risk_explain``: ``detector`` (``<name>:<id>``) and, under the component's name,
the pattern id, the score and the context words found.

Patterns are data, like span_ruler's: give them with ``initialize(patterns=...)``
(``[initialize.components.<name>] patterns``) or ``add_patterns``; ``to_disk`` saves them.
"""
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import srsly
from spacy.language import Language
from spacy.matcher import Matcher, PhraseMatcher
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import SimpleFrozenList, from_bytes, from_disk, to_bytes, to_disk

from ..errors import Errors
from ..extensions import register_extensions
from ..spans import add_pii_spans, check_label

Pattern = Dict[str, Any]
# Attributes a phrase pattern can be matched on without running the pipeline over it.
PHRASE_ATTRS = ("ORTH", "LOWER", "NORM", "SHAPE")


class PatternDetector:
    def __init__(
        self,
        nlp: Language,
        name: str = "pii_patterns",
        *,
        spans_key: str = "pii",
        phrase_matcher_attr: Optional[str] = None,
        validate: bool = False,
        score: float = 0.85,
        context_words: Sequence[str] = (),
        context_window: int = 5,
        context_boost: float = 0.35,
        threshold: float = 0.0,
    ) -> None:
        """spans_key (str): the span group merged into. phrase_matcher_attr (Optional[str]):
        token attribute phrase patterns match on (``LOWER`` for case-insensitive; None:
        ``ORTH``). validate (bool): validate token patterns against spaCy's schema.
        score (float): the confidence of a match of a pattern without its own ``score``.
        context_words (List[str]): words (lower case) that raise the score of every pattern,
        in addition to a pattern's own ``context``. context_window (int): tokens either
        side of a match searched for context words. context_boost (float): added to the
        score (capped at 1) when a context word is found. threshold (float): matches whose
        score stays below it are not added (0: every match is added)."""
        attr = (phrase_matcher_attr or "ORTH").upper()
        if attr not in PHRASE_ATTRS:
            raise ValueError(Errors.E030.format(attr=phrase_matcher_attr, attrs=", ".join(PHRASE_ATTRS)))
        for setting, value in (("score", score), ("context_boost", context_boost), ("threshold", threshold)):
            _check_score(value, setting)
        self.nlp = nlp
        self.name = name
        self.spans_key = spans_key
        self.phrase_matcher_attr = attr
        self.validate = validate
        self.score = float(score)
        self.context_words = {w.lower() for w in context_words}
        self.context_window = int(context_window)
        self.context_boost = float(context_boost)
        self.threshold = float(threshold)
        self.clear()

    # -- patterns -----------------------------------------------------------------------
    def clear(self) -> None:
        """Remove every pattern."""
        self._patterns: List[Pattern] = []
        self._by_key: Dict[str, Pattern] = {}
        self.matcher = Matcher(self.nlp.vocab, validate=self.validate)
        self.phrase_matcher = PhraseMatcher(self.nlp.vocab, attr=self.phrase_matcher_attr, validate=self.validate)

    @property
    def patterns(self) -> List[Pattern]:
        """RETURNS (List[dict]): the patterns, as given (JSON-able)."""
        return [dict(p) for p in self._patterns]

    def __len__(self) -> int:
        return len(self._patterns)

    def add_patterns(self, patterns: Iterable[Pattern]) -> None:
        """Add patterns (see the module docstring); each is checked before any is added."""
        checked = [_check_pattern(dict(p), len(self._patterns) + i) for i, p in enumerate(patterns)]
        phrases = [p for p in checked if isinstance(p["pattern"], str)]
        docs = list(self.nlp.tokenizer.pipe(p["pattern"] for p in phrases))
        for pattern, doc in zip(phrases, docs):
            self.phrase_matcher.add(pattern["key"], [doc])
        for pattern in checked:
            if not isinstance(pattern["pattern"], str):
                self.matcher.add(pattern["key"], [pattern["pattern"]])
            del pattern["key"]
            self._patterns.append(pattern)
        self._by_key = {_key(i): p for i, p in enumerate(self._patterns)}

    def initialize(
        self,
        get_examples: Optional[Callable[[], Iterable[Example]]] = None,
        *,
        nlp: Optional[Language] = None,
        patterns: Optional[Iterable[Pattern]] = None,
    ) -> None:
        """patterns (Optional[List[dict]]): replace the patterns with these (as span_ruler
        does); None keeps the current ones."""
        if patterns is not None:
            self.clear()
            self.add_patterns(patterns)

    # -- matching -----------------------------------------------------------------------
    def __call__(self, doc: Doc) -> Doc:
        # an empty matcher warns (W036) on every call: only the ones with patterns run
        matches = [*(self.matcher(doc) if len(self.matcher) else []), *(self.phrase_matcher(doc) if len(self.phrase_matcher) else [])]
        found: List[Tuple[Span, Dict[str, Any]]] = []
        for key, start, end in matches:
            pattern = self._by_key[self.nlp.vocab.strings[key]]
            score, context = self._score(doc, start, end, pattern)
            if score < self.threshold:
                continue
            span = Span(doc, start, end, label=pattern["label"])
            found.append((span, {"pattern": pattern["id"], "score": score, "context": context}))
        add_pii_spans(doc, [span for span, _ in found], self.spans_key)
        kept = {(s.start, s.end, s.label_) for s in doc.spans[self.spans_key]}
        for span, explain in found:
            if (span.start, span.end, span.label_) in kept:
                # a span another detector found first keeps its detector; both explanations stay
                span._.risk_explain.setdefault("detector", f"{self.name}:{explain['pattern']}")
                span._.risk_explain[self.name] = explain
        return doc

    def _score(self, doc: Doc, start: int, end: int, pattern: Pattern) -> Tuple[float, List[str]]:
        words = self.context_words | set(pattern.get("context", ()))
        score = float(pattern.get("score", self.score))
        if not words:
            return round(score, 4), []
        window = [*doc[max(0, start - self.context_window) : start], *doc[end : end + self.context_window]]
        context = sorted({t.lower_ for t in window if t.lower_ in words})
        if context:
            score = min(1.0, score + self.context_boost)
        return round(score, 4), context

    # -- serialization: the patterns (settings live in the config) ----------------------
    def to_bytes(self, *, exclude: Iterable[str] = SimpleFrozenList()) -> bytes:
        return to_bytes({"patterns": lambda: srsly.msgpack_dumps(self.patterns)}, exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = SimpleFrozenList()) -> "PatternDetector":
        from_bytes(bytes_data, {"patterns": lambda b: self._load(srsly.msgpack_loads(b))}, exclude)
        return self

    def to_disk(self, path: Any, *, exclude: Iterable[str] = SimpleFrozenList()) -> None:
        to_disk(path, {"patterns": lambda p: srsly.write_jsonl(p.with_suffix(".jsonl"), self.patterns)}, exclude)

    def from_disk(self, path: Any, *, exclude: Iterable[str] = SimpleFrozenList()) -> "PatternDetector":
        from_disk(path, {"patterns": lambda p: self._load(srsly.read_jsonl(p.with_suffix(".jsonl")))}, exclude)
        return self

    def _load(self, patterns: Iterable[Pattern]) -> None:
        self.clear()
        self.add_patterns(patterns)


def _key(index: int) -> str:
    return f"pii_patterns:{index}"


def _check_score(value: Any, setting: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ValueError(Errors.E031.format(setting=setting, value=value))
    return float(value)


def _check_pattern(pattern: Pattern, index: int) -> Pattern:
    """A pattern with its label checked, an ``id`` (its number when none is given) and the
    matcher key it is added under."""
    value = pattern.get("pattern")
    is_tokens = isinstance(value, list) and all(isinstance(t, dict) for t in value) and value
    if "label" not in pattern or not (isinstance(value, str) and value.strip() or is_tokens):
        raise ValueError(Errors.E032.format(index=index, pattern=pattern))
    check_label(pattern["label"])
    if "score" in pattern:
        pattern["score"] = _check_score(pattern["score"], f"score of pattern #{index}")
    context = pattern.get("context", [])
    if isinstance(context, str) or not all(isinstance(w, str) for w in context):
        raise ValueError(Errors.E032.format(index=index, pattern=pattern))
    if context:
        pattern["context"] = [w.lower() for w in context]
    pattern["id"] = str(pattern.get("id", index))
    pattern["key"] = _key(index)
    return pattern


@Language.factory(
    "pii_patterns",
    default_config={
        "spans_key": "pii", "phrase_matcher_attr": None, "validate": False, "score": 0.85,
        "context_words": [], "context_window": 5, "context_boost": 0.35, "threshold": 0.0,
    },
    assigns=["doc.spans", "span._.risk_explain"],
)
def make_pattern_detector(
    nlp: Language, name: str, spans_key: str, phrase_matcher_attr: Optional[str], validate: bool,
    score: float, context_words: List[str], context_window: int, context_boost: float, threshold: float,
) -> PatternDetector:
    """See ``PatternDetector``; the patterns come from ``initialize`` or ``add_patterns``."""
    register_extensions()
    return PatternDetector(
        nlp, name, spans_key=spans_key, phrase_matcher_attr=phrase_matcher_attr, validate=validate, score=score,
        context_words=context_words, context_window=context_window, context_boost=context_boost, threshold=threshold,
    )
