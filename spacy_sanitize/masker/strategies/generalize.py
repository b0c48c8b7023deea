"""generalize: a less specific but still informative replacement (Olstad et al. 2023).

dates -> year or decade (years -> decade, decades -> century); quantities -> ranges of
one leading digit bucket (1-2, 2-5, 5-10 x 10^k), ages -> 10-year bands; countries ->
"a country in <UN sub-region>", cities and first-level regions -> their country;
organisations, occupations, positions and MISC -> a broader class from keyword tables;
nationalities -> a regional adjective; persons -> a numbered role ``[PERSON 1]``.
With ``geography = "kind"`` places become their kind only
("a city", "a country", "a region") and nationalities "a nationality", for texts whose
sensitive attribute is the place itself (a city names its country, a country its region).
Tables are in data/generalize/ and were written from general knowledge, not fitted to
the evaluation data.
"""
import math
import re
from typing import Optional

from ...registry import register_strategy
from .. import resources
from .base import DocState, Mention, Policy, Strategy, check_template, invalid
from .dates import most_specific_year, ordinal
from .formats import ADDRESS_WORDS, NUMBER_WORD_VALUES, address_like
from .simple import Numbered

_TIME = re.compile(r"\d{1,2}[:.]\d{2}|\b(?:a\.?m\.?|p\.?m\.?|noon|midnight|morning|evening|night|o'clock|afternoon)\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_AGE = re.compile(r"\b(?:age[ds]?|years?[ -]old|year-old|aged)\b", re.IGNORECASE)
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th)$|^(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)$", re.IGNORECASE)


def generalize_date(text: str, granularity: str) -> str:
    m = most_specific_year(text)
    if m is not None:
        year = m.year() or 0
        if m.kind == "decade":
            return f"the {ordinal(year // 100 + 1)} century"
        if m.kind == "year" or granularity == "decade":
            return f"the {year // 10 * 10}s"
        return str(year)
    stripped = text.strip()
    if stripped.isdigit() and len(stripped) <= 3:
        return f"the {ordinal(int(stripped) // 100 + 1)} century"
    if _TIME.search(text):
        return "a time of day"
    return "a date"


def _fmt(value: float, commas: bool) -> str:
    text = f"{value:,.0f}" if value >= 1 else f"{value:g}"
    return text if commas else text.replace(",", "")


def bucket(value: float) -> str:
    """1-2, 2-5, 5-10 times a power of ten."""
    if value < 1:
        return "less than 1"
    exp = math.floor(math.log10(value))
    mantissa = value / 10**exp
    low, high = (1, 2) if mantissa < 2 else (2, 5) if mantissa < 5 else (5, 10)
    return f"{_fmt(low * 10**exp, False)}-{_fmt(high * 10**exp, False)}"


def generalize_quantity(text: str, context: str = "") -> str:
    stripped = text.strip()
    if _ORDINAL.match(stripped):
        return "an ordinal"
    word = stripped.lower()
    if word in NUMBER_WORD_VALUES:
        return bucket(NUMBER_WORD_VALUES[word])
    numbers = list(_NUMBER.finditer(text))
    if not numbers:
        return "a quantity"
    if address_like(text):  # "14 Elm Street": the words identify, only units may stay
        return "an address" if any(w.lower() in ADDRESS_WORDS for w in re.findall(r"[^\W\d_]+", text)) else "a quantity"
    # a range ("100-130", "5 to 10") becomes one bucket of its largest value
    value = max(float(m.group(0).replace(",", "").rstrip(".") or 0) for m in numbers)
    start, end = numbers[0].start(), numbers[-1].end()
    if _AGE.search(text) or _AGE.search(context):
        low = int(value) // 10 * 10
        return text[:start] + f"{low}-{low + 9}" + text[end:]
    return text[:start] + bucket(value) + text[end:]


def generalize_place(text: str) -> str:
    stripped = text.strip()
    if stripped in resources.generalize_table("regions")["continents"]:
        return "a region"
    code = resources.country_code(stripped)
    if code:
        region = resources.region_of_code().get(code)
        return f"a country in {region[0]}" if region else "a country"
    code = resources.place_country(stripped)
    if code:
        return resources.country_name(code)
    return "a place"


def place_kind(text: str) -> str:
    """What kind of place ``text`` is, without saying which: nothing of its country or
    region is left."""
    stripped = text.strip()
    if stripped in resources.generalize_table("regions")["continents"]:
        return "a region"
    if resources.country_code(stripped):
        return "a country"
    cities = resources.generalize_table("cities")["cities"]
    if stripped in cities or stripped.split(",")[0].strip() in cities:
        return "a city"
    if resources.place_country(stripped):
        return "a region"
    return "a place"


def generalize_dem(text: str) -> str:
    code = resources.generalize_table("demonyms")["demonyms"].get(text.strip())
    if code and code in resources.region_of_code():
        return resources.region_of_code()[code][1]
    return resources.classify(text, "dem_classes")[0]


class Generalize(Strategy):
    name = "generalize"

    def __init__(self, date_granularity: str, template: str, person_template: str, geography: str = "region") -> None:
        self.date_granularity = date_granularity
        self.geography = geography
        self.template = template
        self.persons = Numbered(person_template, across_docs=False)

    def replace(self, mention: Mention, state: DocState) -> str:
        label = mention.label
        if label == "PERSON":
            return self.persons.replace(mention, state)
        value = self.value(mention, state)
        return self.template.format(value=value, label=label)

    def value(self, mention: Mention, state: Optional[DocState] = None) -> str:
        """The generalized value before the template is applied."""
        label, text = mention.label, mention.text
        if label == "DATETIME":
            return generalize_date(text, self.date_granularity)
        if label == "QUANTITY":
            context = ""
            if state is not None and mention.start >= 0:
                context = state.text[max(0, mention.start - 20) : mention.start] + " " + state.text[mention.end : mention.end + 20]
            return generalize_quantity(text, context)
        if label == "LOC":
            return place_kind(mention.canonical) if self.geography == "kind" else generalize_place(mention.canonical)
        if label == "ORG":
            return resources.classify(mention.canonical, "org_classes")[0]
        if label == "DEM":
            if self.geography == "kind" and resources.generalize_table("demonyms")["demonyms"].get(text.strip()):
                return "a nationality"
            return generalize_dem(text)
        if label == "MISC":
            return resources.classify(mention.canonical, "misc_classes")[0]
        return label

    def policy(self, label: str) -> Policy:
        if label == "PERSON":
            return Policy("marker", note="numbered role outside the vocabulary")
        return Policy("deterministic", note="a function of the original (its generalization class)")


@register_strategy("spacy_sanitize.generalize.v1")
def make_generalize(
    date_granularity: str = "decade", template: str = "[{value}]", person_template: str = "[{label} {n}]", geography: str = "region"
) -> Strategy:
    """date_granularity (str): ``year`` or ``decade`` for full dates (plain years always
    become decades). template (str): with ``{value}`` (and optionally ``{label}``).
    person_template (str): numbered role for persons, with ``{label}`` and ``{n}``.
    geography (str): ``region`` (a city becomes its country, a country its UN sub-region)
    or ``kind`` (places become "a city", "a country", "a region", nationalities "a
    nationality": nothing of where, for texts whose sensitive attribute is the place)."""
    if date_granularity not in ("year", "decade"):
        raise invalid("spacy_sanitize.generalize.v1", "date_granularity must be 'year' or 'decade'")
    if "{value}" not in template:
        raise invalid("spacy_sanitize.generalize.v1", "template needs '{value}'")
    if "{n}" not in person_template:
        raise invalid("spacy_sanitize.generalize.v1", "person_template needs '{n}'")
    check_template("spacy_sanitize.generalize.v1", template, ["value", "label"])
    check_template("spacy_sanitize.generalize.v1", person_template, ["n", "label"], "person_template")
    if geography not in ("kind", "region"):
        raise invalid("spacy_sanitize.generalize.v1", "geography must be 'kind' or 'region'")
    return Generalize(date_granularity, template, person_template, geography)

