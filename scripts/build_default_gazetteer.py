"""Build the offline gazetteer shipped with the package:
spacy_sanitize/data/gazetteer/default.jsonl.gz.

Sources (all installable from PyPI, see the ``gazetteer`` extra in setup.cfg):

- the curated lists in spacy_sanitize/training/gazetteer_lists/*.txt (one term a line, with
  ``# label:`` and ``# property:`` headers), and generated positions
  ("Minister of X", "Minister of State for X", "Secretary of X") from portfolios.txt;
- ``mimesis`` (MIT): English occupations, nationalities, languages;
- ``countryinfo`` (MIT): English demonyms;
- ``pycountry`` (LGPL-2.1, data only): names of the ISO 639-1 languages.

Usage: python scripts/build_default_gazetteer.py [--output PATH]
"""

import argparse
import gzip
import io
import json
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

ROOT = Path(__file__).resolve().parents[1]
LISTS = ROOT / "spacy_sanitize" / "training" / "gazetteer_lists"
OUTPUT = ROOT / "spacy_sanitize" / "data" / "gazetteer" / "default.jsonl.gz"

Record = Dict[str, object]


def read_list(path: Path) -> Tuple[Dict[str, str], List[str]]:
    header: Dict[str, str] = {}
    terms: List[str] = []
    for line in path.read_text(encoding="utf8").splitlines():
        line = line.strip()
        if line.startswith("#"):
            if ":" in line:
                key, value = line[1:].split(":", 1)
                if key.strip() in ("label", "property"):
                    header[key.strip()] = value.strip()
            continue
        if line:
            terms.append(line)
    return header, terms


def curated() -> Iterator[Record]:
    for path in sorted(LISTS.glob("*.txt")):
        header, terms = read_list(path)
        if "label" not in header:
            continue
        for term in terms:
            yield {
                "term": term,
                "label": header["label"],
                "property": header.get("property", ""),
                "source": f"curated:{path.stem}",
            }


def generated_positions() -> Iterator[Record]:
    _, portfolios = read_list(LISTS / "portfolios.txt")
    heads = (
        "Minister of",
        "Minister for",
        "Minister of State for",
        "Deputy Minister of",
        "Secretary of",
        "Secretary of State for",
    )
    for portfolio in portfolios:
        for head in heads:
            yield {
                "term": f"{head} {portfolio}",
                "label": "DEM",
                "property": "P39",
                "source": "generated:positions",
            }


# mimesis' occupation list has department names, adjectives and surnames among the titles.
MIMESIS_NOT_OCCUPATIONS = frozenset(
    [
        "Operations",
        "Arts",
        "Employment",
        "Manufacturing",
        "Optical",
        "Premises",
        "Commissioned",
        "Packaging",
        "Licensing",
        "Recreational",
        "Retired",
        "Operative",
        "Miller",
        "Turner",
        "Potter",
        "Butler",
        "Porter",
        "Unemployed",
        "Housewife",
    ]
)


def is_occupation_title(term: str) -> bool:
    if term in MIMESIS_NOT_OCCUPATIONS:
        return False
    return " " in term or not term.endswith(("ing", "ed", "al", "s"))


def from_mimesis() -> Iterator[Record]:
    import mimesis

    data = json.loads(
        (Path(mimesis.__file__).parent / "datasets" / "en" / "person.json").read_text(
            encoding="utf8"
        )
    )
    for term in filter(is_occupation_title, data.get("occupation", [])):
        yield {"term": term, "label": "DEM", "property": "P106", "source": "mimesis:occupation"}
    for term in data.get("nationality", []):
        yield {"term": term, "label": "DEM", "property": "P1549", "source": "mimesis:nationality"}
    for term in data.get("language", []):
        yield {"term": term, "label": "DEM", "property": "P1412", "source": "mimesis:language"}


def from_countryinfo() -> Iterator[Record]:
    import countryinfo

    for path in sorted((Path(countryinfo.__file__).parent / "data").glob("*.json")):
        demonym = json.loads(path.read_text(encoding="utf8")).get("demonym")
        if isinstance(demonym, str) and demonym.strip():
            yield {
                "term": demonym.strip(),
                "label": "DEM",
                "property": "P1549",
                "source": "countryinfo:demonym",
            }


def from_pycountry() -> Iterator[Record]:
    import pycountry

    for language in pycountry.languages:
        if hasattr(language, "alpha_2"):
            for name in language.name.split(";"):
                name = name.strip()
                # "Greek, Modern (1453-)" -> "Greek"
                name = name.split(",")[0].split("(")[0].strip()
                if name:
                    yield {
                        "term": name,
                        "label": "DEM",
                        "property": "P1412",
                        "source": "pycountry:iso639-1",
                    }


def build(output: Path) -> Dict[str, int]:
    seen = set()
    counts: Dict[str, int] = {}
    output.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(output, "wb", mtime=0) as raw, io.TextIOWrapper(raw, encoding="utf8") as out:
        for source in (
            curated(),
            generated_positions(),
            from_mimesis(),
            from_countryinfo(),
            from_pycountry(),
        ):
            for record in source:
                key = (record["term"].lower(), record["label"])  # type: ignore[union-attr]
                if key in seen:
                    continue
                seen.add(key)
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                family = str(record["source"]).split(":")[0]
                counts[family] = counts.get(family, 0) + 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args()
    counts = build(args.output)
    print(f"wrote {sum(counts.values())} terms to {args.output}: {counts}")


if __name__ == "__main__":
    main()
