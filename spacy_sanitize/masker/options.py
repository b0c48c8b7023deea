"""Strategies from config: the spaCy-style block ``{"@strategies": "spacy_sanitize.typed.v1",
**params}`` per PII type (with ``DEFAULT``), and the CLI spec parser ``build_operators``."""
import json
import warnings
from typing import Any, Dict, Optional, Tuple, Union

from confection import ConfigValidationError
from spacy.util import registry

from ..registry import strategies
from ..types import PII_TYPES
from ..errors import Errors, Warnings
from .strategies.base import Strategy

StrategyConfig = Dict[str, Any]

STRATEGY_KEY = "@strategies"
NAMESPACE = "spacy_sanitize."
DEFAULT_STRATEGY: StrategyConfig = {STRATEGY_KEY: "spacy_sanitize.typed.v1"}


def _version(key: str) -> int:
    version = key.rsplit(".v", 1)[1]
    return int(version) if version.isdigit() else 0


def resolve_name(name: str) -> str:
    """``surrogate``, ``surrogate.v1`` -> ``spacy_sanitize.surrogate.v1`` (the highest
    registered version); a registered name (a plugin's too) stays as it is."""
    registered = strategies.get_all()
    candidates = [name] if name.startswith(NAMESPACE) else [name, NAMESPACE + name]
    for candidate in candidates:
        if candidate in registered:
            return candidate
    versions = sorted((key for key in registered if key.rsplit(".v", 1)[0] in candidates), key=_version)
    if not versions:
        raise ValueError(Errors.E100.format(name=name, names=", ".join(sorted(registered))))
    return versions[-1]


def check_strategy_config(cfg: Any, where: str = "strategy") -> StrategyConfig:
    """A strategy config block must name its registry entry with ``@strategies``; the old
    ``{"name": ...}`` form gets an error that shows the new one."""
    if isinstance(cfg, dict) and STRATEGY_KEY in cfg:
        return cfg
    if isinstance(cfg, dict) and "name" in cfg:
        params = {k: v for k, v in cfg.items() if k != "name"}
        try:
            name = resolve_name(str(cfg["name"]))
        except ValueError:
            name = str(cfg["name"])
        raise ValueError(Errors.E113.format(where=where, cfg=cfg, new={STRATEGY_KEY: name, **params}))
    raise ValueError(Errors.E113.format(where=where, cfg=cfg, new=DEFAULT_STRATEGY))


def build_strategy(cfg: Optional[Union[StrategyConfig, str]]) -> Strategy:
    """A strategy from its config block ``{"@strategies": "<registered>", **params}`` (or
    just a name), resolved through spaCy's registry as a config would be."""
    if cfg is None:
        cfg = DEFAULT_STRATEGY
    if isinstance(cfg, str):
        cfg = {STRATEGY_KEY: cfg}
    cfg = dict(check_strategy_config(cfg))
    cfg[STRATEGY_KEY] = resolve_name(str(cfg[STRATEGY_KEY]))
    try:
        return registry.resolve({"strategy": cfg})["strategy"]
    except ConfigValidationError as err:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'][1:])}: {e['msg']}" for e in err.errors) or str(err)
        raise ValueError(Errors.E101.format(name=cfg[STRATEGY_KEY], problem=problems)) from None


def check_label(label: str) -> str:
    if label != "DEFAULT" and label not in PII_TYPES:
        raise ValueError(Errors.E102.format(label=label, labels=", ".join(PII_TYPES)))
    return label


def _strategy_cfg(value: Union[str, StrategyConfig], spec: str) -> StrategyConfig:
    if isinstance(value, str):
        return {STRATEGY_KEY: resolve_name(value.strip())}
    if isinstance(value, dict):
        # On the command line the registry name may be given as "name" (shorter to type).
        key = STRATEGY_KEY if STRATEGY_KEY in value else "name" if "name" in value else None
        if key is not None:
            params = {k: v for k, v in value.items() if k not in (STRATEGY_KEY, "name")}
            return {STRATEGY_KEY: resolve_name(str(value[key])), **params}
    raise ValueError(Errors.E103.format(spec=spec, problem=f"{value!r} is neither a strategy name nor an object with '{STRATEGY_KEY}' or 'name'"))


def _parse(spec: str) -> Any:
    spec = spec.strip()
    if spec.startswith("{"):
        try:
            return json.loads(spec)
        except json.JSONDecodeError as err:
            raise ValueError(Errors.E103.format(spec=spec, problem=err)) from None
    return None


def build_operators(strategy: str, operators: Optional[str] = None, strategy_given: bool = False) -> Tuple[StrategyConfig, Dict[str, StrategyConfig]]:
    """Parse the CLI's ``--strategy`` and ``--operators`` into the masker's config.

    strategy (str): a strategy name (``surrogate``, ``redact.v1``,
        ``spacy_sanitize.redact.v1``) or a JSON object ``{"name": "redact", "marker": "[X]"}``
        (``"@strategies"`` works in place of ``"name"``).
    operators (Optional[str]): ``"PERSON=numbered,DATETIME=generalize,DEFAULT=redact"``
        or a JSON object mapping types (and ``DEFAULT``) to names or objects.
    RETURNS (Tuple[dict, dict]): the ``strategy`` and ``operators`` config blocks, in the
        config's form (``{"@strategies": "spacy_sanitize.redact.v1", "marker": "[X]"}``);
        every strategy is validated by building it once.
    strategy_given (bool): the user chose ``strategy`` (not a default): W107 when a ``DEFAULT``
        operator leaves it unused.
    """
    parsed = _parse(strategy)
    strategy_cfg = _strategy_cfg(parsed if parsed is not None else strategy, strategy)
    operators_cfg: Dict[str, StrategyConfig] = {}
    if operators and operators.strip():
        parsed_ops = _parse(operators)
        if parsed_ops is None:
            parsed_ops = {}
            for item in operators.split(","):
                if not item.strip():
                    continue
                if "=" not in item:
                    raise ValueError(Errors.E103.format(spec=operators, problem=f"'{item}' has no '='"))
                label, name = item.split("=", 1)
                parsed_ops[label.strip()] = name.strip()
        if not isinstance(parsed_ops, dict):
            raise ValueError(Errors.E103.format(spec=operators, problem="JSON must be an object"))
        for label, value in parsed_ops.items():
            operators_cfg[check_label(label)] = _strategy_cfg(value, operators)
    for cfg in [strategy_cfg, *operators_cfg.values()]:
        build_strategy(cfg)
    if strategy_given and "DEFAULT" in operators_cfg and operators_cfg["DEFAULT"] != strategy_cfg:
        # the masker applies DEFAULT to every type without its own operator: the strategy never runs
        warnings.warn(Warnings.W107.format(strategy=strategy_cfg["@strategies"], default=operators_cfg["DEFAULT"]["@strategies"]), stacklevel=3)
    return strategy_cfg, operators_cfg
