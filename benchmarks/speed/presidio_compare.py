"""spacy-sanitize against Microsoft Presidio on the annotated Wikipedia biographies and the
court cases: TAB masking metrics (mask everything each system detects), token-level
detection P/R/F1 (unlabelled: Presidio's types do not map one to one onto TAB's) and speed,
one document at a time (``nlp(text)`` / ``analyzer.analyze``) and batched (``nlp.pipe`` /
Presidio's ``BatchAnalyzerEngine``), all in one run so the ratios hold on a shared machine.

Presidio is not a dependency of this project: install it next to it for this benchmark,
without letting it change spaCy's own packages, e.g.

    pip install --no-deps --target /tmp/presidio_pkgs presidio-analyzer phonenumbers tldextract requests-file
    PYTHONPATH=/tmp/presidio_pkgs:. python benchmarks/speed/presidio_compare.py [--pipelines default accurate]

Presidio runs with its default recognizers and an `en_core_web_sm` NLP engine, keeping every
result (score threshold 0, its default) or only those above ``--presidio-threshold``.
Speed: the biographies (wiki_dev, 70 texts) and the court texts (tab_dev_texts.jsonl, 127
texts); masking on the court cases: the 92 annotated ones (tab_dev.json). Models are loaded
and warmed up before any timing. ``--one-doc-pipelines``: the pipelines also timed one
document at a time (the others, e.g. the slow torch-backed ``accurate``, only batched).

Speed on a shared machine: each timing runs ``--rounds`` times, the systems interleaved
within a round (Presidio, then each pipeline, then the next round), and the best round
counts, so a burst of load from other jobs hits every system alike and the ratio holds.
Next to wall-clock docs/s (``docs_per_s``, ``x_presidio``) the run records docs per second
of the process's own CPU time (``cpu_docs_per_s``, ``x_presidio_cpu``): every system here
computes on one thread, so CPU time is what it costs, whatever else the machine runs.
"""
import argparse
import time
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Tuple

import srsly

from spacy_sanitize import load_pipeline
from spacy_sanitize.corpus import load_tab, wiki_dev_path
from spacy_sanitize.evaluation import MASKING_KEYS, Tokens, detected_triples, detection_scores, predicted_mask_offsets, tab_scores
from spacy_sanitize.models import english_model_name

DEFAULT_WIKI = wiki_dev_path()
DEFAULT_TAB = DEFAULT_WIKI.parent.parent / "tab" / "tab_dev.json"
DEFAULT_TAB_TEXTS = DEFAULT_WIKI.parent.parent / "tab" / "tab_dev_texts.jsonl"
KEYS = MASKING_KEYS


def make_analyzer():  # type: ignore[no-untyped-def]
    """Presidio's analyzer with its default recognizers and our English spaCy model."""
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    provider = NlpEngineProvider(nlp_configuration={"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": english_model_name()}]})
    return AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])


def presidio_one_doc(analyzer, texts: Sequence[str], threshold: float) -> List[List[list]]:  # type: ignore[no-untyped-def]
    return [[[r.start, r.end, r.entity_type] for r in analyzer.analyze(text=text, language="en") if r.score >= threshold] for text in texts]


def presidio_batched(analyzer, texts: Sequence[str], threshold: float, batch_size: int) -> List[List[list]]:  # type: ignore[no-untyped-def]
    from presidio_analyzer import BatchAnalyzerEngine

    batch = BatchAnalyzerEngine(analyzer_engine=analyzer)
    found = batch.analyze_iterator(list(texts), language="en", batch_size=batch_size)
    return [[[r.start, r.end, r.entity_type] for r in results if r.score >= threshold] for results in found]


def timed(run: Callable[[], list], n: int) -> Tuple[float, float]:
    """(wall-clock docs/s, CPU docs/s) of one run over ``n`` documents."""
    start, start_cpu = time.perf_counter(), time.process_time()
    run()
    return n / (time.perf_counter() - start), n / max(time.process_time() - start_cpu, 1e-9)


def scores(gold, tokens: Tokens, masked: Dict[str, list], detected: Dict[str, list]) -> Dict:  # type: ignore[no-untyped-def]
    masking = tab_scores(gold, masked, tokens=tokens).as_dict()
    detection = detection_scores(gold, detected, tokens=tokens).as_dict()
    return {
        "masking": {k: round(masking[k], 3) for k in KEYS},
        "detection_unlabelled": {k: round(v, 3) for k, v in detection["micro_unlabelled"].items() if k in ("P", "R", "F1")},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wiki", type=Path, default=DEFAULT_WIKI)
    parser.add_argument("--tab", type=Path, default=DEFAULT_TAB, help="annotated court cases (masking metrics)")
    parser.add_argument("--tab-texts", type=Path, default=DEFAULT_TAB_TEXTS, help="court texts (speed)")
    # Only pipelines whose masking owes nothing to these documents: the shipped risk models
    # were trained on all 70 biographies (cross-validated figures in docs/risk_*.md).
    # accurate's pii_relabel was too, but it only changes span types, which neither the
    # masking scores nor the unlabelled detection scores below read.
    parser.add_argument("--pipelines", nargs="+", default=["default", "ensemble", "accurate"])
    parser.add_argument("--one-doc-pipelines", nargs="+", default=["default", "ensemble"])
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--presidio-threshold", type=float, default=0.0)
    parser.add_argument("--rounds", type=int, default=3, help="timings per system and mode, interleaved; the best counts")
    parser.add_argument("--output", type=Path, default=Path(__file__).parents[1] / "results" / "presidio_compare.json")
    args = parser.parse_args()
    wiki, tab = load_tab(args.wiki), load_tab(args.tab)
    corpora = {
        "wiki_dev": {"gold": wiki, "speed_texts": [d.text for d in wiki]},
        "tab_dev": {"gold": tab, "speed_texts": [r["text"] for r in srsly.read_jsonl(args.tab_texts)]},
    }
    tokens = Tokens()
    threshold = args.presidio_threshold
    analyzer = make_analyzer()  # model loading is not timed
    presidio_one_doc(analyzer, corpora["wiki_dev"]["speed_texts"][:2], threshold)  # warm-up
    systems: Dict[str, Dict[str, Callable]] = {
        f"Presidio (threshold {threshold})": {
            "one_doc": lambda texts: presidio_one_doc(analyzer, texts, threshold),
            "batched": lambda texts: presidio_batched(analyzer, texts, threshold, args.batch_size),
        }
    }
    for name in args.pipelines:
        nlp = load_pipeline(name)
        list(nlp.pipe(corpora["wiki_dev"]["speed_texts"][:2]))  # warm-up

        modes = {"batched": lambda texts, nlp=nlp: list(nlp.pipe(texts, batch_size=args.batch_size))}
        if name in args.one_doc_pipelines:
            modes["one_doc"] = lambda texts, nlp=nlp: [nlp(text) for text in texts]
        systems[f"spacy-sanitize {name}"] = modes

    results: Dict[str, Dict] = {system: {} for system in systems}
    for corpus, data in corpora.items():
        gold, speed_texts = data["gold"], data["speed_texts"]
        for mode in ("one_doc", "batched"):
            for _ in range(args.rounds):
                for system, modes in systems.items():
                    if mode not in modes:
                        continue
                    row = results[system].setdefault(corpus, {"docs_per_s": {}, "cpu_docs_per_s": {}})
                    wall, cpu = timed(lambda run=modes[mode], texts=speed_texts: run(texts), len(speed_texts))
                    row["docs_per_s"][mode] = round(max(wall, row["docs_per_s"].get(mode, 0.0)), 2)
                    row["cpu_docs_per_s"][mode] = round(max(cpu, row["cpu_docs_per_s"].get(mode, 0.0)), 2)
        for system, modes in systems.items():
            row = results[system][corpus]
            found = modes["batched"]([d.text for d in gold])
            if system.startswith("Presidio"):
                detected = {d.doc_id: spans for d, spans in zip(gold, found)}
                masked = {d.doc_id: [s[:2] for s in spans] for d, spans in zip(gold, found)}
            else:
                detected = {d.doc_id: detected_triples(doc) for d, doc in zip(gold, found)}
                masked = {d.doc_id: predicted_mask_offsets(doc) for d, doc in zip(gold, found)}
            row.update(scores(gold, tokens, masked, detected))
            print(f"{system} {corpus}: {row['docs_per_s']} docs/s, {row['cpu_docs_per_s']} per CPU second", flush=True)

    presidio_name = next(iter(systems))
    for corpus in corpora:
        print(f"\n{corpus}\n| system | " + " | ".join(KEYS) + " | detection P/R/F1 | docs/s one doc (x Presidio) | docs/s nlp.pipe (x Presidio) |\n|---|" + "---|" * (len(KEYS) + 3))
        base = results[presidio_name][corpus]["docs_per_s"]
        base_cpu = results[presidio_name][corpus]["cpu_docs_per_s"]
        for system, by_corpus in results.items():
            r = by_corpus[corpus]
            speed, cpu = r["docs_per_s"], r["cpu_docs_per_s"]
            r["x_presidio"] = {mode: round(speed[mode] / base[mode], 2) for mode in speed if base.get(mode)}
            r["x_presidio_cpu"] = {mode: round(cpu[mode] / base_cpu[mode], 2) for mode in cpu if base_cpu.get(mode)}
            cells = [f"{speed[m]} ({r['x_presidio'][m]:.2f}x, CPU {r['x_presidio_cpu'][m]:.2f}x)" if m in speed else "–" for m in ("one_doc", "batched")]
            d = r["detection_unlabelled"]
            print(f"| {system} | " + " | ".join(f"{r['masking'][k]:.3f}" for k in KEYS) + f" | {d['P']:.2f}/{d['R']:.2f}/{d['F1']:.2f} | " + " | ".join(cells) + " |")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(args.output, {"documents": {c: len(d["gold"]) for c, d in corpora.items()}, "speed_texts": {c: len(d["speed_texts"]) for c, d in corpora.items()}, "rounds": args.rounds, "results": results})


if __name__ == "__main__":
    main()
