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
import sys
from collections import Counter
from pathlib import Path
from typing import Dict, Iterable, List, Set

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "spacy_sanitize" / "data" / "names"
SURROGATES = ROOT / "spacy_sanitize" / "data" / "surrogates" / "names.json"
sys.path.insert(0, str(ROOT))  # the checkout's package, also when it is not installed
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


def casing_counts(paths: Iterable[Path], words: Set[str]) -> Dict[str, Counter]:
    lower: Counter = Counter()
    total: Counter = Counter()
    for path in paths:
        with open(path, encoding="utf8") as stream:
            for line in stream:
                for word in WORD.findall(json.loads(line)["text"]):
                    key = word.lower()
                    if key in words:
                        total[key] += 1
                        lower[key] += word == key
    return {"lower": lower, "total": total}


def name_only(names: Set[str], counts: Dict[str, Counter], max_lower_share: float) -> List[str]:
    from spacy_sanitize.masking_plan import COMMON_WORDS

    kept = set()
    for name in names:
        key = name.lower()
        if len(key) < 3 or not key.isalpha() or key in COMMON_WORDS:
            continue
        if counts["lower"][key] > max_lower_share * counts["total"][key]:
            continue
        kept.add(key)
    return sorted(kept)


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


if __name__ == "__main__":
    main()
