import pytest
import spacy
from spacy.tokens import Span

import spacy_sanitize

from spacy_sanitize.detect.refine import refine_summary


def refined(nlp, text, phrase, label, detector="pii_ent_mapper:DATE", **config):
    refine = nlp.add_pipe("pii_refine", config=config)
    doc = nlp.make_doc(text)
    start = text.index(phrase)
    span = doc.char_span(start, start + len(phrase), label=label)
    assert span is not None, phrase
    span._.risk_explain["detector"] = detector
    doc.spans["pii"] = [span]
    doc = refine(doc)
    return doc, [(s.text, s.label_) for s in doc.spans["pii"]]


@pytest.mark.parametrize(
    "text,phrase,label,expected",
    [
        ("He played from 1993 to 2003 for them.", "from 1993 to 2003", "DATETIME", [("1993", "DATETIME"), ("2003", "DATETIME")]),
        ("It ran between April 1993 and March 1996.", "between April 1993 and March 1996", "DATETIME", [("April 1993", "DATETIME"), ("March 1996", "DATETIME")]),
        ("She reigned July 14, 1596 to May 1602.", "July 14, 1596 to May 1602", "DATETIME", [("July 14, 1596", "DATETIME"), ("May 1602", "DATETIME")]),
        ("Active 1804 - 1806 in Paris.", "1804 - 1806", "QUANTITY", [("1804", "DATETIME"), ("1806", "DATETIME")]),
        ("Active 1532 - April 1603 in Paris.", "1532 - April 1603", "DATETIME", [("1532", "DATETIME"), ("April 1603", "DATETIME")]),
        ("He won more than 90 games.", "more than 90", "QUANTITY", [("90", "QUANTITY")]),
        ("It happened in the late 19th and", "late 19th and", "DATETIME", [("19th", "DATETIME")]),
        ("He stayed for only two days.", "only two days", "DATETIME", [("two days", "DATETIME")]),
        ("He won three titles.", "three", "QUANTITY", [("three", "QUANTITY")]),  # "he": nameless texts drop counts
        ("It was on 5 March.", "5 March", "DATETIME", [("5 March", "DATETIME")]),
        ("They met in March.", "March", "DATETIME", [("March", "DATETIME")]),
        # a pronoun after a dash is the next clause, not the name's end
        ("Re: Kemi Adeyemi - she is 14 weeks pregnant.", "Kemi Adeyemi - she", "PERSON", [("Kemi Adeyemi", "PERSON")]),
    ],
)
def test_ranges_are_split_and_edges_trimmed(nlp_blank, text, phrase, label, expected):
    _, spans = refined(nlp_blank, text, phrase, label)
    assert spans == expected


@pytest.mark.parametrize(
    "text,phrase,label",
    [
        ("We met in the summer.", "summer", "DATETIME"),
        ("He left the next year.", "next year", "DATETIME"),
        ("They march at the end of the season.", "end of the season", "DATETIME"),
        ("They march on.", "march", "DATETIME"),
        ("It was his first album.", "first", "QUANTITY"),
        ("She is one of the founders.", "one", "QUANTITY"),
    ],
)
def test_vague_dates_and_bare_number_words_are_dropped(nlp_blank, text, phrase, label):
    doc, spans = refined(nlp_blank, text, phrase, label)
    assert spans == []
    assert refine_summary(doc) == {"dropped": 1}


def test_drop_rules_can_be_switched_off(nlp_blank):
    _, spans = refined(nlp_blank, "He met her in the summer.", "summer", "DATETIME", drop_vague_dates=False)
    assert spans == [("summer", "DATETIME")]
    _, spans = refined(spacy.blank("en"), "It was his first album.", "first", "QUANTITY", drop_number_words=False)
    assert spans == [("first", "QUANTITY")]
    _, spans = refined(spacy.blank("en"), "He played from 1993 to 2003.", "from 1993 to 2003", "DATETIME", split_ranges=False)
    assert spans == [("1993 to 2003", "DATETIME")]


@pytest.mark.parametrize(
    "text,phrase,label",
    [
        ("His shop is open 9 to 5 daily.", "9 to 5", "QUANTITY"),  # numbers, not years: one span
        ("His team led 4 - 1 at half time.", "4 - 1", "QUANTITY"),
        ("She met Smith and Jones.", "Smith and Jones", "PERSON"),  # other types are never split
    ],
)
def test_what_is_not_a_range_stays_one_span(nlp_blank, text, phrase, label):
    _, spans = refined(nlp_blank, text, phrase, label)
    assert spans == [(phrase, label)]


def test_rule_detector_spans_are_left_alone(nlp_blank):
    _, spans = refined(nlp_blank, "Born on 12 - 05 - 2010 in Oslo.", "12 - 05 - 2010", "DATETIME", detector="pii_codes:numeric_date")
    assert spans == [("12 - 05 - 2010", "DATETIME")]


def test_new_spans_keep_their_explanations_and_record_the_change(nlp_blank):
    doc, _ = refined(nlp_blank, "He played from 1993 to 2003 for them.", "from 1993 to 2003", "DATETIME")
    first = doc.spans["pii"][0]
    assert first._.risk_explain["detector"] == "pii_ent_mapper:DATE"
    assert first._.risk_explain["pii_refine"]["action"] == "split"
    assert first._.risk_explain["pii_refine"]["from"] == [10, 27, "DATETIME"]


def test_unchanged_spans_are_the_same_objects_and_other_spans_survive(nlp_blank):
    refine = nlp_blank.add_pipe("pii_refine")
    doc = nlp_blank.make_doc("John Smith won three titles between 2012 and 2018.")
    doc.spans["pii"] = [Span(doc, 0, 2, "PERSON"), Span(doc, 3, 4, "QUANTITY"), Span(doc, 5, 9, "DATETIME")]
    doc = refine(doc)
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [("John Smith", "PERSON"), ("three", "QUANTITY"), ("2012", "DATETIME"), ("2018", "DATETIME")]
    assert refine_summary(doc) == {}


def test_empty_and_missing_span_groups(nlp_blank):
    refine = nlp_blank.add_pipe("pii_refine")
    assert "pii" not in refine(nlp_blank.make_doc("Nothing here.")).spans
    doc = nlp_blank.make_doc("")
    doc.spans["pii"] = []
    assert list(refine(doc).spans["pii"]) == []


def test_the_fast_detector_masks_the_dates_not_the_connectors():
    """strict: the fast detector alone (the default pipeline's pii_extend then takes "more than"
    into the quantity, as court annotators mark it)."""
    nlp = spacy_sanitize.load_pipeline("strict")
    names = nlp.pipe_names
    assert names.index("pii_ner") < names.index("pii_refine") < names.index("pii_propn") < names.index("pii_coref")
    doc = nlp("Anna Berg played for Arsenal between 2012 and 2018 and won more than 90 games.")
    sanitized = doc._.sanitized
    assert "between" in sanitized and " and " in sanitized and "more than" in sanitized
    assert "2012" not in sanitized and "2018" not in sanitized and "Anna" not in sanitized


@pytest.mark.parametrize(
    "text,phrase,expected",
    [
        # the NER tags "November 2013" and leaves the day in clear (wiki_dev: 2 direct identifiers)
        ("Clerides (24 April 1919 – 15 November 2013) was", "November 2013", "15 November 2013"),
        ("He was born 5 September 1976 in Mexico.", "September 1976", "5 September 1976"),
        ("On the 21st March 1990 it rained.", "March 1990", "21st March 1990"),
        # not a day, or not a month after it
        ("He scored 45 March 1990 goals.", "March 1990", "March 1990"),
        ("In 5 may 2013 cases", "may 2013", "may 2013"),
    ],
)
def test_a_day_number_before_a_month_joins_the_date(nlp_blank, text, phrase, expected):
    doc, spans = refined(nlp_blank, text, phrase, "DATETIME")
    assert spans == [(expected, "DATETIME")]
    if expected != phrase:
        assert doc.spans["pii"][0]._.risk_explain["pii_refine"]["action"] == "extend"


def test_a_day_number_in_another_span_stays_there(nlp_blank):
    refine = nlp_blank.add_pipe("pii_refine")
    doc = nlp_blank.make_doc("Room 5 March 1990")
    doc.spans["pii"] = [Span(doc, 0, 2, label="CODE"), Span(doc, 2, 4, label="DATETIME")]
    assert [s.text for s in refine(doc).spans["pii"]] == ["Room 5", "March 1990"]


@pytest.mark.parametrize(
    "text,phrase,expected",
    [
        # wiki_dev: "Empress of Hayti" names the person (annotated PERSON, DIRECT); "Hayti" was left
        ("Bonheur, Empress of Hayti (1758 – 1858)", "Empress", "Empress of Hayti"),
        ("He met the King of Saudi Arabia in Riyadh.", "King", "King of Saudi Arabia"),
        # not a sovereign, or no realm after "of"
        ("the President of Cyprus", "President", "President"),
        ("the king of the castle", "king", "king"),
    ],
)
def test_a_sovereign_title_takes_in_its_realm(nlp_blank, text, phrase, expected):
    _, spans = refined(nlp_blank, text, phrase, "DEM", detector="pii_gazetteer:P39")
    assert spans == [(expected, "DEM")]


@pytest.mark.parametrize(
    "text,phrase,expected",
    [
        ("in breach of Articles 44 and 45 of the Code", "Articles 44", [("Articles 44", "MISC")]),
        ("under Rule 47(19) of the Rules", "Rule 47(19", [("Rule 47(19", "MISC")]),
        ("see Article 6 § 1 there", "Article 6 § 1", [("Article 6 § 1", "MISC")]),
        ("Mr Arthur Rule testified", "Arthur Rule", [("Arthur Rule", "PERSON")]),  # no number: a name
        ("Section Chief Ann Lee", "Section Chief Ann Lee", [("Section Chief Ann Lee", "PERSON")]),
    ],
)
def test_a_legal_reference_typed_person_is_misc(nlp_blank, text, phrase, expected):
    _, spans = refined(nlp_blank, text, phrase, "PERSON", detector="pii_ner")
    assert spans == expected


@pytest.mark.parametrize(
    "text,phrase,label,expected",
    [
        # an occupation in capitals that a recognizer typed a name, a body or a place: in a text
        # that names no one it describes no one; beside a person it is an occupation (DEM)
        ("Your GP will review the results next week.", "Your GP", "PERSON", []),
        ("Ask the GP surgery for a repeat prescription.", "Ask the GP", "PERSON", []),
        ("See your GP if the symptoms persist.", "GP", "LOC", []),
        ("She asked her GP about the rash.", "her GP", "PERSON", [("GP", "DEM")]),
        # a name beside it keeps the span whole
        ("Referral from GP Dr A. Okonkwo today.", "GP Dr A. Okonkwo", "PERSON", [("GP Dr A. Okonkwo", "PERSON")]),
        # written otherwise it is no occupation
        ("The gp of the plan rose.", "gp", "ORG", [("gp", "ORG")]),
    ],
)
def test_role_abbreviation_is_an_occupation(nlp_blank, text, phrase, label, expected):
    _, spans = refined(nlp_blank, text, phrase, label, detector="pii_ner")
    assert spans == expected


def test_propn_does_not_take_a_role_abbreviation(nlp_blank):
    nlp_blank.add_pipe("pii_propn")
    doc = nlp_blank("Book a GP appointment online or by phone.")
    assert [s.text for s in doc.spans["pii"]] == []
