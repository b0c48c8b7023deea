"""Mentions coreference adds are reported with their entity's confidence, not null (issue #19).

pii_confidence runs before pii_coref, so a propagated mention has no ``Span._.confidence``;
the masker's ``min_confidence`` uses its entity's (the best mention's). The JSONL rows
(``sanitize``) and the table/Ray rows (``run.records``) report that value.
"""
import spacy

from spacy_sanitize.run.records import record_of, table_values
from spacy_sanitize.run.records import span_rows
from spacy_sanitize.detect.confidence import reported_confidences

TEXT = "Anna Berg met Olsen. Later Berg left and Kari stayed."


def doc_with_a_propagated_mention():
    nlp = spacy.blank("en")
    nlp.add_pipe("masker")
    doc = nlp.make_doc(TEXT)
    first, olsen, second, kari = (doc.char_span(start, start + len(mention), label="PERSON")
                                  for mention, start in [("Anna Berg", 0), ("Olsen", 14), ("Berg", 27), ("Kari", 41)])
    first._.entity_id = second._.entity_id = "PERSON_1"
    olsen._.entity_id, kari._.entity_id = "PERSON_2", "PERSON_3"
    first._.confidence, olsen._.confidence = 0.91, 0.4  # Berg (propagated) and Kari have none
    doc.spans["pii"] = [first, olsen, second, kari]
    return nlp.get_pipe("masker")(doc)


def test_a_propagated_mention_reports_its_entity_confidence() -> None:
    doc = doc_with_a_propagated_mention()
    assert reported_confidences(list(doc.spans["pii"])) == [0.91, 0.4, 0.91, None]
    rows = span_rows(doc, 0, with_text=True)
    assert [row["confidence"] for row in rows] == [0.91, 0.4, 0.91, None]
    assert [row["text"] for row in rows] == ["Anna Berg", "Olsen", "Berg", "Kari"]
    columns = table_values(record_of([doc], [0]))["spans"]
    assert [row["confidence"] for row in columns] == [0.91, 0.4, 0.91, None]
