"""Replacement strategies, each a versioned entry of the ``strategies`` registry."""
from .base import DocState, Mention, Policy, Strategy
from .generalize import Generalize, make_generalize
from .simple import (
    Custom,
    Numbered,
    Redact,
    Typed,
    make_custom,
    make_numbered,
    make_redact,
    make_typed,
)
from .pseudonym import Pseudonym, make_pseudonym
from .surrogate import Surrogate, make_surrogate

__all__ = [
    "DocState", "Mention", "Policy", "Strategy", "Redact", "Typed", "Numbered", "Custom",
    "Surrogate", "Generalize", "make_redact", "make_typed", "make_numbered", "make_custom",
    "make_surrogate", "make_generalize", "Pseudonym", "make_pseudonym",
]
