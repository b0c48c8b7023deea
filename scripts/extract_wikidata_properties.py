"""Extract the DEM and MISC Wikidata property tables of seed 000's appendix
("Human properties from Wikidata") into spacy_sanitize/data/wikidata_properties.tsv.

Usage: python scripts/extract_wikidata_properties.py SEED_000.txt [OUTPUT.tsv]
"""

import re
import sys
from pathlib import Path

from spacy_sanitize.training.gazetteer_build import properties_path

ROW = re.compile(
    r"\\raggedright\s+(?P<name>.*?)\s*\(P(?P<pid>\d+)\)\s*&\s*\\raggedright\s*(?P<example>.*?)\s*&"
)


def extract(text: str):
    rows = []
    for label, heading in (("DEM", "DEM-related properties"), ("MISC", "MISC-related properties")):
        start = text.index(heading)
        end = text.index("\\end{longtblr}", start)
        for line in text[start:end].splitlines():
            match = ROW.search(line)
            if match:
                name = " ".join(match.group("name").split())
                example = " ".join(match.group("example").replace("\\&", "&").split())
                rows.append((f"P{match.group('pid')}", name, label, example))
    return rows


def main() -> None:
    seed = Path(sys.argv[1])
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else properties_path()
    rows = extract(seed.read_text(encoding="utf8"))
    with out.open("w", encoding="utf8") as file_:
        file_.write(
            "# Wikidata properties of humans whose values are DEM or MISC identifiers (seed 000, appendix tables).\n"
        )
        file_.write("property\tname\tlabel\texample\n")
        for row in rows:
            file_.write("\t".join(row) + "\n")
    counts = {label: sum(1 for r in rows if r[2] == label) for label in ("DEM", "MISC")}
    print(f"wrote {len(rows)} properties to {out}: {counts}")


if __name__ == "__main__":
    main()
