import json
import subprocess
import sys

import pytest

from spacy_sanitize.cli import main

TEXT = "Maya Kodnani was born in Mumbai. Write to maya@example.org about case 36110/97."


def run_cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "spacy_sanitize", *args], input=stdin, capture_output=True, text=True)


def test_txt_file_to_text(tmp_path, capsys):
    source = tmp_path / "note.txt"
    source.write_text(TEXT)
    out = tmp_path / "out.txt"
    assert main(["sanitize", str(source), "-o", str(out), "-q"]) == 0
    sanitized = out.read_text()
    assert "maya@example.org" not in sanitized and "36110/97" not in sanitized and "Kodnani" not in sanitized
    assert sanitized.startswith("[PERSON] was born in [LOC].")


def test_jsonl_output_holds_no_original_by_default(tmp_path):
    """Safe to share: the text fields hold the sanitized text, the spans offsets, label, entity
    id and decision but no original text, and nothing masked is readable anywhere in the line."""
    source = tmp_path / "in.jsonl"
    record = {"id": "a", "doc": {"body": TEXT, "n": 1}, "title": "To: Tom Reyes <tom.reyes@gmail.com>"}
    source.write_text(json.dumps(record) + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["sanitize", str(source), "-o", str(out), "-q", "--text-field", "doc.body", "--text-field", "title"]) == 0
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["doc"] == {"body": row["sanitized"], "n": 1} and row["title"] == row["fields"]["title"]["sanitized"]
    assert all("text" not in span for span in row["spans"] + row["fields"]["title"]["spans"])
    line = out.read_text()
    for secret in ("Kodnani", "Maya", "maya@example.org", "36110/97", "Mumbai", "tom.reyes", "Reyes"):
        assert secret not in line, secret
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text(TEXT)
    assert main(["sanitize", str(folder), "-o", str(out), "-q"]) == 0
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["text"] == row["sanitized"] and "Kodnani" not in out.read_text()


def test_jsonl_to_jsonl_with_spans(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "a", "text": TEXT, "lang": "en"}) + "\n\n" + json.dumps({"id": "b", "text": ""}) + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["sanitize", str(source), "-o", str(out), "-q", "--keep-original"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["a", "b"]
    first = rows[0]
    # the input record kept whole, in its order, the results added (#19 item 10)
    assert list(first)[:3] == ["id", "text", "lang"] and first["text"] == TEXT and first["lang"] == "en"
    assert "meta" not in first
    spans = {(s["text"], s["label"]) for s in first["spans"]}
    assert ("maya@example.org", "CODE") in spans and ("Maya Kodnani", "PERSON") in spans
    for s in first["spans"]:
        assert TEXT[s["start"] : s["end"]] == s["text"]
    assert rows[1]["sanitized"] == "" and rows[1]["spans"] == []


def test_tab_json_with_submission(tmp_path):
    source = tmp_path / "gold.json"
    source.write_text(json.dumps([{"doc_id": "d1", "text": TEXT, "annotations": {}}]))
    out, sub = tmp_path / "out.jsonl", tmp_path / "sub.json"
    assert main(["sanitize", str(source), "-o", str(out), "--submission", str(sub), "-q"]) == 0
    submission = json.loads(sub.read_text())
    assert [TEXT[s:e] for s, e in submission["d1"]][:2] == ["Maya Kodnani", "Mumbai"]


def test_folder_of_txt(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("Mail anna@example.org.")
    (folder / "b.txt").write_text("Nothing here.")
    out = tmp_path / "out.jsonl"
    assert main(["sanitize", str(folder), "-o", str(out), "-q"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["sanitized"]) for r in rows] == [("a.txt", "Mail [CODE]."), ("b.txt", "Nothing here.")]


def test_stdin_to_stdout():
    result = run_cli("sanitize", "-", stdin="Call +47 22 33 44 55 please.")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Call [CODE] please.\n"


def test_malformed_jsonl_exit_code_and_skip(tmp_path):
    source = tmp_path / "bad.jsonl"
    source.write_text('{"text": "ok anna@example.org"}\n{"text": \n{"no_text": 1}\n')
    result = run_cli("sanitize", str(source), "-q")
    assert result.returncode == 2 and "line 2" in result.stderr and "not valid JSON" in result.stderr
    result = run_cli("sanitize", str(source), "-q", "--skip-bad")
    assert result.returncode == 0 and "skipped 2 bad record(s)" in result.stderr
    assert json.loads(result.stdout)["sanitized"] == "ok [CODE]"


def test_missing_input_and_bad_pipeline(tmp_path):
    result = run_cli("sanitize", str(tmp_path / "nope.txt"))
    assert result.returncode == 2 and "does not exist" in result.stderr
    source = tmp_path / "a.txt"
    source.write_text("x")
    result = run_cli("sanitize", str(source), "--pipeline", "no_such_pipeline_xyz")
    assert result.returncode == 2 and "E022" in result.stderr  # bad usage, as the README says (was 1)


def test_evaluate_predictions_file(tmp_path, capsys):
    text = "Anna Berg met Jonas in Oslo."
    gold = [{"doc_id": "d1", "text": text, "annotations": {"A": {"entity_mentions": [
        {"entity_mention_id": "m1", "start_offset": 0, "end_offset": 9, "entity_type": "PERSON", "identifier_type": "DIRECT", "entity_id": "e1"},
        {"entity_mention_id": "m2", "start_offset": 23, "end_offset": 27, "entity_type": "LOC", "identifier_type": "QUASI", "entity_id": "e2"},
    ]}}}]
    (tmp_path / "gold.json").write_text(json.dumps(gold))
    (tmp_path / "pred.json").write_text(json.dumps({"d1": [[0, 9]]}))
    out = tmp_path / "scores.json"
    assert main(["evaluate", str(tmp_path / "gold.json"), "--predictions", str(tmp_path / "pred.json"), "-o", str(out)]) == 0
    scores = json.loads(out.read_text())["masking"]
    assert scores["P"] == 1.0 and scores["R_all"] == pytest.approx(2 / 3) and scores["R_direct"] == 1.0 and scores["R_quasi"] == 0.0
    assert "| P | P_w |" in capsys.readouterr().out


@pytest.mark.parametrize("command", [[], ["sanitize"], ["evaluate"], ["info"]])
def test_help_for_every_command(command, capsys):
    with pytest.raises(SystemExit) as info:
        main([*command, "--help"])
    assert info.value.code == 0 and "usage:" in capsys.readouterr().out


def test_evaluate_with_frequency_weighting(tmp_path):
    text = "Anna Berg met Jonas in Oslo."
    gold = [{"doc_id": "d1", "text": text, "annotations": {"A": {"entity_mentions": [
        {"entity_mention_id": "m1", "start_offset": 0, "end_offset": 9, "entity_type": "PERSON", "identifier_type": "DIRECT", "entity_id": "e1"},
    ]}}}]
    (tmp_path / "gold.json").write_text(json.dumps(gold))
    (tmp_path / "pred.json").write_text(json.dumps({"d1": [[0, 13]]}))
    out = tmp_path / "scores.json"
    args = ["evaluate", str(tmp_path / "gold.json"), "--predictions", str(tmp_path / "pred.json"), "-o", str(out)]
    assert main([*args, "--weighting", "frequency"]) == 0
    scores = json.loads(out.read_text())["masking"]
    # "met" is a frequent word: it weighs less than the names, so P_w > P = 2/3.
    assert scores["P"] == pytest.approx(2 / 3) and scores["P_w"] > scores["P"] and scores["weighting"] == "frequency"


def test_masker_overrides_are_config_blocks():
    from spacy_sanitize.run.options import masker_overrides

    assert masker_overrides(None, None) == {}
    assert masker_overrides('{"name": "redact", "marker": "[X]"}', "PERSON=numbered") == {
        "components.masker.strategy": {"@strategies": "spacy_sanitize.redact.v1", "marker": "[X]"},
        "components.masker.operators": {"PERSON": {"@strategies": "spacy_sanitize.numbered.v1"}},
    }


def test_strategy_and_operators_options(tmp_path):
    source = tmp_path / "note.txt"
    source.write_text(TEXT)
    out = tmp_path / "out.txt"
    args = ["sanitize", str(source), "-o", str(out), "-q", "--strategy", '{"name": "redact", "marker": "[X]"}', "--operators", "PERSON=numbered"]
    assert main(args) == 0
    assert out.read_text().startswith("[PERSON 1] was born in [X].")


def test_bad_strategy_name_is_a_usage_error():
    result = run_cli("sanitize", "-", "--strategy", "bogus", stdin=TEXT)
    assert result.returncode == 2
    assert "[E100] strategy 'bogus' is not registered" in result.stderr and "spacy_sanitize.typed.v1" in result.stderr


def test_info_lists_strategies(capsys):
    assert main(["info"]) == 0
    listed = json.loads(capsys.readouterr().out)["strategies"]
    for kind in ("redact", "typed", "numbered", "surrogate", "generalize", "custom"):
        assert f"spacy_sanitize.{kind}.v1" in listed


def test_info_lists_every_factory_and_version(capsys):
    """Every factory the package declares, also those no import has registered yet
    (pii_propn, pii_extend, risk_stack were missing); --version names the package."""
    import configparser
    from pathlib import Path

    assert main(["info"]) == 0
    listed = set(json.loads(capsys.readouterr().out)["factories"])
    setup = configparser.ConfigParser()
    setup.read(Path(__file__).resolve().parents[1] / "setup.cfg")
    declared = {line.split("=")[0].strip() for line in setup["options.entry_points"]["spacy_factories"].strip().splitlines()}
    assert declared <= listed and {"pii_propn", "pii_extend", "risk_stack"} <= listed
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0 and capsys.readouterr().out.startswith("spacy-sanitize ")


def test_bad_input_leaves_an_existing_output_file_as_it_was(tmp_path):
    """An empty folder (E015) used to truncate the output file to 0 bytes before failing."""
    (tmp_path / "empty").mkdir()
    keep = tmp_path / "keep.jsonl"
    keep.write_text('{"id": "old"}\n')
    assert main(["sanitize", str(tmp_path / "empty"), "-o", str(keep), "-q"]) == 2
    assert keep.read_text() == '{"id": "old"}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "keep.jsonl"]  # no temporary file left


def test_a_failure_halfway_leaves_the_old_output(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "a", "text": TEXT}) + "\n{not json\n")
    out = tmp_path / "out.jsonl"
    out.write_text("previous run\n")
    assert main(["sanitize", str(source), "-o", str(out), "-q"]) == 2
    assert out.read_text() == "previous run\n"
    assert main(["sanitize", str(source), "-o", str(out), "-q", "--skip-bad"]) == 0
    assert json.loads(out.read_text().splitlines()[0])["id"] == "a"


def test_output_over_the_input_is_refused(tmp_path):
    """`sanitize f.txt -o f.txt` emptied the input (exit 0, 0-byte file)."""
    source = tmp_path / "note.txt"
    source.write_text(TEXT)
    assert main(["sanitize", str(source), "-o", str(source), "-q"]) == 2
    assert source.read_text() == TEXT
    assert main(["sanitize", str(source), "-o", str(tmp_path / "." / "note.txt"), "-q"]) == 2
    assert source.read_text() == TEXT


def test_skipped_lines_are_counted_per_run_and_named(tmp_path, capsys):
    """The skip counter was a global on read_records: a second run in the same process (an
    app, the test suite, the silver builder after the CLI) reported the first run's lines too."""
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "a", "text": TEXT}) + "\n{not json\n[1]\n")
    for _ in range(2):
        assert main(["sanitize", str(source), "-o", str(tmp_path / "out.jsonl"), "-q", "--skip-bad"]) == 0
        assert "skipped 2 bad record(s)" in capsys.readouterr().err
    from spacy_sanitize.io import read_records

    lines = []
    assert [r.id for r in read_records(str(source), skip_bad=True, skipped=lines)] == ["a"]
    assert lines == [2, 3]


def test_unknown_pipeline_is_bad_usage_with_a_suggestion(tmp_path, capsys):
    """An unknown --pipeline exited 1 with spaCy's E050 and no hint; it is bad usage (2)."""
    source = tmp_path / "note.txt"
    source.write_text(TEXT)
    assert main(["sanitize", str(source), "--pipeline", "risk-seq", "-q"]) == 2
    err = capsys.readouterr().err
    assert "E022" in err and "Did you mean 'risk_seq'?" in err and "default" in err
    assert main(["sanitize", str(source), "--pipeline", "zzz", "-q"]) == 2
    assert "Did you mean" not in capsys.readouterr().err


@pytest.mark.parametrize("where", ["before", "after"])
def test_verbose_works_before_and_after_the_subcommand(tmp_path, where):
    source = tmp_path / "a.txt"
    source.write_text("Anna Berg lives in Oslo.", encoding="utf-8")
    args = ["sanitize", str(source), "-q", "-o", str(tmp_path / "out.txt")]
    assert main(["-v", *args] if where == "before" else [*args, "-v"]) == 0  # after: exit 2 before
    assert "Anna" not in (tmp_path / "out.txt").read_text(encoding="utf-8")


def test_warnings_and_verbose_log_read_cleanly(tmp_path):
    """A warning prints as 'warning: [Wxxx] ...' without a source path or code line, and -v
    prints each log line once (spaCy's own handler used to print it a second time)."""
    source = tmp_path / "in.txt"
    source.write_text("Sarah Lin wrote.\n")
    result = subprocess.run([sys.executable, "-m", "spacy_sanitize", "-v", "sanitize", str(source), "--min-confidence", "0.5"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert any(line.startswith("warning: [W040]") for line in lines)
    assert not [line for line in lines if ".py:" in line or line.startswith("  ")]
    logged = [line for line in lines if "Finished initializing nlp object" in line]
    assert len(logged) == 1
