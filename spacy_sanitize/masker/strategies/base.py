"""The strategy protocol shared by all replacement strategies.

A strategy is built by a versioned registry entry (``register_strategy("spacy_sanitize.<kind>.vN")``)
from JSON-able parameters and replaces one masked region at a time. The masker calls
``begin_doc`` once per document, then ``replace`` for every region in text order, and
caches the result per (entity, mention text), so the same mention of an entity always
gets the same replacement.
"""
import hashlib
import re
import string
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Sequence

from ...errors import Errors


@dataclass(frozen=True)
class Mention:
    """text (str): the original text of the region. label (str): its PII type.
    entity_id (str): its entity. canonical (str): the longest mention of that entity in
    the document (surrogates are keyed on it, so all mentions agree). start, end (int):
    character offsets in the original text (-1 when unknown)."""

    text: str
    label: str
    entity_id: str
    canonical: str
    start: int = -1
    end: int = -1


@dataclass
class DocState:
    """Per-document state given to strategies. doc_key (str): a stable key of the
    document (its doc_id, else a hash of its text). text (str): the original text.
    memory (dict): scratch space per strategy instance, reset for every document (kept
    across the pieces of one record: ``masker.record.RecordState``)."""

    doc_key: str
    text: str
    memory: Dict[int, Dict[str, Any]] = field(default_factory=dict)

    def scratch(self, owner: object) -> Dict[str, Any]:
        return self.memory.setdefault(id(owner), {})


@dataclass(frozen=True)
class Policy:
    """The replacement policy pi of seed 002 seen from one strategy and label.

    kind (str): ``marker`` (a placeholder outside the vocabulary), ``exemplar`` (one fixed
    in-vocabulary value), ``distribution`` (a draw from ``support`` same-type values,
    independent of the original), ``deterministic`` (a function of the original, e.g. a
    generalization or a date shift) or ``unknown`` (a custom callable that declares
    nothing). support (int): the number of values pi can draw (``distribution`` only).
    note (str): the assumption behind the classification."""

    kind: str
    support: int = 0
    note: str = ""


def doc_key_for(text: str, doc_id: Optional[str]) -> str:
    return doc_id or hashlib.sha256(text.encode("utf-8")).hexdigest()


class Strategy(ABC):
    """Base class: subclasses set ``name`` and implement ``replace``."""

    name = "strategy"
    #: whether the original can be told apart in the output (numbered, surrogate)
    reversible = False

    def begin_doc(self, state: DocState) -> None:
        """Called once before the regions of a document are replaced."""

    @abstractmethod
    def replace(self, mention: Mention, state: DocState) -> str:
        ...

    def policy(self, label: str) -> Policy:
        return Policy("marker", note="placeholder outside the vocabulary")

    def support_for(self, label: str, text: str) -> int:
        """The support of the replacement distribution for one mention (the policy's, unless
        a strategy's support depends on the mention)."""
        return self.policy(label).support

    def set_secret(self, secret: Optional[str]) -> None:
        """Keyed strategies take the secret here; others ignore it."""


def invalid(name: str, problem: str) -> ValueError:
    return ValueError(Errors.E101.format(name=name, problem=problem))


# A placeholder template comes from a config, the CLI or a service request: "{label:>5000000}"
# turned a 106-byte request into a 20 MB answer. Widths and precisions above this, nested
# fields and fields the strategy does not fill are refused.
MAX_TEMPLATE_WIDTH = 64
MAX_TEMPLATE_CHARS = 256


def check_template(name: str, template: str, fields: Sequence[str], setting: str = "template") -> None:
    """E101 unless ``template`` is a bounded format string over ``fields``."""
    if len(template) > MAX_TEMPLATE_CHARS:
        raise invalid(name, f"{setting} is longer than {MAX_TEMPLATE_CHARS} characters")
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as err:
        raise invalid(name, f"{setting} is not a format string ({err})") from None
    for _literal, key, spec, _conversion in parts:
        if key is None:
            continue
        if key not in fields:
            raise invalid(name, f"{setting} field '{{{key}}}' is not one of " + ", ".join(f"{{{f}}}" for f in fields))
        if "{" in (spec or "") or any(int(n) > MAX_TEMPLATE_WIDTH for n in re.findall(r"\d+", spec or "")):
            raise invalid(name, f"{setting} format '{{{key}:{spec}}}': widths and precisions above {MAX_TEMPLATE_WIDTH} and nested fields are refused")
