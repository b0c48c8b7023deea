"""Replacement rows carry no original text (issue #19 small findings).

Without ``pii_coref`` a span has no ``entity_id`` and the masker keys its entity by label and
text ("PERSON:Anna Berg"); a deny-list match by "deny:term". ``Doc._.replacements`` used to
show those keys, so the rows (kept next to the sanitized text, written to JSONL and table
outputs) quoted what they replaced. They now show ``t1``, ``t2``... per doc; restore still works.
"""
import json

import spacy

from spacy_sanitize.masker import build_mapping, restore

TEXT = "Anna Berg met Olsen in Oslo. Anna Berg stayed; Project Falcon ended."


def masked(strategy: str, coref: bool = False):
    nlp = spacy.blank("en")
    if coref:
        nlp.add_pipe("pii_coref")
    nlp.add_pipe("masker", config={"strategy": {"@strategies": strategy}, "deny_list": ["Project Falcon"]})
    doc = nlp.make_doc(TEXT)
    doc.spans["pii"] = [doc.char_span(start, start + len(mention), label=label) for mention, start, label in
                        [("Anna Berg", 0, "PERSON"), ("Olsen", 14, "PERSON"), ("Oslo", 23, "LOC"), ("Anna Berg", 29, "PERSON")]]
    for _, component in nlp.pipeline:
        doc = component(doc)
    return doc


def test_rows_of_spans_without_entity_ids_quote_no_original_text() -> None:
    for strategy in ("spacy_sanitize.typed.v1", "spacy_sanitize.numbered.v1"):
        doc = masked(strategy)
        rows = doc._.replacements
        assert not any(word in json.dumps(rows) for word in ("Anna", "Berg", "Olsen", "Oslo", "Falcon")), rows
        ids = [row[3] for row in rows]
        assert ids == ["t1", "t2", "t3", "t1", "t4"]  # one alias per entity, in order of first mention
        assert restore(doc._.sanitized, build_mapping(doc)) == TEXT


def test_entity_ids_from_coreference_are_shown_as_they_are() -> None:
    doc = masked("spacy_sanitize.numbered.v1", coref=True)
    by_span = {(s.start_char, s.end_char): s._.entity_id for s in doc.spans["pii"]}
    rows = doc._.replacements
    assert [row[3] for row in rows[:4]] == [by_span[(row[0], row[1])] for row in rows[:4]]
    assert rows[4][3] == "t1" and "Falcon" not in json.dumps(rows)  # the deny-list region
    assert doc._.sanitized.count("[PERSON 1]") == 2
