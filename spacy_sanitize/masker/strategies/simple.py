"""Placeholder strategies: redact, typed, numbered, and the custom hook."""
import os
from typing import Any, Callable, Dict, Optional, Tuple

from ...registry import register_strategy
from ...errors import Errors
from .base import DocState, Mention, Policy, Strategy, check_template, invalid
from .keyed import in_other_process


class Redact(Strategy):
    name = "redact"

    def __init__(self, marker: str, preserve_length: bool) -> None:
        self.marker = marker
        self.preserve_length = preserve_length

    def replace(self, mention: Mention, state: DocState) -> str:
        return self.marker[0] * len(mention.text) if self.preserve_length else self.marker


@register_strategy("spacy_sanitize.redact.v1")
def make_redact(marker: str = "***", preserve_length: bool = False) -> Strategy:
    """marker (str): the fixed replacement. preserve_length (bool): repeat the marker's
    first character to the original length instead."""
    if not isinstance(marker, str) or not marker:
        raise invalid("spacy_sanitize.redact.v1", "marker must be a non-empty string")
    return Redact(marker, bool(preserve_length))


class Typed(Strategy):
    name = "typed"

    def __init__(self, template: str) -> None:
        self.template = template

    def replace(self, mention: Mention, state: DocState) -> str:
        return self.template.format(label=mention.label)


@register_strategy("spacy_sanitize.typed.v1")
def make_typed(template: str = "[{label}]") -> Strategy:
    """template (str): the placeholder, with ``{label}`` for the PII type."""
    if not isinstance(template, str) or "{label}" not in template:
        raise invalid("spacy_sanitize.typed.v1", "template needs '{label}'")
    check_template("spacy_sanitize.typed.v1", template, ["label"])
    return Typed(template)


class Numbered(Strategy):
    """``[PERSON 1]``, ``[PERSON 2]``: one number per entity and type, in order of first
    mention; with ``across_docs`` the numbers hold for every document this instance
    sees (entities are then matched by their longest mention's text). Those counters live
    in one process: in a worker (``nlp.pipe(n_process=2)``) each would count from 1 and
    give different entities the same number, so that is error E114 (``pseudonym.v1`` gives
    ids that hold across processes and runs)."""

    name = "numbered"
    reversible = True

    def __init__(self, template: str, across_docs: bool) -> None:
        self.template = template
        self.across_docs = across_docs
        self._batch: Dict[Tuple[str, str], int] = {}
        self._batch_counts: Dict[str, int] = {}
        self._home_pid = os.getpid()

    def replace(self, mention: Mention, state: DocState) -> str:
        if self.across_docs:
            if in_other_process(self._home_pid):
                raise ValueError(Errors.E114)
            numbers, counts = self._batch, self._batch_counts
            key = (mention.label, mention.canonical)
        else:
            memory = state.scratch(self)
            numbers = memory.setdefault("numbers", {})
            counts = memory.setdefault("counts", {})
            key = (mention.label, mention.entity_id)
        if key not in numbers:
            counts[mention.label] = counts.get(mention.label, 0) + 1
            numbers[key] = counts[mention.label]
        return self.template.format(label=mention.label, n=numbers[key])

    def reset(self) -> None:
        """Forget the batch numbering (``across_docs``)."""
        self._batch.clear()
        self._batch_counts.clear()


@register_strategy("spacy_sanitize.numbered.v1")
def make_numbered(template: str = "[{label} {n}]", across_docs: bool = False) -> Strategy:
    """template (str): with ``{label}`` and ``{n}``. across_docs (bool): keep numbers
    across the documents of a batch (the pipe's lifetime)."""
    if not isinstance(template, str) or "{n}" not in template:
        raise invalid("spacy_sanitize.numbered.v1", "template needs '{n}'")
    check_template("spacy_sanitize.numbered.v1", template, ["label", "n"])
    return Numbered(template, bool(across_docs))


class Custom(Strategy):
    name = "custom"

    def __init__(self, func_name: str, func: Callable[..., Any], params: Dict[str, Any]) -> None:
        self.func_name = func_name
        self.func = func
        self.params = params

    def replace(self, mention: Mention, state: DocState) -> str:
        out = self.func(mention.text, mention.label, mention.entity_id, **self.params)
        if not isinstance(out, str):
            raise TypeError(Errors.E111.format(name=self.func_name, type_name=type(out).__name__))
        return out

    def policy(self, label: str) -> Policy:
        declared = getattr(self.func, "privacy_policy", None)
        if isinstance(declared, Policy):
            return declared
        return Policy("unknown", note=f"custom callable '{self.func_name}' declares no policy")


@register_strategy("spacy_sanitize.custom.v1")
def make_custom(function: str = "", params: Optional[Dict[str, Any]] = None) -> Strategy:
    """function (str): a name registered in spaCy's ``registry.misc`` whose value is a
    callable ``(text, label, entity_id, **params) -> str``. It may carry a
    ``privacy_policy`` attribute (a ``Policy``) for the privacy report."""
    from spacy.util import registry

    if not function:
        raise invalid("spacy_sanitize.custom.v1", "give function='<name registered in registry.misc>'")
    try:
        func = registry.misc.get(function)
    except Exception:
        raise invalid("spacy_sanitize.custom.v1", f"'{function}' is not in spaCy's registry.misc") from None
    if not callable(func):
        raise ValueError(Errors.E110.format(name=function, type_name=type(func).__name__))
    return Custom(function, func, dict(params or {}))
