"""A compact int8 checkpoint format for the small transformers shipped with the package (the
domain masked LM, the court token tagger).

Every 2-D float weight is stored as int8 with one fp16 scale per row (symmetric, absmax);
other tensors as fp16. The all-MiniLM-L6-v2 MLM takes about 23 MB this way (46 MB in fp16).
A directory holds ``config.json``, the tokenizer files and ``model.int8.safetensors``;
:class:`spacy_sanitize.lm.hf.HFMaskedLMScorer` loads such a directory like any other.
"""
from pathlib import Path
from typing import Any, Union

INT8_WEIGHTS = "model.int8.safetensors"
SCALE = ".__scale"


def is_int8_dir(path: Union[str, Path]) -> bool:
    return (Path(path) / INT8_WEIGHTS).exists()


def save_int8(model: Any, tokenizer: Any, path: Union[str, Path]) -> Path:
    """Save ``model`` (a transformers model with any head) and its tokenizer in the int8 format."""
    import torch
    from safetensors.torch import save_file

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    tensors = {}
    seen = {}
    for name, tensor in model.state_dict().items():
        tensor = tensor.detach().float().cpu()
        if tensor.data_ptr() in seen:  # tied weights are stored once
            tensors[name + ".__tied"] = torch.tensor([0], dtype=torch.int8)
            tensors[name + ".__tied_to." + seen[tensor.data_ptr()]] = torch.tensor([0], dtype=torch.int8)
            continue
        seen[tensor.data_ptr()] = name
        if tensor.dim() == 2 and tensor.numel() > 4096:
            scale = tensor.abs().amax(dim=1).clamp(min=1e-8) / 127.0
            tensors[name] = torch.round(tensor / scale[:, None]).to(torch.int8)
            tensors[name + SCALE] = scale.to(torch.float16)
        else:
            tensors[name] = tensor.to(torch.float16)
    save_file(tensors, str(path / INT8_WEIGHTS))
    model.config.save_pretrained(str(path))
    tokenizer.save_pretrained(str(path))
    return path


def load_int8(path: Union[str, Path], auto_class: Any = None, **config_options: Any) -> Any:
    """Rebuild the fp32 model saved by :func:`save_int8` as ``auto_class`` (a transformers Auto
    class; None: ``AutoModelForMaskedLM``). Weights of another head are left out, so a token
    classifier built from a masked LM starts from its encoder with a fresh head."""
    from safetensors.torch import load_file
    from transformers import AutoConfig, AutoModelForMaskedLM

    path = Path(path)
    raw = load_file(str(path / INT8_WEIGHTS))
    state = {}
    for name, tensor in raw.items():
        if name.endswith(SCALE) or ".__tied" in name:
            continue
        scale = raw.get(name + SCALE)
        state[name] = tensor.float() * scale.float()[:, None] if scale is not None else tensor.float()
    for name in raw:
        if ".__tied_to." in name:
            own, target = name.split(".__tied_to.")
            state[own] = state[target]
    model = (auto_class or AutoModelForMaskedLM).from_config(AutoConfig.from_pretrained(str(path), **config_options))
    model.load_state_dict(state, strict=False)
    model.tie_weights()
    return model
