"""Build the given-name and family-name lists shipped in spacy_sanitize/data/names/, which
pii_coref uses to find person names written in lower case ("john smith called").

Sources: the English person names of ``mimesis`` (MIT; the ``gazetteer`` extra), the
surrogate names of spacy_sanitize/data/surrogates/names.json and, with ``--given-json`` /
``--family-json``, JSON files whose list values are names: the shipped lists add those of
dariusk/corpora (CC0, commit cf30ca27ab176b63623af1ddcfa2447ac07305ba, data/humans/: US
census first and last names, unisex names, Norwegian and Spanish first and last names). A list name that is also an
ordinary word ("will", "mark", "rose", "young") is left out: a name is kept only when its
lower-case form is rare in running text, at most ``--max-lower-share`` of its occurrences in
the given corpus files (JSON lines with a "text" field, e.g. the unlabeled Wikipedia
biographies and ECHR judgments of shared/data/unlabeled/), where names are capitalised.

Usage: python scripts/build_name_lists.py CORPUS.jsonl [CORPUS.jsonl ...] [--output DIR]
    [--given-json firstNames.json ...] [--family-json lastNames.json ...]
(the shipped lists: the corpora shared/data/unlabeled/wikibio.jsonl and echr.jsonl; given:
firstNames neutralNames norwayFirstNamesBoys norwayFirstNamesGirls spanishFirstNames; family:
lastNames norwayLastNames spanishLastNames)
"""
import argparse
import json
import re
from collections import Counter
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "spacy_sanitize" / "data" / "names"
SURROGATES = ROOT / "spacy_sanitize" / "data" / "surrogates" / "names.json"
WORD = re.compile(r"[^\W\d_]+")


def json_names(paths: Iterable[Path]) -> Set[str]:
    names: Set[str] = set()
    for path in paths:
        data = json.loads(path.read_text(encoding="utf8"))
        names.update(n for value in data.values() if isinstance(value, list) for n in value)
    return names


def source_names(given_json: List[Path], family_json: List[Path]) -> Dict[str, Set[str]]:
    from mimesis.constants import DATADIR

    given: Set[str] = set()
    family: Set[str] = set()
    for locale in ("en", "en-ca"):
        person = json.loads((Path(DATADIR) / locale / "person.json").read_text(encoding="utf8"))
        given.update(n for names in person["names"].values() for n in names)
        family.update(person["surnames"])
    surrogates = json.loads(SURROGATES.read_text(encoding="utf8"))
    given |= set(surrogates["given_female"]) | set(surrogates["given_male"]) | json_names(given_json)
    family |= set(surrogates["family"]) | json_names(family_json)
    return {"given": given, "family": family}


def casing_counts(paths: Iterable[Path], words: Optional[Set[str]]) -> Dict[str, Counter]:
    """Occurrences of each word (of ``words``; None: every word) and those in lower case."""
    lower: Counter = Counter()
    total: Counter = Counter()
    for path in paths:
        with open(path, encoding="utf8") as stream:
            for line in stream:
                for word in WORD.findall(json.loads(line)["text"]):
                    key = word.lower()
                    if words is None or key in words:
                        total[key] += 1
                        lower[key] += word == key
    return {"lower": lower, "total": total}


def name_only(names: Set[str], counts: Dict[str, Counter], max_lower_share: float) -> List[str]:
    from spacy_sanitize.text import COMMON_WORDS

    kept = set()
    for name in names:
        key = name.lower()
        if len(key) < 3 or not key.isalpha() or key in COMMON_WORDS:
            continue
        if counts["lower"][key] > max_lower_share * counts["total"][key]:
            continue
        kept.add(key)
    return sorted(kept)


# English given names that are also ordinary words and that no list here holds (the US census
# lists the shipped lists were built with are not in the sources kept here)
WORD_GIVEN_NAMES = ("faith", "hope", "joy", "summer", "sky", "dawn", "autumn", "april", "may", "june", "honor", "glory",
                    "charity", "mercy", "patience", "prudence", "harmony", "melody", "destiny", "trinity", "serenity",
                    "liberty", "ivy", "holly", "hazel", "iris", "violet", "ruby", "pearl", "crystal", "daisy", "lily",
                    "poppy", "sage", "river", "storm", "rain", "sunny", "bud", "buck", "sandy", "dusty", "rusty")
ENGLISH_LOCALES = ("en", "en-au", "en-ca", "en-gb")


def all_locale_names(locales: Iterable[str] = ENGLISH_LOCALES) -> Set[str]:
    """The given and family names of these mimesis locales (the English ones: names of other
    languages that are English words, "Can", "Store", are not taken for names at a sentence start)."""
    from mimesis.constants import DATADIR

    found: Set[str] = set(WORD_GIVEN_NAMES)
    for path in (Path(DATADIR) / locale / "person.json" for locale in locales):
        if not path.exists():
            continue
        person = json.loads(path.read_text(encoding="utf8"))
        names = person.get("names", {})
        for group in names.values() if isinstance(names, dict) else [names]:
            found.update(group)
        found.update(n for n in person.get("surnames") or [] if isinstance(n, str))
    return found


def word_names(names: Set[str], plain: List[str]) -> List[str]:
    """Names that are also ordinary words ("grace", "faith", "will", "baker"): pii_refine does
    not take them for a plain word at a sentence start."""
    from spacy_sanitize.text import COMMON_WORDS

    lowered = {n.lower() for n in names if n.isalpha() and len(n) >= 3}
    # of the stop words only those that are given names ("will", "may"; not "many", "key")
    stop_names = set(WORD_GIVEN_NAMES) | {"will"}
    return sorted(n for n in lowered if (n in COMMON_WORDS and n in stop_names) or (n not in COMMON_WORDS and n in set(plain)))


def plain_words(counts: Dict[str, Counter], min_count: int = 3, min_lower_share: float = 0.6) -> List[str]:
    """Words written in lower case in at least ``min_lower_share`` of their (``min_count`` or
    more) occurrences in the corpora: ordinary words (pii_refine's plain words)."""
    return sorted(w for w, n in counts["total"].items()
                  if n >= min_count and len(w) >= 2 and w.isalpha() and counts["lower"][w] >= min_lower_share * n)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--max-lower-share", type=float, default=0.02)
    parser.add_argument("--given-json", nargs="*", type=Path, default=[])
    parser.add_argument("--family-json", nargs="*", type=Path, default=[])
    args = parser.parse_args()
    names = source_names(args.given_json, args.family_json)
    counts = casing_counts(args.corpora, {n.lower() for group in names.values() for n in group})
    args.output.mkdir(parents=True, exist_ok=True)
    for group, found in names.items():
        kept = name_only(found, counts, args.max_lower_share)
        (args.output / f"{group}.txt").write_text("\n".join(kept) + "\n", encoding="utf8")
        print(f"{group}: {len(kept)} of {len(found)} names kept")
    # every word of the corpora (not only the names) for the plain words
    plain = plain_words(casing_counts(args.corpora, None))
    (args.output / "plain_words.txt").write_text("\n".join(plain) + "\n", encoding="utf8")
    words = word_names(all_locale_names() | names["given"] | names["family"], plain)
    (args.output / "word_names.txt").write_text("\n".join(words) + "\n", encoding="utf8")
    print(f"plain_words: {len(plain)}, word_names: {len(words)}")
    print(f"word_names: {len(words)} names that are also ordinary words")


if __name__ == "__main__":
    main()
