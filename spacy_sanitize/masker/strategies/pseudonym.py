"""pseudonym: ``[PERSON 7f3a9c0b]``, an id derived from the entity by a keyed hash.

The id is the first ``id_length`` hex digits of HMAC-SHA256(secret, seed, label,
normalised entity text), where the entity text is its longest mention (``Mention.canonical``;
across the pieces of one record, the record's). Nothing is counted, so the same entity gets
the same id in every document, process, worker and run that uses the same secret and seed,
and no two processes can hand out the same id to different entities by counting from 1 (as
``numbered.v1`` with ``across_docs`` would).

Normalisation: Unicode NFKC, case folded, whitespace collapsed, a possessive ('s) and a
leading "the" dropped, and for PERSON the titles ("Dr", "Mr") dropped: "Per Aasen",
"PER AASEN" and "Mr Per Aasen's" are one entity; "Aasen" alone (a document that never
names him in full) is another.

Collisions: ids are ``4 * id_length`` bits, drawn per label. Among n distinct entities of
one label the chance that two share an id is about 1 - exp(-n^2 / 2^(4 * id_length + 1)):
with the default 8 digits (32 bits), 0.01% for 1,000 entities, 1.2% for 10,000, 69% for
100,000 (use 12 digits there: 0.002%). Different processes cannot agree on a way around a
collision without sharing state, so none is attempted; a collision among the first million
ids this instance issues is warned about (W105) with the advice to raise ``id_length``.

The secret comes from the environment variable ``secret_env`` (``SPACY_SANITIZE_SECRET``) or
``Masker.set_secret``, never from the config. Without it a random one-time secret is used in
this process (W104: ids then hold only within this run); in a worker process it is error
E115. Anyone holding the secret can compute the id of a guessed name and so link the
pseudonyms across every dataset made with it: that is the purpose, and why the secret must be
kept like a key.
"""
import re
import unicodedata
import warnings
from typing import Dict, Optional, Tuple

from ...errors import Errors, Warnings
from ...registry import register_strategy
from .. import resources
from .base import DocState, Mention, Policy, Strategy, check_template, invalid
from .keyed import DEFAULT_SECRET_ENV, KeyedChooser

MIN_ID_LENGTH = 6
MAX_ID_LENGTH = 32
MAX_TRACKED = 1_000_000  # ids remembered for the collision check (~200 bytes each)
_POSSESSIVE = re.compile(r"['’]s?$")


def normalise(label: str, text: str) -> str:
    """The form of an entity's text that its id is keyed on."""
    text = unicodedata.normalize("NFKC", text).casefold().strip(" \t\n\r.,;:!?\"'()[]")
    words = _POSSESSIVE.sub("", " ".join(text.split())).split()
    if len(words) > 1 and words[0] == "the":
        words = words[1:]
    if label == "PERSON":
        titles = resources.person_titles()
        named = [w for w in words if w.strip(".,") not in titles]
        words = named or words
    return " ".join(words)


class Pseudonym(Strategy):
    name = "pseudonym"
    reversible = True

    def __init__(self, template: str, id_length: int, secret_env: str, seed: int) -> None:
        self.template = template
        self.id_length = id_length
        self.chooser = KeyedChooser(secret_env, seed, strategy="pseudonym")
        # (label, id) -> the full digest that gave it: a different digest is a collision
        self._issued: Dict[Tuple[str, str], str] = {}

    def set_secret(self, secret: Optional[str]) -> None:
        self.chooser.set_secret(secret)
        self._issued.clear()

    def pseudonym_id(self, label: str, text: str) -> str:
        """The id of the entity with longest mention ``text`` and type ``label``."""
        digest = self.chooser.hexdigest(f"pseudonym\x1f{label}", normalise(label, text))
        short = digest[: self.id_length]
        seen = self._issued.get((label, short))
        if seen is None and len(self._issued) < MAX_TRACKED:
            self._issued[(label, short)] = digest
        elif seen is not None and seen != digest:
            # names no entity: the warning reaches logs, the id is in the output anyway
            warnings.warn(Warnings.W105.format(label=label, id=short, n=self.id_length, count=len(self._issued)), stacklevel=2)
        return short

    def replace(self, mention: Mention, state: DocState) -> str:
        return self.template.format(label=mention.label, id=self.pseudonym_id(mention.label, mention.canonical))

    def policy(self, label: str) -> Policy:
        return Policy("marker", note="keyed pseudonym id outside the vocabulary; the same entity gets the same id wherever the secret is the same")


@register_strategy("spacy_sanitize.pseudonym.v1")
def make_pseudonym(
    template: str = "[{label} {id}]",
    id_length: int = 8,
    secret_env: str = DEFAULT_SECRET_ENV,
    seed: int = 0,
    secret: Optional[str] = None,
) -> Strategy:
    """template (str): with ``{label}`` and ``{id}``. id_length (int): hex digits of the id
    (6 to 32; see the module docstring for collision odds). secret_env (str): environment
    variable with the HMAC secret. seed (int): public salt for another set of ids.
    secret: refused (E106)."""
    name = "spacy_sanitize.pseudonym.v1"
    if secret is not None:
        raise ValueError(Errors.E106.format(env=secret_env))
    if not isinstance(template, str) or "{id}" not in template:
        raise invalid(name, "template needs '{id}'")
    check_template(name, template, ["label", "id"])
    if not isinstance(id_length, int) or not MIN_ID_LENGTH <= id_length <= MAX_ID_LENGTH:
        raise invalid(name, f"id_length must be an integer from {MIN_ID_LENGTH} to {MAX_ID_LENGTH}")
    if not isinstance(seed, int):
        raise invalid(name, "seed must be an integer")
    return Pseudonym(template, id_length, secret_env, seed)


__all__ = ["Pseudonym", "make_pseudonym", "normalise"]
