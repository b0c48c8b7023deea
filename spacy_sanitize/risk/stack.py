"""risk_stack: a learned combination of risk indicators (seed 000's combination, stacked).

A span's risk from the scores of the indicators before it (``indicators``, e.g. ``["seq"]``)
and what the document says about the span's entity, by a classifier fit on annotators'
decisions (``SpanClassifier``: boosted trees or logistic regression, stored as plain data):

- each indicator's risk of the span, and the max and mean over the mentions of its entity
  (``masking_plan.entity_key``): the masker masks an entity with all its mentions, and an
  entity counts as protected only when all of them are;
- the number of mentions (log), where the entity is first mentioned and where the span is
  (fractions of the text), whether its text occurs in the first 400 characters (the case
  title: "CASE OF X v. TURKEY" names the respondent state, which court annotators leave);
- its label, the detector that kept it, whether it is a validated code, its length in words,
  digits and capitals;
- how rare its words are (the lowest Zipf frequency of its letter words), whether they are
  all capitalised, and whether one is in the shipped name lists: court annotators mask a
  place or organisation with a rare name ("Siverek Magistrates' Court", "Topkapı") far more
  often than "Istanbul" or "the Court";
- its context: how often annotators masked spans of its label with the same last word, and
  with the same word before them, in the training documents (smoothed rates; the tables keep
  common English words only, Zipf >= ``COMMON_ZIPF``, and no listed name nor the last word of
  a PERSON span, so no name of a training case ships),
  whether it stands before the facts (the procedure of a judgment) and whether its sentence
  speaks of the applicant, the court or the government.

It writes ``Span._.risk["stack"]`` like any indicator; a decider (``risk_threshold`` with
``indicator = "stack"``) turns it into ``Span._.mask``. Fail closed: a span without a score
from one of its ``indicators``, or with a failed one, gets risk 1.0 and the reason.

A document unlike the documents the model learnt from is not decided: with ``doc_fence`` set, a
document whose length (log characters) or span density lies beyond Tukey's fences of the
training documents (``doc_fence`` interquartile ranges past their quartiles, 1.5 in `default`)
gets risk 1.0 on every span, and the span's ``why`` says so. A decision learnt where
annotators keep much (long judgments) must not keep it in a kind of text it never saw (a dense
biography, a one-line message naming three people).

The indicators' scores it is fit on must be out-of-fold (an indicator scores the documents it
was trained on too confidently): ``spacy-sanitize train-stack`` cross-fits risk_seq taggers by
document and fits on their risks; the `court` pipeline ships the result
(``spacy_sanitize/data/risk_stack_court``, docs/court.md).
"""
import math
import re
from bisect import bisect_left
from collections import defaultdict
from functools import lru_cache
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import minibatch

from ..doc_reads import doc_text
from ..detect.gazetteer.filters import term_zipf
from ..detect.names import name_lists
from ..detect.script import WORD as LETTERS
from ..errors import Errors
from ..extensions import register_extensions
from ..learned import LearnedState
from ..spans import entity_key
from ..shipped import artefact_path
from ..spans import is_validated
from ..types import DEFAULT_SPANS_KEY
from .base import FAIL_CLOSED_RISK, failure, risk_key, write_risk
from .span_classifier import SpanClassifier

HEAD_CHARS = 400  # the case title and parties of a judgment
LABELS = ("PERSON", "ORG", "LOC", "DATETIME", "CODE", "DEM", "MISC", "QUANTITY")
# The classifier the shipped model uses (chosen by grouped CV on TAB dev, docs/court.md).
DEFAULT_PARAMS = {"kind": "hgb", "max_iter": 200, "learning_rate": 0.05, "max_leaf_nodes": 15, "min_samples_leaf": 40}

NO_WORD_ZIPF = 8.0  # a span without letter words: as common as a word gets
TEXT_FEATURES = ("min_zipf", "capitalised", "name_word")
CONTEXT_FEATURES = ("head_rate", "head_seen", "prev_rate", "prev_seen", "before_facts", "cue:applicant", "cue:court", "cue:government")
# The per-span features after the indicators' columns, in order (``feature_matrix``'s ``base``).
BASE_FEATURES = ("log_mentions", "first_position", "position", "in_head", "words", "digit", "upper", "validated", *TEXT_FEATURES,
                 *CONTEXT_FEATURES)
# Context rates: only words at least this common enter the tables (a rarer word is "<rare>"),
# only keys seen this often are kept, and a rate is pulled to the prior by SMOOTHING spans.
COMMON_ZIPF = 3.0
MIN_KEY_COUNT = 3
SMOOTHING = 10.0
FIT_PARTS = 5  # the training rows' context rates come from the other parts' documents (cross-fitted)
CUES = ("applicant", "court", "government")
FACTS_HEADING = re.compile(r"^[ \t]*(?:THE FACTS|THE CIRCUMSTANCES OF THE CASE|AS TO THE FACTS)[ \t]*$", re.M)
SENTENCE_END = re.compile(r"[.\n]")
SENTENCE_REACH = 1000  # characters read on each side of a span for its sentence's cues (linear on text without full stops)

# Document features (a model fit with ``doc_features``): the text's length (log characters),
# its detected spans per 1,000 characters and each indicator's mean over its spans. They carry
# the kind of text (a short biography, a long judgment, a note) so one model can learn how its
# annotators' conventions differ without being told the genre.
DOC_FEATURES = ("doc_log_chars", "doc_span_density")
UNLIKE = "document unlike the training documents"


def doc_shape(text: str, n_spans: int) -> Tuple[float, float]:
    """``DOC_FEATURES`` of ``text`` with ``n_spans`` spans: log characters, spans per 1,000 characters."""
    return math.log1p(len(text)), 1000.0 * n_spans / max(len(text), 1)


# A span as the features read it: (start_char, end_char, label, entity key, detector, validated).
SpanRow = Tuple[int, int, str, str, str, bool]


def span_row(span: Span, explain: Dict[str, Any]) -> SpanRow:
    """The row ``feature_matrix`` reads of ``span`` (``explain``: its ``risk_explain``)."""
    return (span.start_char, span.end_char, span.label_, entity_key(span), str(explain.get("detector", "")), is_validated(span))


def span_rows(doc: Doc, spans_key: str = DEFAULT_SPANS_KEY) -> List[SpanRow]:
    """The rows of ``doc.spans[spans_key]`` that ``feature_matrix`` reads."""
    return [span_row(s, s._.risk_explain) for s in doc.spans.get(spans_key, [])]


def feature_names(indicators: Sequence[str], detectors: Sequence[str], doc_features: bool = False) -> List[str]:
    names = []
    for key in indicators:
        names += [f"risk:{key}", f"entity_max:{key}", f"entity_mean:{key}"]
    names += BASE_FEATURES
    names += [f"label={label}" for label in LABELS] + [f"detector={d}" for d in detectors]
    return names + ([*DOC_FEATURES, *(f"doc_mean:{key}" for key in indicators)] if doc_features else [])


@lru_cache(maxsize=65536)
def text_features(surface: str) -> Tuple[float, float, float]:
    """``TEXT_FEATURES`` of a span's text: the lowest Zipf frequency of its letter words,
    whether all of them start with a capital, whether one is a listed given or family name."""
    words = LETTERS.findall(surface)
    if not words:
        return NO_WORD_ZIPF, 0.0, 0.0
    lists = name_lists()
    folded = [w.casefold() for w in words]
    return (min(term_zipf(w) for w in folded), float(all(w[0].isupper() for w in words)),
            float(any(w in lists.given or w in lists.family for w in folded)))


@lru_cache(maxsize=65536)
def _context_word(word: str) -> str:
    """A word as the context tables keep it: ``<name>`` for a listed given or family name,
    ``<rare>`` below ``COMMON_ZIPF`` (the tables ship: no name of a training case may)."""
    lists = name_lists()
    if word in lists.given or word in lists.family:
        return "<name>"
    return word if term_zipf(word) >= COMMON_ZIPF else "<rare>"


def context_keys(text: str, rows: Sequence[SpanRow]) -> List[Tuple[str, str]]:
    """Per span, the keys of its context rates: its label with its last letter word (a
    PERSON span's is ``<name>``), and with the letter word before it (lower-cased; see
    ``_context_word``)."""
    keys = []
    for start, end, label, *_rest in rows:
        inside = LETTERS.findall(text[start:end])
        before = LETTERS.findall(text[max(0, start - 40) : start])
        head = "<none>" if not inside else "<name>" if label == "PERSON" else _context_word(inside[-1].lower())
        prev = _context_word(before[-1].lower()) if before else "<none>"
        keys.append((f"{label}|{head}", f"{label}|{prev}"))
    return keys


class ContextRates:
    """Smoothed rates at which annotators masked spans with a key (``context_keys``)."""

    def __init__(self, prior: float = 0.5, rates: Optional[Dict[str, Sequence[float]]] = None) -> None:
        self.prior = prior
        self.rates = dict(rates or {})

    @classmethod
    def fit(cls, keys: Sequence[str], targets: Sequence[float]) -> "ContextRates":
        total: Dict[str, float] = defaultdict(float)
        count: Dict[str, int] = defaultdict(int)
        for key, target in zip(keys, targets):
            total[key] += target
            count[key] += 1
        prior = float(numpy.mean(targets)) if len(targets) else 0.5
        return cls(prior, {k: [(total[k] + SMOOTHING * prior) / (n + SMOOTHING), n] for k, n in count.items() if n >= MIN_KEY_COUNT})

    def __call__(self, key: str) -> Tuple[float, float]:
        """The key's rate and log count (the prior and 0 for a key not seen)."""
        rate = self.rates.get(key)
        return (float(rate[0]), math.log1p(rate[1])) if rate else (self.prior, 0.0)

    def to_dict(self) -> Dict[str, Any]:
        return {"prior": self.prior, "rates": self.rates}


def context_matrix(text: str, rows: Sequence[SpanRow], context: Optional[Tuple[ContextRates, ContextRates]]) -> numpy.ndarray:
    """``CONTEXT_FEATURES`` per span (rates at the prior without ``context``: head, previous word)."""
    heads, prevs = context or (ContextRates(), ContextRates())
    facts = FACTS_HEADING.search(text)
    facts_start = facts.start() if facts else 0
    stops = [m.start() for m in SENTENCE_END.finditer(text)]  # one pass; each span finds its sentence by bisection
    out = numpy.zeros((len(rows), len(CONTEXT_FEATURES)))
    for i, ((head_key, prev_key), row) in enumerate(zip(context_keys(text, rows), rows)):
        start, end = row[0], row[1]
        before = bisect_left(stops, start)
        after = bisect_left(stops, end)
        sentence_start = max(stops[before - 1] + 1 if before else 0, start - SENTENCE_REACH)
        sentence_end = min(stops[after] if after < len(stops) else len(text), end + SENTENCE_REACH)
        sentence = text[sentence_start:sentence_end].lower()
        out[i] = [*heads(head_key), *prevs(prev_key), float(start < facts_start), *(float(cue in sentence) for cue in CUES)]
    return out


def feature_matrix(text: str, rows: Sequence[SpanRow], risks: Sequence[Sequence[float]], detectors: Sequence[str],
                   context: Optional[Tuple[ContextRates, ContextRates]] = None, doc_features: bool = False) -> numpy.ndarray:
    """One row of ``feature_names`` per span; ``risks[i][j]`` is indicator ``j``'s risk of span ``i``;
    ``context``: the rates of last words and previous words. Linear in the spans: the entity
    aggregates are one pass over them."""
    n_ind = len(risks[0]) if len(risks) else 0
    by_entity: Dict[str, List[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        by_entity[row[3]].append(i)
    r = numpy.asarray(risks, dtype=float).reshape(len(rows), n_ind)
    entity_max = numpy.zeros_like(r)
    entity_mean = numpy.zeros_like(r)
    first = numpy.zeros(len(rows))
    mentions = numpy.zeros(len(rows))
    for members in by_entity.values():
        entity_max[members] = r[members].max(axis=0)
        entity_mean[members] = r[members].mean(axis=0)
        first[members] = min(rows[i][0] for i in members)
        mentions[members] = len(members)
    length = max(len(text), 1)
    head = text[:HEAD_CHARS].lower()
    detector_index = {d: i for i, d in enumerate(detectors)}
    n_base = len(BASE_FEATURES)
    n_context = len(CONTEXT_FEATURES)
    contexts = context_matrix(text, rows, context)
    out = numpy.zeros((len(rows), 3 * n_ind + n_base + len(LABELS) + len(detectors)))
    # each indicator's risk, entity max and entity mean side by side
    out[:, : 3 * n_ind] = numpy.stack([r, entity_max, entity_mean], axis=2).reshape(len(rows), 3 * n_ind)
    base, hot = [], []  # the rows' base features, and their label and detector columns (one list, one write)
    for i, (start, end, label, _entity, detector, validated) in enumerate(rows):
        words = text[start:end].split()
        joined = " ".join(words)
        surface = joined.lower()
        base.append([math.log1p(mentions[i]), first[i] / length, start / length, float(bool(surface) and surface in head),
                     len(words), float(any(ch.isdigit() for ch in surface)), float(text[start:end].isupper()), float(validated),
                     *text_features(joined)])
        if label in LABELS:
            hot.append((i, 3 * n_ind + n_base + LABELS.index(label)))
        if detector in detector_index:
            hot.append((i, 3 * n_ind + n_base + len(LABELS) + detector_index[detector]))
    if rows:
        out[:, 3 * n_ind : 3 * n_ind + n_base - n_context] = base
        out[:, 3 * n_ind + n_base - n_context : 3 * n_ind + n_base] = contexts
    if hot:
        out[tuple(numpy.asarray(hot).T)] = 1.0
    if doc_features:
        doc = [*doc_shape(text, len(rows)), *(r.mean(axis=0) if len(rows) else numpy.zeros(n_ind))]
        out = numpy.hstack([out, numpy.tile(numpy.asarray(doc, dtype=float), (len(rows), 1))])
    return out


class StackModel:
    """The fitted classifier with what its features need: the indicators it reads (in order),
    the detector names of its one-hot features and the context rates (last word, previous word)."""

    def __init__(self, indicators: Sequence[str], detectors: Sequence[str], classifier: SpanClassifier, info: Optional[Dict[str, Any]] = None,
                 context: Optional[Tuple[ContextRates, ContextRates]] = None, doc_features: bool = False,
                 quartiles: Optional[Dict[str, Sequence[float]]] = None) -> None:
        self.doc_features = doc_features
        # (Q1, Q3) of each DOC_FEATURES over the training documents: the fence's learned state
        self.quartiles = {k: (float(v[0]), float(v[1])) for k, v in quartiles.items()} if quartiles else None
        self.indicators = list(indicators)
        self.detectors = list(detectors)
        self.classifier = classifier
        self.info = dict(info or {})
        self.context = context or (ContextRates(), ContextRates())

    @classmethod
    def fit(cls, docs: Sequence[Tuple[str, Sequence[SpanRow], Sequence[Sequence[float]], Sequence[float]]], indicators: Sequence[str],
            params: Optional[Dict[str, Any]] = None, seed: int = 0, info: Optional[Dict[str, Any]] = None, doc_features: bool = False,
            doc_weight: float = 0.0) -> "StackModel":
        """Fit on ``(text, rows, risks, targets)`` per document; a target is the fraction of
        annotators who mask the span (each span counts as a positive with that weight and a
        negative with the rest). ``doc_weight``: each span of a document with n spans weighs
        ``n ** -doc_weight`` (rescaled to a mean of 1): 0 counts every span alike, so a 300-span
        judgment outweighs fifteen short biographies; 0.5 lets short texts teach their
        conventions too (default's decision; chosen by grouped CV, docs/default.md). A training
        row's context rates come from the documents of the other ``FIT_PARTS`` parts (a rate must
        not have seen its own row); the model keeps the rates of all documents."""
        docs = [doc for doc in docs if len(doc[1])]
        if not docs:
            raise ValueError(Errors.E540)
        detectors = sorted({row[4] for _text, rows, _risks, _y in docs for row in rows})
        keys = [context_keys(text, rows) for text, rows, _risks, _y in docs]
        parts = [i % FIT_PARTS for i in range(len(docs))]
        matrices = []
        for i, (text, rows, risks, _y) in enumerate(docs):
            others = [j for j in range(len(docs)) if parts[j] != parts[i]] or [i]
            matrices.append(feature_matrix(text, rows, risks, detectors, context_rates(keys, docs, others), doc_features))
        X_all = numpy.concatenate(matrices)
        y = numpy.concatenate([numpy.asarray(t, dtype=float) for _text, _rows, _risks, t in docs])
        both = numpy.concatenate([X_all, X_all])
        labels = numpy.concatenate([numpy.ones(len(y), dtype=int), numpy.zeros(len(y), dtype=int)])
        per_span = numpy.concatenate([numpy.full(len(t), float(len(t)) ** -doc_weight) for _text, _rows, _risks, t in docs])
        per_span *= len(per_span) / per_span.sum()
        weights = numpy.concatenate([y * per_span, (1.0 - y) * per_span]) + 1e-6
        classifier = SpanClassifier(dict(params or DEFAULT_PARAMS)).fit(both, labels, seed=seed, sample_weight=weights)
        shapes = numpy.asarray([doc_shape(text, len(rows)) for text, rows, _risks, _y in docs])
        # rounded as saved (JSON keeps 10 digits): a loaded model fences exactly where the fit one does
        quartiles = {k: [round(float(q), 6) for q in numpy.percentile(shapes[:, j], [25, 75])] for j, k in enumerate(DOC_FEATURES)}
        return cls(indicators, detectors, classifier, info, context_rates(keys, docs, range(len(docs))), doc_features, quartiles)

    def unlike(self, text: str, n_spans: int, fence: float) -> Optional[str]:
        """Why the document ``text`` with ``n_spans`` spans lies beyond the fences (``fence``
        interquartile ranges past the training documents' quartiles of its length and span
        density), or None. Not of the indicators' mean: in a short text that is the score of its
        one or two spans, the very thing the model decides."""
        if self.quartiles is None:
            raise ValueError(Errors.E546.format(name="risk_stack", value=fence))
        for key, value in zip(DOC_FEATURES, doc_shape(text, n_spans)):
            q1, q3 = self.quartiles[key]
            low, high = q1 - fence * (q3 - q1), q3 + fence * (q3 - q1)
            if key == "doc_span_density":
                # spans come whole: a text holds as many as the fences allow for its length, rounded
                # outwards ("Carlos Mendes wrote back.": 2 spans in 25 characters is no denser
                # than 1.7 allowed)
                per = max(len(text), 1) / 1000.0
                inside = math.floor(low * per) <= n_spans <= math.ceil(high * per)
            else:
                inside = low <= value <= high
            if not inside:
                return f"{UNLIKE}: {key} {value:.2f} outside [{low:.2f}, {high:.2f}]"
        return None

    def features(self, text: str, rows: Sequence[SpanRow], risks: Sequence[Sequence[float]]) -> numpy.ndarray:
        """The feature rows of the spans ``rows`` of ``text`` (``feature_matrix`` with this model's settings)."""
        return feature_matrix(text, rows, risks, self.detectors, self.context, self.doc_features)

    def predict(self, text: str, rows: Sequence[SpanRow], risks: Sequence[Sequence[float]], fence: Optional[float] = None) -> numpy.ndarray:
        """Each span's probability of being masked; 1.0 on all of them when ``fence`` is given and
        the document lies beyond it."""
        if not len(rows):
            return numpy.zeros(0)
        if fence is not None and self.unlike(text, len(rows), fence):
            return numpy.full(len(rows), FAIL_CLOSED_RISK)
        return self.classifier.predict_proba(self.features(text, rows, risks))

    def to_dict(self) -> Dict[str, Any]:
        out = {"indicators": self.indicators, "detectors": self.detectors, "features": feature_names(self.indicators, self.detectors, self.doc_features),
               "classifier": self.classifier.to_dict(), "info": self.info, "context": [rates.to_dict() for rates in self.context]}
        if self.doc_features:  # absent in models fit before document features existed
            out["doc_features"] = True
        if self.quartiles is not None:  # absent in models fit before the fence existed
            out["doc_quartiles"] = {k: list(v) for k, v in self.quartiles.items()}
        return out

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "StackModel":
        doc_features = bool(data.get("doc_features", False))
        expected = feature_names(data["indicators"], data["detectors"], doc_features)
        if data.get("features", expected) != expected:
            raise ValueError(Errors.E544.format(fitted=len(data["features"]), expected=len(expected)))
        heads, prevs = (ContextRates(c["prior"], c["rates"]) for c in data["context"])
        return cls(data["indicators"], data["detectors"], SpanClassifier.from_dict(data["classifier"]), data.get("info"), (heads, prevs), doc_features,
                   data.get("doc_quartiles"))


def context_rates(keys: Sequence[Sequence[Tuple[str, str]]], docs: Sequence[Tuple[Any, Any, Any, Sequence[float]]],
                  indices: Iterable[int]) -> Tuple[ContextRates, ContextRates]:
    """The last-word and previous-word rates of the documents ``indices``."""
    chosen = list(indices)
    targets = [t for i in chosen for t in docs[i][3]]
    return (ContextRates.fit([k[0] for i in chosen for k in keys[i]], targets),
            ContextRates.fit([k[1] for i in chosen for k in keys[i]], targets))


class RiskStack(LearnedState):
    """Writes ``Span._.risk["stack"]`` (the component name without ``risk_``); see the module docstring."""

    def __init__(self, nlp: Language, name: str, indicators: List[str], spans_key: str, doc_fence: Optional[float] = None) -> None:
        if not indicators:
            raise ValueError(Errors.E541.format(name=name))
        if doc_fence is not None and (isinstance(doc_fence, bool) or not isinstance(doc_fence, (int, float)) or not 0 <= doc_fence < math.inf):
            raise ValueError(Errors.E545.format(name=name, value=doc_fence))
        self.doc_fence = None if doc_fence is None else float(doc_fence)
        self.nlp = nlp
        self.name = name
        self.risk_key = risk_key(name)
        self.indicators = list(indicators)
        self.spans_key = spans_key
        self.model: Optional[StackModel] = None

    def reads(self, key: str) -> bool:
        """Whether this component combines the indicator that writes ``Span._.risk[key]``."""
        return key in self.indicators

    def _check_model(self) -> StackModel:
        if self.model is None:
            raise ValueError(Errors.E542.format(name=self.name))
        if self.model.indicators != self.indicators:
            raise ValueError(Errors.E543.format(name=self.name, configured=self.indicators, fitted=self.model.indicators))
        if self.doc_fence is not None and self.model.quartiles is None:
            raise ValueError(Errors.E546.format(name=self.name, value=self.doc_fence))
        return self.model

    def _features(self, doc: Doc) -> Tuple[List[Span], List[List[float]], List[Optional[str]], numpy.ndarray]:
        """The doc's spans, their indicator scores, why each could not be scored (None: it
        could) and their feature rows."""
        model = self._check_model()
        spans = list(doc.spans.get(self.spans_key, []))
        risks: List[List[float]] = []
        missing: List[Optional[str]] = []
        rows: List[SpanRow] = []
        for span in spans:
            explains, span_risks = span._.risk_explain, span._.risk  # read once: each read copies
            scores, why = [], None
            for key in self.indicators:
                explain = explains.get(key)
                if key not in span_risks:
                    why = why or f"no {key} risk"
                elif isinstance(explain, dict) and explain.get("fail_closed"):
                    why = why or f"{key} failed: {explain.get('error', '')}"
                scores.append(float(span_risks.get(key, FAIL_CLOSED_RISK)))
            risks.append(scores)
            missing.append(why)
            rows.append(span_row(span, explains))
        text = doc_text(doc)
        features = model.features(text, rows, risks) if spans else numpy.zeros((0, 0))
        unlike = model.unlike(text, len(spans), self.doc_fence) if spans and self.doc_fence is not None else None
        if unlike:  # not decided: every span fails closed with the reason
            missing = [why or unlike for why in missing]
        return spans, risks, missing, features

    def _write(self, spans: List[Span], risks: List[List[float]], missing: List[Optional[str]], probs: numpy.ndarray) -> None:
        for span, p, why, scores in zip(spans, probs, missing, risks):
            if why is not None:  # fail closed: a span an input indicator could not score
                write_risk(span, self.risk_key, FAIL_CLOSED_RISK, failure(why, indicators=self.indicators))
            else:
                write_risk(span, self.risk_key, float(p), {"indicators": dict(zip(self.indicators, (round(s, 4) for s in scores)))})

    def __call__(self, doc: Doc) -> Doc:
        spans, risks, missing, features = self._features(doc)
        if spans:
            self._write(spans, risks, missing, self._check_model().classifier.predict_proba(features))
        return doc

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterable[Doc]:
        """The docs of a batch scored by one classifier call over all their spans."""
        for batch in minibatch(stream, batch_size):
            parts = [(doc, *self._features(doc)) for doc in batch]
            scored = [features for _doc, spans, _r, _m, features in parts if spans]
            probs = self._check_model().classifier.predict_proba(numpy.vstack(scored)) if scored else numpy.zeros(0)
            offset = 0
            for doc, spans, risks, missing, _features in parts:
                self._write(spans, risks, missing, probs[offset : offset + len(spans)])
                offset += len(spans)
                yield doc

    def initialize(self, get_examples: Any = None, *, nlp: Optional[Language] = None, shipped: Optional[str] = None,
                   data: Optional[str] = None) -> None:
        """Load the shipped model ``shipped`` under ``data`` (None: the package's data folder).
        Fitting needs out-of-fold indicator scores, which a pipeline's own examples do not give:
        ``spacy-sanitize train-stack`` fits and saves one (load it with ``from_disk``)."""
        if shipped is not None:
            self.from_disk(artefact_path(shipped, data, component=self.name))
            self._check_model()

    def _learned(self) -> Dict[str, Any]:
        return {} if self.model is None else self.model.to_dict()

    def _set_learned(self, learned: Dict[str, Any]) -> None:
        self.model = StackModel.from_dict(learned) if learned.get("classifier") else None


@Language.factory(
    "risk_stack",
    default_config={"indicators": ["seq"], "spans_key": DEFAULT_SPANS_KEY, "doc_fence": None},
    requires=["doc.spans", "span._.risk"],
    assigns=["span._.risk", "span._.risk_explain"],
)
def make_risk_stack(nlp: Language, name: str, indicators: List[str], spans_key: str, doc_fence: Optional[float]) -> RiskStack:
    """indicators (List[str]): the risk keys combined (``seq`` for ``risk_seq``), in the order
    the model was fit with. doc_fence (Optional[float]): a document whose length or span density
    lies more than this many interquartile ranges beyond the training documents' quartiles is
    not decided (every span risk 1.0, fail closed; null: no fence). The model is loaded by
    ``initialize`` (``shipped = "risk_stack_court"`` in the court config) or ``from_disk``."""
    register_extensions()
    return RiskStack(nlp, name, indicators, spans_key, doc_fence)

