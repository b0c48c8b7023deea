"""Replacement strategies: each is a versioned registry entry that builds a callable
``(text, label, entity_id) -> replacement``."""
from typing import Callable

from ..registry import strategies

Strategy = Callable[[str, str, str], str]


@strategies.register("redact.v1")
def make_redact(marker: str = "***", preserve_length: bool = False) -> Strategy:
    """A fixed marker; with preserve_length, the marker character repeated to the
    original length."""
    if not marker:
        raise ValueError("E012: invalid parameter for strategy 'redact': marker must not be empty.")

    def redact(text: str, label: str, entity_id: str) -> str:
        return marker[0] * len(text) if preserve_length else marker

    return redact


@strategies.register("typed.v1")
def make_typed(template: str = "[{label}]") -> Strategy:
    """A typed placeholder such as ``[PERSON]``."""
    if "{label}" not in template:
        raise ValueError("E012: invalid parameter for strategy 'typed': template needs '{label}'.")

    def typed(text: str, label: str, entity_id: str) -> str:
        return template.format(label=label)

    return typed
