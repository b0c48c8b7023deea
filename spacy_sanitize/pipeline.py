"""Loading pipelines by name (``default``, an installed package, a directory or a config)
and composing the shipped configs from one detector definition. Running them over texts of
any length: ``spacy_sanitize.run``."""
import difflib
import importlib.resources
import itertools
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import spacy
from spacy.language import Language
from thinc.api import Config

from .errors import Errors, Warnings
from .models import ENGLISH_MODELS, english_model_name



def config_path(name: str) -> Path:
    """Path of a config shipped with the package, e.g. ``config_path("default")``."""
    return Path(str(importlib.resources.files("spacy_sanitize") / "configs" / f"{name}.cfg"))


def shipped_configs() -> List[str]:
    return sorted(p.stem for p in config_path("default").parent.glob("*.cfg"))


# Earlier names of shipped pipelines: the distilled pipeline was `fast` until it became the default.
# Old pipeline names: each still loads what replaced it, with a warning (W043) that says so.
PIPELINE_ALIASES = {"fast": ("strict", "the mask-all default up to 0.2; 'default' now decides what to keep")}


# The short menu is default, strict and accurate. These shipped pipelines stay loadable to
# reproduce the paper's tables (each trained or tuned on one corpus, or one risk indicator
# alone); loading one by name says so (W044) and what to use on other text.
REPRODUCTION_PIPELINES = {
    "biography": "trained on the biographies only",
    "court": "trained on the court cases only",
    "court_accurate": "trained on the court cases only",
    "risk_seq": "one risk indicator, trained on the biographies",
    "risk_llm_prob": "one risk indicator, trained on the biographies",
    "risk_llm_prob_frequency": "one risk indicator, trained on the biographies",
    "risk_perturb": "one risk indicator",
    "vote": "the paper's vote of indicators",
    "ensemble": "the detector of earlier versions",
}


def _resolve_alias(name: Any) -> Any:
    if isinstance(name, str) and name in PIPELINE_ALIASES:
        new, why = PIPELINE_ALIASES[name]
        warnings.warn(Warnings.W043.format(old=name, new=new, why=why), stacklevel=3)
        return new
    if isinstance(name, str) and name in REPRODUCTION_PIPELINES:
        warnings.warn(Warnings.W044.format(name=name, why=REPRODUCTION_PIPELINES[name]), stacklevel=3)
    return name


# The shipped configs are written from parts (configs/parts/) by scripts/compose_configs.py.


def _with_installed_english(config: Config) -> Config:
    """``source`` names of the generic English model become the one that is installed (E009,
    naming the extra, when none is: only pipelines that source it need it)."""
    for component in config.get("components", {}).values():
        if component.get("source") in ENGLISH_MODELS:
            component["source"] = english_model_name()
    return config


def load_config_pipeline(path: Union[str, Path], overrides: Optional[Dict[str, Any]] = None) -> Language:
    return _load_config(Config().from_disk(path, overrides=overrides or {}))


def is_risk_stage(factory: Optional[str]) -> bool:
    """Whether a factory belongs to the stages after detection: risk indicators (``risk_*``),
    deciders (``decide_*`` and their older names) and the masker."""
    from .risk.base import DECIDER_FACTORIES

    return bool(factory) and (str(factory).startswith("risk_") or factory in DECIDER_FACTORIES or factory == "masker")


def detection_prefix(names: Sequence[str], factory_of: Callable[[str], Optional[str]]) -> List[str]:
    """The components of ``names`` (in pipeline order) before the first of the risk stage."""
    return list(itertools.takewhile(lambda name: not is_risk_stage(factory_of(name)), names))


def load_detector(name: Union[str, Path] = "default", overrides: Optional[Dict[str, Any]] = None) -> Language:
    """The detection stage of pipeline ``name``: its components before the first risk
    component or the masker (``court``'s: ``ensemble``'s detector and ``pii_extend``). A
    shipped config or ``.cfg`` is cut before loading, so the risk models are neither needed
    nor initialized (a benchmark or ``train-stack`` refits them); any other pipeline is loaded
    whole and the later components are removed."""
    name = _resolve_alias(name)
    path = config_path(str(name)) if str(name) in shipped_configs() else Path(name)
    if path.suffix != ".cfg" or not path.exists():
        nlp = load_pipeline(name, overrides)
        kept = detection_prefix(nlp.pipe_names, lambda n: nlp.get_pipe_meta(n).factory)
        for later in nlp.pipe_names[len(kept):]:
            nlp.remove_pipe(later)
        return nlp
    config = Config().from_disk(path, overrides=overrides or {})
    pipeline = list(config["nlp"]["pipeline"])
    blocks = config["components"]
    config["nlp"]["pipeline"] = kept = detection_prefix(pipeline, lambda n: blocks.get(n, {}).get("factory"))
    for later in pipeline[len(kept):]:
        blocks.pop(later, None)
        config.get("initialize", {}).get("components", {}).pop(later, None)
    return _load_config(config)


def _load_config(config: Config) -> Language:
    config = _with_installed_english(config)
    nlp = spacy.util.load_model_from_config(config, auto_fill=True, validate=True)
    initialize_pipeline(nlp, config)
    from .run.pieces import DEFAULT_CHUNK_CHARS

    nlp.max_length = max(nlp.max_length, DEFAULT_CHUNK_CHARS * 2)
    return nlp


def initialize_pipeline(nlp: Language, config: Config) -> None:
    """What ``spacy assemble`` does: initialize the components that are not sourced, which
    loads the shipped artefacts their [initialize.components] settings name; nothing trains
    (no examples are given)."""
    sourced = [name for name, block in config.get("components", {}).items() if "source" in block]
    nlp._link_components()
    with nlp.select_pipes(disable=[name for name in sourced if name in nlp.pipe_names]):
        nlp.initialize()


def load_directory_pipeline(path: Union[str, Path], overrides: Optional[Dict[str, Any]] = None) -> Language:
    """A pipeline saved with ``nlp.to_disk``, with config overrides. Unlike ``spacy.load``,
    which flattens a dict value into dotted keys (merged into the saved section, and an
    error for a section the saved config lacks), a dict value replaces the whole section: the
    CLI's ``components.masker.strategy = {"@strategies": "spacy_sanitize.redact.v1"}`` must not inherit the saved
    strategy's parameters, and ``components.masker.operators`` may add types."""
    path = Path(path)
    overrides = overrides or {}
    config = Config().from_disk(path / "config.cfg", overrides=overrides)
    nlp = spacy.util.load_model_from_config(config, meta=spacy.util.get_model_meta(path))
    return nlp.from_disk(path, overrides=overrides)


def load_pipeline(name: Union[str, Path] = "default", overrides: Optional[Dict[str, Any]] = None) -> Language:
    """``name``: a shipped config name (``default``...), a ``.cfg`` file, a pipeline
    directory, or an installed pipeline package. A config is loaded as ``spacy assemble``
    does: its non-sourced components are initialized without examples, which loads the
    shipped artefacts named in [initialize.components] (from ``paths.sanitize_data``, an
    override like any other) and fails there when one is missing."""
    name = _resolve_alias(name)
    try:
        if str(name) in shipped_configs():
            return load_config_pipeline(config_path(str(name)), overrides)
        path = Path(name)
        if path.suffix == ".cfg" and path.exists():
            return load_config_pipeline(path, overrides)
        if (path / "config.cfg").is_file():
            return load_directory_pipeline(path, overrides)
        if not path.exists() and not spacy.util.is_package(str(name)):
            raise UnknownPipelineError(unknown_pipeline_message(str(name)))
        return spacy.load(name, config=overrides or {})
    except UnknownPipelineError:
        raise
    except OSError as err:
        raise OSError(Errors.E005.format(name=name, err=err)) from None


class UnknownPipelineError(FileNotFoundError):
    """A pipeline name that names nothing: bad usage (the CLI exits 2)."""


def unknown_pipeline_message(name: str) -> str:
    names = shipped_configs()
    close = difflib.get_close_matches(name.replace("-", "_"), names, n=1, cutoff=0.6)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    return Errors.E022.format(name=name, names=", ".join(names), hint=hint)


# The long-text runner moved to ``spacy_sanitize.run.pieces``; its names still import from
# here (for one release), resolved on first use.
_MOVED = ("DEFAULT_CHUNK_CHARS", "BATCH_CHARS", "MIN_CHUNK_CHARS", "HARD_CAP_FACTOR", "Piece", "check_max_chars", "split_text", "split_stream",
          "sanitize_pieces", "sanitize_texts", "merged_output", "shift_rows")


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        from .run import pieces

        return getattr(pieces, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
