"""TAB metrics on annotated everyday documents: letters, medical, police, HR, school and
social-care notes, claims, e-mails, chat, SMS, CVs, a log and a form (``annotated_docs.jsonl``).

Each line is ``{doc_id, genre, marked}``: the text with its annotated mentions written in
place as ``[[surface|TYPE|D]]`` (a direct identifier), ``[[surface|TYPE|Q]]`` (a
quasi-identifier: both are to be masked) or ``[[surface|TYPE|N]]`` (an entity a TAB annotator
leaves in clear: a public body acting as such), with an optional fourth field naming the
entity (``|p1``) where mentions of one person differ ("Oliver Brennan", "Oliver"); otherwise
a mention's entity is its type and lower-cased text. The annotation follows TAB's guidelines
with every private person of the text to protect: names, codes and contact data are direct;
their dates, places, employers, schools, ages, occupations, relatives and health facts are
quasi-identifiers; times of day, weekdays, generic roles ("GP", "the council") and texts about
no one are not annotated, so masking them costs precision. One annotator (this project) wrote
texts and annotations before any pipeline ran on them; the figures are an estimate of what
held-out everyday documents measure, not a tuning set.

    python benchmarks/everyday/annotated.py [--pipelines default strict accurate] [--output PATH]
    PYTHONPATH=/tmp/presidio_pkgs:. python benchmarks/everyday/annotated.py --presidio   # and Presidio

Every system is scored end to end from the raw text with the TAB metrics of
``spacy_sanitize.evaluation`` (``predicted_mask_offsets``: what the masker replaces; Presidio:
the ranges its analyzer finds, every result), pooled over the documents and per genre.
"""
import argparse
import json
import re
from pathlib import Path
from typing import Any, Dict, List, Tuple

from leaks import PRESIDIO, presidio_ranges, with_presidio  # its sibling, first on a script's path
from spacy_sanitize import load_pipeline
from spacy_sanitize.corpus.tab import Mention, TabDocument
from spacy_sanitize.evaluation import Tokens, predicted_mask_offsets, tab_scores

DOCS = Path(__file__).parent / "annotated_docs.jsonl"
MARK = re.compile(r"\[\[([^\[\]|]+)\|([A-Z]+)\|([DQN])(?:\|(\w+))?\]\]")
IDENTIFIER = {"D": "DIRECT", "Q": "QUASI", "N": "NO_MASK"}
TYPES = ("PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC")
METRICS = {"P": "precision", "R_all": "recall", "F1": "f1", "R_direct": "direct_recall", "R_quasi": "quasi_recall"}


def parse(doc_id: str, marked: str) -> TabDocument:
    """The plain text of ``marked`` and its mentions as one annotator's view."""
    text, mentions, cursor = [], [], 0
    length = 0
    for match in MARK.finditer(marked):
        before = marked[cursor : match.start()]
        if "[[" in before or "]]" in before:
            raise ValueError(f"{doc_id}: malformed mark near {before[-40:]!r}")
        text.append(before)
        length += len(before)
        surface, label, kind, entity = match.groups()
        if label not in TYPES:
            raise ValueError(f"{doc_id}: unknown type {label!r} (one of {', '.join(TYPES)})")
        mentions.append(Mention(length, length + len(surface), label, IDENTIFIER[kind], entity or f"{label}:{surface.lower()}",
                                f"{doc_id}_em{len(mentions)}", surface))
        text.append(surface)
        length += len(surface)
        cursor = match.end()
    rest = marked[cursor:]
    if "[[" in rest or "]]" in rest:
        raise ValueError(f"{doc_id}: malformed mark near {rest[:40]!r}")
    return TabDocument(doc_id, "".join(text) + rest, {"annotator1": mentions})


def read_docs(path: Path = DOCS) -> Tuple[List[TabDocument], Dict[str, str]]:
    """The annotated documents and each one's genre."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf8").splitlines() if line.strip()]
    return [parse(r["doc_id"], r["marked"]) for r in rows], {r["doc_id"]: r["genre"] for r in rows}


def masked_offsets(system: str, texts: List[str]) -> List[List[List[int]]]:
    """The character ranges ``system`` masks in each text (a shipped pipeline, or ``PRESIDIO``)."""
    if system == PRESIDIO:
        ranges = presidio_ranges()
        assert ranges is not None
        return [[[s, e] for s, e, _label in ranges(t)] for t in texts]
    return [predicted_mask_offsets(doc) for doc in load_pipeline(system).pipe(texts)]


def scores(gold: List[TabDocument], predictions: Dict[str, Any], tokens: Tokens) -> Dict[str, Any]:
    result = tab_scores(gold, predictions, tokens=tokens)
    return {key: round(float(getattr(result, attr)), 3) for key, attr in METRICS.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pipelines", nargs="+", default=["default", "strict"])
    parser.add_argument("--docs", type=Path, default=DOCS)
    parser.add_argument("--presidio", action="store_true", help="also Microsoft Presidio (installed next to this project)")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    gold, genres = read_docs(args.docs)
    tokens = Tokens()
    texts = [d.text for d in gold]
    results: Dict[str, Any] = {
        "documents": len(gold),
        "genres": {g: sum(1 for v in genres.values() if v == g) for g in sorted(set(genres.values()))},
        "mentions": {kind: sum(1 for d in gold for m in d.annotations["annotator1"] if m.identifier_type == kind) for kind in IDENTIFIER.values()},
        "systems": {},
    }
    for system in with_presidio(args.pipelines, args.presidio):
        predictions = {d.doc_id: offsets for d, offsets in zip(gold, masked_offsets(system, texts))}
        row = scores(gold, predictions, tokens)
        row["by_genre"] = {g: scores([d for d in gold if genres[d.doc_id] == g], predictions, tokens) for g in results["genres"]}
        results["systems"][system] = row
        print(f"{system}: " + " / ".join(f"{k} {row[k]:.3f}" for k in METRICS), flush=True)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
