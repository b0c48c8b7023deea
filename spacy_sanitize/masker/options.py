"""Building strategies from config: the operator map (per PII type, with ``DEFAULT``) and
the CLI spec parser ``build_operators``."""
import json
from typing import Any, Dict, Optional, Tuple, Union

from ..registry import strategies
from ..types import PII_TYPES
from .errors import Errors
from .strategies.base import Strategy

StrategyConfig = Dict[str, Any]


def resolve_name(name: str) -> str:
    """``surrogate`` -> ``surrogate.v1`` (the highest registered version)."""
    registered = strategies.get_all()
    if name in registered:
        return name
    versions = sorted(
        (key for key in registered if key.rsplit(".v", 1)[0] == name),
        key=lambda key: int(key.rsplit(".v", 1)[1]) if key.rsplit(".v", 1)[1].isdigit() else 0,
    )
    if not versions:
        raise ValueError(Errors.E100.format(name=name, names=", ".join(sorted(registered))))
    return versions[-1]


def build_strategy(cfg: Optional[Union[StrategyConfig, str]]) -> Strategy:
    """A strategy from ``{"name": "<registered>", **params}`` (or just its name)."""
    if isinstance(cfg, str):
        cfg = {"name": cfg}
    cfg = dict(cfg or {"name": "typed.v1"})
    name = resolve_name(str(cfg.pop("name", "typed.v1")))
    factory = strategies.get(name)
    try:
        return factory(**cfg)
    except TypeError as err:
        raise ValueError(Errors.E101.format(name=name, problem=err)) from None


def check_label(label: str) -> str:
    if label != "DEFAULT" and label not in PII_TYPES:
        raise ValueError(Errors.E102.format(label=label, labels=", ".join(PII_TYPES)))
    return label


def _strategy_cfg(value: Union[str, StrategyConfig], spec: str) -> StrategyConfig:
    if isinstance(value, str):
        return {"name": resolve_name(value.strip())}
    if isinstance(value, dict) and "name" in value:
        return {**value, "name": resolve_name(str(value["name"]))}
    raise ValueError(Errors.E103.format(spec=spec, problem=f"{value!r} is neither a strategy name nor an object with 'name'"))


def _parse(spec: str) -> Any:
    spec = spec.strip()
    if spec.startswith("{"):
        try:
            return json.loads(spec)
        except json.JSONDecodeError as err:
            raise ValueError(Errors.E103.format(spec=spec, problem=err)) from None
    return None


def build_operators(strategy: str, operators: Optional[str] = None) -> Tuple[StrategyConfig, Dict[str, StrategyConfig]]:
    """Parse the CLI's ``--strategy`` and ``--operators`` into the masker's config.

    strategy (str): a strategy name (``surrogate``, ``redact.v1``) or a JSON object
        ``{"name": "redact", "marker": "[X]"}``.
    operators (Optional[str]): ``"PERSON=numbered,DATETIME=generalize,DEFAULT=redact"``
        or a JSON object mapping types (and ``DEFAULT``) to names or objects.
    RETURNS (Tuple[dict, dict]): the ``strategy`` and ``operators`` config values; every
        strategy is validated by building it once.
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
    return strategy_cfg, operators_cfg
