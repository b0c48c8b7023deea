""">= k of n risk indicators on the annotated spans (seed 000, table "combinations"), from the
out-of-fold decisions that risk_llm_eval.py, perturb_eval.py and seq_eval.py write with
``--predictions`` (each grouped 5-fold CV by document, so every decision here is out of fold).

A document's annotated spans are every annotator's (pooled, as the indicators' predictions
are); with ``--spans detected`` the candidates are the detected spans the members decided on
(members ``detected/...``). A span an indicator did not decide on (perturb_eval reads the first
annotator's spans only) votes MASK, as a missing indicator does in ``risk_vote`` (fail closed).

    python benchmarks/quality/kofn_eval.py --data ../shared/data/tab/tab_dev.json \\
        --predictions corpus/llm_tab_predictions.json corpus/perturb_tab_predictions.json corpus/seq_tab_predictions.json \\
        --members gold/hf:minilm_mlm/auto,gold/frequency/text_hgb,gold/perturb-person/paper,gold/seq-cnn/partial \\
        --output benchmarks/results/kofn_tab.json
"""
import argparse
import json
from pathlib import Path
from typing import Any, Dict, List, Set, Tuple

from risk_llm_eval import cached_weighting
from seed000_tables import COLUMNS, PUBLISHED_K_OF_5, markdown

from spacy_sanitize.corpus import load_tab
from spacy_sanitize.evaluation import Tokens, tab_scores
from spacy_sanitize.lm import FrequencyScorer

Span = Tuple[int, int]


def votes(spans: Dict[str, List[Span]], member: Dict[str, Any]) -> Dict[str, List[int]]:
    """Per document, 1 where the member masks the span or did not decide on it (fail closed)."""
    out = {}
    for doc_id, doc_spans in spans.items():
        seen: Set[Span] = {tuple(s) for s in member["seen"].get(doc_id, [])}
        masked: Set[Span] = {tuple(s) for s in member["masked"].get(doc_id, [])}
        out[doc_id] = [int(span in masked or span not in seen) for span in doc_spans]
    return out


def at_least(spans: Dict[str, List[Span]], member_votes: List[Dict[str, List[int]]], k: int) -> Dict[str, List[List[int]]]:
    """The spans with at least ``k`` MASK votes."""
    return {doc_id: [list(span) for i, span in enumerate(doc_spans) if sum(v[doc_id][i] for v in member_votes) >= k]
            for doc_id, doc_spans in spans.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--predictions", type=Path, nargs="+", required=True)
    parser.add_argument("--members", required=True, help="comma-separated prediction keys, one per indicator")
    parser.add_argument("--spans", choices=("gold", "detected"), default="gold", help="the candidate spans: annotated, or the members' detected ones")
    parser.add_argument("--corpus", choices=sorted(PUBLISHED_K_OF_5), default=None, help="published rows to print (default: from --data)")
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args()
    available: Dict[str, Any] = {}
    for path in args.predictions:
        available.update(json.loads(path.read_text()))
    members = args.members.split(",")
    missing = [m for m in members if m not in available]
    if missing:
        raise SystemExit(f"no predictions for {missing}; found: {sorted(available)}")
    gold = load_tab(args.data)
    if args.spans == "gold":
        spans = {d.doc_id: sorted({(m.start, m.end) for ms in d.annotations.values() for m in ms}) for d in gold}
    else:
        spans = {d.doc_id: sorted({tuple(s) for m in members for s in available[m]["seen"].get(d.doc_id, [])}) for d in gold}
    member_votes = [votes(spans, available[m]) for m in members]
    tokens, weighting = Tokens(), cached_weighting(FrequencyScorer())
    results: Dict[str, Any] = {"data": args.data.name, "spans": args.spans, "members": members, "documents": len(gold), "rows": {}}
    # Each member alone (its votes on every annotated span), then the rules.
    rules = [(m, at_least(spans, [v], 1)) for m, v in zip(members, member_votes)]
    rules += [(f">= {k} of {len(members)}", at_least(spans, member_votes, k)) for k in range(1, len(members) + 1)]
    for name, masked in rules:
        s = tab_scores(gold, masked, tokens=tokens, token_weighting=weighting).as_dict()
        results["rows"][name] = {c: round(float(s[c]), 4) for c in COLUMNS}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1) + "\n")
    corpus = args.corpus or ("wiki" if "wiki" in args.data.name else "tab")
    published = {f">= {k} of 5": values for k, values in PUBLISHED_K_OF_5[corpus].items()}
    print("\n".join(markdown(published, results["rows"], first="rule")))


if __name__ == "__main__":
    main()
