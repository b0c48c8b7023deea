"""Whitespace-free runs are tokenized in linear time, the text and the detections kept."""
import json
import time

import pytest
import spacy

from spacy_sanitize.long_runs import LONG_RUN, cuts, make_doc
from spacy_sanitize.pipeline import merged_output, sanitize_texts

RUNS = [
    "(" * 5000,
    "a-" * 3000,
    "a" * 5000,
    json.dumps({f"k{i}": [i, "v", {"mail": f"user{i}@example.com"}] for i in range(200)}, separators=(",", ":")),
    ("x" * 300 + ")" * 300) * 5,
    "short words only, nothing long " * 50,
]


@pytest.mark.parametrize("text", RUNS, ids=range(len(RUNS)))
def test_the_doc_is_the_text_and_only_long_runs_are_cut(text):
    nlp = spacy.blank("en")
    doc = make_doc(nlp, text)
    assert doc.text == text
    positions = list(cuts(text))
    starts = {token.idx for token in doc}
    for position in positions:  # after a separator, never between two letters or digits
        assert not text[position - 1].isalnum() and position in starts
    if max(len(word) for word in text.split()) <= LONG_RUN:
        assert positions == [] and [t.text for t in doc] == [t.text for t in nlp.make_doc(text)]


def codes_nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_codes")
    nlp.add_pipe("masker")
    return nlp


def test_a_long_punctuation_run_is_sanitized_within_a_time_budget():
    """spaCy's tokenizer alone took ~0.3 s for 1,000 "(" and quadratically more: 12,000 took
    about a minute before runs were tokenized in chunks."""
    nlp = codes_nlp()
    text = "(" * 12_000 + "mail me at jane.roe@example.com " + ")" * 12_000
    start = time.perf_counter()
    (_, docs, offsets), = sanitize_texts(nlp, [text])
    elapsed = time.perf_counter() - start
    sanitized, _ = merged_output(docs, offsets)
    assert "jane.roe" not in sanitized and sanitized.startswith("(" * 12_000) and sanitized.endswith(")" * 12_000)
    assert elapsed < 8, f"{elapsed:.1f} s"


def test_an_e_mail_inside_minified_json_is_still_masked():
    record = {f"k{i}": {"mail": f"user{i}@example.com", "n": i} for i in range(100)}
    text = json.dumps(record, separators=(",", ":"))
    assert list(cuts(text))  # the whole line is one run: it is cut
    (_, docs, offsets), = sanitize_texts(codes_nlp(), [text])
    sanitized, _ = merged_output(docs, offsets)
    assert "@example.com" not in sanitized


@pytest.mark.parametrize("text", RUNS[:5], ids=range(5))
def test_a_linear_tokenizer_scans_the_runs_once(text, monkeypatch):
    from spacy_sanitize import long_runs

    nlp = spacy.blank("en")
    nlp.tokenizer = long_runs.create_tokenizer()(nlp)
    expected = [t.text for t in nlp.make_doc(text)]
    scans = []
    real_cuts = long_runs.cuts
    monkeypatch.setattr(long_runs, "cuts", lambda t: scans.append(len(t)) or real_cuts(t))
    assert [t.text for t in make_doc(nlp, text)] == expected
    assert scans == [len(text)]  # the tokenizer's own scan, no second one
