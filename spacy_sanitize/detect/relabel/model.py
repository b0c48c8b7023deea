"""The label model of pii_relabel: a multinomial logistic regression stored as arrays
(numpy only to load; scikit-learn to train), and the relabelling decisions it makes."""
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy
import srsly
from spacy.tokens import Doc
from spacy.util import ensure_path

from ...errors import Errors
from ...lm.context import ContextEncoder
from ...lm.linear import LinearWeights, npy_array, npy_bytes
from ...types import DEFAULT_SPANS_KEY, PII_TYPES
from .features import doc_features

MODEL_FORMAT = "spacy_sanitize.pii_relabel.v1"
FEATURES_VERSION = "spacy_sanitize.pii_relabel_features.v2"
NONE_LABEL = "NONE"  # training class of detected spans that overlap no gold mention


class LabelModel:
    """Multinomial logistic regression stored as arrays: ``features`` (names), ``labels``,
    ``coef`` (labels x features) and ``intercept``."""

    def __init__(self, features: List[str], labels: List[str], coef: numpy.ndarray, intercept: numpy.ndarray, meta: Optional[Dict[str, Any]] = None) -> None:
        unknown = [label for label in labels if label not in PII_TYPES and label != NONE_LABEL]
        if unknown:
            raise ValueError(Errors.E304.format(labels=unknown, known=list(PII_TYPES)))
        coef = numpy.asarray(coef, dtype=numpy.float32)
        intercept = numpy.asarray(intercept, dtype=numpy.float32)
        if coef.shape != (len(labels), len(features)) or intercept.shape != (len(labels),):
            raise ValueError(f"coefficients of shape {coef.shape} and intercept {intercept.shape} do not fit {len(labels)} labels x {len(features)} features")
        self.features = list(features)
        self.index = {name: i for i, name in enumerate(self.features)}
        self.labels = list(labels)
        self.coef = coef
        self.intercept = intercept
        self.meta = dict(meta or {})

    def predict_log_proba(self, rows: Sequence[Dict[str, float]]) -> numpy.ndarray:
        """Log-probabilities (rows x labels) of feature dicts; unknown features are ignored."""
        scores = numpy.tile(self.intercept, (len(rows), 1)).astype(numpy.float64)
        for r, row in enumerate(rows):
            known = [(self.index[name], value) for name, value in row.items() if name in self.index]
            if known:
                cols, values = zip(*known)
                scores[r] += self.coef[:, list(cols)] @ numpy.asarray(values, dtype=numpy.float64)
        scores -= scores.max(axis=1, keepdims=True)
        return scores - numpy.log(numpy.exp(scores).sum(axis=1, keepdims=True))

    def header(self) -> Dict[str, Any]:
        """What ``model.json`` holds: format versions, labels, feature names, training meta."""
        return {"format": MODEL_FORMAT, "features_version": FEATURES_VERSION, "labels": self.labels, "features": self.features, "meta": self.meta}

    def to_disk(self, path: Union[str, Path]) -> None:
        path = ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        srsly.write_json(path / "model.json", self.header())
        numpy.save(path / "coef.npy", self.coef)
        numpy.save(path / "intercept.npy", self.intercept)

    def to_bytes(self) -> bytes:
        return srsly.msgpack_dumps({"header": self.header(), "coef": npy_bytes(self.coef), "intercept": npy_bytes(self.intercept)})

    @classmethod
    def from_disk(cls, path: Union[str, Path]) -> "LabelModel":
        """Load a model directory; raises ValueError E301/E302 when it is missing or unusable."""
        path = ensure_path(path)
        return cls._load(path, lambda: srsly.read_json(path / "model.json"), lambda: (numpy.load(path / "coef.npy", allow_pickle=False), numpy.load(path / "intercept.npy", allow_pickle=False)))

    @classmethod
    def from_bytes(cls, data: bytes) -> "LabelModel":
        try:
            msg = srsly.msgpack_loads(data)
        except ValueError as err:
            raise ValueError(Errors.E301.format(path="<bytes>", err=err)) from None
        return cls._load("<bytes>", lambda: msg["header"], lambda: (npy_array(msg["coef"]), npy_array(msg["intercept"])))

    @classmethod
    def _load(cls, source: Any, read_header: Callable[[], Any], read_arrays: Callable[[], Tuple[numpy.ndarray, numpy.ndarray]]) -> "LabelModel":
        """Check the header's format first, then read the arrays (E301/E302 on failure)."""
        try:
            data = read_header()
            if not isinstance(data, dict):
                raise ValueError("model.json is not a JSON object")
            got = data.get("format")
            if got != MODEL_FORMAT or data.get("features_version") != FEATURES_VERSION:
                raise ValueError(Errors.E302.format(path=source, got=f"{got} / {data.get('features_version')}", expected=f"{MODEL_FORMAT} / {FEATURES_VERSION}"))
            coef, intercept = read_arrays()
            return cls(data["features"], data["labels"], coef, intercept, data.get("meta"))
        except ValueError as err:
            if str(err).startswith("E30"):
                raise
            raise ValueError(Errors.E301.format(path=source, err=err)) from None
        except (OSError, KeyError, TypeError) as err:
            raise ValueError(Errors.E301.format(path=source, err=f"{type(err).__name__}: {err}")) from None


def fit_label_model(rows: Sequence[Dict[str, float]], y: Sequence[str], C: float = 1.0, min_count: int = 2, seed: int = 0) -> LabelModel:
    """Fit the logistic regression (scikit-learn) on feature dicts ``rows`` and labels ``y``;
    features seen in fewer than ``min_count`` spans are dropped."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression
    import sklearn

    counts = Counter(name for row in rows for name in row)
    kept = [{k: v for k, v in row.items() if counts[k] >= min_count} for row in rows]
    vectorizer = DictVectorizer()
    X = vectorizer.fit_transform(kept)
    labels = sorted(set(y))
    if len(labels) == 1:
        coef = numpy.zeros((1, X.shape[1]))
        return LabelModel(list(vectorizer.feature_names_), labels, coef, numpy.zeros(1))
    from threadpoolctl import threadpool_limits

    clf = LogisticRegression(C=C, max_iter=2000, random_state=seed)
    with threadpool_limits(1):  # a small problem: BLAS threads only contend
        clf.fit(X, list(y))
    weights = LinearWeights.from_sklearn(clf)  # a binary model as a softmax over two rows
    meta = {"C": C, "min_count": min_count, "n_train": len(y), "label_counts": dict(Counter(y)), "sklearn": sklearn.__version__}
    return LabelModel(list(vectorizer.feature_names_), [str(c) for c in weights.classes], weights.coef, weights.intercept, meta)


def relabel_decisions(
    model: LabelModel,
    doc: Doc,
    spans_key: str = DEFAULT_SPANS_KEY,
    min_prob: float = 0.5,
    entity_vote: bool = True,
    rows: Optional[Sequence[Dict[str, float]]] = None,
    keep_labels: Sequence[str] = (),
    encoder: Optional[ContextEncoder] = None,
) -> List[Tuple[str, Optional[float], Dict[str, float]]]:
    """For each span of ``doc.spans[spans_key]``: (label to give, its probability (None for a
    type the model was not trained on), the probabilities of all PII types). A span keeps its label unless another type has a
    probability of at least ``min_prob``. With ``entity_vote`` spans sharing a
    ``Span._.entity_id`` pool their log-probabilities and end with one type per entity.
    ``rows``: the spans' feature dicts when already computed. Spans labelled one of
    ``keep_labels``, or with a type the model was not trained on, keep their label.
    ``encoder``: the context encoder the model was trained with (see ``model_encoder``)."""
    spans = list(doc.spans.get(spans_key, []))
    if not spans:
        return []
    if rows is None:
        rows = doc_features(doc, spans_key, encoder, float(model.meta.get("encoder_scale", 1.0)))
    logp = model.predict_log_proba(rows)
    real = [i for i, label in enumerate(model.labels) if label != NONE_LABEL]
    logp = logp[:, real]
    logp = logp - numpy.log(numpy.exp(logp).sum(axis=1, keepdims=True))
    labels = [model.labels[i] for i in real]
    groups: Dict[str, List[int]] = defaultdict(list)
    if entity_vote:
        for i, span in enumerate(spans):
            if span._.entity_id is not None:
                groups[str(span._.entity_id)].append(i)
        pooled = logp.copy()
        for members in groups.values():
            if len(members) > 1:
                mean = logp[members].mean(axis=0)
                pooled[members] = mean - numpy.log(numpy.exp(mean).sum())
        logp = pooled
    probs = numpy.exp(logp)
    out = []
    for span, p in zip(spans, probs):
        best = int(p.argmax())
        label = labels[best]
        prob: Optional[float] = float(p[best])
        # A type the model never saw in training (CODE on the biographies) it cannot judge.
        unknown = span.label_ not in labels
        if label != span.label_ and (prob < min_prob or span.label_ in keep_labels or unknown):
            label = span.label_
            prob = float(p[labels.index(label)]) if label in labels else None
        out.append((label, prob, {lab: round(float(v), 4) for lab, v in zip(labels, p)}))
    # One type per entity: where the pooled vote left mentions of one entity with different
    # types (some kept theirs for lack of confidence), they all take the most probable of
    # those types, unless one of them is a type the model cannot judge or is told to keep.
    for members in groups.values():
        chosen = {out[i][0] for i in members}
        if len(chosen) < 2 or any(spans[i].label_ in keep_labels or spans[i].label_ not in labels for i in members):
            continue
        p = probs[members[0]]
        label = max(chosen, key=lambda lab: p[labels.index(lab)])
        for i in members:
            out[i] = (label, float(p[labels.index(label)]), out[i][2])
    return out

