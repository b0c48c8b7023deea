"""Weak country labels for court judgments: the respondent state of an ECHR case.

Two rules, each giving an ISO 3166 alpha-3 code:

- ``opening``: the state named in the opening sentence, "The case originated in an
  application (no. ...) against the Republic of Turkey lodged ...".
- ``title``: the state after "v." in the judgment's title ("CASE OF X v. TURKEY"), which
  full judgments have and the TAB texts (procedure and facts only) do not.

The label is ``opening`` when it is found, else ``title``. ``label_report`` measures how
often the rules agree (and, with gold labels, how often they are right). Names cover the
47 member states of the Council of Europe plus the Russian Federation (respondent until 2022).

CLI::

    python -m spacy_sanitize country-labels echr.jsonl out.jsonl --report report.json
"""
import argparse
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import srsly

STATES: Dict[str, Tuple[str, ...]] = {
    "ALB": ("Albania",), "AND": ("Andorra",), "ARM": ("Armenia",), "AUT": ("Austria",),
    "AZE": ("Azerbaijan",), "BEL": ("Belgium",), "BIH": ("Bosnia and Herzegovina",),
    "BGR": ("Bulgaria",), "HRV": ("Croatia",), "CYP": ("Cyprus",),
    "CZE": ("Czech Republic", "Czechia"), "DNK": ("Denmark",), "EST": ("Estonia",),
    "FIN": ("Finland",), "FRA": ("France", "French Republic"), "GEO": ("Georgia",),
    "DEU": ("Germany",), "GRC": ("Greece", "Hellenic Republic"), "HUN": ("Hungary",),
    "ISL": ("Iceland",), "IRL": ("Ireland",), "ITA": ("Italy", "Italian Republic"),
    "LVA": ("Latvia",), "LIE": ("Liechtenstein",), "LTU": ("Lithuania",),
    "LUX": ("Luxembourg",), "MLT": ("Malta",), "MDA": ("Moldova",), "MCO": ("Monaco",),
    "MNE": ("Montenegro",), "NLD": ("Netherlands",),
    "MKD": ("North Macedonia", "former Yugoslav Republic of Macedonia", "Macedonia"),
    "NOR": ("Norway",), "POL": ("Poland",), "PRT": ("Portugal", "Portuguese Republic"),
    "ROU": ("Romania",), "RUS": ("Russia", "Russian Federation"), "SMR": ("San Marino",),
    "SRB": ("Serbia",), "SVK": ("Slovakia", "Slovak Republic"), "SVN": ("Slovenia",),
    "ESP": ("Spain",), "SWE": ("Sweden",), "CHE": ("Switzerland", "Swiss Confederation"),
    "TUR": ("Turkey", "Türkiye"), "UKR": ("Ukraine",), "GBR": ("United Kingdom",),
}
_NAMES = sorted(((name.lower(), code) for code, names in STATES.items() for name in names), key=lambda item: -len(item[0]))
_OPENING = re.compile(r"originated in (?:an?|two|three|four|five|\w+) applications?.{0,200}?\bagainst (.{0,120}?)(?:\blodged\b|\bby\b|\(|\n|$)", re.S | re.I)
_TITLE = re.compile(r"CASE OF .{0,300}? v\. ([^\n]+)")


def country_in(phrase: str) -> Optional[str]:
    """The code of the longest state name in ``phrase`` (case-insensitive), or None."""
    lowered = phrase.lower()
    for name, code in _NAMES:
        if re.search(rf"\b{re.escape(name)}\b", lowered):
            return code
    return None


def label_opening(text: str, window: int = 3000) -> Optional[str]:
    match = _OPENING.search(text[:window])
    return country_in(match.group(1)) if match else None


def label_title(text: str, window: int = 600) -> Optional[str]:
    match = _TITLE.search(text[:window])
    return country_in(match.group(1)) if match else None


def weak_label(text: str) -> Tuple[Optional[str], Dict[str, Optional[str]]]:
    rules = {"opening": label_opening(text), "title": label_title(text)}
    return rules["opening"] or rules["title"], rules


def procedure_and_facts(text: str, max_chars: int = 0) -> str:
    """The part of a judgment that TAB texts cover: from "PROCEDURE" to "THE LAW"."""
    start = text.find("PROCEDURE")
    start = 0 if start < 0 else start
    end = text.find("\nTHE LAW", start)
    part = text[start : end if end > 0 else len(text)]
    return part[:max_chars] if max_chars else part


def label_records(records: Iterable[Dict[str, Any]], gold_field: Optional[str] = None, skip_prefix: Sequence[str] = ("lacour:",), max_chars: int = 0) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]:
    """Weakly labelled records (text cut to procedure and facts) and the label report."""
    from ..decide.infer.attacker import get_field

    out: List[Dict[str, Any]] = []
    counts: Counter = Counter()
    both = agree = 0
    gold_n = gold_right = 0
    for record in records:
        doc_id = str(record.get("id", record.get("doc_id", "")))
        if any(doc_id.startswith(p) for p in skip_prefix):
            counts["skipped_by_prefix"] += 1
            continue
        text = record.get("text") or ""
        label, rules = weak_label(text)
        counts["records"] += 1
        counts[f"source_{'opening' if rules['opening'] else 'title' if rules['title'] else 'none'}"] += 1
        if rules["opening"] and rules["title"]:
            both += 1
            agree += rules["opening"] == rules["title"]
        gold = get_field(record, gold_field) if gold_field else None
        if gold is not None:
            gold_n += 1
            gold_right += label == gold
        if label is None:
            continue
        out.append({"id": doc_id, "text": procedure_and_facts(text, max_chars), "label": label, "label_rules": rules})
    report: Dict[str, Any] = {
        **dict(counts),
        "labelled": len(out),
        "both_rules": both,
        "rules_agree": agree,
        "agreement": agree / both if both else None,
        "class_counts": dict(Counter(r["label"] for r in out).most_common()),
    }
    if gold_field:
        report.update({"gold_n": gold_n, "gold_correct": gold_right, "gold_accuracy": gold_right / gold_n if gold_n else None})
    return out, report


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="spacy-sanitize country-labels", description="Weak respondent-state labels for ECHR judgments.")
    parser.add_argument("input", type=Path, help="JSONL with id and text (e.g. unlabeled/echr.jsonl)")
    parser.add_argument("output", type=Path, nargs="?", help="labelled JSONL to write (text cut to procedure and facts)")
    parser.add_argument("--gold-field", help="dotted field with a gold label, to measure the rules' accuracy (e.g. meta.countries)")
    parser.add_argument("--max-chars", type=int, default=20000)
    parser.add_argument("--report", type=Path, help="write the label report here")
    args = parser.parse_args(argv)
    records, report = label_records(srsly.read_jsonl(args.input), args.gold_field, max_chars=args.max_chars)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_jsonl(args.output, records)
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(args.report, report)
    print(json.dumps(report, indent=1))
    return 0

