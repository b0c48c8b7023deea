"""The quality gates of a detector pipeline on both annotated corpora: TAB masking metrics
(mask everything detected) and token-level detection F1 (unlabelled and labelled) on the
Wikipedia biographies (wiki_dev) and the court cases (tab_dev), same method for every
pipeline, so the distilled default can be compared with the one it replaced (``ensemble``).

    python benchmarks/quality/detector_gates.py --pipelines ensemble default accurate [path/to/config.cfg ...]
        [--candidate default --baseline ensemble] [--ablate pii_propn]

``--candidate``/``--baseline``: check issue #18's gates for replacing the baseline (both
measured in this run): masking R_all and R_direct on both corpora >= the baseline's,
unlabelled detection F1 on wiki_dev within 0.01 of it, labelled F1 on wiki_dev >= 0.76.

The shipped pii_relabel (in ``accurate``) and the distilled pii_ner's teacher were fitted on
the 70 wiki_dev biographies: their labelled F1 there is not held out (docs/pii_ner.md).
Masking and unlabelled scores do not read types.
"""
import argparse
import time
from pathlib import Path
from typing import Dict, Sequence

import srsly

from spacy_sanitize import load_pipeline
from spacy_sanitize.corpus import load_tab, wiki_dev_path
from spacy_sanitize.evaluation import MASKING_KEYS, Tokens, detected_triples, detection_scores, predicted_mask_offsets, tab_scores

DEFAULT_TAB = Path(wiki_dev_path()).parent.parent / "tab" / "tab_dev.json"
LABELLED_F1_BAR = 0.76


def gates(nlp, gold, tokens: Tokens, disable: Sequence[str] = ()) -> Dict:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    docs = list(nlp.pipe([d.text for d in gold], batch_size=16, disable=list(disable)))
    seconds = time.perf_counter() - start
    masked = {d.doc_id: predicted_mask_offsets(doc) for d, doc in zip(gold, docs)}
    detected = {d.doc_id: detected_triples(doc) for d, doc in zip(gold, docs)}
    masking = tab_scores(gold, masked, tokens=tokens).as_dict()
    detection = detection_scores(gold, detected, tokens=tokens).as_dict()
    return {
        "masking": {k: round(masking[k], 4) for k in MASKING_KEYS},
        "detection_unlabelled": {k: round(detection["micro_unlabelled"][k], 4) for k in ("P", "R", "F1")},
        "detection_labelled": {k: round(detection["micro_labelled"][k], 4) for k in ("P", "R", "F1")},
        "per_type_F1": {t: round(s["F1"], 3) for t, s in detection["per_type"].items()},
        "docs_per_s": round(len(gold) / seconds, 2),
    }


def gate_verdicts(candidate: Dict, baseline: Dict) -> Dict[str, Dict]:
    """Each gate: the candidate's value, the bar it must reach and whether it does."""
    bars = {}
    for corpus in ("wiki_dev", "tab_dev"):
        for key in ("R_all", "R_direct"):
            bars[f"{corpus} {key}"] = (candidate[corpus]["masking"][key], baseline[corpus]["masking"][key])
    bars["wiki_dev F1 unlabelled"] = (candidate["wiki_dev"]["detection_unlabelled"]["F1"], round(baseline["wiki_dev"]["detection_unlabelled"]["F1"] - 0.01, 4))
    bars["wiki_dev F1 labelled"] = (candidate["wiki_dev"]["detection_labelled"]["F1"], LABELLED_F1_BAR)
    return {gate: {"value": value, "bar": bar, "passed": value >= bar} for gate, (value, bar) in bars.items()}


def report(name: str, corpus: str, r: Dict) -> None:
    m = r["masking"]
    print(
        f"{name} {corpus}: R_all {m['R_all']:.3f} R_direct {m['R_direct']:.3f} R_quasi {m['R_quasi']:.3f} P {m['P']:.3f}"
        f" | F1 unlabelled {r['detection_unlabelled']['F1']:.3f} labelled {r['detection_labelled']['F1']:.3f} | {r['docs_per_s']} docs/s",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pipelines", nargs="+", default=["default"])
    parser.add_argument("--wiki", type=Path, default=Path(wiki_dev_path()))
    parser.add_argument("--tab", type=Path, default=DEFAULT_TAB)
    parser.add_argument("--candidate", help="a pipeline of --pipelines whose gates against --baseline are checked")
    parser.add_argument("--baseline", default="ensemble")
    parser.add_argument("--ablate", nargs="*", default=[], help="components: each pipeline that has one is also measured without it ('NAME without COMPONENT')")
    parser.add_argument("--output", type=Path, default=Path(__file__).parents[1] / "results" / "detector_gates.json")
    args = parser.parse_args()
    corpora = {"wiki_dev": load_tab(args.wiki), "tab_dev": load_tab(args.tab)}
    tokens = Tokens()
    results: Dict[str, Dict] = srsly.read_json(args.output) if args.output.exists() else {}
    for pipeline in args.pipelines:
        nlp = load_pipeline(pipeline)
        rows = {pipeline: []} | {f"{pipeline} without {c}": [c] for c in args.ablate if c in nlp.pipe_names}
        for name, disable in rows.items():
            names = [n for n in nlp.pipe_names if n not in disable]
            results[name] = {"pipeline": names, **{corpus: gates(nlp, gold, tokens, disable) for corpus, gold in corpora.items()}}
            for corpus in corpora:
                report(name, corpus, results[name][corpus])
    if args.candidate:
        verdicts = gate_verdicts(results[args.candidate], results[args.baseline])
        results["gates"] = {"candidate": args.candidate, "baseline": args.baseline, "passed": all(v["passed"] for v in verdicts.values()), "gates": verdicts}
        for gate, v in verdicts.items():
            print(f"{'pass' if v['passed'] else 'FAIL'} {gate}: {v['value']:.4f} (bar {v['bar']:.4f})")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(args.output, results)


if __name__ == "__main__":
    main()
