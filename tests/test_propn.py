"""pii_propn: capitalised runs no detector took, with their types; common capitalised words,
sentence starts and what other detectors found are left alone."""
import pytest
import spacy
from spacy.tokens import Span

from spacy_sanitize.long_runs import create_tokenizer


@pytest.fixture(scope="module")
def propn():
    nlp = spacy.blank("en")
    nlp.tokenizer = create_tokenizer()(nlp)
    nlp.add_pipe("pii_propn")
    return nlp


def _spans(nlp, text):
    doc = nlp(text)
    return [(s.text, s.label_) for s in doc.spans["pii"]]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("He played rugby for Pontypool RFC and later coached.", [("Pontypool RFC", "ORG")]),
        ("She starred in Penzance & Newlyn for two seasons.", [("Penzance & Newlyn", "MISC")]),
        ("His film Zack and Miri Make a Porno opened in 2008.", [("Zack and Miri Make a Porno", "MISC")]),
        ("He directed Hamlet 2 in 2008.", [("Hamlet 2", "MISC")]),
        ("She worked at PepsiCo until 2010.", [("PepsiCo", "MISC")]),
        # a common sentence-initial word is left out, the rest is the run
        ("When UNESCO listed it, he left.", [("UNESCO", "MISC")]),
        ("Empress Marie-Claire Heureuse Félicité Bonheur was born in 1758.", [("Marie-Claire Heureuse Félicité Bonheur", "PERSON")]),
        # a rare word at a sentence start is a run of its own
        ("Soluto was founded in Tel Aviv.", [("Soluto", "MISC"), ("Tel Aviv", "MISC")]),
    ],
)
def test_capitalised_runs(propn, text, expected):
    assert _spans(propn, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "The Court held that the Government had violated Article 6 of the Convention.",
        "THE FACTS\nI. THE CIRCUMSTANCES OF THE CASE",
        "The Regional Court dismissed the appeal.",
        "Yesterday it rained.",
        "she lives in a small town near the river.",
        "She starred in Will & Grace for two seasons.",  # both words are common: missed, knowingly
    ],
)
def test_common_capitalised_words_are_no_run(propn, text):
    assert _spans(propn, text) == []


def test_a_run_stops_at_a_line_break(propn):
    assert _spans(propn, "Signed by Kowalczyk\nBrzezinski Holdings") == [("Kowalczyk", "MISC"), ("Brzezinski Holdings", "MISC")]


def test_only_what_no_detector_covered_is_added(propn):
    nlp = propn
    doc = nlp.make_doc("After Adolf Hitler met Quisling in Oslo.")
    doc.spans["pii"] = [Span(doc, 1, 3, label="PERSON"), Span(doc, 6, 7, label="LOC")]
    doc = nlp.get_pipe("pii_propn")(doc)
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [("Adolf Hitler", "PERSON"), ("Quisling", "MISC"), ("Oslo", "LOC")]
    # a run partly covered keeps the covered part's span and label; its other part is added
    doc = nlp.make_doc("He joined Penzance & Newlyn RFC in 1990.")
    doc.spans["pii"] = [Span(doc, 2, 3, label="LOC")]
    doc = nlp.get_pipe("pii_propn")(doc)
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [("Penzance", "LOC"), ("Newlyn RFC", "ORG")]
    assert doc.spans["pii"][1]._.risk_explain["detector"] == "pii_propn"


def test_settings_are_read(propn):
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_propn", config={"max_zipf": 1.0, "label": "ORG", "org_heads": []})
    # nothing is rarer than Zipf 1 except words wordfreq does not know
    assert _spans(nlp, "She worked at PepsiCo near Qwzxv Brook.") == [("Qwzxv Brook", "ORG")]
    with pytest.raises(ValueError):
        spacy.blank("en").add_pipe("pii_propn", config={"label": "NAME"})


def test_linear_in_text_length(propn):
    import time

    text = "He played for Pontypool RFC and Newport RFC. " * 4000
    start = time.perf_counter()
    doc = propn(text)
    seconds = time.perf_counter() - start
    assert len(doc.spans["pii"]) == 8000
    assert seconds < 10
