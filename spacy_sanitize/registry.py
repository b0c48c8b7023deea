"""The project's own registries (entry points enabled, so plugins can add to them).

``strategies`` is also an attribute of spaCy's registry, so configs refer to a strategy the
spaCy way: ``[components.masker.strategy] @strategies = "spacy_sanitize.typed.v1"``, its
parameters as keys of the same block. Entry points keep the group ``spacy_sanitize_strategies``.
"""
import functools
from typing import Any, Callable, TypeVar

import catalogue
from spacy.util import registry as spacy_registry

# A second import of this module (or another package that made a ``strategies`` registry
# first) reuses the one spaCy holds, so configs and ``strategies.get_all()`` see one table.
strategies = getattr(spacy_registry, "strategies", None) or catalogue.create("spacy_sanitize", "strategies", entry_points=True)
if not hasattr(spacy_registry, "strategies"):
    spacy_registry.strategies = strategies

# Also reachable from configs as @misc, which is how thinc configs refer to callables.
misc = spacy_registry.misc

F = TypeVar("F", bound=Callable[..., Any])


def register_strategy(name: str) -> Callable[[F], F]:
    """Register a strategy factory under ``name`` (``spacy_sanitize.<kind>.vN``); the strategy it
    builds carries ``name``, which the privacy report shows."""

    def decorator(func: F) -> F:
        @functools.wraps(func)  # keeps the signature: thinc validates the config against it
        def make(*args: Any, **kwargs: Any) -> Any:
            strategy = func(*args, **kwargs)
            strategy.name = name
            return strategy

        strategies.register(name, func=make)
        return make  # type: ignore[return-value]

    return decorator
