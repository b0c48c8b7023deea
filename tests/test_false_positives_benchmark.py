"""benchmarks/everyday/false_positives.py: its sentences, and the default pipeline changes no more of
them than the committed run (benchmarks/results/false_positives.json) says."""
import json
from pathlib import Path

import pytest

from .conftest import load_script

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "false_positives.json"


@pytest.fixture(scope="module")
def fp():
    return load_script("benchmarks", "everyday", "false_positives.py")


def test_sentences_are_well_formed(fp):
    sentences = fp.read_sentences(fp.SENTENCES)
    texts = [s["text"] for s in sentences]
    assert len(sentences) >= 300 and len(set(texts)) == len(texts)
    assert len({s["genre"] for s in sentences}) >= 12
    assert all(t.strip() for t in texts)


def test_default_changes_no_more_sentences_than_the_committed_run(fp, default_nlp):
    sentences = fp.read_sentences(fp.SENTENCES)
    committed = json.loads(RESULTS.read_text(encoding="utf8"))["default"]
    changed = {i for i, (s, doc) in enumerate(zip(sentences, default_nlp.pipe([s["text"] for s in sentences])))
               if doc._.sanitized != s["text"]}
    assert changed <= {case["index"] for case in committed["examples"]}
    assert committed["sentences"] == len(sentences)


def test_committed_run_pins_the_rates():
    results = json.loads(RESULTS.read_text(encoding="utf8"))
    # before the plain-word rule: default 163, strict 202 (results/false_positives_before.json);
    # accurate 68 while it masked everything it detected, 34 with default's decision; strict 48 -> 51
    # with the gazetteer's health states ("during pregnancy" in a sentence about no one: strict masks every term);
    # 52 of 459 with the GP sentences (the recognizer's DEM "persist" in "See your GP if the symptoms persist");
    # 5, 53, 35 of 462 with the products after a title ("dr pepper", a brand no list holds, is read as a surname);
    # 10 syslog lines written first (all changed by every pipeline): 4 still change ("(root) CMD", "EXT4-fs",
    # "Starting Rotate", "11: Bye Bye"); risk_stack's doc_fence masks two texts under 22 characters whole
    # ("Insert the batteries.", "running late sorry"): 10, 56, 41 of 472
    # 24 more written before the red-team fixes (words of its names, a JSON event, a payment log):
    # the JSON's time stamp, its currency ("GBP") and the log's "Refund" are masked: 13, 62, 44 of 496
    # 79 more from three red-team probes (written first, words that are names and codes, the legal
    # register): default changes 36 of them (13 of the 496 before, unchanged): 49, 119, 90 of 575
    # 60 more from two red-team probes (written first; names that are words opening a sentence,
    # "Patience is needed"): default changes 31 of them; the refit decision at 0.475 two more of
    # the 575 (13 of the first 496, unchanged): 82, 163, 119 of 635
    # 30 more from a ninth probe (written first; names that are words opening a sentence: "Sunny
    # intervals", "Hunter wellies", "Mark the centre"): default changes 21 of them, its fixes none: 103, 186, 139 of 665
    # 30 more from a tenth probe (written first; chat, logs, products, transport, sports): default changes
    # 17 of them ("Sony WH-1000XM5", train "1S42", "Leinster", a log's time stamp), its fixes one (an emoji
    # typed CODE); the refit decisions at 0.55 (default) and 0.425 (accurate): 116, 207, 159 of 695
    assert {name: results[name]["changed"] for name in ("default", "strict", "accurate")} == {"default": 116, "strict": 207, "accurate": 159}
    assert results["default"]["changed"] < results["presidio"]["changed"]  # Presidio 2.2 in the same run: 293 of 695
