import json
import warnings

import pytest
from spacy.util import registry

from spacy_sanitize.corpus import (
    TabFormatError,
    docs_to_tab,
    load_tab,
    read_submission,
    read_tab,
    write_submission,
    write_tab,
)

TEXT = "Anna Berg met Jonas in Oslo."


def mention(mid, start, end, etype, itype, eid, text=TEXT):
    return {
        "entity_mention_id": mid,
        "start_offset": start,
        "end_offset": end,
        "span_text": text[start:end],
        "entity_type": etype,
        "identifier_type": itype,
        "entity_id": eid,
    }


def tab_data():
    return [
        {
            "doc_id": "d1",
            "text": TEXT,
            "annotations": {
                "A": {"entity_mentions": [mention("m1", 0, 9, "PERSON", "DIRECT", "e1"), mention("m2", 23, 27, "LOC", "QUASI", "e2")]},
                "B": {"entity_mentions": [mention("m3", 14, 19, "PERSON", "NO_MASK", "e3")]},
            },
        }
    ]


@pytest.fixture
def tab_file(tmp_path):
    path = tmp_path / "tab.json"
    path.write_text(json.dumps(tab_data()))
    return path


def test_read_gives_one_doc_per_annotator(tab_file, nlp_blank):
    docs = read_tab(tab_file, nlp_blank)
    assert [(d._.doc_id, d._.annotator) for d in docs] == [("d1", "A"), ("d1", "B")]
    a, b = docs
    assert [(s.text, s.label_, s._.entity_id) for s in a.spans["pii"]] == [("Anna Berg", "PERSON", "e1"), ("Oslo", "LOC", "e2")]
    assert [(s.text, s.label_) for s in a.spans["mask"]] == [("Anna Berg", "DIRECT"), ("Oslo", "QUASI")]
    assert [s.text for s in b.spans["pii"]] == ["Jonas"] and len(b.spans["mask"]) == 0


def test_round_trip(tab_file, tmp_path, nlp_blank):
    original = load_tab(tab_file)
    docs = read_tab(tab_file, nlp_blank)
    back = docs_to_tab(docs)
    out = tmp_path / "out.json"
    write_tab(back, out)
    again = load_tab(out)
    assert [d.doc_id for d in again] == ["d1"]
    for annotator in ("A", "B"):
        got = [(m.start, m.end, m.entity_type, m.identifier_type, m.entity_id) for m in again[0].annotations[annotator]]
        want = [(m.start, m.end, m.entity_type, m.identifier_type, m.entity_id) for m in original[0].annotations[annotator]]
        assert got == want


@pytest.mark.parametrize(
    "change,message",
    [
        ({"start_offset": 20, "end_offset": 99}, "outside the text"),
        ({"span_text": "Anna Bergs"}, "does not match"),
        ({"identifier_type": "MAYBE"}, "unknown identifier_type"),
        ({"entity_type": "NAME"}, "unknown entity_type"),
        ({"start_offset": "x"}, "non-integer"),
    ],
)
def test_malformed_mentions_name_document_and_mention(tmp_path, change, message):
    data = tab_data()
    data[0]["annotations"]["A"]["entity_mentions"][0].update(change)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(TabFormatError, match=message) as info:
        load_tab(path)
    assert "'d1'" in str(info.value) and "'m1'" in str(info.value)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        docs = load_tab(path, lenient=True)
    assert len(docs[0].annotations["A"]) == 1
    assert any("skipped 1 malformed" in str(w.message) for w in caught)


def test_malformed_json(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('[{"doc_id": "x", "text": ')
    with pytest.raises(TabFormatError, match="could not read TAB JSON"):
        load_tab(path)
    path.write_text('[{"doc_id": "x"}]')
    with pytest.raises(TabFormatError, match="no string field 'text'"):
        load_tab(path)


def test_registered_reader_yields_examples(tab_file, nlp_blank):
    reader = registry.readers.get("spacy_sanitize.TabCorpus.v1")(path=tab_file)
    examples = list(reader(nlp_blank))
    assert len(examples) == 2
    assert examples[0].predicted.text == TEXT and not examples[0].predicted.spans
    assert [s.text for s in examples[0].reference.spans["mask"]] == ["Anna Berg", "Oslo"]


def _two_documents(tmp_path):
    data = tab_data() + [{"doc_id": "d2", "text": "Short one.", "annotations": {"A": {"entity_mentions": []}}}]
    path = tmp_path / "two.json"
    path.write_text(json.dumps(data))
    return path


def test_reader_limit_reads_the_first_documents(tmp_path, nlp_blank):
    path = _two_documents(tmp_path)
    make = registry.readers.get("spacy_sanitize.TabCorpus.v1")
    assert [eg.reference._.doc_id for eg in make(path=path)(nlp_blank)] == ["d1", "d1", "d2"]
    assert [eg.reference._.doc_id for eg in make(path=path, limit=1)(nlp_blank)] == ["d1", "d1"]


def test_reader_max_length_skips_longer_documents_with_a_warning(tmp_path, nlp_blank):
    path = _two_documents(tmp_path)
    make = registry.readers.get("spacy_sanitize.TabCorpus.v1")
    assert len(nlp_blank.make_doc(TEXT)) == 7 and len(nlp_blank.make_doc("Short one.")) == 3
    assert [eg.reference._.doc_id for eg in make(path=path, max_length=7)(nlp_blank)] == ["d1", "d1", "d2"]
    with pytest.warns(UserWarning, match=r"\[W003\] skipped 1 document"):
        examples = list(make(path=path, max_length=6)(nlp_blank))
    assert [eg.reference._.doc_id for eg in examples] == ["d2"]


def test_reader_options_resolve_from_a_config(tmp_path, nlp_blank):
    from thinc.api import Config

    path = _two_documents(tmp_path)
    config = Config().from_str(f"""
[corpora]
[corpora.dev]
@readers = "spacy_sanitize.TabCorpus.v1"
path = "{path}"
limit = 1
""")
    reader = registry.resolve(config)["corpora"]["dev"]
    assert len(list(reader(nlp_blank))) == 2


def test_submission_round_trip(tmp_path):
    path = tmp_path / "sub.json"
    write_submission({"d1": [[0, 9], [23, 27]]}, path)
    assert read_submission(path) == {"d1": [[0, 9], [23, 27]]}
    path.write_text('{"d1": [[0]]}')
    with pytest.raises(TabFormatError, match="submission"):
        read_submission(path)


def test_wiki_file_reads(wiki_path, nlp_blank):
    docs = load_tab(wiki_path)
    assert len(docs) == 70
    assert all(m.span_text == d.text[m.start : m.end] for d in docs for ms in d.annotations.values() for m in ms)
