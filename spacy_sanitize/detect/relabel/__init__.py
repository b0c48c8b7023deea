"""pii_relabel: re-predicts the PII type of every span the detector found.

The detector finds spans well (token-level P 0.92 / R 0.88 on the Wikipedia biographies)
but often gives them the wrong type: full person names labelled ORG, schools and clubs
labelled LOC, titles of works labelled PERSON. ``pii_relabel`` is a multinomial logistic
regression over cheap features of each span of ``doc.spans[spans_key]``: its current label,
the labels its sources gave (the generic NER's ``doc.ents`` label, the detector and gazetteer
property recorded in ``Span._.risk_explain``), its words, first and last words (head nouns
such as School, College, RFC, Award, League), word shapes, digits, roman numerals, and the
words around it ("starred in", "born in").

It never changes boundaries and never drops a span: only ``span.label_`` changes, and only
when the classifier's probability of the new type is at least ``min_prob``. Every span gets
``Span._.risk_explain["pii_relabel"] = {"old": ..., "new": ..., "p": ...}`` for audit.

The model is plain arrays (feature names, labels, coefficients), so loading it needs numpy
only; scikit-learn is used for training. ``shipped = "pii_relabel"`` in initialize loads the
one shipped in the package (trained on the 70 annotated biographies by
``spacy project run train-relabel``); a missing or corrupt model is an error (E301), never a
silent fallback.

The component is here; ``features`` turns spans into feature dicts, ``model`` holds the
label model (arrays, loading, training, decisions); the coded messages are in
``spacy_sanitize.errors``.
"""
import logging
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import minibatch

from ...errors import Errors
from ...extensions import register_extensions
from ...lm.context import ContextEncoder
from ...shipped import SHIPPED_MLM, artefact_path, current_name
from ...types import DEFAULT_SPANS_KEY
from .features import (
    HEAD_CLASS,
    HEAD_WORDS,
    LEFT_WINDOW,
    LIST_SEPARATORS,
    QUOTES,
    ROMAN,
    YEAR,
    doc_features,
    docs_features,
    gold_span_labels,
    span_features,
)
from .model import FEATURES_VERSION, MODEL_FORMAT, NONE_LABEL, LabelModel, fit_label_model, relabel_decisions

logger = logging.getLogger(__name__)
logger.addHandler(logging.NullHandler())


class PIIRelabel:
    """Re-predicts the type of the spans in ``doc.spans[spans_key]`` (boundaries kept)."""

    def __init__(
        self,
        name: str,
        spans_key: str,
        model: Optional[str],
        min_prob: Optional[float],
        entity_vote: Optional[bool],
        C: float,
        none_class: bool,
        min_count: int,
        keep_labels: Optional[List[str]] = None,
        encoder: Optional[str] = None,
        encoder_scale: float = 5.0,
        encoder_layers: int = 0,
        encoder_quantize: bool = False,
    ) -> None:
        self.name = name
        self.spans_key = spans_key
        self.model_name = model
        self._min_prob = min_prob
        self._entity_vote = entity_vote
        self.C = C
        self.none_class = none_class
        self.min_count = min_count
        self._keep_labels = keep_labels
        self._encoder_name = encoder
        self._encoder_scale = float(encoder_scale)
        self._encoder_layers = int(encoder_layers)
        self._encoder_quantize = bool(encoder_quantize)
        self._encoders: Dict[Tuple[str, int, bool], ContextEncoder] = {}
        self._data: Optional[str] = None  # initialize's data: where the shipped minilm_mlm encoder is
        # The configured model directory is read in initialize or at first use, not here:
        # spacy.load's from_disk gives the saved model without reading the configured path.
        # (Not a lazy property: spaCy's isinstance checks on its protocols read ``model``.)
        self.model: Optional[LabelModel] = None

    def load_model(self) -> Optional[LabelModel]:
        """The trained model, reading the configured ``model`` directory the first time
        (E301/E302 when it is missing or unusable)."""
        if self.model is None and self.model_name:
            self.model = LabelModel.from_disk(self.model_name)
        return self.model

    def _trained(self, key: str, default: Any) -> Any:
        """A setting recorded in the trained model's meta (``default`` without a model)."""
        model = self.load_model()
        return (model.meta if model else {}).get(key, default)

    # The encoder settings of a trained model win (its features were computed with them);
    # min_prob, entity_vote and keep_labels: the configured value wins over the CV-chosen one.
    @property
    def encoder_name(self) -> Optional[str]:
        name = self._trained("encoder", None) if self.load_model() is not None else self._encoder_name
        return current_name(name) if name else name  # the shipped model stores the MLM's old name

    @property
    def encoder_scale(self) -> float:
        return float(self._trained("encoder_scale", 1.0)) if self.load_model() is not None else self._encoder_scale

    @property
    def encoder_layers(self) -> int:
        return int(self._trained("encoder_layers", 0)) if self.load_model() is not None else self._encoder_layers

    @property
    def encoder_quantize(self) -> bool:
        return bool(self._trained("encoder_quantize", False)) if self.load_model() is not None else self._encoder_quantize

    def context_encoder(self, name: Optional[str] = None, layers: Optional[int] = None, quantize: Optional[bool] = None) -> Optional[ContextEncoder]:
        """The encoder ``name`` read at layer ``layers``, in int8 with ``quantize`` (defaults:
        those of the trained model, else the configured ones), or None without one."""
        name = self.encoder_name if name is None else name
        layers = self.encoder_layers if layers is None else layers
        quantize = self.encoder_quantize if quantize is None else quantize
        if not name:
            return None
        if (name, layers, quantize) not in self._encoders:
            self._encoders[(name, layers, quantize)] = ContextEncoder(name, layers=layers, data=self._data, quantize=quantize)
        return self._encoders[(name, layers, quantize)]

    @property
    def min_prob(self) -> float:
        return float(self._min_prob if self._min_prob is not None else self._trained("min_prob", 0.5))

    @min_prob.setter
    def min_prob(self, value: Optional[float]) -> None:
        self._min_prob = value

    @property
    def entity_vote(self) -> bool:
        return bool(self._entity_vote if self._entity_vote is not None else self._trained("entity_vote", True))

    @entity_vote.setter
    def entity_vote(self, value: Optional[bool]) -> None:
        self._entity_vote = value

    @property
    def keep_labels(self) -> List[str]:
        return list(self._keep_labels if self._keep_labels is not None else self._trained("keep_labels", []))

    @keep_labels.setter
    def keep_labels(self, value: Optional[List[str]]) -> None:
        self._keep_labels = value

    def __call__(self, doc: Doc) -> Doc:
        return self.set_annotations([doc])[0]

    def pipe(self, stream: Iterable[Doc], batch_size: int = 128) -> Iterable[Doc]:
        """Like ``__call__``; the context encoder reads the windows of ``batch_size`` docs in
        shared forward passes."""
        for docs in minibatch(stream, size=batch_size):
            yield from self.set_annotations(docs)

    def set_annotations(self, docs: List[Doc]) -> List[Doc]:
        if self.load_model() is None:
            raise ValueError(Errors.E300)
        encoder = self.context_encoder()
        scale = float(self.model.meta.get("encoder_scale", 1.0))
        for doc, rows in zip(docs, docs_features(docs, self.spans_key, encoder, scale)):
            decisions = relabel_decisions(self.model, doc, self.spans_key, self.min_prob, self.entity_vote, rows=rows, keep_labels=self.keep_labels, encoder=encoder)
            self._relabel(doc, decisions)
        return docs

    def _relabel(self, doc: Doc, decisions: List[Tuple[str, Optional[float], Dict[str, float]]]) -> None:
        spans = list(doc.spans.get(self.spans_key, []))
        new_spans = []
        for span, (label, prob, _) in zip(spans, decisions):
            old = span.label_
            if label != old:
                new = Span(doc, span.start, span.end, label=label)
                new._.entity_id = span._.entity_id
                span = new
            span._.risk_explain[self.name] = {"old": old, "new": label, "p": None if prob is None else round(prob, 4)}
            new_spans.append(span)
        if spans:
            doc.spans[self.spans_key] = new_spans

    # training -------------------------------------------------------------------------------
    def training_rows(self, predicted: Sequence[Doc], references: Sequence[Doc], features: Optional[Sequence[List[Dict[str, float]]]] = None) -> Tuple[List[Dict[str, float]], List[str]]:
        """Feature dicts and gold types of the detected spans (``features``: per doc, when
        already computed)."""
        rows: List[Dict[str, float]] = []
        y: List[str] = []
        encoder = self.context_encoder(self._encoder_name, self._encoder_layers, self._encoder_quantize) if self._encoder_name else None
        if features is None:
            features = docs_features(predicted, self.spans_key, encoder, self._encoder_scale)
        for doc_rows, doc, ref in zip(features, predicted, references):
            for feats, gold in zip(doc_rows, gold_span_labels(doc, ref, self.spans_key)):
                if gold is None and not self.none_class:
                    continue
                rows.append(feats)
                y.append(gold or NONE_LABEL)
        return rows, y

    def fit(self, predicted: Sequence[Doc], references: Sequence[Doc], features: Optional[Sequence[List[Dict[str, float]]]] = None) -> LabelModel:
        """Train on detector output ``predicted`` (with ``spans_key`` spans) against the gold
        ``references`` (same texts, gold ``spans_key`` spans)."""
        rows, y = self.training_rows(predicted, references, features)
        if not rows:
            raise ValueError(Errors.E303.format(key=self.spans_key))
        self.model = fit_label_model(rows, y, C=self.C, min_count=self.min_count)
        self.model.meta.update(
            min_prob=self.min_prob, entity_vote=self.entity_vote, keep_labels=self.keep_labels, none_class=self.none_class, n_docs=len(predicted),
            encoder=self._encoder_name or None, encoder_scale=self._encoder_scale, encoder_layers=self._encoder_layers,
            encoder_quantize=self._encoder_quantize,
        )
        return self.model

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        shipped: Optional[str] = None,
        data: Optional[str] = None,
    ) -> None:
        """Train on gold examples: the reference docs' ``spans_key`` spans are the gold types;
        the predicted docs are run through the components before this one in ``nlp``.
        shipped (Optional[str]): load this shipped model folder under ``data`` (None: the
        package's data folder) instead of training (``[paths] sanitize_data`` in shipped configs).
        A configured ``model`` directory is loaded instead of training, and wins over
        ``shipped`` (a setting the user gave); E301 when it is missing."""
        register_extensions()
        self._data = data
        if self.model_name:
            self.model = LabelModel.from_disk(self.model_name)
            return
        if shipped is not None:
            self.model = LabelModel.from_disk(artefact_path(shipped, data, component=self.name))
            if self.encoder_name == SHIPPED_MLM:
                # Its encoder is the shipped MLM under the same data: missing, it fails here
                # (E018), not as E420 on the first document.
                artefact_path(SHIPPED_MLM, data, component=self.name)
            return
        examples = list(get_examples())
        predicted = [eg.predicted for eg in examples]
        if nlp is not None and self.name in nlp.pipe_names:
            upstream = nlp.pipe_names[: nlp.pipe_names.index(self.name)]
            for name in upstream:
                proc = nlp.get_pipe(name)
                predicted = [proc(doc) for doc in predicted]
        self.fit(predicted, [eg.reference for eg in examples])

    # serialization --------------------------------------------------------------------------
    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> None:
        if self.load_model() is None:
            raise ValueError(Errors.E300)
        self.model.to_disk(path)

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> "PIIRelabel":
        self.model = LabelModel.from_disk(path)
        return self

    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        if self.load_model() is None:
            raise ValueError(Errors.E300)
        return self.model.to_bytes()

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = ()) -> "PIIRelabel":
        self.model = LabelModel.from_bytes(data)
        return self


@Language.factory(
    "pii_relabel",
    default_config={
        "spans_key": DEFAULT_SPANS_KEY,
        "model": None,
        "min_prob": None,
        "entity_vote": None,
        "C": 1.0,
        "none_class": False,
        "min_count": 2,
        "keep_labels": None,
        "encoder": None,
        "encoder_scale": 5.0,
        "encoder_layers": 0,
        "encoder_quantize": False,
    },
    requires=["doc.spans", "doc.ents"],
    assigns=["doc.spans", "span._.risk_explain"],
)
def make_pii_relabel(
    nlp: Language,
    name: str,
    spans_key: str,
    model: Optional[str],
    min_prob: Optional[float],
    entity_vote: Optional[bool],
    C: float,
    none_class: bool,
    min_count: int,
    keep_labels: Optional[List[str]],
    encoder: Optional[str],
    encoder_scale: float,
    encoder_layers: int,
    encoder_quantize: bool,
) -> PIIRelabel:
    """spans_key (str): span group whose labels are re-predicted.
    model (Optional[str]): a model directory, or None (nlp.initialize trains one, or loads the
        shipped one with ``shipped = "pii_relabel"`` under [initialize.components.NAME]). Read by
        initialize or the first document, not here; a missing or corrupt model raises E301 there.
    min_prob (Optional[float]): change a label only when the new type has at least this
        probability; None: the value chosen by cross-validation when the model was trained.
    entity_vote (Optional[bool]): mentions of one entity (same entity_id and label) get one
        type; None: the value chosen when the model was trained.
    C (float): inverse L2 regularization of the logistic regression (training).
    none_class (bool): train detected spans that overlap no gold mention as a class of their own.
    min_count (int): drop features seen in fewer training spans (training).
    keep_labels (Optional[List[str]]): spans with these labels are never relabelled; None:
        the ones chosen when the model was trained.
    encoder (Optional[str]): context encoder whose span vectors join the features when
        training ("minilm_mlm": the shipped domain MLM, "minilm", a Hugging Face name or directory);
        a trained model records its encoder and always uses that one. A model that needs an
        encoder that cannot be loaded raises OSError E420 on the first document.
    encoder_scale (float): the vectors' weight against the binary features (training).
    encoder_layers (int): read the encoder's hidden states at this layer, running only the
        layers up to it (0: the last layer; training).
    encoder_quantize (bool): run the encoder's linear layers in int8 (training; a trained model
        records it and always reads its vectors so: lm/context.py's ``quantize``)."""
    register_extensions()
    return PIIRelabel(name, spans_key, model, min_prob, entity_vote, C, none_class, min_count, keep_labels, encoder, encoder_scale, encoder_layers, encoder_quantize)


__all__ = [
    "FEATURES_VERSION",
    "HEAD_CLASS",
    "HEAD_WORDS",
    "LEFT_WINDOW",
    "LIST_SEPARATORS",
    "MODEL_FORMAT",
    "NONE_LABEL",
    "QUOTES",
    "ROMAN",
    "YEAR",
    "Errors",
    "LabelModel",
    "PIIRelabel",
    "doc_features",
    "docs_features",
    "fit_label_model",
    "gold_span_labels",
    "make_pii_relabel",
    "relabel_decisions",
    "span_features",
]
