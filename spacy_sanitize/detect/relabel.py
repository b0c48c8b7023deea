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
"""
import logging
import re
from collections import Counter, defaultdict
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy
import srsly
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import ensure_path, minibatch

from ..extensions import register_extensions
from ..lm.context import ContextEncoder
from ..lm.linear import LinearWeights, npy_array, npy_bytes
from ..types import DEFAULT_SPANS_KEY, PII_TYPES
from ..shipped import artefact_path
from ..spans import char_after, char_before

logger = logging.getLogger(__name__)
logger.addHandler(logging.NullHandler())

MODEL_FORMAT = "spacy_sanitize.pii_relabel.v1"
FEATURES_VERSION = "spacy_sanitize.pii_relabel_features.v1"
NONE_LABEL = "NONE"  # training class of detected spans that overlap no gold mention
ROMAN = re.compile(r"^(?=[MDCLXVI])M*(?:C[MD]|D?C{0,3})(?:X[CL]|L?X{0,3})(?:I[XV]|V?I{0,3})$")
YEAR = re.compile(r"^(?:1[0-9]|20)\d\d$")
# Head words that say what kind of thing a name is (a name's type is usually set by its last
# words: "Madras Law College", "Edward R. Murrow Award"); the classifier weighs them.
HEAD_WORDS: Dict[str, Tuple[str, ...]] = {
    "org": ("school", "college", "university", "academy", "institute", "club", "fc", "rfc", "afc", "team", "party", "company", "corporation", "inc", "ltd", "records", "band", "orchestra", "society", "association", "council", "committee", "ministry", "department", "church", "bank", "group", "union", "army", "navy", "force", "press", "times", "news", "network", "studios", "theatre", "museum", "hospital", "board", "agency", "foundation", "federation", "conference", "parliament", "senate", "assembly", "court", "office", "police", "airlines", "gryphons", "seminary", "conservatory"),
    "misc": ("award", "awards", "prize", "medal", "trophy", "cup", "championship", "championships", "games", "olympics", "bowl", "fame", "tournament", "festival", "series", "show", "film", "album", "song", "novel", "book", "act", "war", "election", "order", "cross", "league", "district", "season", "tour", "open", "grand", "prix", "honours", "scholarship", "fellowship", "degree"),
    "loc": ("street", "road", "avenue", "river", "lake", "mountain", "island", "islands", "county", "province", "state", "city", "town", "village", "park", "square", "bridge", "port", "harbour", "bay", "valley", "region", "coast", "hall", "stadium", "arena", "centre", "center", "building", "tower", "castle", "palace", "cemetery", "station", "airport"),
}
HEAD_CLASS = {word: cls for cls, words in HEAD_WORDS.items() for word in words}
LIST_SEPARATORS = frozenset({",", "and", "&", "or", ";", "/"})
LEFT_WINDOW = 4
QUOTES = frozenset("\"'“”‘’«»")


class Errors:
    E300 = "E300: pii_relabel has no model. Load the shipped one with [initialize.components.pii_relabel] shipped = \"pii_relabel\", set model = a model directory, or train one with nlp.initialize / PIIRelabel.fit."
    E301 = (
        "E301: could not load the pii_relabel model from '{path}': {err}. Rebuild it with "
        "`spacy project run train-relabel` (or `python scripts/train_relabel.py`), or point model at a valid directory."
    )
    E302 = "E302: the pii_relabel model in '{path}' has format '{got}', this version reads '{expected}'. Retrain it with `spacy project run train-relabel`."
    E303 = "E303: no training spans: the examples' predicted docs have no '{key}' spans that overlap a reference '{key}' span."
    E304 = "E304: unknown PII label(s) {labels} in the pii_relabel model; labels must be among {known}."


# ----------------------------------------------------------------------------- features
def _shape(text: str) -> str:
    shape = re.sub(r"[A-Z]+", "X", text)
    shape = re.sub(r"[a-z]+", "x", shape)
    return re.sub(r"\d+", "d", shape)


@lru_cache(maxsize=200_000)
def _zipf_bucket(word: str) -> int:
    """Word frequency bucket (Zipf scale, English; 0 = unknown word)."""
    from wordfreq import zipf_frequency

    return int(zipf_frequency(word, "en"))


def _word(doc: Doc, i: int) -> str:
    if i < 0:
        return "<s>"
    if i >= len(doc):
        return "</s>"
    return doc[i].lower_


def _doc_head(doc: Doc) -> frozenset:
    """The title-case words of the first tokens: the biography's subject is named there."""
    return frozenset(t.lower_ for t in doc[:12] if t.is_title and len(t) > 2)


def _ent_labels(doc: Doc) -> Dict[int, Tuple[str, int, int]]:
    by_token: Dict[int, Tuple[str, int, int]] = {}
    for ent in doc.ents:
        for i in range(ent.start, ent.end):
            by_token[i] = (ent.label_, ent.start, ent.end)
    return by_token


def span_features(span: Span, ents: Optional[Dict[int, Tuple[str, int, int]]] = None, doc_head: Optional[frozenset] = None) -> Dict[str, float]:
    """The features of one span (binary indicators, as a name -> 1.0 dict).

    span (Span): a span of the detector's span group.
    ents (Dict[int, Tuple[str, int, int]]): token index -> (label, start, end) of ``doc.ents``
        (computed from ``span.doc`` when None).
    doc_head (frozenset): the document's ``_doc_head`` (computed when None).
    RETURNS (Dict[str, float]): the feature dict.
    """
    doc = span.doc
    ents = _ent_labels(doc) if ents is None else ents
    doc_head = _doc_head(doc) if doc_head is None else doc_head
    explain = span._.risk_explain
    detector = str(explain.get("detector", "none"))
    label = span.label_
    words = [t for t in span if not t.is_punct] or list(span)
    lowers = [t.lower_ for t in words]
    f: Dict[str, float] = {}

    def add(name: str) -> None:
        f[name] = 1.0

    add(f"label={label}")
    add(f"det={detector}")
    add(f"det_src={detector.split(':')[0]}")
    add(f"label+det={label}|{detector.split(':')[0]}")
    for key, value in explain.items():
        if isinstance(value, dict) and value.get("property"):
            add(f"gaz_prop={value['property']}")
    ent_hits = [ents[i] for i in range(span.start, span.end) if i in ents]
    if ent_hits:
        ent_label, e_start, e_end = Counter(ent_hits).most_common(1)[0][0]
        add(f"ent={ent_label}")
        add(f"ent_fit={'same' if (e_start, e_end) == (span.start, span.end) else 'wider' if e_start <= span.start and e_end >= span.end else 'part'}")
        add(f"label+ent={label}|{ent_label}")
    else:
        add("ent=none")
    for w in lowers:
        add(f"w={w}")
    add(f"first={lowers[0]}")
    add(f"last={lowers[-1]}")
    add(f"label+last={label}|{lowers[-1]}")
    if len(lowers) > 1:
        add(f"last2={lowers[-2]} {lowers[-1]}")
        add(f"first2={lowers[0]} {lowers[1]}")
    add(f"suffix3={lowers[-1][-3:]}")
    if lowers[-1] in HEAD_CLASS:
        add(f"head_last={HEAD_CLASS[lowers[-1]]}")
        add(f"label+head_last={label}|{HEAD_CLASS[lowers[-1]]}")
    for word in lowers:
        if word in HEAD_CLASS:
            add(f"head_any={HEAD_CLASS[word]}")
    add(f"zipf_first={_zipf_bucket(lowers[0])}")
    add(f"zipf_last={_zipf_bucket(lowers[-1])}")
    add(f"zipf_min={min(map(_zipf_bucket, lowers))}")
    before = char_before(doc, span.start)
    after = char_after(doc, span.end - 1) if len(span) else ""
    if before and before in QUOTES or after and after in QUOTES:
        add("quoted")
    add(f"shape={' '.join(_shape(t.text) for t in words[:5])}")
    for t in words:
        add(f"wshape={_shape(t.text)}")
        if ROMAN.match(t.text):
            add("roman")
        if YEAR.match(t.text):
            add("year")
        if t.is_stop:
            add(f"stop={t.lower_}")
    n = len(words)
    add(f"n_words={min(n, 6)}")
    if any(c.isdigit() for c in span.text):
        add("has_digit")
    if all(t.is_upper for t in words if t.is_alpha) and any(t.is_alpha for t in words):
        add("all_caps")
    if all(t.is_title or not t.is_alpha or t.is_stop for t in words):
        add("title_case")
    if n > 1 and any(t.is_stop for t in words[1:-1]):
        add("inner_stop")
    add(f"tag_last={words[-1].tag_ or 'none'}")
    for k, name in ((1, "prev1"), (2, "prev2")):
        add(f"{name}={_word(doc, span.start - k)}")
    for k, name in ((0, "next1"), (1, "next2")):
        add(f"{name}={_word(doc, span.end + k)}")
    for i in range(max(0, span.start - LEFT_WINDOW), span.start):
        if not doc[i].is_punct:
            add(f"lw={doc[i].lower_}")
    for i in range(span.end, min(len(doc), span.end + 3)):
        if not doc[i].is_punct:
            add(f"rw={doc[i].lower_}")
    add(f"prev_bigram={_word(doc, span.start - 2)} {_word(doc, span.start - 1)}")
    add(f"next_bigram={_word(doc, span.end)} {_word(doc, span.end + 1)}")
    add(f"label+prev1={label}|{_word(doc, span.start - 1)}")
    if span.start > 0 and doc[span.start - 1].text == "(":
        add("in_parens")
    if span.start == 0 or doc[span.start].is_sent_start:
        add("sent_start")
    # The biography's subject is named in its first tokens: parts of that name are PERSON.
    if any(w in doc_head for w in lowers):
        add("in_doc_head")
    return f


def doc_features(doc: Doc, spans_key: str = DEFAULT_SPANS_KEY, encoder: Optional[ContextEncoder] = None, encoder_scale: float = 1.0) -> List[Dict[str, float]]:
    """The feature dicts of the spans of ``doc.spans[spans_key]``, in order, with the labels
    other mentions of the same text got in the document; with an ``encoder``, each span's
    contextual vector too (features ``enc0``, ``enc1``, ..., times ``encoder_scale``)."""
    return docs_features([doc], spans_key, encoder, encoder_scale)[0]


def docs_features(docs: Sequence[Doc], spans_key: str = DEFAULT_SPANS_KEY, encoder: Optional[ContextEncoder] = None, encoder_scale: float = 1.0) -> List[List[Dict[str, float]]]:
    """``doc_features`` of each doc; the encoder reads the windows of all docs together."""
    rows = [_symbolic_features(doc, spans_key) for doc in docs]
    if encoder is not None:
        spans = [[(s.start_char, s.end_char) for s in doc.spans.get(spans_key, [])] for doc in docs]
        for doc_rows, vectors in zip(rows, encoder.span_vectors_batch([doc.text for doc in docs], spans)):
            for row, vector in zip(doc_rows, (vectors * encoder_scale).tolist()):
                row.update(zip(_dense_names(len(vector)), vector))
    return rows


def _symbolic_features(doc: Doc, spans_key: str) -> List[Dict[str, float]]:
    ents = _ent_labels(doc)
    doc_head = _doc_head(doc)
    spans = list(doc.spans.get(spans_key, []))
    by_text: Dict[str, Counter] = defaultdict(Counter)
    for span in spans:
        by_text[span.text.lower()][span.label_] += 1
    rows = []
    list_start = 0
    for k, span in enumerate(spans):
        row = span_features(span, ents, doc_head)
        for label in by_text[span.text.lower()]:
            row[f"same_text_label={label}"] = 1.0
        # Lists ("the films A, B and C"): items share the words before the list.
        if k > 0 and _in_list(doc, spans[k - 1], span):
            row["in_list"] = 1.0
            row[f"list_prev_label={spans[k - 1].label_}"] = 1.0
        else:
            list_start = span.start
        if k + 1 < len(spans) and _in_list(doc, span, spans[k + 1]):
            row["in_list"] = 1.0
            row[f"list_next_label={spans[k + 1].label_}"] = 1.0
        for i in range(max(0, list_start - LEFT_WINDOW), list_start):
            if not doc[i].is_punct:
                row[f"list_lw={doc[i].lower_}"] = 1.0
        rows.append(row)
    return rows


@lru_cache(maxsize=8)
def _dense_names(dim: int) -> Tuple[str, ...]:
    return tuple(f"enc{i}" for i in range(dim))


def _in_list(doc: Doc, left: Span, right: Span) -> bool:
    between = doc[left.end : right.start]
    return 0 < len(between) <= 2 and all(t.lower_ in LIST_SEPARATORS for t in between)


def gold_span_labels(predicted: Doc, reference: Doc, spans_key: str = DEFAULT_SPANS_KEY) -> List[Optional[str]]:
    """For each span of ``predicted.spans[spans_key]``, the gold type of the majority of its
    tokens that overlap a reference span (by characters), or None when none overlaps."""
    gold = [(s.start_char, s.end_char, s.label_) for s in reference.spans.get(spans_key, [])]
    out: List[Optional[str]] = []
    for span in predicted.spans.get(spans_key, []):
        votes: Counter = Counter()
        for token in span:
            t_start, t_end = token.idx, token.idx + len(token)
            for g_start, g_end, g_label in gold:
                if g_start < t_end and g_end > t_start:
                    votes[g_label] += 1
                    break
        out.append(votes.most_common(1)[0][0] if votes else None)
    return out


# ----------------------------------------------------------------------------- the model
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


# ----------------------------------------------------------------------------- component
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
        self._encoders: Dict[Tuple[str, int], ContextEncoder] = {}
        self.model: Optional[LabelModel] = LabelModel.from_disk(model) if model else None

    def _trained(self, key: str, default: Any) -> Any:
        """A setting recorded in the trained model's meta (``default`` without a model)."""
        return (self.model.meta if self.model else {}).get(key, default)

    # The encoder settings of a trained model win (its features were computed with them);
    # min_prob, entity_vote and keep_labels: the configured value wins over the CV-chosen one.
    @property
    def encoder_name(self) -> Optional[str]:
        return self._trained("encoder", None) if self.model is not None else self._encoder_name

    @property
    def encoder_scale(self) -> float:
        return float(self._trained("encoder_scale", 1.0)) if self.model is not None else self._encoder_scale

    @property
    def encoder_layers(self) -> int:
        return int(self._trained("encoder_layers", 0)) if self.model is not None else self._encoder_layers

    def context_encoder(self, name: Optional[str] = None, layers: Optional[int] = None) -> Optional[ContextEncoder]:
        """The encoder ``name`` read at layer ``layers`` (defaults: those of the trained model,
        else the configured ones), or None without one."""
        name = self.encoder_name if name is None else name
        layers = self.encoder_layers if layers is None else layers
        if not name:
            return None
        if (name, layers) not in self._encoders:
            self._encoders[(name, layers)] = ContextEncoder(name, layers=layers)
        return self._encoders[(name, layers)]

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
        if self.model is None:
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
        encoder = self.context_encoder(self._encoder_name, self._encoder_layers) if self._encoder_name else None
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
        package's data folder) instead of training (``[paths] sanitize_data`` in shipped configs)."""
        register_extensions()
        if shipped is not None:
            self.model = LabelModel.from_disk(artefact_path(shipped, data, component=self.name))
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
        if self.model is None:
            raise ValueError(Errors.E300)
        self.model.to_disk(path)

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> "PIIRelabel":
        self.model = LabelModel.from_disk(path)
        return self

    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        if self.model is None:
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
    },
    requires=["doc.spans", "doc.ents", "token.tag"],
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
) -> PIIRelabel:
    """spans_key (str): span group whose labels are re-predicted.
    model (Optional[str]): a model directory, or None (nlp.initialize trains one, or loads the
        shipped one with ``shipped = "pii_relabel"`` under [initialize.components.NAME]). A missing or corrupt model raises E301 here.
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
        training ("spacy_sanitize:minilm-mlm", "minilm", a Hugging Face name or directory);
        a trained model records its encoder and always uses that one. A model that needs an
        encoder that cannot be loaded raises OSError E420 on the first document.
    encoder_scale (float): the vectors' weight against the binary features (training).
    encoder_layers (int): read the encoder's hidden states at this layer, running only the
        layers up to it (0: the last layer; training)."""
    register_extensions()
    return PIIRelabel(name, spans_key, model, min_prob, entity_vote, C, none_class, min_count, keep_labels, encoder, encoder_scale, encoder_layers)
