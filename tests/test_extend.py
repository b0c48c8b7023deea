"""pii_extend: spans grow to the phrase court annotators mark (glosses, hedges, counted
nouns, nationals, institutions), never over another span, and keep what they carried."""
import pytest
import spacy
from spacy.tokens import Span

import spacy_sanitize  # noqa: F401  (registers the extensions)


def _doc(nlp, text, spans):
    doc = nlp.make_doc(text)
    made = []
    for surface, label in spans:
        start = text.index(surface)
        span = doc.char_span(start, start + len(surface), label=label)
        assert span is not None, surface
        span._.entity_id = f"e{len(made)}"
        span._.confidence = 0.9
        span._.risk_explain = {"detector": "pii_ner"}
        made.append(span)
    doc.spans["pii"] = made
    return doc


def _found(doc):
    return [(s.text, s.label_) for s in doc.spans["pii"]]


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_extend")
    return nlp


CASES = [
    # glosses
    ("He appealed to the Svea Court of Appeal (hovrätten) in May.", [("Svea Court of Appeal", "ORG")],
     [("Svea Court of Appeal (hovrätten)", "ORG")]),
    ("He claimed DKK 573,311 (approximately EUR 77,000) in damages.", [("DKK 573,311", "QUANTITY"), ("EUR 77,000", "QUANTITY")],
     [("DKK 573,311 (approximately EUR 77,000)", "QUANTITY")]),
    ("officers of the Royal Ulster Constabulary (“RUC”) arrested him", [("Royal Ulster Constabulary", "ORG"), ("RUC", "ORG")],
     [("Royal Ulster Constabulary (“RUC”)", "ORG")]),
    # defined terms, references and names in a parenthesis stay out
    ("by a Turkish national, Mr Cengiz Polat (“the applicant”), on", [("Cengiz Polat", "PERSON")], [("Cengiz Polat", "PERSON")]),
    ("the Constitution (see paragraph 12 above) provides", [("Constitution", "MISC")], [("Constitution", "MISC")]),
    ("the Ministry (Mr Ali Kaya) replied", [("Ministry", "ORG"), ("Ali Kaya", "PERSON")], [("Ministry", "ORG"), ("Ali Kaya", "PERSON")]),
    ("on 6 May 2003 (the date of the hearing) he", [("6 May 2003", "DATETIME")], [("6 May 2003", "DATETIME")]),
    ("the Court (\nsee below)", [("Court", "ORG")], [("Court", "ORG")]),
    # hedges
    ("a debt of approximately GBP 268,000 was", [("GBP 268,000", "QUANTITY")], [("approximately GBP 268,000", "QUANTITY")]),
    ("He left in early December 1996 for Izmir", [("December 1996", "DATETIME")], [("early December 1996", "DATETIME")]),
    ("prior to August 1997 he worked", [("August 1997", "DATETIME")], [("prior to August 1997", "DATETIME")]),
    # counted nouns
    ("police found 22,000 ecstasy tablets in the car", [("22,000", "QUANTITY")], [("22,000 ecstasy tablets", "QUANTITY")]),
    ("They have four children and a dog.", [("four", "QUANTITY")], [("four children", "QUANTITY")]),
    ("he paid 4,393 pounds sterling (GBP) in costs", [("4,393", "QUANTITY")], [("4,393 pounds sterling (GBP)", "QUANTITY")]),
    ("he paid 400 Swedish kronor to", [("400", "QUANTITY")], [("400 Swedish kronor", "QUANTITY")]),
    ("he waited 30 days in custody", [("30", "QUANTITY")], [("30", "QUANTITY")]),
    ("a fine of 300 was imposed", [("300", "QUANTITY")], [("300", "QUANTITY")]),
    # nationals
    ("the applicant, a British national, was", [("British", "DEM")], [("British national", "DEM")]),
    ("a United Kingdom national who", [("United Kingdom", "LOC")], [("United Kingdom national", "DEM")]),
    # institutions
    ("He was detained at HMP Verne until", [("Verne", "LOC")], [("HMP Verne", "ORG")]),
    ("He was moved to HM Prison Full Sutton later", [("Full Sutton", "LOC")], [("HM Prison Full Sutton", "ORG")]),
    ("He was moved to Parkhurst prison in 1990", [("Parkhurst", "LOC")], [("Parkhurst prison", "ORG")]),
    ("He was transferred to HMP Magilligan in June.", [], [("HMP Magilligan", "ORG")]),
    # never over another span
    ("the Izmir Ali Kaya case", [("Izmir", "LOC"), ("Ali Kaya", "PERSON")], [("Izmir", "LOC"), ("Ali Kaya", "PERSON")]),
    ("four Ankara police officers", [("four", "QUANTITY"), ("Ankara", "LOC")], [("four", "QUANTITY"), ("Ankara police", "ORG")]),
]


@pytest.mark.parametrize("text,spans,expected", CASES, ids=[c[0][:30] for c in CASES])
def test_extends(nlp, text, spans, expected):
    doc = nlp.get_pipe("pii_extend")(_doc(nlp, text, spans))
    assert _found(doc) == expected
    assert doc.text == text


def test_keeps_entity_confidence_and_explanation(nlp):
    doc = nlp.get_pipe("pii_extend")(_doc(nlp, "He appealed to the Svea Court of Appeal (hovrätten) in May.", [("Svea Court of Appeal", "ORG")]))
    (span,) = doc.spans["pii"]
    assert span._.entity_id == "e0" and span._.confidence == 0.9
    assert span._.risk_explain["detector"] == "pii_ner"
    assert span._.risk_explain["pii_extend"]["took"] == ["glosses"]
    assert span._.risk_explain["pii_extend"]["from"] == [19, 39, "ORG"]


@pytest.mark.parametrize("setting,text,spans", [
    ("glosses", "the Svea Court of Appeal (hovrätten) ruled", [("Svea Court of Appeal", "ORG")]),
    ("hedges", "approximately GBP 268,000 was", [("GBP 268,000", "QUANTITY")]),
    ("counted_nouns", "found 22,000 ecstasy tablets", [("22,000", "QUANTITY")]),
    ("nationals", "a British national", [("British", "DEM")]),
    ("institutions", "at HMP Verne until", [("Verne", "LOC")]),
])
def test_each_rule_switches_off(setting, text, spans):
    nlp = spacy.blank("en")
    extend = nlp.add_pipe("pii_extend", config={setting: False})
    doc = extend(_doc(nlp, text, spans))
    assert _found(doc) == spans


def test_bad_setting_is_a_clear_error():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="max_gloss_tokens"):
        nlp.add_pipe("pii_extend", config={"max_gloss_tokens": 0})


def test_long_parenthesis_is_no_gloss():
    nlp = spacy.blank("en")
    extend = nlp.add_pipe("pii_extend", config={"max_gloss_tokens": 3})
    text = "the Svea Court of Appeal (a court of second instance in Stockholm) ruled"
    doc = extend(_doc(nlp, text, [("Svea Court of Appeal", "ORG")]))
    assert _found(doc) == [("Svea Court of Appeal", "ORG")]


def test_no_spans_key_and_empty_doc():
    nlp = spacy.blank("en")
    extend = nlp.add_pipe("pii_extend")
    assert extend(nlp.make_doc("nothing here")).spans.get("pii") is None
    doc = nlp.make_doc("")
    doc.spans["pii"] = []
    assert list(extend(doc).spans["pii"]) == []


def test_span_values_follow_new_offsets():
    """Span._ values are keyed by offsets: the old offsets keep theirs, the new span has its own."""
    nlp = spacy.blank("en")
    extend = nlp.add_pipe("pii_extend")
    doc = _doc(nlp, "a British national", [("British", "DEM")])
    doc = extend(doc)
    (span,) = doc.spans["pii"]
    assert span.text == "British national" and span._.entity_id == "e0"
    assert isinstance(span, Span)


@pytest.mark.parametrize("text,spans,expected", [
    ("police found 79\npackages later", [("79", "QUANTITY")], [("79", "QUANTITY")]),
    ("the Svea Court of Appeal\n(hovrätten) ruled", [("Svea Court of Appeal", "ORG")], [("Svea Court of Appeal", "ORG")]),
    ("held at HMP\nVerne", [], []),
])
def test_never_across_a_line_break(nlp, text, spans, expected):
    doc = nlp.get_pipe("pii_extend")(_doc(nlp, text, spans))
    assert _found(doc) == expected
