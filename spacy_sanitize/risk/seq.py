"""risk_seq: the sequence-labelling risk indicator (seed 000, "Sequence Labelling").

A token tagger (see ``seq_models``) gives each token a probability of MASK, learnt from
annotators' masking decisions; each PII span's risk aggregates the probabilities of its
tokens: ``max`` = "partial match" (one MASK token is enough), ``min`` = "full match" (all
tokens MASK), or ``mean``. The tagger sees the whole context, not just the span.

With ``propose_threshold`` set, the tagger also detects: each run of tokens outside every span
whose MASK probability reaches it becomes a span (label ``propose_label``), or widens the span
it touches ("Gujarat" + "riots"), scored like the others, so the decider masks it (seed 000's
tagger masks tokens, not a detector's spans; the detector misses some of what annotators mask).
A new span's ``Span._.risk_explain["detector"]`` names the component and
``risk_explain["seq"]["proposed"]`` is true; a widened one has ``risk_explain["seq"]["widened_from"]``
(its old character offsets).

Fail closed: a document the tagger cannot process gets risk 1.0 on all its spans, the
reason in ``Span._.risk_explain["seq"]`` and a logged warning.
"""
import tempfile
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Union

import numpy as np
import srsly
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc, Span
from spacy.training import Example, validate_get_examples
from spacy.util import minibatch

from ..evaluation.scorer import score_tab
from ..extensions import register_extensions
from .seq_models import SeqTagger, load_tagger, reads_spans, save_tagger, token_labels, view_share
from ..corpus.tab import VIEW_SIZES
from .base import FAIL_CLOSED_RISK, failure, isolate_failures, risk_key, write_risk
from ..shipped import artefact_path, data_path
from ..errors import Errors, Warnings
from ..types import PII_TYPES

AGGREGATIONS: Dict[str, Callable[[np.ndarray], float]] = {
    "max": lambda p: float(p.max()),
    "min": lambda p: float(p.min()),
    "mean": lambda p: float(p.mean()),
}
SHIPPED = "risk_seq"  # the shipped tagger's folder under [paths] sanitize_data


def span_risk(span: Span, probs: np.ndarray, aggregation: str = "max") -> float:
    """A span's risk from its tokens' MASK probabilities (1.0 for an empty span: fail closed)."""
    token_probs = probs[span.start : span.end]
    return AGGREGATIONS[aggregation](token_probs) if len(token_probs) else 1.0


def shipped_weights() -> Path:
    """Directory of the tagger shipped with the package (built by ``spacy project run build-seq``)."""
    return data_path("risk_seq")


def proposed_spans(doc: Doc, spans: List[Span], probs: np.ndarray, threshold: float, label: str) -> Tuple[List[Span], Dict[int, Span]]:
    """The tagger's spans: each run of tokens outside ``spans`` whose MASK probability reaches
    ``threshold``, less the punctuation and spaces at its edges. A run touching a span widens it
    ("Gujarat" + "riots": one mention, one placeholder; the span before it first), the others
    are new spans of ``label``. Returns (new spans, {index in ``spans``: its widened span}).
    A widened span keeps the label, entity id, confidence and explanation of the span it grew
    from; the risks of indicators that ran before are not carried (they scored the old span, so
    a decider that reads them finds none and masks: fail closed)."""
    hit = np.asarray(probs, dtype=float) >= threshold
    for span in spans:
        hit[span.start : span.end] = False
    edges = np.flatnonzero(np.diff(np.concatenate(([False], hit, [False])).astype(np.int8)))
    bounds = {i: (span.start, span.end) for i, span in enumerate(spans)}
    ends = {span.end: i for i, span in reversed(list(enumerate(spans)))}
    starts = {span.start: i for i, span in reversed(list(enumerate(spans)))}
    new: List[Span] = []
    grown = set()
    for start, end in zip(edges[::2].tolist(), edges[1::2].tolist()):
        while start < end and (doc[start].is_punct or doc[start].is_space):
            start += 1
        while end > start and (doc[end - 1].is_punct or doc[end - 1].is_space):
            end -= 1
        if start >= end:
            continue
        owner = ends.get(start, starts.get(end))
        if owner is None:
            new.append(Span(doc, start, end, label=label))
            continue
        lo, hi = bounds[owner]
        bounds[owner] = (min(lo, start), max(hi, end))
        grown.add(owner)
    widened = {}
    for i in sorted(grown):
        old = spans[i]
        span = Span(doc, *bounds[i], label=old.label_)
        span._.entity_id = old._.entity_id
        span._.confidence = old._.confidence
        span._.risk_explain = {k: v for k, v in old._.risk_explain.items() if k not in old._.risk}
        widened[i] = span
    return new, widened


def _weights_path(weights: Optional[str]) -> Optional[Path]:
    if not weights:
        return None
    path = Path(weights)
    if not (path / "backend.json").exists():
        raise OSError(Errors.E505.format(path=path, err="no backend.json there"))
    return path


class RiskSeq(Pipe):
    """Writes ``Span._.risk["seq"]`` (the component name without ``risk_``) for the spans in
    ``doc.spans[spans_key]``; a decider (``risk_threshold``, ``risk_vote``) turns it into ``Span._.mask``."""

    def __init__(
        self,
        nlp: Language,
        name: str,
        tagger: SeqTagger,
        spans_key: str,
        mask_key: str,
        aggregation: str,
        weights: Optional[str],
        batch_size: int,
        scorer: Optional[Callable] = None,
        propose_threshold: Optional[float] = None,
        propose_label: str = "MISC",
    ) -> None:
        if aggregation not in AGGREGATIONS:
            raise ValueError(Errors.E503.format(name=aggregation))
        if (propose_threshold is not None and not 0 < propose_threshold <= 1) or propose_label not in PII_TYPES:
            raise ValueError(Errors.E508.format(value=propose_threshold, label=propose_label, labels=", ".join(PII_TYPES)))
        self.nlp = nlp
        self.name = name
        self.risk_key = risk_key(name)
        self.tagger = tagger
        self.spans_key = spans_key
        self.mask_key = mask_key
        self.aggregation = aggregation
        self.batch_size = batch_size
        self.scorer = scorer
        self.propose_threshold = propose_threshold
        self.propose_label = propose_label
        self._weights = _weights_path(weights)  # checked now, loaded on first use

    # ---------------------------------------------------------------- prediction

    def _ready(self) -> SeqTagger:
        if not self.tagger.initialized:
            if self._weights is None:
                raise ValueError(Errors.E504)
            self.tagger = load_tagger(self._weights)
        return self.tagger

    def predict(self, docs: Iterable[Doc]) -> List[Union[np.ndarray, str]]:
        """Token MASK probabilities per doc, or the reason the doc could not be tagged."""
        docs = list(docs)
        tagger = self._ready()
        return isolate_failures(tagger.predict, docs, lambda err: f"{type(err).__name__}: {err}")

    def set_annotations(self, docs: Iterable[Doc], predictions: List[Union[np.ndarray, str]]) -> None:
        for doc, probs in zip(docs, predictions):
            spans = list(doc.spans.get(self.spans_key, []))
            if isinstance(probs, str):
                warnings.warn(Warnings.W501.format(doc_id=doc._.doc_id, err=probs, n=len(spans)), stacklevel=2)
            spans, notes = self._propose(doc, spans, probs)
            for span in spans:
                if isinstance(probs, str):
                    risk, explain = FAIL_CLOSED_RISK, failure(probs)
                else:
                    risk = span_risk(span, probs, self.aggregation)
                    explain = {
                        "token_probs": [round(float(p), 4) for p in probs[span.start : span.end]],
                        "aggregation": self.aggregation,
                    }
                write_risk(span, self.risk_key, risk, {**explain, **notes.get(span, {})})

    def _propose(self, doc: Doc, spans: List[Span], probs: Union[np.ndarray, str]) -> Tuple[List[Span], Dict[Span, Dict[str, Any]]]:
        """The tagger's own spans (``propose_threshold``): new ones are added to the group and
        widened ones replace theirs. Returns the spans to score and, for the tagger's own, what
        their explanation says ({"proposed": true} or {"widened_from": old offsets}). A doc the
        tagger could not process gets none (its detected spans get risk 1.0: fail closed)."""
        if self.propose_threshold is None or isinstance(probs, str):
            return spans, {}
        new, widened = proposed_spans(doc, spans, probs, self.propose_threshold, self.propose_label)
        if not new and not widened:
            return spans, {}
        notes: Dict[Span, Dict[str, Any]] = {span: {"proposed": True} for span in new}
        for span in new:
            span._.risk_explain["detector"] = self.name
        notes.update({widened[i]: {"widened_from": [spans[i].start_char, spans[i].end_char]} for i in widened})
        out = [widened.get(i, span) for i, span in enumerate(spans)] + new
        doc.spans[self.spans_key] = sorted(out, key=lambda s: (s.start, s.end))
        return out, notes

    def __call__(self, doc: Doc) -> Doc:
        self.set_annotations([doc], self.predict([doc]))
        return doc

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        for docs in minibatch(stream, size=min(batch_size, self.batch_size)):
            self.set_annotations(docs, self.predict(docs))
            yield from docs

    # ---------------------------------------------------------------- training

    def _labels(self, examples: Iterable[Example]) -> List[np.ndarray]:
        labels = []
        for eg in examples:
            if self.mask_key not in eg.reference.spans:
                raise ValueError(Errors.E502.format(key=self.mask_key))
            group = eg.reference.spans[self.mask_key]
            spans = [(s.start_char, s.end_char) for s in group]
            sizes = group.attrs.get(VIEW_SIZES)  # merged annotator views: soft labels
            labels.append(token_labels(eg.predicted, spans) if sizes is None else view_share(eg.predicted, spans, sizes))
        return labels

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        shipped: Optional[str] = None,
        data: Optional[str] = None,
    ) -> None:
        """Start the tagger: from ``weights`` when set (fine-tuning continues from there),
        else from the backend's pretrained encoder. Checks the examples carry mask spans.
        shipped (Optional[str]): load this shipped tagger folder under ``data`` (None: the
        package's data folder) instead; no examples are needed (shipped configs)."""
        if shipped is not None:
            self._weights = _weights_path(str(artefact_path(shipped, data, component=self.name)))
            self.tagger = load_tagger(self._weights)
            return
        validate_get_examples(get_examples, "RiskSeq.initialize")
        examples = list(get_examples())
        self._labels(examples[:10])
        if self._weights is not None:
            self.tagger = load_tagger(self._weights)
        # the tagger that will run, and the span group its features read
        key = self.tagger.settings.get("spans_key", self.spans_key)
        if reads_spans(self.tagger) and not any(key in eg.predicted.spans for eg in examples[:10]):
            raise ValueError(Errors.E521.format(key=key))
        if self._weights is None:
            self.tagger.initialize([eg.predicted for eg in examples[:16]])

    def update(
        self, examples: Iterable[Example], *, drop: float = 0.1, sgd: Any = None, losses: Optional[Dict[str, float]] = None
    ) -> Dict[str, float]:
        """One training step on ``examples``; the tagger owns its optimizer (AdamW for the
        transformer, thinc Adam for the CNN), so ``sgd`` is not used."""
        losses = {} if losses is None else losses
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_get_examples(lambda: examples, "RiskSeq.update")
        tagger = self._ready()
        losses[self.name] += tagger.update([eg.predicted for eg in examples], self._labels(examples), drop)
        return losses

    def score(self, examples: Iterable[Example], **kwargs: Any) -> Dict[str, Any]:
        """TAB metrics of this indicator alone, a span masked at risk >= 0.5 (the decision in a
        pipeline is the decider's, which this component does not write)."""
        return (self.scorer or score_tab)(examples, spans_key=self.spans_key, risk_key=self.risk_key)

    # ---------------------------------------------------------------- serialization

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> None:
        save_tagger(self._ready(), path)

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> "RiskSeq":
        self.tagger = load_tagger(path)
        return self

    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        with tempfile.TemporaryDirectory() as tmp:
            self.to_disk(tmp)
            files = {str(p.relative_to(tmp)): p.read_bytes() for p in Path(tmp).rglob("*") if p.is_file()}
        return srsly.msgpack_dumps(files)

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = ()) -> "RiskSeq":
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp).resolve()
            for name, data in srsly.msgpack_loads(bytes_data).items():
                target = (root / name).resolve()
                # untrusted bytes name the files: none may land outside the folder (or be it)
                if not isinstance(name, str) or not name or root not in target.parents:
                    raise ValueError(Errors.E509.format(name=name))
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            self.from_disk(tmp)
        return self


@Language.factory(
    "risk_seq",
    default_config={
        "tagger": {"@misc": "spacy_sanitize.seq_cnn.v1"},
        "spans_key": "pii",
        "mask_key": "mask",
        "aggregation": "max",
        "weights": None,
        "batch_size": 32,
        "scorer": {"@scorers": "spacy_sanitize.tab_scorer.v1"},
        "propose_threshold": None,
        "propose_label": "MISC",
    },
    requires=["doc.spans"],
    assigns=["span._.risk", "span._.risk_explain"],
    default_score_weights={"tab_f1": 1.0, "tab_p": 0.0, "tab_r_all": 0.0, "tab_r_direct": 0.0, "tab_r_quasi": 0.0},
)
def make_risk_seq(
    nlp: Language,
    name: str,
    tagger: SeqTagger,
    spans_key: str,
    mask_key: str,
    aggregation: str,
    weights: Optional[str],
    batch_size: int,
    scorer: Optional[Callable],
    propose_threshold: Optional[float],
    propose_label: str,
) -> RiskSeq:
    """tagger (SeqTagger): ``spacy_sanitize.seq_cnn.v1`` or ``spacy_sanitize.seq_transformer.v1``.
    aggregation (str): ``max`` (partial match), ``min`` (full match) or ``mean``.
    weights (Optional[str]): a saved tagger directory (overrides ``tagger``); the shipped
    one is loaded by ``initialize`` (``shipped = "risk_seq"``).
    propose_threshold (Optional[float]): also add, as spans of ``propose_label``, the runs of
    tokens outside every span whose MASK probability reaches it, or widen the span such a run
    touches (null: the detector's spans only)."""
    register_extensions()
    return RiskSeq(nlp, name, tagger, spans_key, mask_key, aggregation, weights, batch_size, scorer, propose_threshold, propose_label)
