"""Format-preserving surrogates keep the format, not identifying detail: no original letter
of another script, no exact length of a name part, no word of an address (#20 item 11)."""
import re

import pytest
import spacy

from spacy_sanitize.masker.strategies.formats import address_like, replace_format
from spacy_sanitize.masker.strategies.generalize import generalize_quantity
from spacy_sanitize.masker.strategies.keyed import KeyedChooser


def chooser(secret="s"):
    keyed = KeyedChooser()
    keyed.set_secret(secret)
    return keyed


def surrogate(text, label, secret="s"):
    nlp = spacy.blank("en")
    masker = nlp.add_pipe("masker", config={"strategy": {"@strategies": "spacy_sanitize.surrogate.v1"}, "propagate": False})
    masker.set_secret(secret)
    doc = nlp.make_doc(text)
    doc.spans["pii"] = [doc.char_span(0, len(text), label)]
    return masker(doc)._.sanitized


def test_non_ascii_letters_become_ascii_letters_of_the_same_case():
    """søren.kierkegård@... became eøobp.lybhzffåpp@...: the ø and å told the language."""
    for secret in ("a", "b", "c"):
        out = surrogate("søren.kierkegård@example.dk", "CODE", secret)
        assert out.isascii() and re.fullmatch(r"[a-z]+\.[a-z]+@[a-z]+\.[a-z]{2}", out), out
        out = surrogate("ÅSE-12", "CODE", secret)
        assert re.fullmatch(r"[A-Z]{3}-\d\d", out), out


def test_the_lengths_of_name_parts_do_not_survive():
    """Each letter was replaced in place: "kierkegård" kept its 10 letters, "søren" its 5."""
    lengths = set()
    for i in range(40):
        local = surrogate("søren.kierkegård@example.dk", "CODE", f"secret-{i}").split("@")[0]
        first, last = local.split(".")
        lengths.add((len(first), len(last)))
        assert 4 <= len(first) <= 10 and 4 <= len(last) <= 10
    assert len(lengths) > 10 and len({last for _, last in lengths}) > 3


def test_short_runs_digits_and_case_patterns_are_kept():
    keyed = chooser()
    for text in ("AB-1234", "+47 912 34 567", "X12345678", "DK50 0040 0440"):
        out = replace_format(text, keyed, "CODE")
        assert out != text and len(out) == len(text)
        assert [c.isdigit() for c in out] == [c.isdigit() for c in text]
        assert [c.isupper() for c in out] == [c.isupper() for c in text]
    out = replace_format("KODNANI1978", keyed, "CODE")
    assert re.fullmatch(r"[A-Z]{4,10}\d{4}", out) and "KODNANI" not in out
    assert replace_format("jsmith", keyed, "CODE") == replace_format("jsmith", keyed, "CODE")  # consistent


@pytest.mark.parametrize("text", ["14 Elm Street", "Flat 3, 22 Baker Street", "221B Baker Street"])
def test_an_address_is_replaced_as_a_whole(text):
    """surrogate gave "26 Elm Street" and generalize "[10-19 Elm Street]": the street stayed."""
    out = surrogate(text, "QUANTITY")
    assert not set(re.findall(r"[A-Za-z]{3,}", text)) & set(re.findall(r"[A-Za-z]{3,}", out)), out
    assert generalize_quantity(text) == "an address"


@pytest.mark.parametrize("text,kept", [("$145 million", "million"), ("45 years old", "years old"), ("5 km", "km"), ("20 °C", "°C")])
def test_units_of_a_quantity_are_still_kept(text, kept):
    assert not address_like(text)
    assert surrogate(text, "QUANTITY").endswith(kept) and kept in generalize_quantity(text)
