"""Identifiers with an invisible or narrow separator inside stay masked (issue #36, Medium):
`+47\\u202f912\\u202f34\\u202f567`, `john.smith\\u200b@example.com`, `123\\u200b-45-6789` and
`4111\\u200b1111\\u200b1111\\u200b1111` were left in clear, the text outside them unchanged."""
import pytest

from spacy_sanitize.detect.text_view import needs_view, text_view

CASES = [
    ("Call +47\u202f912\u202f34\u202f567 today.", "912"),
    ("Mail john.smith\u200b@example.com now.", "example.com"),
    ("SSN 123\u200b-45-6789 on file.", "6789"),
    ("Card 4111\u200b1111\u200b1111\u200b1111 used.", "4111"),
    ("Call +47\u00a0912\u00a034\u00a0567 today.", "912"),
    ("mail anna\u2060.berg@example.org today.", "example.org"),
]


@pytest.mark.parametrize("text,secret", CASES)
def test_identifiers_with_invisible_separators_are_masked(default_nlp, text, secret):
    doc = default_nlp(text)
    assert secret not in doc._.sanitized, doc._.sanitized
    first, last = text.split()[0], text.split()[-1]
    assert doc._.sanitized.startswith(first + " ") and doc._.sanitized.endswith(" " + last)


def test_the_view_drops_invisible_characters_and_maps_back_to_them():
    text = "a\u200bb c\u202fd"
    assert needs_view(text)
    view, starts, ends = text_view(text)
    assert view == "ab c d"
    assert (starts[0], ends[0]) == (0, 2)  # "a" stands for "a" and the zero-width space after it
    assert text[starts[4]:ends[4]] == "\u202f"
