"""surrogate: a realistic value of the same type, consistent per entity, keyed by a secret.

- PERSON: the original's shape is kept (titles stay; each given, middle and family name
  and each initial is replaced; hyphenated and possessive forms survive). A name part is
  replaced by the HMAC of (role, part), so "Kodnani" gets the same surrogate family name
  wherever it occurs.
- DATETIME: every date is shifted by one offset per document (HMAC of the document key),
  so intervals between dates survive; other digits are replaced format-preserving.
- CODE, QUANTITY and unknown types: same format (digits -> digits, letters -> ASCII
  letters of the same case; a long letter run gets a length of its own, see formats.py);
  number words -> number words; a quantity's units are kept, an address ("14 Elm
  Street") is replaced as a whole.
- LOC, ORG, DEM, MISC: drawn from same-type lists (countries from pycountry, places,
  organisations by kind, occupations, nationalities...) in data/surrogates/.
The secret never goes into the config: it comes from the environment variable
``secret_env`` or from ``Masker.set_secret``.
"""
import re
from typing import Dict, List, Optional

from ...registry import register_strategy
from .. import resources
from .base import DocState, Mention, Policy, Strategy, invalid
from .dates import shift_dates
from .formats import NUMBER_WORD_VALUES, address_like, format_space, replace_format, replace_number_word
from .keyed import DEFAULT_SECRET_ENV, KeyedChooser
from ...errors import Errors

FEMALE_TITLES = frozenset(["mrs", "ms", "miss", "lady", "dame", "queen", "empress", "princess", "duchess", "countess", "baroness", "sister"])
MALE_TITLES = frozenset(["mr", "sir", "lord", "king", "emperor", "prince", "duke", "count", "baron", "father", "brother"])
_POSSESSIVE = re.compile(r"(['’]s?)$")
# Labels whose surrogates come from lists of several kinds: (resource, what the support is).
LIST_SOURCES = {
    "ORG": ("organisations", "smallest organisation list of one kind"),
    "DEM": ("dem", "smallest DEM list"),
    "MISC": ("misc", "smallest MISC list"),
}
_NUMBER_WORD = re.compile(r"\b(?:" + "|".join(sorted(NUMBER_WORD_VALUES, key=len, reverse=True)) + r")\b", re.IGNORECASE)


class Surrogate(Strategy):
    name = "surrogate"
    reversible = True

    def __init__(self, secret_env: str, seed: int, min_shift_days: int, max_shift_days: int) -> None:
        self.chooser = KeyedChooser(secret_env, seed)
        self.min_shift_days = min_shift_days
        self.max_shift_days = max_shift_days

    def set_secret(self, secret: Optional[str]) -> None:
        self.chooser.set_secret(secret)

    def begin_doc(self, state: DocState) -> None:
        span = self.max_shift_days - self.min_shift_days + 1
        value = self.chooser.number("date-offset", state.doc_key)
        days = self.min_shift_days + value % span
        if days % 7 == 0:  # keep weekdays from surviving the shift
            days += 1
        state.scratch(self)["days"] = days if (value >> 32) % 2 else -days

    def replace(self, mention: Mention, state: DocState) -> str:
        label, text = mention.label, mention.text
        if label == "PERSON":
            return self._person(mention)
        if label == "DATETIME":
            days = state.scratch(self).get("days", self.min_shift_days)
            return shift_dates(text, days, self._format)
        if label == "LOC":
            return self._place(mention)
        if label == "ORG":
            kind, _ = resources.classify(mention.canonical, "org_classes")
            lists = resources.surrogates("organisations")
            options = lists.get(kind) or lists["organisation"]
            return self.chooser.choose(options, "ORG", mention.canonical, avoid=text)
        if label == "DEM":
            return self._match_case(text, self.chooser.choose(_dem_options(text), "DEM", mention.canonical.lower(), avoid=text))
        if label == "MISC" and not re.search(r"\d", text):
            kind, _ = resources.classify(mention.canonical, "misc_classes")
            lists = resources.surrogates("misc")
            options = lists.get({"competition": "event"}.get(kind, kind)) or lists["other"]
            return self.chooser.choose(options, "MISC", mention.canonical, avoid=text)
        if label == "QUANTITY":
            return self._quantity(text)
        return self._format(text, label)

    def _quantity(self, text: str) -> str:
        """Digits and number words replaced; units and scale words kept. An address or a
        number with a name ("14 Elm Street") is replaced as a whole: its words identify."""
        def word(match: "re.Match[str]") -> str:
            return replace_number_word(match.group(0), self.chooser, "QUANTITY")

        if address_like(text):
            return replace_format(text, self.chooser, "QUANTITY")
        out = replace_format(text, self.chooser, "QUANTITY", letters=False)
        return _NUMBER_WORD.sub(word, out)

    def _format(self, text: str, purpose: str = "digits") -> str:
        return replace_format(text, self.chooser, purpose)

    def _place(self, mention: Mention) -> str:
        text = mention.text
        prefix = "the " if text.lower().startswith("the ") else ""
        if resources.country_code(mention.canonical):
            options = resources.country_names()
        else:
            options = resources.surrogates("places")["cities"]
        return prefix + self.chooser.choose(options, "LOC", mention.canonical, avoid=text[len(prefix) :])

    def _person(self, mention: Mention) -> str:
        names = resources.surrogates("names")
        titles = resources.person_titles()
        canonical_parts = [p for p in mention.canonical.split() if _bare(p).lower() not in titles]
        gender = _gender(mention.canonical)
        pieces = re.split(r"(\s+)", mention.text)
        words = [p for p in pieces if p and not p.isspace() and _bare(p).lower() not in titles]
        out: List[str] = []
        for piece in pieces:
            if not piece or piece.isspace() or _bare(piece).lower() in titles:
                out.append(piece)
                continue
            role = _role(piece, words, canonical_parts)
            out.append("-".join(self._name_part(part, role, gender, names) for part in piece.split("-")))
        return "".join(out)

    def _name_part(self, part: str, role: str, gender: str, names: Dict[str, List[str]]) -> str:
        suffix_match = _POSSESSIVE.search(part)
        suffix = suffix_match.group(1) if suffix_match and len(part) > 2 else ""
        core = part[: len(part) - len(suffix)] if suffix else part
        if not core:
            return part
        if re.fullmatch(r"\w\.?", core):  # an initial
            letter = self.chooser.choose("ABCDEFGHIJKLMNOPRSTVW", "initial", core[0].upper(), avoid=core[0])
            return letter + core[1:] + suffix
        if role == "family":
            options = names["family"]
        else:
            options = names.get(f"given_{gender}") or names["given_female"] + names["given_male"]
        return self._match_case(core, self.chooser.choose(options, role, core.lower(), avoid=core)) + suffix

    @staticmethod
    def _match_case(original: str, value: str) -> str:
        if original.isupper() and len(original) > 1:
            return value.upper()
        if original[:1].islower():
            return value.lower()
        return value

    def policy(self, label: str) -> Policy:
        # Every list draw is made within a class the output shows (a country for a country,
        # the original's organisation kind, a name of the original's shape, a code of its
        # format): across classes the originals are told apart, epsilon is infinite; the
        # report gives epsilon_within_class for the draw itself.
        names = resources.surrogates("names")
        if label == "PERSON":
            given = min(len(names["given_female"]), len(names["given_male"]))
            return Policy("class_distribution", given * len(names["family"]), "given x family names drawn within the name's shape (titles, parts, initials, case), keyed HMAC")
        if label == "DATETIME":
            return Policy("deterministic", note="dates are shifted by one secret offset per document")
        if label == "LOC":
            return Policy("class_distribution", len(resources.surrogates("places")["cities"]), "city list (countries from pycountry for a country: the class shows)")
        if label in LIST_SOURCES:
            source, note = LIST_SOURCES[label]
            lists = resources.surrogates(source)
            return Policy("class_distribution", min(len(v) for k, v in lists.items() if not k.startswith("_")), note + ", drawn within the original's kind")
        return Policy("class_distribution", 0, "uniform over values of the same format (the format shows); support depends on the mention")

    def support_for(self, label: str, text: str) -> int:
        """The support of pi for one mention (same-format values for codes and numbers)."""
        policy = self.policy(label)
        if policy.kind == "class_distribution" and policy.support == 0:
            if text.strip().lower() in NUMBER_WORD_VALUES:
                return 20
            return format_space(text)
        return policy.support


def _bare(token: str) -> str:
    return token.strip(".,")


def _role(piece: str, words: List[str], canonical_parts: List[str]) -> str:
    bare = _POSSESSIVE.sub("", piece)
    if bare in canonical_parts and len(canonical_parts) > 1:
        return "family" if canonical_parts.index(bare) == len(canonical_parts) - 1 else "given"
    if len(words) > 1 and piece != words[-1]:
        return "given"
    return "family"


def _gender(canonical: str) -> str:
    for token in canonical.lower().split():
        token = _bare(token)
        if token in FEMALE_TITLES:
            return "female"
        if token in MALE_TITLES:
            return "male"
    return "any"


def _dem_options(text: str) -> List[str]:
    lists = resources.surrogates("dem")
    if text[:1].isupper() and resources.generalize_table("demonyms")["demonyms"].get(text.strip()):
        return lists["nationalities"]
    cls, matched = resources.classify(text, "dem_classes")
    if cls == "religion":
        return lists["religions"]
    if matched:
        return lists["occupations"]
    return lists["nationalities"] if text[:1].isupper() else lists["other"]


@register_strategy("spacy_sanitize.surrogate.v1")
def make_surrogate(
    secret_env: str = DEFAULT_SECRET_ENV,
    seed: int = 0,
    min_shift_days: int = 200,
    max_shift_days: int = 1500,
    secret: Optional[str] = None,
) -> Strategy:
    """secret_env (str): environment variable with the HMAC secret. seed (int): public salt
    for another reproducible mapping. min_shift_days, max_shift_days (int): range of the
    per-document date offset (its sign is random too). secret: refused (E106)."""
    if secret is not None:
        raise ValueError(Errors.E106.format(env=secret_env))
    if not isinstance(seed, int):
        raise invalid("spacy_sanitize.surrogate.v1", "seed must be an integer")
    if not (0 < min_shift_days <= max_shift_days):
        raise invalid("spacy_sanitize.surrogate.v1", "need 0 < min_shift_days <= max_shift_days")
    return Surrogate(secret_env, seed, min_shift_days, max_shift_days)


__all__ = ["Surrogate", "make_surrogate"]
