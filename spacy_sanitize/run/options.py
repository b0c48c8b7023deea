"""Run options as pipeline config overrides: the CLI's ``--strategy``/``--operators`` and
``--min-confidence``/``--confidence-protect``, the service's per-request strategy, batch's
keyword arguments. Plain values in, overrides out: no command-line parsing here."""
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


def confidence_overrides(min_confidence: float = 0.0, confidence_protect: Optional[str] = None) -> Dict[str, Any]:
    """Masker overrides from a minimum confidence and the comma-separated labels it never
    keeps in clear (only those given: a pipeline saved before these settings loads as it is
    without them)."""
    overrides: Dict[str, Any] = {}
    if not 0.0 <= min_confidence <= 1.0:
        raise InputError(Errors.E042.format(value=min_confidence))
    if min_confidence > 0:
        overrides["components.masker.min_confidence"] = min_confidence
    if confidence_protect is not None:
        labels = [label.strip() for label in confidence_protect.split(",") if label.strip()]
        unknown = [label for label in labels if label not in PII_TYPES]
        if unknown:
            raise InputError(Errors.E001.format(label=unknown[0], labels=", ".join(PII_TYPES)))
        overrides["components.masker.confidence_protect"] = labels
    return overrides
