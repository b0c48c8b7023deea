"""Build the in-domain word counts of the frequency scorer (spacy_sanitize.lm.frequency)
from unlabeled texts: JSONL files with a "text" field (court texts and biographies).

    python scripts/build_lm_counts.py OUT.msgpack IN.jsonl [IN.jsonl ...] [--min-count 3]
"""
import argparse
import json

import srsly

from spacy_sanitize.lm.frequency import count_words, write_counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("output")
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--min-count", type=int, default=3)
    parser.add_argument("--max-words", type=int, default=200_000)
    args = parser.parse_args()
    texts = (row["text"] for path in args.inputs for row in srsly.read_jsonl(path) if isinstance(row.get("text"), str))
    info = write_counts(count_words(texts), args.output, args.min_count, args.max_words)
    print(json.dumps(dict(info, inputs=args.inputs, output=args.output)))


if __name__ == "__main__":
    main()
