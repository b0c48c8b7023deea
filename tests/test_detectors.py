import pytest
import spacy
from spacy.tokens import Span

from spacy_sanitize.spans import add_char_spans, add_pii_spans, is_validated


@pytest.mark.parametrize(
    "text,code",
    [
        ("Application no. 36110/97 was lodged.", "36110/97"),
        ("Write to anna.berg+x@mail.example.org today.", "anna.berg+x@mail.example.org"),
        ("See https://example.org/path?q=1.", "https://example.org/path?q=1"),
        ("Call +47 22 33 44 55 now.", "+47 22 33 44 55"),
        ("Pay to NO93 8601 1117 947 soon.", "NO93 8601 1117 947"),
        ("Her passport AB1234567 expired.", "AB1234567"),
        ("Account 12345678 was closed.", "12345678"),
    ],
)
def test_codes_found(nlp_blank, text, code):
    nlp_blank.add_pipe("pii_codes")
    doc = nlp_blank(text)
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [(code, "CODE")]
    assert doc.spans["pii"][0]._.risk_explain["detector"].startswith("pii_codes:")


@pytest.mark.parametrize(
    "text,date",
    [
        ("She was born on 2013-09-25 in Oslo.", "2013-09-25"),
        ("Signed on 25.09.2013 in Bergen.", "25.09.2013"),
        ("Filed 09/25/2013 at noon.", "09/25/2013"),
        ("Heard on 12/10/97 again.", "12/10/97"),
    ],
)
def test_numeric_dates_are_datetime_not_codes(nlp_blank, text, date):
    nlp_blank.add_pipe("pii_codes")
    doc = nlp_blank(text)
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [(date, "DATETIME")]
    assert doc.spans["pii"][0]._.risk_explain["detector"] == "pii_codes:numeric_date"


def test_long_digit_groups_are_masked_whole(nlp_blank):
    nlp_blank.add_pipe("pii_codes")
    doc = nlp_blank("call 22-33-44-55-66-77 now")
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [("22-33-44-55-66-77", "CODE")]


def test_two_dates_in_a_row_are_not_one_phone_number(nlp_blank):
    nlp_blank.add_pipe("pii_codes")
    doc = nlp_blank("Open 2013-09-25 2014-10-26 only.")
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [("2013-09-25", "DATETIME"), ("2014-10-26", "DATETIME")]


@pytest.mark.parametrize("value", ["2013/13/45", "36110/97", "22-33-44-55", "32.13.2013"])
def test_impossible_dates_stay_codes(value):
    from spacy_sanitize.detect.codes import is_numeric_date

    assert not is_numeric_date(value)


@pytest.mark.parametrize("text", ["In 1998 she won 3 medals.", "The 12th session in the 1990s.", "Born in April.", "It cost 1,200 euros."])
def test_codes_not_found_in_ordinary_numbers(nlp_blank, text):
    nlp_blank.add_pipe("pii_codes")
    assert list(nlp_blank(text).spans["pii"]) == []


def test_longest_span_wins_and_existing_is_not_split(nlp_blank):
    doc = nlp_blank("the University of Oslo in Norway")
    add_pii_spans(doc, [Span(doc, 1, 4, label="ORG")])
    add_pii_spans(doc, [Span(doc, 3, 4, label="LOC"), Span(doc, 5, 6, label="LOC")])
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [("University of Oslo", "ORG"), ("Norway", "LOC")]
    add_pii_spans(doc, [Span(doc, 0, 4, label="ORG")])
    assert [s.text for s in doc.spans["pii"]] == ["the University of Oslo", "Norway"]


def test_ent_mapper_maps_and_trims(nlp_blank):
    nlp_blank.add_pipe("pii_ent_mapper")
    doc = nlp_blank.make_doc("the Beatles met in Hamburg on Monday and bought 3 guitars.")
    doc.ents = [Span(doc, 0, 2, label="ORG"), Span(doc, 4, 5, label="GPE"), Span(doc, 6, 7, label="DATE"), Span(doc, 9, 10, label="CARDINAL")]
    doc = nlp_blank.get_pipe("pii_ent_mapper")(doc)
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [("Beatles", "ORG"), ("Hamburg", "LOC"), ("Monday", "DATETIME"), ("3", "QUANTITY")]


def test_ent_mapper_rejects_unknown_target(nlp_blank):
    with pytest.raises(ValueError, match="E001"):
        nlp_blank.add_pipe("pii_ent_mapper", config={"label_map": {"PERSON": "NAME"}})


def test_script_detector(nlp_blank):
    nlp_blank.add_pipe("pii_script")
    doc = nlp_blank("Naftali Bennett (Hebrew: נַפְתָּלִי בֶּנֶט; born 1972) and Γλαύκος Κληρίδης.")
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [("נַפְתָּלִי בֶּנֶט", "PERSON"), ("Γλαύκος Κληρίδης", "PERSON")]
    assert list(nlp_blank("Это полностью русский текст о человеке.").spans["pii"]) == []


def test_coref_ids_and_propagation(nlp_blank):
    nlp_blank.add_pipe("pii_coref")
    doc = nlp_blank.make_doc("Maya Kodnani met Ravi Shah . Kodnani and Maya Kodnani left , Shah stayed in Gujarat .")
    doc.spans["pii"] = [Span(doc, 0, 2, label="PERSON"), Span(doc, 3, 5, label="PERSON"), Span(doc, 8, 10, label="PERSON"), Span(doc, 15, 16, label="LOC")]
    doc = nlp_blank.get_pipe("pii_coref")(doc)
    got = [(s.text, s._.entity_id) for s in doc.spans["pii"]]
    assert got == [("Maya Kodnani", "e1"), ("Ravi Shah", "e2"), ("Kodnani", "e1"), ("Maya Kodnani", "e1"), ("Shah", "e2"), ("Gujarat", "e3")]


def test_coref_without_propagation(nlp_blank):
    nlp_blank.add_pipe("pii_coref", config={"propagate": False})
    doc = nlp_blank.make_doc("Maya Kodnani left . Kodnani stayed .")
    doc.spans["pii"] = [Span(doc, 0, 2, label="PERSON")]
    doc = nlp_blank.get_pipe("pii_coref")(doc)
    assert [s.text for s in doc.spans["pii"]] == ["Maya Kodnani"]


@pytest.mark.parametrize("title", ["Mr", "Herr", "Frau", "Madame", "Monsieur"])
def test_coref_never_propagates_a_bare_title(nlp_blank, title):
    nlp_blank.add_pipe("pii_coref")
    doc = nlp_blank.make_doc(f"{title} Schmidt came . {title} Weber left .")
    doc.spans["pii"] = [Span(doc, 0, 2, label="PERSON")]
    doc = nlp_blank.get_pipe("pii_coref")(doc)
    assert [s.text for s in doc.spans["pii"]] == [f"{title} Schmidt"]


def test_every_title_of_the_title_detector_is_a_person_title():
    from spacy_sanitize.detect.titles import DEFAULT_TITLES
    from spacy_sanitize.types import PERSON_TITLES

    assert {t.lower() for t in DEFAULT_TITLES} <= PERSON_TITLES


def test_titles_detector(nlp_blank):
    nlp_blank.add_pipe("pii_titles")
    doc = nlp_blank("She was represented by Mr Per Aasen, a lawyer, and Dr. van Berg met Judge Nilsen.")
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [("Per Aasen", "PERSON"), ("van Berg", "PERSON"), ("Nilsen", "PERSON")]


def test_paragraph_numbers_are_not_quantities(nlp_blank):
    nlp_blank.add_pipe("pii_ent_mapper")
    doc = nlp_blank.make_doc("1. The applicant paid 3 fees.\n2. Then")
    doc.ents = [Span(doc, 0, 1, label="CARDINAL"), Span(doc, 5, 6, label="CARDINAL"), Span(doc, 9, 10, label="CARDINAL")]
    doc = nlp_blank.get_pipe("pii_ent_mapper")(doc)
    assert [s.text for s in doc.spans["pii"]] == ["3"]


@pytest.mark.parametrize("validated", [False, True])
def test_add_char_spans_marks_validated_spans_when_asked(validated):
    doc = spacy.blank("en")("Call Ann Lee now")
    doc.spans["pii"] = [Span(doc, 0, 3, label="ORG")]  # "Call Ann Lee", longer
    add_char_spans(doc, [(5, 12, "PERSON", "test")], validated=validated)
    found = [(s.text, s.label_) for s in doc.spans["pii"]]
    # a validated span wins over the longer one it overlaps, keeping its part outside
    assert found == ([("Call", "ORG"), ("Ann Lee", "PERSON")] if validated else [("Call Ann Lee", "ORG")])
    assert is_validated(doc.spans["pii"][-1]) is validated


def test_alternatives_put_the_longest_word_first_and_match_its_spaces():
    import re

    from spacy_sanitize.detect._regex import alternatives

    assert re.match(alternatives(["Dr", "Dr med"]), "Dr  med. Ott").group() == "Dr  med"
    assert re.match(alternatives(["Dr", "Dr med"], space=r"[ \t]+"), "Dr\nmed").group() == "Dr"
    assert re.fullmatch(alternatives(["a.b"]), "axb") is None  # escaped


def test_a_birth_date_in_words_after_its_cue_is_one_date(nlp_blank):
    nlp_blank.add_pipe("pii_codes")
    cases = {"Born 3 April 1956.": "3 April 1956", "she'll need your DOB - 14 Feb 1950 - and your postcode": "14 Feb 1950",
             "D.O.B: 3rd March 1961": "3rd March 1961"}
    for text, date in cases.items():
        doc = nlp_blank(text)
        assert [(s.text, s.label_, s._.risk_explain["detector"]) for s in doc.spans["pii"]] == [(date, "DATETIME", "pii_codes:birth_date")], text
