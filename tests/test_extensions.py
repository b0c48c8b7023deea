import spacy
from spacy.tokens import DocBin, Span


def _annotate(doc):
    span = Span(doc, 0, 2, label="PERSON")
    span._.entity_id = "e1"
    span._.risk["seq"] = 0.9
    span._.risk_explain["seq"] = {"tokens": [0.8, 0.95]}
    span._.mask = True
    doc.spans["pii"] = [span]
    doc._.sanitized = "[PERSON] lives here."
    doc._.replacements = [[0, 9, "PERSON", "e1", "[PERSON]", 0, 8]]
    return doc


def _check(doc):
    span = doc.spans["pii"][0]
    assert (span.text, span.label_) == ("Anna Berg", "PERSON")
    assert span._.entity_id == "e1"
    assert span._.risk == {"seq": 0.9}
    assert span._.risk_explain == {"seq": {"tokens": [0.8, 0.95]}}
    assert span._.mask is True
    assert doc._.sanitized == "[PERSON] lives here."
    assert doc._.replacements == [[0, 9, "PERSON", "e1", "[PERSON]", 0, 8]]


def test_span_values_are_keyed_by_offsets(nlp_blank):
    doc = _annotate(nlp_blank("Anna Berg lives here."))
    same_offsets = doc[0:2]
    assert same_offsets._.risk == {"seq": 0.9}
    other = doc[2:3]
    assert other._.risk == {} and other._.mask is None and other._.entity_id is None


def test_values_survive_docbin(nlp_blank):
    doc = _annotate(nlp_blank("Anna Berg lives here."))
    data = DocBin(docs=[doc], store_user_data=True).to_bytes()
    (restored,) = DocBin().from_bytes(data).get_docs(nlp_blank.vocab)
    _check(restored)


@spacy.Language.component("test_annotate")
def _annotate_component(doc):
    return _annotate(doc)


def test_values_survive_two_processes():
    nlp = spacy.blank("en")
    nlp.add_pipe("test_annotate")
    docs = list(nlp.pipe(["Anna Berg lives here."] * 4, n_process=2, batch_size=1))
    assert len(docs) == 4
    for doc in docs:
        _check(doc)
