"""risk_llm_prob: the re-identification risk of a PII span from its masked-LM log-probs
(seed 000, "LLM Probabilities" and, with ``with_text``, "Span Classification").

Per span in ``doc.spans[spans_key]``: hide all its (sub)words, score them with a span
scorer (:mod:`spacy_sanitize.lm`), aggregate the log-probs (min, max, mean, median, sum),
add the numbers of words and subwords and the PII type (one-hot) and, with ``with_text``,
a MiniLM vector of the span text; a scikit-learn classifier trained in ``initialize`` on
the annotators' decisions gives P(mask), written to ``Span._.risk["llm_prob"]`` (the
component name without ``risk_``).
Fail closed: a span that cannot be scored (no model, scorer error, unscorable span)
gets risk 1.0 and the reason in ``Span._.risk_explain["llm_prob"]``.
"""
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy
import srsly
from spacy import util
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import ensure_path, minibatch

from ..extensions import register_extensions
from ..lm.base import AGGREGATES, SpanLogProbs, SpanQuery, SpanScorer
from ..lm.encoder import SpanTextEncoder
from ..types import DEFAULT_SPANS_KEY, GOLD_MASK_KEY, PII_TYPES
from .base import FAIL_CLOSED_RISK, failure, isolate_failures, risk_key, write_risk
from .span_classifier import SpanClassifier, select_and_fit
from ..shipped import SHIPPED_MLM, artefact_path, current_name, data_path
from ..errors import Errors, Warnings


NUMERIC = AGGREGATES + ("n_words", "n_subwords")
FEATURES = NUMERIC + tuple(f"type_{t}" for t in PII_TYPES)
SHIPPED = "risk_llm_prob"  # the shipped classifiers' folder under [paths] sanitize_data


SHIPPED_FOR_SCORER = {"frequency": "frequency", "hf:" + SHIPPED_MLM: "minilm_mlm"}


def shipped_model_path(scorer_name: str, root: Optional[Path] = None) -> Optional[Path]:
    """The shipped classifier trained on the features of ``scorer_name`` (a classifier only
    fits the scorer it was trained with): the frequency scorer or the shipped MiniLM MLM,
    under ``root`` (the ``risk_llm_prob`` artefact folder; default: the package's)."""
    kind = "frequency" if scorer_name.startswith("frequency") else scorer_name
    sub = SHIPPED_FOR_SCORER.get(kind)
    return (root or data_path(SHIPPED)) / sub if sub else None


def span_queries(doc: Doc, spans: Sequence[Span], coref_masking: bool) -> List[SpanQuery]:
    """One query per span; with ``coref_masking`` the other mentions of its entity are hidden too."""
    by_entity: Dict[str, List[Tuple[int, int]]] = {}
    if coref_masking:
        for s in spans:
            if s._.entity_id:
                by_entity.setdefault(s._.entity_id, []).append((s.start_char, s.end_char))
    queries = []
    for s in spans:
        others = tuple(r for r in by_entity.get(s._.entity_id or "", []) if r != (s.start_char, s.end_char))
        queries.append(SpanQuery(s.start_char, s.end_char, others))
    return queries


def feature_row(result: SpanLogProbs, label: str) -> List[float]:
    agg = result.aggregates()
    row = [agg[name] for name in AGGREGATES] + [float(result.n_words), float(result.n_subwords)]
    return row + [float(label == t) for t in PII_TYPES]


class RiskLLMProb:
    """See the module docstring; the factory arguments are documented in ``make_risk_llm_prob``."""

    def __init__(
        self,
        nlp: Language,
        name: str,
        scorer: SpanScorer,
        spans_key: str,
        classifier: str,
        threshold: float,
        with_text: bool,
        text_encoder: str,
        coref_masking: bool,
        model: Optional[str],
        cv_folds: int,
        seed: int,
        batch_size: int,
        allow_pickle: bool = False,
    ) -> None:
        self.nlp = nlp
        self.name = name
        self.risk_key = risk_key(name)
        self.scorer = scorer
        self.spans_key = spans_key
        self.classifier_family = classifier
        self.threshold = float(threshold)
        self.with_text = with_text
        self.encoder = SpanTextEncoder(text_encoder) if with_text else None
        self.coref_masking = coref_masking
        self.model_path = model
        self.cv_folds = cv_folds
        self.seed = seed
        self.batch_size = batch_size
        self.allow_pickle = allow_pickle
        self.classifier: Optional[SpanClassifier] = None
        self.meta: Dict[str, Any] = {}
        self._load_failed: Optional[str] = None

    # features ------------------------------------------------------------------------------
    def score_docs(self, docs: Sequence[Doc]) -> List[Union[List[SpanLogProbs], str]]:
        """Per doc, the scorer's results for its spans, or the error message when the scorer
        failed on it (a failing batch is retried doc by doc to isolate the culprit)."""
        def run(batch: List[Doc]) -> Sequence[List[SpanLogProbs]]:
            queries = [span_queries(doc, list(doc.spans.get(self.spans_key, [])), self.coref_masking) for doc in batch]
            return self.scorer.score([doc.text for doc in batch], queries)

        return isolate_failures(run, docs, lambda err: Errors.E431.format(err=err))

    def features(self, docs: Sequence[Doc], scored: Sequence[Union[List[SpanLogProbs], str]]) -> numpy.ndarray:
        """The feature matrix of all scorable spans of ``docs`` (in order)."""
        rows: List[List[float]] = []
        texts: List[str] = []
        for doc, results in zip(docs, scored):
            if isinstance(results, str):
                continue
            for span, result in zip(doc.spans.get(self.spans_key, []), results):
                if result.error is None:
                    rows.append(feature_row(result, span.label_))
                    texts.append(span.text)
        X = numpy.asarray(rows, dtype=float).reshape(len(rows), len(FEATURES))
        if self.encoder is not None:
            X = numpy.hstack([X, self.encoder.encode(texts)]) if texts else X
        return X

    # prediction ----------------------------------------------------------------------------
    def __call__(self, doc: Doc) -> Doc:
        return next(self.pipe([doc]))

    def pipe(self, docs: Iterable[Doc], batch_size: Optional[int] = None) -> Iterator[Doc]:
        for batch in minibatch(docs, size=batch_size or self.batch_size):
            self.set_annotations(batch)
            yield from batch

    def _ensure_classifier(self) -> Optional[str]:
        if self.classifier is not None:
            return None
        if self.model_path and self._load_failed is None:
            path = Path(self.model_path)
            try:
                self._load_model(path)
                return None
            except (OSError, ValueError, KeyError) as err:
                self._load_failed = Errors.E434.format(path=path, err=err)
        return self._load_failed or Errors.E430.format(key=self.spans_key)

    @property
    def decision_threshold(self) -> float:
        """The P(mask) threshold the classifier was selected for; ``risk_threshold`` uses it
        unless its own ``threshold`` is set."""
        return self.threshold

    def set_annotations(self, docs: Sequence[Doc]) -> None:
        error = self._ensure_classifier()
        scored: List[Union[List[SpanLogProbs], str]] = [error] * len(docs) if error else self.score_docs(docs)
        probs: numpy.ndarray = numpy.zeros(0)
        if not error:
            X = self.features(docs, scored)
            try:
                probs = self.classifier.predict_proba(X) if len(X) else probs  # type: ignore[union-attr]
            except ValueError as err:
                error = Errors.E433.format(err=err, got=X.shape[1], with_text=self.with_text)
                scored = [error] * len(docs)
        cursor = 0
        for doc, results in zip(docs, scored):
            spans = list(doc.spans.get(self.spans_key, []))
            if isinstance(results, str):
                warnings.warn(Warnings.W432.format(doc_id=doc._.doc_id, n=len(spans), err=results), stacklevel=2)
                results = [SpanLogProbs(error=results) for _ in spans]
            for span, result in zip(spans, results):
                if result.error is None:
                    risk = float(probs[cursor])
                    cursor += 1
                    explain: Dict[str, Any] = dict(zip(FEATURES[: len(NUMERIC)], feature_row(result, span.label_)))
                    explain.update(scorer=self.scorer.name, classifier=self.classifier.kind)  # type: ignore[union-attr]
                else:
                    risk, explain = FAIL_CLOSED_RISK, failure(result.error)
                write_risk(span, self.risk_key, risk, explain)

    # training ------------------------------------------------------------------------------
    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        shipped: Optional[str] = None,
        data: Optional[str] = None,
    ) -> None:
        """Train the classifier on gold examples: reference docs with ``spans_key`` spans;
        a span's label is 1 when the same offsets are in the reference's ``mask`` spans.
        shipped (Optional[str]): instead, load the shipped classifier trained for this
        scorer from this folder under ``data`` (None: the package's data folder)."""
        register_extensions()
        if shipped is not None:
            path = shipped_model_path(self.scorer.name, artefact_path(shipped, data, component=self.name))
            if path is None:
                raise ValueError(Errors.E435.format(scorer=self.scorer.name))
            if not path.exists():
                raise OSError(Errors.E434.format(path=path, err="no such folder"))
            self._load_model(path)
            return
        docs = [eg.reference for eg in get_examples()]
        self.fit(docs)

    def fit(self, docs: Sequence[Doc]) -> SpanClassifier:
        scored = self.score_docs(docs)
        X = self.features(docs, scored)
        y, groups = labels_and_groups(docs, scored, self.spans_key)
        if len(y) == 0:
            raise ValueError(Errors.E432.format(key=self.spans_key))
        self.classifier = select_and_fit(X, y, groups, self.classifier_family, self.cv_folds, self.threshold, self.seed)
        self.meta = {"scorer": self.scorer.name, "with_text": self.with_text, "features": list(FEATURES), "n_train": len(y), "n_mask": int(y.sum())}
        return self.classifier

    # serialization -------------------------------------------------------------------------
    # Only what was learned: the classifier and its meta (scorer, features, training counts,
    # and the ``model`` setting it was saved under). threshold, classifier family, with_text...
    # are settings from config.cfg, so an override at load time wins.
    def _meta(self) -> Dict[str, Any]:
        return dict(self.meta, saved_with_model=self.model_path)

    def _classifier_data(self) -> Optional[Dict[str, Any]]:
        return self.classifier.to_dict() if self.classifier is not None else None

    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        return util.to_bytes({"meta": self._meta, "classifier": self._classifier_data}, exclude)

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = ()) -> "RiskLLMProb":
        state: Dict[str, Any] = {}
        util.from_bytes(data, {"meta": lambda v: state.update(meta=v), "classifier": lambda v: state.update(classifier=v)}, exclude)
        self._restore(state)
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> None:
        def write_model(p: Path) -> None:
            data = self._classifier_data()
            if data is not None:  # every member is plain data: nothing is pickled
                srsly.write_json(p.with_suffix(".json"), data)

        util.to_disk(path, {"meta.json": lambda p: srsly.write_json(p, self._meta()), "model": write_model}, exclude)

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> "RiskLLMProb":
        self._restore(self._read_model(ensure_path(path), exclude))
        return self

    def _restore(self, state: Dict[str, Any]) -> None:
        """Take a saved classifier unless the config now names another ``model`` than the
        one it was saved under: then the config wins (W431) and ``model`` loads lazily."""
        meta = state.get("meta") or {}
        if state.get("classifier") and meta.get("saved_with_model", self.model_path) != self.model_path:
            warnings.warn(Warnings.W431.format(saved=meta["saved_with_model"], model=self.model_path), stacklevel=2)
            return
        self._set_state(state)

    @staticmethod
    def _read_model(path: Path, exclude: Iterable[str] = ()) -> Dict[str, Any]:
        state: Dict[str, Any] = {}

        def read_meta(p: Path) -> None:
            state["meta"] = srsly.read_json(p)

        def read_model(p: Path) -> None:
            if p.with_suffix(".json").exists():
                data = srsly.read_json(p.with_suffix(".json"))
                if p.with_suffix(".pkl").exists():
                    data["pickle"] = p.with_suffix(".pkl").read_bytes()  # trusted source only
                state["classifier"] = data

        util.from_disk(path, {"meta.json": read_meta, "model": read_model}, exclude)
        return state

    def _load_model(self, path: Path) -> None:
        """The classifier directory named by ``model`` (shipped or a path)."""
        self._set_state(self._read_model(path))

    def _set_state(self, state: Dict[str, Any]) -> None:
        meta = dict(state.get("meta") or {})
        for setting in ("threshold", "saved_with_model"):  # settings come from the config
            meta.pop(setting, None)
        if isinstance(meta.get("scorer"), str):
            meta["scorer"] = current_name(meta["scorer"])  # the shipped MLM's old name
        self.meta = meta
        self.classifier = SpanClassifier.from_dict(state["classifier"], self.allow_pickle) if state.get("classifier") else None
        trained = self.meta.get("scorer")
        if self.classifier is not None and trained and trained != self.scorer.name:
            warnings.warn(Warnings.W430.format(trained=trained, now=self.scorer.name), stacklevel=2)


def labels_and_groups(docs: Sequence[Doc], scored: Sequence[Any], spans_key: str = DEFAULT_SPANS_KEY, mask_key: str = GOLD_MASK_KEY) -> Tuple[numpy.ndarray, List[str]]:
    """Gold labels (1 = the annotator masked the span) and document groups of the scorable spans."""
    y: List[int] = []
    groups: List[str] = []
    for i, (doc, results) in enumerate(zip(docs, scored)):
        if isinstance(results, str):
            continue
        masked = {(s.start_char, s.end_char) for s in doc.spans.get(mask_key, [])}
        for span, result in zip(doc.spans.get(spans_key, []), results):
            if result.error is None:
                y.append(int((span.start_char, span.end_char) in masked))
                groups.append(str(doc._.doc_id or i))
    return numpy.asarray(y, dtype=int), groups


@Language.factory(
    "risk_llm_prob",
    default_config={
        "scorer": {"@misc": "spacy_sanitize.lm.frequency.v1"},
        "spans_key": DEFAULT_SPANS_KEY,
        "classifier": "auto",
        "threshold": 0.5,
        "with_text": False,
        "text_encoder": "minilm",
        "coref_masking": False,
        "model": None,
        "cv_folds": 5,
        "seed": 0,
        "batch_size": 32,
        "allow_pickle": False,
    },
    requires=["doc.spans"],
    assigns=["span._.risk", "span._.risk_explain"],
)
def make_risk_llm_prob(
    nlp: Language,
    name: str,
    scorer: SpanScorer,
    spans_key: str,
    classifier: str,
    threshold: float,
    with_text: bool,
    text_encoder: str,
    coref_masking: bool,
    model: Optional[str],
    cv_folds: int,
    seed: int,
    batch_size: int,
    allow_pickle: bool,
) -> RiskLLMProb:
    """scorer (SpanScorer): span log-prob backend (frequency by default; ``spacy_sanitize.lm.hf.v1`` for a masked LM).
    spans_key (str): the PII span group.
    classifier (str): "logreg", "hgb", "ensemble" (soft voting of both), "auto" (model selection by grouped CV over all) or a candidate name.
    threshold (float): the P(mask) threshold of the model selection in ``initialize``; a
        ``risk_threshold`` decider without a threshold of its own masks at it (a setting: it is
        not saved with the classifier, so a load-time override applies).
    with_text (bool): add a vector of the span text (span classification, seed 000).
    text_encoder (str): "minilm" (packaged all-MiniLM-L6-v2) or an encoder name/path.
    coref_masking (bool): hide the other mentions of the span's entity as well.
    model (Optional[str]): classifier directory used when the component was neither initialized
        nor loaded; None: none. The shipped classifiers (trained on the Wikipedia biographies
        for the frequency scorer and the shipped minilm_mlm) load in ``initialize`` with
        ``shipped = "risk_llm_prob"``. A saved pipeline keeps its classifier unless the config
        names another ``model`` than it was saved with.
    cv_folds (int): folds of the grouped model selection in ``initialize``.
    seed (int): random seed of the classifiers and folds.
    batch_size (int): docs per scorer call.
    allow_pickle (bool): also load classifiers saved with pickled members by earlier versions
        (unpickling can run code: only for a model from a source you trust).
    """
    register_extensions()
    return RiskLLMProb(nlp, name, scorer, spans_key, classifier, threshold, with_text, text_encoder, coref_masking, model, cv_folds, seed, batch_size, allow_pickle=allow_pickle)
