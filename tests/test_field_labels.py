"""pii_refine: form and record field labels ("DOB:", "SSN:", "MRN#", "Tel") are no entity,
and a number after a code label is a CODE (#20 item 3)."""

import pytest

from .test_refine import refined


@pytest.mark.parametrize(
    "text,phrase,label,expected",
    [
        # a label alone: dropped
        ("Patient: SMITH, JOHN. DOB: 12/03/1985.", "DOB", "ORG", []),
        ("IBAN: DE89370400440532013000", "IBAN", "ORG", []),
        ("SSN: 123-45-6789", "SSN", "ORG", []),
        ("MRN# 00123456", "MRN", "ORG", []),
        ("NHS # 943 476 5919", "NHS", "ORG", []),
        ("IP: 10.0.0.1", "IP", "ORG", []),
        ("API: key abc", "API", "ORG", []),
        ("Account no. 12345678", "Account", "PERSON", []),
        ("XYZQ: 4471", "XYZQ", "ORG", []),  # a short all-caps word before ":" and a number
        # a label read into the span: trimmed, and the number after a code label is a CODE
        ("Tel 555-1234", "Tel 555-1234", "LOC", [("555-1234", "CODE")]),
        ("Fax: 020 7946 0000", "Fax: 020 7946 0000", "ORG", [("020 7946 0000", "CODE")]),
        ("Patient ID: 4471.", "4471", "DATETIME", [("4471", "CODE")]),
        ("ID: 55 on file", "55", "QUANTITY", [("55", "CODE")]),
        ("sort code 20-00-00", "20-00-00", "DATETIME", [("20-00-00", "CODE")]),
        # not labels, or no code after them: unchanged
        ("DOB: 12/03/1985.", "12/03/1985", "DATETIME", [("12/03/1985", "DATETIME")]),
        ("Age: 52.", "52", "QUANTITY", [("52", "QUANTITY")]),
        ("FBI: agents met him.", "FBI", "ORG", [("FBI", "ORG")]),
        ("The NHS Trust hired him.", "NHS Trust", "ORG", [("NHS Trust", "ORG")]),
        ("NATO: 30 members", "NATO", "PERSON", [("NATO", "PERSON")]),  # the caps rule is for ORG spans
        ("JOHN: see you at 5", "JOHN", "PERSON", [("JOHN", "PERSON")]),  # a chat name, not a label
    ],
)
def test_field_labels(nlp_blank, text, phrase, label, expected):
    _, spans = refined(nlp_blank, text, phrase, label, detector="pii_ner")
    assert spans == expected


def test_field_labels_follow_trim_edges(nlp_blank):
    _, spans = refined(nlp_blank, "DOB: 12/03/1985.", "DOB", "ORG", detector="pii_ner", trim_edges=False)
    assert spans == [("DOB", "ORG")]


def test_default_pipeline_types_no_label_as_an_org(default_nlp):
    doc = default_nlp("Patient: SMITH, JOHN. DOB: 12/03/1985. SSN: 123-45-6789. MRN: 448812. Tel 555-1234")
    assert doc._.sanitized == "Patient: [PERSON]. DOB: [DATETIME]. SSN: [CODE]. MRN: [CODE]. Tel [CODE]"
