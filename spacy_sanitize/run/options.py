"""Run options as pipeline settings: the CLI's ``--strategy``/``--operators`` (masker config
overrides, also the service's per-request strategy and batch's keyword arguments) and
``--min-confidence``/``--confidence-protect`` (the ``decide_confidence`` component's config).
Plain values in, settings out: no command-line parsing here."""
from typing import Any, Dict, Optional

from ..errors import Errors
from ..io import InputError
from ..types import PII_TYPES


def masker_overrides(strategy: Optional[str], operators: Optional[Any]) -> Dict[str, Any]:
    """Config overrides for the masker from a strategy and per-type operators (the CLI's
    syntax or JSON): whole ``[components.masker.strategy]``/``operators`` blocks,
    ``{"@strategies": ..., **params}``. A bad value is InputError (bad usage)."""
    if not strategy and not operators:
        return {}
    from ..masker.options import build_operators

    try:
        strategy_cfg, operators_cfg = build_operators(strategy or "spacy_sanitize.typed.v1", operators, strategy_given=bool(strategy))
    except ValueError as err:
        raise InputError(str(err)) from None
    overrides: Dict[str, Any] = {"components.masker.strategy": strategy_cfg}
    if operators_cfg:
        overrides["components.masker.operators"] = operators_cfg
    return overrides


def confidence_settings(min_confidence: float = 0.0, confidence_protect: Optional[str] = None) -> Optional[Dict[str, Any]]:
    """The ``decide_confidence`` config from a minimum confidence and the comma-separated
    labels it never keeps in clear (its default when not given); None when the minimum is 0
    (nothing is kept in clear). A bad value is InputError (bad usage)."""
    if not 0.0 <= min_confidence <= 1.0:
        raise InputError(Errors.E042.format(value=min_confidence))
    config: Dict[str, Any] = {"min_confidence": min_confidence}
    if confidence_protect is not None:
        labels = [label.strip() for label in confidence_protect.split(",") if label.strip()]
        unknown = [label for label in labels if label not in PII_TYPES]
        if unknown:
            raise InputError(Errors.E001.format(label=unknown[0], labels=", ".join(PII_TYPES)))
        config["confidence_protect"] = labels
    return config if min_confidence > 0 else None
