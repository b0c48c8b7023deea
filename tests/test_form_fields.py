"""Names after form field labels (pii_titles ``fields``) and account names in paths, chat
tags and user@host (pii_codes patterns): leaks the benchmark found (#20 item 3)."""

import pytest
import spacy

import spacy_sanitize  # noqa: F401
from spacy_sanitize.detect.codes import DEFAULT_PATTERNS, CodeDetector


def titles(**config):
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_titles", config=config)
    nlp.add_pipe("masker")
    return nlp


@pytest.mark.parametrize(
    "text,sanitized",
    [
        ("PATIENT NAME: OKAFOR, CHIDINMA    DOB: 1990-07-22", "PATIENT NAME: [PERSON]    DOB: 1990-07-22"),
        ("First name: Mateus\nLast name: Carvalho Lima\nCity: Porto", "First name: [PERSON]\nLast name: [PERSON]\nCity: Porto"),
        ("Date: 2024-11-30 Print name: GIDEON ASANTE", "Date: 2024-11-30 Print name: [PERSON]"),
        ("Applicant: Thandiwe Oyelaran\n\nRespondent: Kofi Mensah", "Applicant: [PERSON]\n\nRespondent: [PERSON]"),
        ("Tenant(s): Rashida & Kwame Boateng", "Tenant(s): [PERSON]"),
        ("Student: Chen, Mei-Ling   Student No.: 2019338471", "Student: [PERSON]   Student No.: 2019338471"),
        ("Policy holder: Mr Dragan Petrović; Policy #: HX-1", "Policy holder: Mr [PERSON]; Policy #: HX-1"),
        # no name after the label: nothing marked
        ("Name: the file was lost. Patient: 52 years old", "Name: the file was lost. Patient: 52 years old"),
        ("Name | Role | Phone", "Name | Role | Phone"),
        ("Surnames: Smith", "Surnames: Smith"),  # not a label of the list: a word ends it
        # a sentence ends the value; an initial does not
        ("Patient: Aoife Byrne. History of depression.", "Patient: [PERSON]. History of depression."),
        ("Patient: J. R. Byrne", "Patient: [PERSON]"),
    ],
)
def test_names_after_field_labels(text, sanitized):
    assert titles()(text)._.sanitized == sanitized


def test_fields_can_be_switched_off():
    assert titles(fields=[])("First name: Mateus")._.sanitized == "First name: Mateus"


@pytest.mark.parametrize(
    "text,found",
    [
        ("File C:\\Users\\okechukwu.eze\\Documents\\cv.docx", "C:\\Users\\okechukwu.eze"),
        ("see /home/jdoe/.ssh/id_rsa", "/home/jdoe"),
        ("discord: spookyfox#4417", "spookyfox#4417"),
        ("key comment: lukas.brenner@laptop", "lukas.brenner@laptop"),
        ("[10:42] <dana_k> hey", "<dana_k>"),
    ],
)
def test_account_names(text, found):
    detector = CodeDetector("pii_codes", DEFAULT_PATTERNS, "pii", "CODE")
    assert found in [text[s:e] for s, e, _ in detector.find(text)]


@pytest.mark.parametrize("text", ["mail a.b@example.com now", "<b> bold", "the /homepage/ link", "C# and F#"])
def test_account_patterns_leave_other_text(text):
    detector = CodeDetector("pii_codes", DEFAULT_PATTERNS, "pii", "CODE")
    keys = {k for _, _, k in detector.find(text)}
    assert not keys & {"user_path", "chat_tag", "user_at_host", "chat_nick"}
