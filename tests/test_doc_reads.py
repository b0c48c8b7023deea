"""doc_reads: a doc's text and token texts read once, dropped when a retokenizer changes its tokens."""
import spacy

from spacy_sanitize.doc_reads import doc_text, per_doc, token_texts


def test_values_are_read_once_per_doc():
    nlp = spacy.blank("en")
    doc, other = nlp("Maria Lopez wrote."), nlp("Maria Lopez wrote.")
    calls = []
    build = lambda d: calls.append(d) or len(calls)  # noqa: E731
    assert per_doc(doc, "k", build) == 1 and per_doc(doc, "k", build) == 1
    assert per_doc(other, "k", build) == 2  # docs are told apart by identity, not by text
    assert doc_text(doc) == doc.text
    assert token_texts(doc) == (["Maria", "Lopez", "wrote", "."], [" ", " ", "", ""])


def test_a_retokenized_doc_is_read_again():
    nlp = spacy.blank("en")
    doc = nlp("Maria Lopez wrote.")
    assert token_texts(doc)[0] == ["Maria", "Lopez", "wrote", "."]
    with doc.retokenize() as retokenizer:
        retokenizer.merge(doc[0:2])
    assert token_texts(doc) == (["Maria Lopez", "wrote", "."], [" ", "", ""])
    assert doc_text(doc) == "Maria Lopez wrote."
