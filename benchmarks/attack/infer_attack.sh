#!/usr/bin/env bash
# Attribute-inference attack benchmark of risk_infer (country of ECHR cases), see docs/risk_infer.md.
# Usage: benchmarks/attack/infer_attack.sh [DATA_DIR]  (default ../shared/data); writes benchmarks/results/infer_*.json
set -euo pipefail
DATA="${1:-../shared/data}"
mkdir -p corpus benchmarks/results
python -m spacy_sanitize country-labels "$DATA/unlabeled/echr.jsonl" corpus/echr_countries.jsonl --report benchmarks/results/infer_weak_labels_echr.json > /dev/null
python -m spacy_sanitize country-labels "$DATA/tab/tab_dev_texts.jsonl" --gold-field meta.countries --report benchmarks/results/infer_weak_labels_tab_dev.json > /dev/null
python -m spacy_sanitize -v attack "$DATA/tab/tab_dev_texts.jsonl" --label-field meta.countries \
  --extra-train corpus/echr_countries.jsonl --folds 5 --threshold 0.37 --search greedy \
  --gold "$DATA/wiki/wiki_dev.json" -o benchmarks/results/infer_attack.json
