#!/usr/bin/env bash
# risk_infer against an adaptive attacker (issue #17): the attacker ensemble, the "guess"
# criterion and cross-fitted adversarial rounds, 5-fold CV on the TAB dev texts; one row per
# sanitization level, TAB P/R on the same documents. See docs/risk_infer.md.
# Usage: benchmarks/attack/infer_attack_rounds.sh [DATA_DIR]  (default ../shared/data)
# writes benchmarks/results/infer_attack_rounds{,_stopwords}.json and docs/risk_infer_rounds.png
set -euo pipefail
DATA="${1:-../shared/data}"
mkdir -p corpus benchmarks/results
[ -s corpus/echr_countries.jsonl ] || python -m spacy_sanitize country-labels "$DATA/unlabeled/echr.jsonl" corpus/echr_countries.jsonl > /dev/null
python -m spacy_sanitize -v attack "$DATA/tab/tab_dev_texts.jsonl" --label-field meta.countries \
  --extra-train corpus/echr_countries.jsonl --folds 5 --criterion guess --tv-bound 0.05 --rounds 2 \
  --attackers word:LOWER,char:LOWER --tab-gold "$DATA/tab/tab_dev.json" \
  -o benchmarks/results/infer_attack_rounds.json --plot docs/risk_infer_rounds.png
# the same without stop-word protection, one TAB-trained word attacker, 1 round
python -m spacy_sanitize -v attack "$DATA/tab/tab_dev_texts.jsonl" --label-field meta.countries \
  --folds 5 --criterion guess --tv-bound 0.05 --rounds 1 --attackers word:LOWER --remove-stop-words \
  --tab-gold "$DATA/tab/tab_dev.json" -o benchmarks/results/infer_attack_rounds_stopwords.json
