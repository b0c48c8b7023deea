"""Where a candidate pipeline's masking recall falls short of a baseline's (issue #18: the
distilled ``default`` against ``ensemble``, the previous default): the gold entities to mask that the baseline protects
(every mention masked) and the candidate does not, direct identifiers listed one by one
(document, annotator, mention text and type, what the candidate detected around it), quasi
identifiers counted per type with their mention texts; and the reverse counts.

    PYTHONPATH=. python benchmarks/quality/recall_gap.py [--candidate default --baseline ensemble] [--corpus PATH]

A mention counts as missed when any of its letters or digits is left unmasked (mask
everything detected, as ``detector_gates.py``).
"""
import argparse
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, List

import numpy as np
import srsly

from spacy_sanitize import load_pipeline
from spacy_sanitize.corpus import load_tab, wiki_dev_path
from spacy_sanitize.evaluation import predicted_mask_offsets


def char_mask(length: int, offsets: List[List[int]]) -> np.ndarray:
    mask = np.zeros(length, dtype=bool)
    for start, end in offsets:
        mask[start:end] = True
    return mask


def missed(mask: np.ndarray, text: str, start: int, end: int) -> bool:
    return any(not mask[i] for i in range(start, end) if text[i].isalnum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidate", default="default")
    parser.add_argument("--baseline", default="ensemble")
    parser.add_argument("--corpus", type=Path, default=Path(wiki_dev_path()))
    parser.add_argument("--output", type=Path, default=Path(__file__).parents[1] / "results" / "recall_gap.json")
    args = parser.parse_args()
    gold = load_tab(args.corpus)
    masks, docs = {}, {}
    for name in (args.baseline, args.candidate):
        nlp = load_pipeline(name)
        found = list(nlp.pipe([d.text for d in gold], batch_size=16))
        docs[name] = dict(zip((d.doc_id for d in gold), found))
        masks[name] = {d.doc_id: char_mask(len(d.text), predicted_mask_offsets(doc)) for d, doc in zip(gold, found)}
    direct: List[Dict] = []
    quasi: Counter = Counter()
    quasi_reverse: Counter = Counter()
    quasi_texts: Dict[str, List[str]] = defaultdict(list)
    entities = {"direct": Counter(), "quasi": Counter()}
    for document in gold:
        text = document.text
        for annotator, mentions in document.annotations.items():
            by_entity: Dict[str, list] = defaultdict(list)
            for mention in mentions:
                if mention.needs_masking:
                    by_entity[mention.entity_id].append(mention)
            for entity_id, group in by_entity.items():
                is_direct = any(m.identifier_type == "DIRECT" for m in group)
                left = {name: [m for m in group if missed(masks[name][document.doc_id], text, m.start, m.end)] for name in masks}
                kind = "direct" if is_direct else "quasi"
                entities[kind]["total"] += 1
                for name in masks:
                    entities[kind][f"protected_{name}"] += not left[name]
                if is_direct and left[args.candidate] and not left[args.baseline]:
                    doc = docs[args.candidate][document.doc_id]
                    direct.append({
                        "doc_id": document.doc_id, "annotator": annotator, "entity_id": entity_id,
                        "missed": [{"text": text[m.start : m.end], "type": m.entity_type, "start": m.start} for m in left[args.candidate]],
                        "candidate_nearby": [
                            [s.text, s.label_, s._.risk_explain.get("detector")]
                            for m in left[args.candidate]
                            for s in doc.spans.get("pii", [])
                            if s.start_char < m.end + 20 and s.end_char > m.start - 20
                        ],
                    })
                if not is_direct:
                    for m in left[args.candidate]:
                        if m not in left[args.baseline]:
                            quasi[m.entity_type] += 1
                            quasi_texts[m.entity_type].append(text[m.start : m.end])
                    for m in left[args.baseline]:
                        if m not in left[args.candidate]:
                            quasi_reverse[m.entity_type] += 1
    result = {
        "corpus": str(args.corpus.name), "candidate": args.candidate, "baseline": args.baseline,
        "entities": {kind: dict(counts) for kind, counts in entities.items()},
        "direct_missed_by_candidate_only": direct,
        "quasi_mentions_missed_by_candidate_only": dict(quasi),
        "quasi_mentions_missed_by_baseline_only": dict(quasi_reverse),
        "quasi_texts_missed_by_candidate_only": dict(quasi_texts),
    }
    for row in direct:
        print("direct:", row["doc_id"], row["annotator"], [(m["text"], m["type"]) for m in row["missed"]], "| nearby:", row["candidate_nearby"])
    print("entities:", result["entities"])
    print("quasi mentions the candidate misses, the baseline masks:", dict(quasi), "| the reverse:", dict(quasi_reverse))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(args.output, result)


if __name__ == "__main__":
    main()
