"""Seed 000's two indicator tables ("manual": annotated spans, "automatic": detected spans) for
one corpus, our grouped-CV rows next to the published ones, from the results files that
risk_llm_eval.py, perturb_eval.py and seq_eval.py write (``spacy project run
evaluate-court-indicators`` for the court cases):

    python benchmarks/quality/seed000_tables.py --corpus tab \\
        --llm benchmarks/results/risk_llm_eval_tab.json \\
        --perturb benchmarks/results/perturb_eval_tab.json \\
        --seq benchmarks/results/seq_eval_tab.json benchmarks/results/seq_eval_tab_transformer.json \
        --court benchmarks/results/tab_eval.json

A row whose results file is missing is left out; web search has no row of ours (it needs a
search engine, see docs/risk_web.md)."""
import argparse
import json
from pathlib import Path
from typing import Any, Dict, List, Optional

COLUMNS = ("P", "P_w", "R_all", "F1", "R_ent", "R_direct", "R_quasi")
# Seed 000's published figures (test sets), in COLUMNS order. Tables "manual" (gold) and
# "automatic" (detected): the systems once per corpus, then their rows per condition.
SYSTEMS = {
    corpus: ["Majority rule (mask everything)", "LLM probabilities (logistic regression)", "LLM probabilities (AutoML model)",
             "Span classification (AutoML model)", f"Perturbations (threshold ~{threshold})",
             f"Sequence labelling ({tagger}, strict match)", f"Sequence labelling ({tagger}, partial match)",
             "Web search (URL intersection)", "Web search (# of hits)"]
    for corpus, threshold, tagger in (("tab", "10", "Longformer"), ("wiki", "3.5", "RoBERTa"))
}
_ROWS = {
    ("tab", "gold"): [(0.52, 0.56, 1.00, 0.69, 1.00, 1.00, 1.00), (0.53, 0.57, 0.96, 0.68, 0.93, 0.91, 0.93),
                      (0.61, 0.64, 0.93, 0.73, 0.93, 1.00, 0.92), (0.74, 0.77, 0.92, 0.83, 0.93, 1.00, 0.92),
                      (0.52, 0.56, 1.00, 0.69, 1.00, 1.00, 1.00), (0.90, 0.91, 0.87, 0.88, 0.88, 0.96, 0.87),
                      (0.87, 0.88, 0.95, 0.90, 0.95, 1.00, 0.95), (0.95, 0.96, 0.13, 0.22, 0.04, 0.41, 0.01),
                      (0.52, 0.56, 0.98, 0.68, 0.97, 0.93, 0.98)],
    ("tab", "detected"): [(0.43, 0.52, 0.96, 0.60, 0.93, 0.98, 0.94), (0.44, 0.53, 0.91, 0.60, 0.85, 0.93, 0.85),
                          (0.51, 0.60, 0.88, 0.65, 0.87, 0.98, 0.86), (0.68, 0.76, 0.88, 0.77, 0.87, 0.98, 0.86),
                          (0.43, 0.52, 0.96, 0.60, 0.94, 0.98, 0.94), (0.87, 0.88, 0.83, 0.85, 0.83, 0.95, 0.82),
                          (0.82, 0.84, 0.91, 0.86, 0.90, 0.98, 0.90), (0.99, 0.99, 0.12, 0.22, 0.03, 0.43, 0.01),
                          (0.43, 0.51, 0.94, 0.59, 0.91, 0.90, 0.92)],
    ("wiki", "gold"): [(0.80, 0.84, 1.00, 0.89, 1.00, 1.00, 1.00), (0.87, 0.89, 0.92, 0.89, 0.85, 1.00, 0.84),
                       (0.89, 0.91, 0.93, 0.91, 0.89, 1.00, 0.88), (0.93, 0.94, 0.87, 0.90, 0.82, 0.99, 0.81),
                       (0.80, 0.84, 1.00, 0.89, 1.00, 0.99, 1.00), (0.84, 0.89, 0.81, 0.82, 0.78, 0.85, 0.77),
                       (0.83, 0.86, 0.97, 0.89, 0.97, 1.00, 0.96), (0.98, 0.99, 0.22, 0.36, 0.08, 0.52, 0.03),
                       (0.80, 0.84, 0.99, 0.88, 0.99, 0.95, 0.99)],
    ("wiki", "detected"): [(0.66, 0.75, 0.93, 0.77, 0.91, 0.88, 0.91), (0.82, 0.86, 0.83, 0.82, 0.75, 0.87, 0.74),
                           (0.83, 0.87, 0.84, 0.84, 0.78, 0.87, 0.78), (0.87, 0.90, 0.78, 0.83, 0.72, 0.85, 0.71),
                           (0.66, 0.75, 0.93, 0.77, 0.91, 0.87, 0.91), (0.80, 0.87, 0.70, 0.75, 0.65, 0.81, 0.63),
                           (0.76, 0.82, 0.91, 0.83, 0.88, 0.88, 0.88), (1.00, 1.00, 0.11, 0.20, 0.02, 0.20, 0.00),
                           (0.66, 0.75, 0.92, 0.77, 0.90, 0.85, 0.91)],
}
PUBLISHED = {key: dict(zip(SYSTEMS[key[0]], rows)) for key, rows in _ROWS.items()}
# Table "combinations" (annotated spans): a span masked when at least k of the 5 indicators mask it.
PUBLISHED_K_OF_5 = {
    "wiki": {1: (0.78, 0.82, 1.00, 0.87, 1.00, 1.00, 1.00), 2: (0.80, 0.84, 1.00, 0.89, 1.00, 1.00, 1.00),
             3: (0.84, 0.87, 0.98, 0.90, 0.96, 1.00, 0.96)},
    "tab": {1: (0.52, 0.56, 1.00, 0.68, 1.00, 1.00, 1.00), 2: (0.52, 0.56, 1.00, 0.69, 1.00, 1.00, 1.00),
            3: (0.61, 0.64, 0.98, 0.75, 0.99, 1.00, 0.99)},
}
SEQ_THRESHOLD = "0.5"  # the tagger's own decision, as the seed's argmax


def ours(cond: str, llm: Optional[Dict[str, Any]], perturb: Optional[Dict[str, Any]],
         seq: Optional[Dict[str, Any]], court: Optional[Dict[str, Any]] = None) -> Dict[str, Dict[str, Any]]:
    """Our rows for one condition ("gold" or "detected"), named as in the seed's table."""
    rows: Dict[str, Dict[str, Any]] = {}
    if llm:
        r = llm["rows"]
        rows["Majority rule (mask everything)"] = r[f"{cond}/mask_all"]
        for scorer, name in (("frequency", "word frequencies"), ("hf:minilm_mlm", "domain MiniLM MLM")):
            for system, family in (("logreg", "logistic regression"), ("auto", "model selection by inner CV")):
                if f"{cond}/{scorer}/{system}" in r:
                    rows[f"LLM probabilities, {name} ({family})"] = r[f"{cond}/{scorer}/{system}"]
        for system, family in (("text_logreg", "logistic regression"), ("text_hgb", "boosted trees")):
            key = next((k for k in r if k.startswith(f"{cond}/") and k.endswith(f"/{system}")), None)
            if key:
                rows[f"Span classification, {key.split('/')[1]} + span text ({family})"] = r[key]
    if perturb:
        key = f"{cond}/perturb-person/paper"
        if key in perturb["rows"]:
            t = perturb["rows"][key].get("fold_thresholds", [])
            docs = perturb.get("documents")
            # P_w: perturb_eval scores without the LM token weighting (its P_w is P)
            row = {k: v for k, v in perturb["rows"][key].items() if k != "P_w"}
            rows[f"Perturbations (thresholds by CV: {', '.join(map(str, t))}; {docs} documents)"] = row
    if seq:
        source = "annotated" if cond == "gold" else "detected"
        for family, res in seq["families"].items():
            for match, name in (("full", "strict"), ("partial", "partial")):
                rows[f"Sequence labelling ({family}, {name} match)"] = res["scores"][source][match][SEQ_THRESHOLD]
    if court and cond == "detected":
        # tab_eval.py: thresholds chosen by inner CV on the training folds, the masker's plan
        r = court["rows"]
        for key, name in (("risk_seq cnn (grouped CV), no protection", "risk_seq CNN, partial match, threshold by inner CV"),
                          (next((k for k in r if "R_quasi >=" in k), ""), "`court`: + pii_extend, risk_stack, protection, recall-first threshold")):
            if key in r:
                rows[name] = r[key]
    return rows


def markdown(published: Dict[str, Any], mine: Dict[str, Dict[str, Any]], first: str = "system") -> List[str]:
    """A table of the published rows (tuples in COLUMNS order) above ours (dicts; "-" where a
    column is missing)."""
    lines = [f"| {first} | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for name, values in published.items():
        lines.append(f"| {name} (published) | " + " | ".join(f"{v:.2f}" for v in values) + " |")
    for name, row in mine.items():
        lines.append(f"| {name} | " + " | ".join(f"{row[c]:.3f}" if c in row else "-" for c in COLUMNS) + " |")
    return lines


def table(corpus: str, cond: str, mine: Dict[str, Dict[str, Any]]) -> List[str]:
    return markdown(PUBLISHED[(corpus, cond)], mine)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", choices=("tab", "wiki"), default="tab")
    parser.add_argument("--llm", type=Path)
    parser.add_argument("--perturb", type=Path)
    parser.add_argument("--seq", type=Path, nargs="*", default=[], help="seq_eval.py results, one file per run (their tagger families are listed in turn)")
    parser.add_argument("--court", type=Path, help="benchmarks/quality/tab_eval.py's results (end to end, detected spans)")
    args = parser.parse_args()

    def read(path: Optional[Path]) -> Optional[Dict[str, Any]]:
        return json.loads(path.read_text()) if path and path.exists() else None

    llm, perturb, court = read(args.llm), read(args.perturb), read(args.court)
    runs = [r for r in map(read, args.seq) if r]
    seq = {"families": {family: res for run in runs for family, res in run["families"].items()}} if runs else None
    for cond, title in (("gold", "annotated spans (seed 000's table \"manual\")"), ("detected", "detected spans (table \"automatic\")")):
        print(f"\n{args.corpus}, {title}\n")
        print("\n".join(table(args.corpus, cond, ours(cond, llm, perturb, seq, court))))


if __name__ == "__main__":
    main()
