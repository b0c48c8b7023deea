"""The masker component: regions (allow/deny, propagation, overlaps), rows, restore,
serialization, p estimation."""

import os
import stat

import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

import spacy_sanitize  # noqa: F401
from spacy_sanitize.masker import build_mapping, load_mapping, restore, save_mapping
from spacy_sanitize.masker.plan import Region, resolve_overlaps


def doc_with(nlp, text, spans, mask=None):
    doc = nlp.make_doc(text)
    out = []
    for start, end, label, eid in spans:
        span = doc.char_span(start, end, label=label, alignment_mode="expand")
        span._.entity_id = eid
        out.append(span)
    doc.spans["pii"] = out
    for span, value in zip(out, mask or []):
        span._.mask = value
    return doc


def masker(**cfg):
    nlp = spacy.blank("en")
    return nlp, nlp.add_pipe("masker", config={"strategy": {"@strategies": "spacy_sanitize.typed.v1"}, **cfg})


def test_rows_layout_and_unchanged_outside():
    nlp, m = masker()
    text = "Anna Berg lives in Oslo."
    doc = m(doc_with(nlp, text, [(0, 9, "PERSON", "e1"), (19, 23, "LOC", "e2")]))
    assert doc._.sanitized == "[PERSON] lives in [LOC]."
    assert doc._.replacements == [[0, 9, "PERSON", "e1", "[PERSON]", 0, 8], [19, 23, "LOC", "e2", "[LOC]", 18, 23]]
    for _start, _end, _, _, repl, out_start, out_end in doc._.replacements:
        assert doc._.sanitized[out_start:out_end] == repl


def test_fail_closed_and_entity_level_masking():
    nlp, m = masker(propagate=False)
    text = "Anna met Bob. Anna left. Bob stayed."
    # Anna: one mention decided masked, one decided kept -> the entity is masked everywhere
    doc = m(doc_with(nlp, text, [(0, 4, "PERSON", "e1"), (14, 18, "PERSON", "e1"), (9, 12, "PERSON", "e2"), (25, 28, "PERSON", "e2")],
                     mask=[True, False, False, False]))
    assert doc._.sanitized == "[PERSON] met Bob. [PERSON] left. Bob stayed."
    undecided = m(doc_with(nlp, text, [(9, 12, "PERSON", "e2")]))
    assert undecided._.sanitized.startswith("Anna met [PERSON].")


@pytest.mark.parametrize(
    "text,spans,expected",
    [
        # missed exact mention, and a surname part after the full name; whole words only
        ("Maya Kodnani spoke. Later Kodnani and Kodnanian left; Maya Kodnani too.", [(0, 12, "PERSON", "e1")],
         "[PERSON] spoke. Later [PERSON] and Kodnanian left; [PERSON] too."),
        # titles and short/common words are not propagated
        ("Dr. Al May spoke to Dr. Smith in May.", [(0, 10, "PERSON", "e1")], "[PERSON] spoke to Dr. Smith in May."),
        # possessives are whole-word matches
        ("Ola Nordmann arrived. Nordmann's car.", [(0, 12, "PERSON", "e1")], "[PERSON] arrived. [PERSON]'s car."),
        # non-person strings propagate as a whole
        ("Born in Gujarat. Gujarat is large. Gujarati food.", [(8, 15, "LOC", "e1")], "Born in [LOC]. [LOC] is large. Gujarati food."),
    ],
)
def test_propagation(text, spans, expected):
    nlp, m = masker()
    assert m(doc_with(nlp, text, spans))._.sanitized == expected


def test_propagation_off():
    nlp, m = masker(propagate=False)
    assert m(doc_with(nlp, "Ann Lee. Lee.", [(0, 7, "PERSON", "e1")]))._.sanitized == "[PERSON]. Lee."


def test_person_parts_off():
    nlp, m = masker(propagate_person_parts=False)
    assert m(doc_with(nlp, "Ann Lee. Lee. Ann Lee.", [(0, 7, "PERSON", "e1")]))._.sanitized == "[PERSON]. Lee. [PERSON]."


def test_allow_and_deny_lists():
    nlp, m = masker(allow_list=["Oslo"], deny_list=["Project Blue", ["X-17", "CODE"]])
    text = "Anna works in Oslo on Project Blue and X-17; Project Bluebird is fine."
    doc = m(doc_with(nlp, text, [(0, 4, "PERSON", "e1"), (14, 18, "LOC", "e2")]))
    assert doc._.sanitized == "[PERSON] works in Oslo on [MISC] and [CODE]; Project Bluebird is fine."


def test_allow_deny_conflict_and_bad_entries():
    with pytest.raises(ValueError, match="E105"):
        masker(allow_list=["Oslo"], deny_list=["Oslo"])
    with pytest.raises(ValueError, match="E112"):
        masker(deny_list=[["Oslo", "CITY"]])
    with pytest.raises(ValueError, match="E104"):
        masker(overlap="first")


@pytest.mark.parametrize(
    "policy,expected",
    [("union", "[ORG] x"), ("separate", "[PERSON][ORG] x")],
)
def test_overlap_policies(policy, expected):
    nlp, m = masker(overlap=policy, propagate=False)
    text = "Anna Berg Holding x"
    # nested and overlapping spans: the union takes the label of its longest member (ORG)
    doc = m(doc_with(nlp, text, [(0, 9, "PERSON", "e1"), (5, 17, "ORG", "e2"), (5, 9, "PERSON", "e3")]))
    assert doc._.sanitized == expected
    covered = {i for row in doc._.replacements for i in range(row[0], row[1])}
    assert covered >= set(range(0, 17))


def test_resolve_overlaps_union_takes_longest_label():
    regions = [Region(0, 4, "LOC", "a"), Region(2, 12, "ORG", "b"), Region(12, 14, "DATETIME", "c")]
    merged = resolve_overlaps(regions, "union")
    assert [(r.start, r.end, r.label) for r in merged] == [(0, 12, "ORG"), (12, 14, "DATETIME")]


@pytest.mark.parametrize("strategy", ["numbered.v1", "surrogate.v1", "redact.v1", "generalize.v1"])
def test_restore_roundtrip_via_json(tmp_path, strategy):
    nlp, m = masker(strategy={"@strategies": f"spacy_sanitize.{strategy}"})
    m.set_secret("s")
    text = "Anna Berg met Bob Ray in Oslo on 3 May 2001. Berg left."
    doc = m(doc_with(nlp, text, [(0, 9, "PERSON", "e1"), (14, 21, "PERSON", "e2"), (25, 29, "LOC", "e3"), (33, 43, "DATETIME", "e4")]))
    path = tmp_path / "mapping.json"
    with pytest.warns(UserWarning, match="W101"):
        save_mapping(build_mapping(doc), path)
    assert restore(doc._.sanitized, load_mapping(path)) == text


def test_saved_mapping_is_private_to_its_owner(tmp_path):
    """The mapping holds the original text: it was written 0644 (world-readable)."""
    nlp, m = masker(strategy={"@strategies": "spacy_sanitize.numbered.v1"})
    doc = m(doc_with(nlp, "Anna met Bob.", [(0, 4, "PERSON", "e1"), (9, 12, "PERSON", "e2")]))
    path = tmp_path / "mapping.json"
    path.write_text("old")
    os.chmod(path, 0o644)  # an existing wider file is replaced, not reused
    old_umask = os.umask(0o022)
    try:
        with pytest.warns(UserWarning, match="W101"):
            save_mapping([build_mapping(doc)], path)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_mapping(path)[0]["entries"][0]["original"] == "Anna"
    assert [p.name for p in tmp_path.iterdir()] == ["mapping.json"]  # no temporary left


def test_restore_after_edit_and_errors():
    nlp, m = masker(strategy={"@strategies": "spacy_sanitize.numbered.v1"})
    doc = m(doc_with(nlp, "Anna met Bob.", [(0, 4, "PERSON", "e1"), (9, 12, "PERSON", "e2")]))
    mapping = build_mapping(doc)
    assert restore("Note: " + doc._.sanitized, mapping) == "Note: Anna met Bob."
    with pytest.raises(ValueError, match="E108"):
        restore("nothing here", mapping)
    with pytest.raises(ValueError, match="E107"):
        restore(doc._.sanitized, {"entries": []})


def test_serialization_roundtrip_without_secret(tmp_path, monkeypatch):
    monkeypatch.setenv("SPACY_SANITIZE_SECRET", "from-env")
    nlp = spacy.blank("en")
    nlp.add_pipe("masker", config={"strategy": {"@strategies": "spacy_sanitize.surrogate.v1", "seed": 3}, "operators": {"DATETIME": {"@strategies": "spacy_sanitize.generalize.v1"}},
                                   "allow_list": ["Oslo"], "p": 0.9})
    nlp.get_pipe("masker").set_secret("explicit-secret-never-written")
    nlp.to_disk(tmp_path / "pipe")
    written = "".join(p.read_text(errors="ignore") for p in (tmp_path / "pipe").rglob("*") if p.is_file())
    assert "explicit-secret-never-written" not in written and "from-env" not in written
    loaded = spacy.load(tmp_path / "pipe")
    assert loaded.get_pipe("masker").cfg == nlp.get_pipe("masker").cfg
    text = "Anna Berg met Bob Ray in Oslo."
    spans = [(0, 9, "PERSON", "e1"), (14, 21, "PERSON", "e2"), (25, 29, "LOC", "e3")]
    out = loaded.get_pipe("masker")(doc_with(loaded, text, spans))
    again = nlp.get_pipe("masker")
    again.set_secret("from-env")
    assert out._.sanitized == again(doc_with(nlp, text, spans))._.sanitized
    assert out._.sanitized.endswith("in Oslo.")
    assert out._.privacy["p"] == 0.9
    masker_bytes = nlp.get_pipe("masker").to_bytes()
    assert b"explicit-secret" not in masker_bytes


def test_privacy_report_in_doc():
    nlp, m = masker(strategy={"@strategies": "spacy_sanitize.surrogate.v1"}, operators={"PERSON": {"@strategies": "spacy_sanitize.numbered.v1"}})
    m.set_secret("s")
    doc = m(doc_with(nlp, "Anna lives in Oslo.", [(0, 4, "PERSON", "e1"), (14, 18, "LOC", "e2")]))
    report = doc._.privacy
    assert report["p"] == 1.0 and "assumed" in report["p_source"]
    assert report["labels"]["PERSON"]["epsilon"] == 0.0 and report["kept"] == {}
    # a surrogate city is drawn among cities (a country among countries): the class shows
    loc = report["labels"]["LOC"]
    assert loc["policy"] == "class_distribution" and loc["epsilon"] == "inf" and loc["epsilon_within_class"] == 0.0
    assert report["epsilon"] == "inf"


def test_p_from_gold_key_in_doc_and_initialize():
    nlp, m = masker(strategy={"@strategies": "spacy_sanitize.surrogate.v1"}, gold_key="mask")
    m.set_secret("s")
    text = "Anna lives in Oslo."
    doc = doc_with(nlp, text, [(0, 4, "PERSON", "e1")])
    doc.spans["mask"] = [doc.char_span(0, 4, "DIRECT"), doc.char_span(14, 18, "QUASI")]
    report = m(doc)._.privacy
    assert report["p"] == 0.5 and "gold" in report["p_source"]
    assert report["labels"]["PERSON"]["epsilon"] != 0.0  # p < 1 leaves a finite, positive epsilon
    # initialize: p is the recall over examples, kept as the learned p
    nlp2, m2 = masker()
    ref = nlp2.make_doc(text)
    ref.spans["mask"] = [ref.char_span(0, 4, "DIRECT"), ref.char_span(14, 18, "QUASI")]
    pred = doc_with(nlp2, text, [(14, 18, "LOC", "e1")])
    m2.initialize(lambda: [Example(pred, ref)], gold_key="mask")
    assert m2.learned_p == 0.5 and "recall" in m2.learned_p_source and m2.cfg["p"] is None


def test_in_default_pipeline_config_override():
    nlp = spacy.blank("en")
    nlp.add_pipe("masker", config={"strategy": {"@strategies": "spacy_sanitize.generalize.v1", "date_granularity": "year"}})
    doc = doc_with(nlp, "Born 3 May 2001.", [(5, 15, "DATETIME", "d")])
    assert nlp.get_pipe("masker")(doc)._.sanitized == "Born [2001]."


def test_empty_doc_and_no_spans():
    nlp, m = masker()
    doc = m(nlp.make_doc(""))
    assert doc._.sanitized == "" and doc._.replacements == [] and doc._.privacy["epsilon"] == 0.0
    doc = Doc(nlp.vocab, words=["no", "pii"])
    assert m(doc)._.sanitized == doc.text
