"""pii_text_view: decomposed Unicode (NFD) and control characters inside names are
detected as in composed, clean text, with exact offsets and the text outside masked spans
unchanged (#20 item 10)."""

import unicodedata

import pytest
import spacy

import spacy_sanitize  # noqa: F401
from spacy_sanitize.detect.text_view import needs_view, text_view

NAMES = [{"label": "PERSON", "pattern": "François Hénault"}, {"label": "PERSON", "pattern": "John Smith"},
         {"label": "LOC", "pattern": "Besançon"}]


def pipeline(with_view: bool = True):
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("span_ruler", config={"spans_key": "pii", "annotate_ents": False})
    ruler.add_patterns(NAMES)  # NFC patterns: a phrase matcher compares exact characters
    if with_view:
        nlp.add_pipe("pii_text_view")
    nlp.add_pipe("masker")
    return nlp


def test_view_maps_every_character_back_to_its_cluster():
    text = unicodedata.normalize("NFD", "Kierkegård in Besançon") + "\x00x"
    view, starts, ends = text_view(text)
    assert view == "Kierkegård in Besançon x"
    assert len(starts) == len(ends) == len(view)
    for i, char in enumerate(view):
        cluster = text[starts[i] : ends[i]]
        assert unicodedata.normalize("NFC", cluster) == char or (char == " " and cluster in (" ", "\x00"))
    assert needs_view(text) and not needs_view("Kierkegård\tin\nBesançon\r\n")


@pytest.mark.parametrize(
    "text,sanitized",
    [
        (unicodedata.normalize("NFD", "Zoë met François Hénault in Besançon."), None),
        ("Zoe met John\x00Smith here.", "Zoe met [PERSON] here."),
        ("Zoe met John\x1bSmith here.", "Zoe met [PERSON] here."),
    ],
)
def test_decomposed_and_control_characters_are_detected(text, sanitized):
    doc = pipeline()(text)
    if sanitized is None:  # NFD: the text outside the spans keeps its decomposed letters
        zoe = unicodedata.normalize("NFD", "Zoë")
        sanitized = f"{zoe} met [PERSON] in [LOC]."
    assert doc._.sanitized == sanitized
    for span in doc.spans["pii"]:  # offsets refer to the original text
        assert doc.text[span.start_char : span.end_char] == span.text
    # without the view the names leak (what the default pipeline did)
    assert pipeline(with_view=False)(text)._.sanitized == text


def test_clean_text_is_left_alone():
    nlp = pipeline()
    doc = nlp("François Hénault lives in Besançon.")
    assert doc._.sanitized == "[PERSON] lives in [LOC]."
    assert all("pii_text_view" not in s._.risk_explain for s in doc.spans["pii"])


def test_unknown_component_is_a_coded_error():
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_text_view", config={"components": ["nope"]})
    with pytest.raises(ValueError, match="E041.*nope"):
        nlp("Kierkega\u030ard")


def test_default_pipeline_detects_decomposed_names(default_nlp):
    text = unicodedata.normalize("NFD", "Zoë Müller met François Hénault in Zürich.")
    doc = default_nlp(text)
    assert "Fran" not in doc._.sanitized and "nault" not in doc._.sanitized


def test_a_letter_spaced_word_is_read_whole_and_masked_over_its_spaces():
    """OCR of block letters ("J o h n   S m i t h", words two spaces apart): in the view the
    spaces inside a word vanish, so a detector reads "John   Smith"; the span maps back over
    the spaced letters and the text around it is unchanged. Fewer than four letters, or
    letters two spaces apart, are no letter-spaced word."""
    text = "Name: J o h n   S m i t h, born in Besançon."
    view, starts, ends = text_view(text)
    assert view == "Name: John   Smith, born in Besançon."
    assert text[starts[view.index("John")]:ends[view.index("Smith") + 4]] == "J o h n   S m i t h"
    assert needs_view(text) and not needs_view("Plan A: a b c are three options.") and not needs_view("J  o  h  n")
    signed = "Signed: François H é n a u l t, born in Besançon."
    assert pipeline()(signed)._.sanitized == "Signed: [PERSON], born in [LOC]."
    assert pipeline(with_view=False)(signed)._.sanitized == "Signed: François H é n a u l t, born in [LOC]."


@pytest.mark.parametrize("address", ["zeb.quack＠example.org", "zeb.quack﹫example.org", "zeb．quack＠example．org"])
def test_fullwidth_and_small_form_characters_are_read_as_ascii(default_nlp, address):
    # compatibility forms of "@" and "." (U+FF20, U+FE6B, U+FF0E) hid an address from the detectors
    view, starts, ends = text_view(address)
    assert "@" in view and len(starts) == len(view)
    out = default_nlp(f"Write to {address} today.")._.sanitized
    assert "quack" not in out and out.startswith("Write to ") and out.endswith(" today.")


def test_a_word_hyphenated_across_a_line_break_is_read_whole(default_nlp):
    # OCR of a form breaks a surname at the line end ("Szcze-\npański"): the view joins it
    text = "Name of applicant: Szcze-\npański, Marek"
    view, starts, ends = text_view(text)
    assert "Szczepański" in view and len(starts) == len(view)
    out = default_nlp(text)._.sanitized
    assert "pański" not in out and "Szcze" not in out and out.startswith("Name of applicant: ")
    assert text_view("well-\nKnown")[0] == "well-\nKnown"  # a capital after the break: two words


def test_a_forms_blank_of_underscores_is_a_line_break_in_the_view(default_nlp):
    """"Tel: ___07733 451 980___": "_" is a word character, so no pattern saw the number; in the
    view each run of underscores is one line break (the values stay apart), mapped back whole."""
    text = "Name: ___Aisha Bello___   Tel: ___07733 451 980___"
    assert needs_view(text) and not needs_view("snake_case_name and __init__")
    view, starts, ends = text_view(text)
    assert view == "Name: \nAisha Bello\n   Tel: \n07733 451 980\n"
    run = view.index("\n")
    assert (starts[run], ends[run]) == (6, 9)  # the whole run of three underscores
    out = default_nlp(text)._.sanitized
    assert "07733" not in out and "Bello" not in out and out.count("___") == 4, out
