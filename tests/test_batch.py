"""sanitize_dataframe and sanitize_table (spacy_sanitize.batch, #19 item 10): the output
columns equal a plain ``nlp.pipe`` run, and a failed record is masked entirely (or stops the
run) instead of being dropped."""
import json
import re
import warnings

import pytest
import spacy
from spacy.language import Language

import spacy_sanitize  # noqa: F401
from spacy_sanitize.batch import FAILED_TEXT, RecordError, RecordSanitizer, sanitize_dataframe, sanitize_table
from spacy_sanitize.report.why import span_why

pd = pytest.importorskip("pandas", reason="sanitize_dataframe needs pandas (the [ray] extra)")

SECRET_TEXT = "BOOM Zebulon Quarrington-Vasquez, case 36110/97"
TEXTS = [
    "Case 36110/97 was lodged by per.aasen@example.org on 12 May 1997.",
    SECRET_TEXT,
    "Call +47 22 33 44 55 or mail anna@example.org about case 4411/02.",
]


@Language.component("test_fail_on_boom")
def fail_on_boom(doc):
    # a component bug that only some records trigger
    if doc.text.startswith("BOOM"):
        raise ValueError(f"cannot handle {doc.text}")
    return doc


def codes_nlp(*extra: str) -> Language:
    nlp = spacy.blank("en")
    for name in extra:
        nlp.add_pipe(name)
    nlp.add_pipe("pii_codes")
    nlp.add_pipe("masker", config={"strategy": {"@strategies": "spacy_sanitize.numbered.v1"}})
    return nlp


def expected(nlp: Language, text: str) -> dict:
    """The output columns written out from a plain nlp(text): the reference (keep_original,
    the default: spans keep their text; ``why`` is JSON text in a table). Its replacement
    rows carry the masker's own entity keys (see ``same_as_pipe``)."""
    doc = nlp(text)
    return {
        "sanitized": doc._.sanitized,
        "spans": [
            {"start": s.start_char, "end": s.end_char, "label": s.label_, "text": s.text, "entity_id": s._.entity_id, "risk": dict(s._.risk),
             "confidence": s._.confidence, "mask": s._.mask, "why": json.dumps(span_why(s, doc._.replacements), sort_keys=True)}
            for s in doc.spans["pii"]
        ],
        "replacements": [
            {"start": r[0], "end": r[1], "label": r[2], "entity_id": r[3], "replacement": r[4], "out_start": r[5], "out_end": r[6]}
            for r in doc._.replacements
        ],
        "error": None,
    }


def same_as_pipe(nlp: Language, row: dict, text: str) -> None:
    """``row`` holds what nlp(text) gives; its replacement entity ids are the record's
    (e1, e2...), one per entity key of the masker's."""
    want = expected(nlp, text)
    got_ids = [rep.pop("entity_id") for rep in row["replacements"]]
    want_ids = [rep.pop("entity_id") for rep in want["replacements"]]
    assert all(re.fullmatch(r"e\d+", i) for i in got_ids)
    assert len(set(zip(got_ids, want_ids))) == len(set(got_ids)) == len(set(want_ids))
    assert {k: row[k] for k in ("sanitized", "spans", "replacements", "error")} == want


def test_dataframe_equals_nlp_pipe_and_keeps_the_input():
    nlp = codes_nlp()
    df = pd.DataFrame({"text": [TEXTS[0], TEXTS[2]], "other": [1, 2]}, index=[10, 20])
    out = sanitize_dataframe(df, column="text", pipeline=nlp)
    assert list(df.columns) == ["text", "other"]  # the input is not modified
    assert list(out.columns) == ["text", "other", "sanitized", "spans", "replacements", "error"]
    assert list(out.index) == [10, 20]
    for row, text in zip(out.to_dict("records"), [TEXTS[0], TEXTS[2]]):
        same_as_pipe(nlp, row, text)
    assert "36110/97" not in out["sanitized"][10] and "[CODE 1]" in out["sanitized"][10]
    assert out["error"].tolist() == [None, None]  # None, not NaN


def test_a_failing_record_is_masked_entirely_and_counted():
    nlp = codes_nlp("test_fail_on_boom")
    df = pd.DataFrame({"id": ["a", "b", "c"], "text": TEXTS})
    with pytest.warns(UserWarning, match=r"W950.*1 of 3.*'b'") as record:
        out = sanitize_dataframe(df, column="text", pipeline=nlp, id_column="id")
    assert out["sanitized"].tolist()[1] == FAILED_TEXT
    assert out["error"].tolist() == [None, "ValueError", None]
    assert out["spans"][1] == [] and out["replacements"][1] == []
    # the other records of the batch are sanitized as they are alone
    assert out["sanitized"][0] == expected(nlp, TEXTS[0])["sanitized"]
    assert out["sanitized"][2] == expected(nlp, TEXTS[2])["sanitized"]
    # the error names the type, never the record's text (the exception quoted it)
    assert "Zebulon" not in str(record[0].message) and "Zebulon" not in out["error"][1]


def test_on_error_raise_stops_with_the_record_id():
    nlp = codes_nlp("test_fail_on_boom")
    df = pd.DataFrame({"id": ["a", "b", "c"], "text": TEXTS})
    with pytest.raises(RecordError, match=r"E952.*'b'.*ValueError") as info:
        sanitize_dataframe(df, column="text", pipeline=nlp, id_column="id", on_error="raise")
    assert "Zebulon" not in str(info.value)
    # nor is the failed exception chained to it: a traceback would print its message
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_missing_text_is_a_failed_record_named_by_index():
    nlp = codes_nlp()
    df = pd.DataFrame({"text": [TEXTS[0], None]}, index=["x", "y"])
    with pytest.warns(UserWarning, match=r"W950.*'y'"):
        out = sanitize_dataframe(df, pipeline=nlp)
    assert out["error"].tolist() == [None, "TypeError [E010]"]
    assert out["sanitized"]["y"] == FAILED_TEXT


def test_long_records_are_cut_and_their_offsets_are_the_whole_texts():
    nlp = codes_nlp()
    text = " ".join(f"Case {i}/97 was heard." for i in range(1000, 1200))  # > 1000 chars: pieces
    assert len(text) > 3000
    [row] = sanitize_dataframe(pd.DataFrame({"text": [text]}), pipeline=nlp, max_chars=1000).to_dict("records")
    assert len(row["replacements"]) == 200
    for rep in row["replacements"]:
        assert re.fullmatch(r"\d{4}/97", text[rep["start"]:rep["end"]])
        assert row["sanitized"][rep["out_start"]:rep["out_end"]] == rep["replacement"]
    # numbered per record: the 200 cases of the one record count on across its pieces
    assert row["replacements"][-1]["replacement"] == "[CODE 200]"


def test_arrow_table_gets_typed_columns_and_a_same_named_column_is_replaced():
    pa = pytest.importorskip("pyarrow")
    nlp = codes_nlp()
    table = pa.table({"id": [1, 2], "body": [TEXTS[0], TEXTS[2]], "sanitized": ["old", "old"]})
    out = sanitize_table(table, column="body", pipeline=nlp)
    assert out.column_names == ["id", "body", "sanitized", "spans", "replacements", "error"]
    assert out.schema.field("spans").type.value_type.field("risk").type == pa.map_(pa.string(), pa.float64())
    rows = out.to_pylist(maps_as_pydicts="strict")
    for row, text in zip(rows, [TEXTS[0], TEXTS[2]]):
        same_as_pipe(nlp, row, text)


@pytest.mark.parametrize(
    "kwargs,code",
    [
        ({"on_error": "skip"}, "E950"),
        ({"strategy": "redact"}, "E951"),
        ({"batch_size": 0}, "E954"),
    ],
)
def test_bad_options_are_refused(kwargs, code):
    with pytest.raises(ValueError, match=code):
        RecordSanitizer(codes_nlp(), **kwargs)


def test_a_missing_column_and_a_pipeline_without_masker_are_refused():
    with pytest.raises(ValueError, match="E953.*'body'"):
        sanitize_dataframe(pd.DataFrame({"text": ["x"]}), column="body", pipeline=codes_nlp())
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_codes")
    with pytest.raises(ValueError, match="E014"):
        RecordSanitizer(nlp)


def test_a_shipped_pipeline_by_name_with_a_strategy():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = sanitize_dataframe(pd.DataFrame({"text": [TEXTS[0]]}), pipeline="default", strategy="typed")
    assert out["sanitized"][0].startswith("Case [CODE] was lodged by [CODE]")


@pytest.mark.parametrize(
    "extra,code",
    [
        (["--num-workers", "2"], "E958"),  # a Ray option without --engine ray is refused, not ignored
        (["--on-error", "raise"], "E958"),
        (["--output-format", "parquet"], "E958"),
        (["--engine", "ray", "--protect-field", "meta.name"], "E959"),  # not implemented with Ray
        (["--engine", "ray", "--n-process", "2"], "E959"),
        (["--engine", "ray", "--text-field", "doc.body"], "E959"),
        (["--engine", "ray", "--mapping", "map.json"], "E959"),  # the Ray engine writes no mapping: refused
        (["--engine", "ray", "--min-confidence", "0.5"], "E959"),
        (["--engine", "ray", "--manifest", "run.json"], "E959"),
        (["--engine", "ray", "--batch-size", "0"], "E954"),
    ],
)
def test_cli_engine_options_are_checked_before_anything_loads(tmp_path, capsys, extra, code):
    from spacy_sanitize import cli

    source = tmp_path / "in.jsonl"
    source.write_text('{"id": 1, "text": "case 36110/97"}\n', encoding="utf-8")
    assert cli.main(["sanitize", str(source), "-o", str(tmp_path / "out"), *extra]) == 2
    assert code in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("strategy,code", [
    ({"@strategies": "spacy_sanitize.numbered.v1", "across_docs": True}, "E114"),
    ({"@strategies": "spacy_sanitize.surrogate.v1"}, "E115"),
])
def test_a_pooled_worker_fails_closed_on_per_process_state(monkeypatch, strategy, code):
    """One actor of a Ray pool is not a multiprocessing child, so numbered across_docs
    counted from 1 in every actor (two people, one [CODE 1]) and a surrogate key was drawn
    per actor; pooled=True (what sanitize_dataset passes) makes them fail closed."""
    from spacy_sanitize.masker.strategies import keyed

    monkeypatch.setattr(keyed, "_POOLED_WORKER", False)  # restored after the test
    monkeypatch.delenv("SPACY_SANITIZE_SECRET", raising=False)
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_codes")
    nlp.add_pipe("masker", config={"strategy": strategy})
    table = pd.DataFrame({"id": ["a"], "text": [TEXTS[0]]})
    with pytest.raises(RecordError, match=code):
        sanitize_dataframe(table, pipeline=nlp, on_error="raise", pooled=True)


def test_a_record_without_text_is_masked_skipped_or_stops_the_table():
    pa = pytest.importorskip("pyarrow", reason="Arrow tables need the [ray] extra")
    table = pa.table({"id": ["a", "b", "c"], "text": ["Case 36110/97.", None, "Case 1234/05."]})
    with pytest.warns(UserWarning, match="W950"):
        masked = RecordSanitizer(codes_nlp()).sanitize_table(table)
    assert masked.column("error").to_pylist() == [None, "TypeError [E010]", None]
    with pytest.warns(UserWarning, match=r"W951.*'b'"):
        skipped = RecordSanitizer(codes_nlp(), missing_text="skip").sanitize_table(table)
    assert skipped.column("id").to_pylist() == ["a", "c"] and skipped.column("sanitized").to_pylist() == ["Case [CODE 1].", "Case [CODE 1]."]
    with pytest.raises(RecordError, match=r"E960.*'b'"):
        RecordSanitizer(codes_nlp(), missing_text="fail").sanitize_table(table)
    with pytest.raises(ValueError, match="E961"):
        RecordSanitizer(codes_nlp(), missing_text="drop")
