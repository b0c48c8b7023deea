"""The attacker of ``risk_infer``: a bag-of-n-grams linear classifier that infers one
sensitive attribute (e.g. the country of a court case) from word presence (seed 001).

Features are binary unigrams and bigrams (``ngram_max``) over the tokens of a spaCy Doc
(``LOWER``, ``NORM`` or ``LEMMA``; punctuation and whitespace are skipped; digits become
``0`` so case numbers and dates generalize). A token sequence may contain gaps (``None``):
n-grams never cross a gap, which is how masked words are removed.

Training uses a scikit-learn pipeline (CountVectorizer + LogisticRegression); what is kept
is only the linear model (classes, vocabulary, coefficients, intercepts), stored with
srsly/msgpack: no pickle, so loading a model runs no code.

CLI::

    python -m spacy_sanitize attacker train data.jsonl out_dir --label-field meta.countries
    python -m spacy_sanitize attacker evaluate out_dir test.jsonl --label-field meta.countries
"""
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
import srsly
from spacy.language import Language
from spacy.tokens import Doc, Token

from ...errors import Errors
from ...io import get_field  # dotted JSONL fields, shared with the CLI reader
from ...lm.linear import LinearWeights

TokenSeq = Sequence[Optional[str]]
ATTRS = ("LOWER", "NORM", "LEMMA")
ANALYZERS = ("word", "char")
FORMAT_VERSION = 2  # 2 adds the analyzer (word or char n-grams); version 1 files still load
_DIGIT = re.compile(r"\d")


def token_form(token: Token, attr: str, digits_to_zero: bool = True) -> Optional[str]:
    """The feature form of a token, or None for tokens that are not features
    (punctuation, whitespace)."""
    if token.is_punct or token.is_space or not token.text.strip():
        return None
    if attr == "LEMMA":
        form = (token.lemma_ or token.text).lower()
    elif attr == "NORM":
        form = token.norm_
    else:
        form = token.lower_
    return _DIGIT.sub("0", form) if digits_to_zero else form


def doc_sequence(doc: Doc, attr: str = "LOWER", digits_to_zero: bool = True) -> List[str]:
    """The feature forms of a Doc's tokens, punctuation and whitespace left out."""
    forms = (token_form(t, attr, digits_to_zero) for t in doc)
    return [f for f in forms if f is not None]


def ngram_occurrences(seq: TokenSeq, ngram_max: int) -> Iterator[Tuple[str, int, int]]:
    """(feature string, start, end) of every n-gram (1 <= n <= ngram_max) of ``seq``
    that contains no gap."""
    for start in range(len(seq)):
        if seq[start] is None:
            continue
        for end in range(start + 1, min(len(seq), start + ngram_max) + 1):
            if seq[end - 1] is None:
                break
            yield " ".join(seq[start:end]), start, end  # type: ignore[arg-type]


def char_occurrences(seq: TokenSeq, ngram_min: int, ngram_max: int) -> Iterator[Tuple[str, int, int]]:
    """Character n-grams inside each token, padded with a space on each side (as
    scikit-learn's ``char_wb``): an occurrence belongs to one token, so removing a word
    removes exactly the occurrences it holds (a char feature's own kill map)."""
    for i, form in enumerate(seq):
        if form is None:
            continue
        padded = f" {form} "
        for n in range(ngram_min, ngram_max + 1):
            for start in range(0, max(1, len(padded) - n + 1)):
                yield "#" + padded[start : start + n], i, i + 1  # '#': never equal to a word n-gram


def occurrences_of(seq: TokenSeq, analyzer: str, ngram_min: int, ngram_max: int) -> Iterator[Tuple[str, int, int]]:
    """(feature, first token, end token) of every feature occurrence of ``seq`` for the
    ``analyzer`` (``word`` n-grams never use ``ngram_min``: every size from 1 counts)."""
    if analyzer == "char":
        return char_occurrences(seq, ngram_min, ngram_max)
    return ngram_occurrences(seq, ngram_max)


def gram_set(seq: TokenSeq, analyzer: str, ngram_min: int, ngram_max: int) -> List[str]:
    """The distinct features of ``seq`` (a binary attacker's feature set)."""
    return list({g for g, _, _ in occurrences_of(seq, analyzer, ngram_min, ngram_max)})


def kind_sizes(analyzer: str, ngram_max: int) -> Dict[str, int]:
    """The n-gram sizes of an attacker kind: character 3- to 5-grams, or word 1- to
    ``ngram_max``-grams."""
    return {"ngram_min": 3, "ngram_max": 5} if analyzer == "char" else {"ngram_min": 1, "ngram_max": ngram_max}


def softmax(z: np.ndarray) -> np.ndarray:
    """Softmax over the last axis."""
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


@dataclass
class LinearAttacker:
    """A trained linear bag-of-n-grams attacker.

    classes (List[str]): the attribute values.
    vocab (Dict[str, int]): n-gram -> feature column.
    coef (np.ndarray): (n_classes, n_features) weights; a binary model is stored as two
        symmetric rows so that every class has its own contributions.
    intercept (np.ndarray): (n_classes,) biases.
    """

    classes: List[str]
    vocab: Dict[str, int]
    coef: np.ndarray
    intercept: np.ndarray
    attr: str = "LOWER"
    ngram_max: int = 2
    digits_to_zero: bool = True
    meta: Dict[str, Any] = field(default_factory=dict)
    analyzer: str = "word"
    ngram_min: int = 1

    @property
    def n_features(self) -> int:
        return len(self.vocab)

    @property
    def context(self) -> int:
        """How many neighbouring tokens a feature can span on each side."""
        return 0 if self.analyzer == "char" else self.ngram_max - 1

    def occurrences(self, seq: TokenSeq) -> Iterator[Tuple[str, int, int]]:
        """(feature, first token, end token) of every feature occurrence of ``seq``."""
        return occurrences_of(seq, self.analyzer, self.ngram_min, self.ngram_max)

    def gram_set(self, seq: TokenSeq) -> List[str]:
        return gram_set(seq, self.analyzer, self.ngram_min, self.ngram_max)

    def prior(self) -> np.ndarray:
        """The class frequencies the attacker was trained on (what it knows with no text
        at all); without them (an old file) the softmax of its intercepts."""
        counts = self.meta.get("class_counts") or {}
        values = np.array([float(counts.get(c, 0)) for c in self.classes])
        if values.sum() <= 0:
            return softmax(self.intercept)
        return values / values.sum()

    def sequence(self, doc: Doc) -> List[str]:
        return doc_sequence(doc, self.attr, self.digits_to_zero)

    def feature_ids(self, seq: TokenSeq) -> np.ndarray:
        ids = {self.vocab[g] for g, _, _ in self.occurrences(seq) if g in self.vocab}
        return np.fromiter(sorted(ids), dtype=np.int64, count=len(ids))

    def decision(self, feature_ids: np.ndarray) -> np.ndarray:
        return self.intercept + self.coef[:, feature_ids].sum(axis=1)

    def proba_seq(self, seq: TokenSeq) -> np.ndarray:
        return softmax(self.decision(self.feature_ids(seq)))

    def proba_docs(self, docs: Iterable[Doc]) -> np.ndarray:
        return np.array([self.proba_seq(self.sequence(doc)) for doc in docs]).reshape(-1, len(self.classes))

    def proba_texts(self, texts: Iterable[str], nlp: Language) -> np.ndarray:
        """Class probabilities of raw texts, tokenized with ``nlp`` (the whole pipeline
        when the attacker uses lemmas, else only the tokenizer)."""
        docs = nlp.pipe(texts) if self.attr == "LEMMA" else (nlp.make_doc(t) for t in texts)
        return self.proba_docs(docs)

    # serialization: plain data, no pickle
    def to_dict(self) -> Dict[str, Any]:
        words = sorted(self.vocab, key=self.vocab.__getitem__)
        return {
            "format": FORMAT_VERSION,
            "classes": list(self.classes),
            "vocab": words,
            "coef": np.ascontiguousarray(self.coef, dtype=np.float32),
            "intercept": np.ascontiguousarray(self.intercept, dtype=np.float64),
            "attr": self.attr,
            "ngram_max": self.ngram_max,
            "digits_to_zero": self.digits_to_zero,
            "meta": self.meta,
            "analyzer": self.analyzer,
            "ngram_min": self.ngram_min,
        }

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "LinearAttacker":
        if data.get("format") not in (1, FORMAT_VERSION):
            raise ValueError(Errors.E603.format(found=data.get("format"), expected=FORMAT_VERSION))
        coef = np.asarray(data["coef"], dtype=np.float32)
        vocab = {w: i for i, w in enumerate(data["vocab"])}
        if coef.shape != (len(data["classes"]), len(vocab)):
            raise ValueError(Errors.E604.format(shape=coef.shape, classes=len(data["classes"]), features=len(vocab)))
        return cls(
            classes=list(data["classes"]),
            vocab=vocab,
            coef=coef,
            intercept=np.asarray(data["intercept"], dtype=np.float64),
            attr=data["attr"],
            ngram_max=int(data["ngram_max"]),
            digits_to_zero=bool(data["digits_to_zero"]),
            meta=dict(data.get("meta") or {}),
            analyzer=str(data.get("analyzer", "word")),
            ngram_min=int(data.get("ngram_min", 1)),
        )

    def to_bytes(self) -> bytes:
        return srsly.msgpack_dumps(self.to_dict())

    @classmethod
    def from_bytes(cls, data: bytes) -> "LinearAttacker":
        return cls.from_dict(srsly.msgpack_loads(data))

    def to_disk(self, path: Union[str, Path]) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        (path / "attacker.msgpack").write_bytes(self.to_bytes())
        srsly.write_json(path / "attacker.json", {"classes": self.classes, "n_features": self.n_features, "attr": self.attr, "analyzer": self.analyzer, "ngram_min": self.ngram_min, "ngram_max": self.ngram_max, "meta": self.meta})

    @classmethod
    def from_disk(cls, path: Union[str, Path]) -> "LinearAttacker":
        path = Path(path)
        file = path / "attacker.msgpack" if path.is_dir() else path
        if not file.exists():
            raise FileNotFoundError(Errors.E605.format(path=path))
        return cls.from_bytes(file.read_bytes())


def train_attacker(
    sequences: Sequence[TokenSeq],
    labels: Sequence[str],
    *,
    attr: str = "LOWER",
    ngram_max: int = 2,
    min_df: int = 2,
    max_features: Optional[int] = 100_000,
    C: float = 1.0,
    max_iter: int = 2000,
    digits_to_zero: bool = True,
    analyzer: str = "word",
    ngram_min: int = 1,
    grams: Optional[Sequence[Sequence[str]]] = None,
) -> LinearAttacker:
    """Fit the scikit-learn pipeline (binary CountVectorizer over the n-grams of the
    token sequences, then LogisticRegression) and keep its linear model. ``analyzer``
    ``char``: character n-grams of ``ngram_min`` to ``ngram_max`` characters inside each
    token instead of word n-grams. ``grams``: the feature sets of the sequences when the
    caller has them (cross-validation trains on the same texts many times)."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline

    if attr not in ATTRS:
        raise ValueError(Errors.E606.format(attr=attr, attrs=", ".join(ATTRS)))
    if analyzer not in ANALYZERS or (analyzer == "char" and not 1 <= ngram_min <= ngram_max):
        raise ValueError(Errors.E710.format(analyzer=analyzer, ngram_min=ngram_min, ngram_max=ngram_max))
    labels = [str(label) for label in labels]
    if len(sequences) != len(labels) or len(set(labels)) < 2:
        raise ValueError(Errors.E607.format(n=len(sequences), n_labels=len(labels), n_classes=len(set(labels))))
    min_df = min(min_df, max(1, len(sequences) // 2))
    if grams is not None:
        sequences = list(range(len(grams)))  # the analyzer looks the feature sets up
    pipeline = Pipeline(
        [
            ("ngrams", CountVectorizer(analyzer=(lambda i: grams[i]) if grams is not None else lambda seq: gram_set(seq, analyzer, ngram_min, ngram_max), binary=True, min_df=min_df, max_features=max_features, dtype=np.float32)),
            ("logreg", LogisticRegression(C=C, max_iter=max_iter)),
        ]
    )
    pipeline.fit(list(sequences), labels)
    vectorizer, logreg = pipeline.named_steps["ngrams"], pipeline.named_steps["logreg"]
    weights = LinearWeights.from_sklearn(logreg)  # binary: two symmetric rows, same softmax probabilities
    coef = np.asarray(weights.coef, dtype=np.float32)
    intercept = np.asarray(weights.intercept, dtype=np.float64)
    vocab = {str(word): int(i) for word, i in vectorizer.vocabulary_.items()}
    counts = {label: labels.count(label) for label in logreg.classes_}
    return LinearAttacker(
        classes=[str(c) for c in logreg.classes_],
        vocab=vocab,
        coef=coef,
        intercept=intercept,
        attr=attr,
        ngram_max=ngram_max,
        digits_to_zero=digits_to_zero,
        meta={"n_train": len(labels), "class_counts": counts, "C": C, "min_df": min_df},
        analyzer=analyzer,
        ngram_min=ngram_min,
    )


# --- JSONL data -----------------------------------------------------------------------

def read_labeled(path: Union[str, Path], label_field: str = "label", text_field: str = "text") -> Tuple[List[str], List[str], List[str]]:
    """(ids, texts, labels) of the JSONL records that have a text and a label."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(Errors.E605.format(path=path))
    ids, texts, labels = [], [], []
    for index, record in enumerate(srsly.read_jsonl(path)):
        text, label = get_field(record, text_field), get_field(record, label_field)
        if isinstance(text, str) and label not in (None, ""):
            ids.append(str(record.get("doc_id", record.get("id", index))))
            texts.append(text)
            labels.append(str(label))
    if not texts:
        raise ValueError(Errors.E608.format(path=path, label_field=label_field, text_field=text_field))
    return ids, texts, labels


def read_labeled_files(paths: Iterable[Union[str, Path]], label_field: str = "label", text_field: str = "text") -> Tuple[List[str], List[str]]:
    """(texts, labels) of several JSONL files read with ``read_labeled``, in order."""
    texts: List[str] = []
    labels: List[str] = []
    for path in paths:
        _, t, lab = read_labeled(path, label_field, text_field)
        texts += t
        labels += lab
    return texts, labels


def sequences_of(texts: Iterable[str], nlp: Language, attr: str = "LOWER", digits_to_zero: bool = True, batch_size: int = 16) -> List[List[str]]:
    docs = nlp.pipe(texts, batch_size=batch_size) if attr == "LEMMA" else (nlp.make_doc(t) for t in texts)
    return [doc_sequence(doc, attr, digits_to_zero) for doc in docs]


def accuracy_at_k(proba: np.ndarray, classes: Sequence[str], gold: Sequence[str], k: int = 1) -> float:
    """Share of documents whose gold label is among the k most probable classes (a gold
    label the attacker does not know counts as missed)."""
    if len(gold) == 0:
        return 0.0
    top = np.argsort(-proba, axis=1)[:, :k]
    hits = [label in {classes[i] for i in row} for row, label in zip(top, gold)]
    return float(np.mean(hits))


def attr_nlp(attr: str, lang: str = "en") -> Language:
    """A pipeline that gives the token attribute ``attr``: the English tagger pipeline for
    LEMMA (lemmas need it), else a blank tokenizer."""
    if attr == "LEMMA":
        from ...models import load_english

        return load_english()
    import spacy

    return spacy.blank(lang)
