"""Leaks through casing and layout (#20 items 1 and 2): a masked name is masked again in
other casing, possessive and plural; a mask keeps the line breaks around it; pii_titles
stops at the end of a sentence."""

import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st

import spacy_sanitize  # noqa: F401
from spacy_sanitize.text import occurrences
from tests.test_masker_component import doc_with


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_coref")
    nlp.add_pipe("masker", config={"strategy": {"@strategies": "spacy_sanitize.typed.v1"}})
    return nlp


def sanitize(nlp, text, spans):
    doc = doc_with(nlp, text, spans)
    for _, component in nlp.pipeline:
        doc = component(doc)
    return doc


@pytest.mark.parametrize(
    "text,spans,expected",
    [
        ("Ingrid Solheim lives here. INGRID SOLHEIM signed. ingrid solheim agreed.", [(0, 14, "PERSON", "e1")],
         "[PERSON] lives here. [PERSON] signed. [PERSON] agreed."),
        ("Maya Kodnani was born here. Later, kodnani denied it. KODNANI's car.", [(0, 12, "PERSON", "e1")],
         "[PERSON] was born here. Later, [PERSON] denied it. [PERSON]'s car."),
        # plural family names and possessives
        ("Ola Nordmann came. The Nordmanns left; Nordmann’s dog stayed.", [(0, 12, "PERSON", "e1")],
         "[PERSON] came. The [PERSON] left; [PERSON]’s dog stayed."),
        # a lower-case repeat of a common word is the word, unless the whole name repeats or it
        # is a listed given name (chat and notes drop capitals: "sarah will reply")
        ("John Smith came. A smith and a john. JOHN SMITH and john smith left.", [(0, 10, "PERSON", "e1")],
         "[PERSON] came. A smith and a [PERSON]. [PERSON] and [PERSON] left."),
        ("Sarah Lin wrote this, and sarah will reply. Will she?", [(0, 9, "PERSON", "e1")],
         "[PERSON] wrote this, and [PERSON] will reply. Will she?"),
        # only names match in other casing
        ("Born in Gujarat. GUJARAT is large.", [(8, 15, "LOC", "e1")], "Born in [LOC]. GUJARAT is large."),
    ],
)
def test_names_propagate_in_any_casing(nlp, text, spans, expected):
    assert sanitize(nlp, text, spans)._.sanitized == expected


def test_coref_adds_repeats_in_other_casing_as_spans(nlp):
    doc = doc_with(nlp, "Maya Kodnani spoke. kodnani and KODNANI left.", [(0, 12, "PERSON", "")])
    doc = nlp.get_pipe("pii_coref")(doc)
    assert [(s.text, s._.entity_id) for s in doc.spans["pii"]] == [("Maya Kodnani", "e1"), ("kodnani", "e1"), ("KODNANI", "e1")]


def test_occurrences_in_any_casing_and_plural():
    text = "Solheim, SOLHEIM, solheim, Solheims, Solheimsen, the SOLHEIMS."
    found = occurrences(text, ["Solheim"], any_case=["Solheim"])
    assert [text[a:b] for a, b, _ in found] == ["Solheim", "SOLHEIM", "solheim", "Solheims", "SOLHEIMS"]
    # without any_case: exact, whole words only (the old behaviour)
    assert [text[a:b] for a, b, _ in occurrences(text, ["Solheim"])] == ["Solheim"]
    assert occurrences(text, ["Solheim"], overlapping=True, any_case=["Solheim"]) == found


@pytest.mark.parametrize(
    "text,spans,expected",
    [
        # a span that runs over the line break keeps the break and the next line's label
        ("Patient name: John Smith\nAge: 42", [(14, 28, "PERSON", "e1")], "Patient name: [PERSON]\n[PERSON]: 42"),
        ("Patient name: John Smith\n\nAge: 42", [(14, 26, "PERSON", "e1")], "Patient name: [PERSON]\n\nAge: 42"),
        ("Name: Ingrid\r\nSolheim, Oslo", [(6, 21, "PERSON", "e1")], "Name: [PERSON]\r\n[PERSON], Oslo"),
    ],
)
def test_masks_keep_line_breaks(nlp, text, spans, expected):
    doc = sanitize(nlp, text, spans)
    assert doc._.sanitized == expected
    assert all("\n" not in text[start:end] for start, end, *_ in doc._.replacements)


@pytest.mark.parametrize(
    "text,name",
    [
        ("Mr Per Aasen. Ticket EMP-9999 was filed.", "Per Aasen"),
        ("Ms Rose. A smith came.", "Rose"),
        ("Dr. J. R. Smith signed.", "J. R. Smith"),
        ("Mrs Anna van Berg\nTel. 22 33 44 55", "Anna van Berg"),
    ],
)
def test_titles_stop_at_the_sentence_and_line_end(text, name):
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_titles")
    doc = nlp(text)
    assert [s.text for s in doc.spans["pii"]] == [name]


_GIVEN = st.sampled_from(["Ingrid", "Maya", "Ola", "Siri", "Thandiwe"])
_FAMILY = st.sampled_from(["Solheim", "Kodnani", "Nordmann", "Aasen", "Oyelaran"])


def _recase(word: str, how: str) -> str:
    return {"upper": word.upper(), "lower": word.lower(), "title": word.title(), "swap": word.swapcase()}[how]


@settings(max_examples=60, deadline=None)
@given(
    given_name=_GIVEN, family=_FAMILY, how=st.sampled_from(["upper", "lower", "title", "swap"]),
    suffix=st.sampled_from(["", "'s", "’s", "s", "'"]), whole=st.booleans(),
)
def test_property_repeat_of_a_masked_name_never_leaks(nlp, given_name, family, how, suffix, whole):
    name = f"{given_name} {family}"
    repeat = _recase(name if whole else family, how) + suffix
    text = f"{name} lives here.\nLater {repeat} agreed, said the clerk."
    out = sanitize(nlp, text, [(0, len(name), "PERSON", "e1")])._.sanitized
    assert family.lower() not in out.lower() and "\n" in out
    assert out.endswith(" agreed, said the clerk.")


@pytest.mark.parametrize(
    "text,given_name,expected",
    [
        ("Patient: SMITH, JOHN. DOB: 1985.", "JOHN", "SMITH, JOHN"),
        ("Name: Solheim, Ingrid\nAge: 42", "Ingrid", "Solheim, Ingrid"),
        # not a field, different casing, or a stop word before the comma: unchanged
        ("In Paris, John said.", "John", "John"),
        ("Patient: SMITH, John.", "John", "John"),
        ("Note: THE, JOHN.", "JOHN", "JOHN"),
    ],
)
def test_surname_first_field_joins_the_name(text, given_name, expected):
    nlp = spacy.blank("en")
    coref = nlp.add_pipe("pii_coref")
    start = text.index(given_name)
    doc = doc_with(nlp, text, [(start, start + len(given_name), "PERSON", "")])
    assert [s.text for s in coref(doc).spans["pii"] if s.label_ == "PERSON"][0] == expected


def test_refine_trims_contact_field_words_from_person_spans():
    nlp = spacy.blank("en")
    refine = nlp.add_pipe("pii_refine")
    text = "Call John Smith or Tel. 555. Ring Per Aasen. Ring Lardner wrote."
    doc = nlp.make_doc(text)
    spans = [doc.char_span(a, b, label="PERSON") for a, b in [(0, 15), (19, 22), (29, 43)]]
    spans.append(doc.char_span(45, 57, label="ORG"))  # another type keeps its words
    doc.spans["pii"] = spans
    doc = refine(doc)
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [("John Smith", "PERSON"), ("Per Aasen", "PERSON"), ("Ring Lardner", "ORG")]
