"""Package data used by the surrogate and generalize strategies, loaded once on first use."""
import re
from functools import lru_cache
from typing import Any, Dict, List, Optional, Tuple

import srsly

from ..text import fold  # noqa: F401  (importable from here too)
from ..shipped import data_path


def _data(*parts: str) -> Any:
    return srsly.json_loads(data_path(*parts).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def surrogates(name: str) -> Dict[str, Any]:
    """``names``, ``places``, ``organisations``, ``dem`` or ``misc`` from data/surrogates/."""
    return _data("surrogates", f"{name}.json")


@lru_cache(maxsize=None)
def person_titles() -> frozenset:
    """The lowercased titles of the surrogate names list ("mr", "dr", ...)."""
    return frozenset(t.lower() for t in surrogates("names")["titles"])


@lru_cache(maxsize=None)
def generalize_table(name: str) -> Dict[str, Any]:
    """``regions``, ``cities``, ``demonyms``, ``org_classes``, ``dem_classes``, ``misc_classes``."""
    return _data("generalize", f"{name}.json")


@lru_cache(maxsize=None)
def keyword_classes(name: str) -> Tuple[List[Tuple["re.Pattern[str]", str]], str]:
    """Compiled whole-word keyword patterns of a class table, and its fallback class."""
    table = generalize_table(name)
    patterns = [
        (re.compile(r"(?<!\w)" + re.escape(keyword) + r"(?!\w)", re.IGNORECASE), cls)
        for keyword, cls in table["classes"]
    ]
    return patterns, table["fallback"]


def classify(text: str, table: str) -> Tuple[str, bool]:
    """The class of ``text`` in a keyword table and whether a keyword matched."""
    patterns, fallback = keyword_classes(table)
    for pattern, cls in patterns:
        if pattern.search(text):
            return cls, True
    return fallback, False


@lru_cache(maxsize=None)
def region_of_code() -> Dict[str, Tuple[str, str]]:
    """ISO alpha-2 -> (region name, region adjective)."""
    out: Dict[str, Tuple[str, str]] = {}
    for region in generalize_table("regions")["regions"]:
        for code in region["codes"].split():
            out[code] = (region["name"], region["adjective"])
    return out


@lru_cache(maxsize=None)
def _country_index() -> Dict[str, str]:
    import pycountry

    index: Dict[str, str] = {}
    for country in pycountry.countries:
        for attr in ("name", "common_name", "official_name"):
            value = getattr(country, attr, None)
            if value:
                index[value.lower()] = country.alpha_2
    for alias, code in generalize_table("regions")["aliases"].items():
        index[alias.lower()] = code
    return index


def _strip_article(text: str) -> str:
    return re.sub(r"^the\s+", "", text.strip(), flags=re.IGNORECASE)


def country_code(text: str) -> Optional[str]:
    """ISO alpha-2 code when ``text`` names a country (names and common aliases only, no
    two-letter codes, so 'IN' or 'US' in running text are not mistaken)."""
    index = _country_index()
    key = text.strip().lower()
    return index.get(key) or index.get(_strip_article(key))


@lru_cache(maxsize=None)
def _subdivision_index() -> Dict[str, str]:
    import pycountry

    index: Dict[str, str] = {}
    for sub in pycountry.subdivisions:
        index.setdefault(sub.name.lower(), sub.country_code)
        index.setdefault(fold(sub.name), sub.country_code)
    return index


def place_country(text: str) -> Optional[str]:
    """Country code of a city (curated table) or a first-level subdivision (pycountry)."""
    cities = generalize_table("cities")["cities"]
    stripped = text.strip()
    head = stripped.split(",")[0].strip()
    for candidate in (stripped, head):
        if candidate in cities:
            return cities[candidate]
    for candidate in (stripped, head):
        code = _subdivision_index().get(candidate.lower()) or _subdivision_index().get(fold(candidate))
        if code:
            return code
    if "," in stripped:  # "Saint Paul, Minnesota" -> the part after the comma
        tail = stripped.split(",")[-1].strip()
        return country_code(tail) or _subdivision_index().get(tail.lower())
    return None


def country_name(code: str) -> str:
    import pycountry

    if code == "XK":
        return "Kosovo"
    country = pycountry.countries.get(alpha_2=code)
    if country is None:
        return code
    return getattr(country, "common_name", None) or country.name


@lru_cache(maxsize=None)
def country_names() -> List[str]:
    """Short English country names (no 'X, Republic of' forms), sorted."""
    import pycountry

    names = {getattr(c, "common_name", None) or c.name for c in pycountry.countries}
    return sorted(n for n in names if "," not in n and "(" not in n)
