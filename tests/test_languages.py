"""The English-only warning (W011, #19 item 11): a document that looks like another language
is warned about once; English text (the development data included) never is."""
import json
import warnings

import pytest
import spacy

import spacy_sanitize  # noqa: F401
from spacy_sanitize.language import foreign_language

from .conftest import data_file

GERMAN = (
    "Herr Anna Berg wohnt in der Stadt Oslo und arbeitet seit 2019 als Ärztin bei der Firma "
    "Nordlys. Sie ist verheiratet und hat zwei Kinder, die in Bergen zur Schule gehen."
)
FRENCH = (
    "Anna Berg est née à Oslo en 1970. Elle travaille comme médecin à l'hôpital universitaire "
    "et habite avec son mari dans une petite maison près de la mer."
)
ENGLISH = "Anna Berg was born in Oslo in 1970. She works as a doctor at the university hospital and lives with her husband in a small house by the sea."
# Terse English with few function words of any language: not a reason to warn.
CLINICAL = "Patient: Anna Berg, DOB 12/03/1970, MRN 554433. Dx: hypertension, T2DM. Rx: metformin 500mg BID, lisinopril 10mg QD. Follow-up 3 months. BP 140/90, HR 72."


@pytest.mark.parametrize("text,language", [(GERMAN, "German"), (FRENCH, "French"), (ENGLISH, None), (CLINICAL, None), ("Herr Berg wohnt in der Hauptstraße 5.", None)])
def test_foreign_language(text, language):
    found = foreign_language(spacy.blank("en").make_doc(text))
    assert (found and found[0]) == language


def masker_nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_titles")
    nlp.add_pipe("masker")
    return nlp


def test_the_masker_warns_once_about_non_english_text():
    nlp = masker_nlp()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nlp(ENGLISH)
    with pytest.warns(UserWarning, match=r"\[W011\] document #2 looks like German.*docs/languages.md"):
        doc = nlp(GERMAN)
    assert doc._.sanitized == "Herr [PERSON] wohnt in der Stadt Oslo" + GERMAN[len("Herr Anna Berg wohnt in der Stadt Oslo"):]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nlp(FRENCH)  # warned once


@pytest.mark.parametrize("parts", [("wiki", "wiki_dev.json"), ("tab", "tab_dev.json")])
def test_no_development_document_is_taken_for_another_language(parts):
    nlp = spacy.blank("en")
    documents = json.loads(data_file(*parts).read_text(encoding="utf8"))
    flagged = [d["doc_id"] for d in documents if foreign_language(nlp.make_doc(d["text"]))]
    assert flagged == []


def test_stop_word_lists_are_spacys_without_importing_the_language_packages():
    """The lists are spaCy's own, read without running the language packages (their tokenizer
    exceptions took seconds on every process's first document)."""
    import importlib
    import subprocess
    import sys

    from spacy_sanitize.language import CANDIDATES, _spacy_stop_words

    for code in ["en", *CANDIDATES]:
        assert _spacy_stop_words(code) == frozenset(importlib.import_module(f"spacy.lang.{code}.stop_words").STOP_WORDS)
    probe = ("import sys; from spacy_sanitize.language import _stop_words; _stop_words(); "
             "print(sorted(m for m in sys.modules if m.startswith('spacy.lang.') and m.count('.') == 2))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert "spacy.lang.fr" not in out and "spacy.lang.de" not in out, out
