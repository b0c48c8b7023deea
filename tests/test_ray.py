"""sanitize_dataset on a local Ray instance (#16): the same output as the one-process CLI,
byte for byte, on court and biography texts; failed records are kept. Few, small runs: each
starts actors that load the pipeline."""
import json
import os

import pytest

import spacy_sanitize  # noqa: F401
from spacy_sanitize import cli
from spacy_sanitize.batch import FAILED_TEXT, sanitize_dataset
from spacy_sanitize.masker.strategies.keyed import DEFAULT_SECRET_ENV

from . import ray_components
from .conftest import CODES_CONFIG, data_file

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'spacy-sanitize[ray]' to run the Ray tests")
ray_data = pytest.importorskip("ray.data", reason="Ray Data is not installed: pip install 'spacy-sanitize[ray]'")

SECRET = "test-secret-for-the-ray-workers"
N_EACH = 2  # court and biography texts each


@pytest.fixture(scope="module")
def local_ray():
    # the workers inherit the driver's environment when ray.init starts the local
    # instance: that is how the surrogate secret reaches them (docs/scale-out.md)
    previous = os.environ.get(DEFAULT_SECRET_ENV)
    os.environ[DEFAULT_SECRET_ENV] = SECRET
    # the hook registers the test components in every worker, shipped by value: the
    # workers cannot import the tests package
    ray.cloudpickle.register_pickle_by_value(ray_components)
    hook = {"worker_process_setup_hook": ray_components.register}
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env=hook)
    ray_data.DataContext.get_current().enable_progress_bars = False
    try:
        yield
    finally:
        ray.shutdown()
        if previous is None:
            del os.environ[DEFAULT_SECRET_ENV]
        else:
            os.environ[DEFAULT_SECRET_ENV] = previous


@pytest.fixture(scope="module")
def sample():
    court = [json.loads(line) for line in data_file("tab", "tab_dev_texts.jsonl").read_text(encoding="utf-8").splitlines()[:N_EACH]]
    wiki = json.loads(data_file("wiki", "wiki_dev.json").read_text(encoding="utf-8"))[:N_EACH]
    return [{"id": doc["doc_id"], "text": doc["text"]} for doc in court + wiki]


def local_run(tmp_path, records, strategy):
    """The reference: the one-process CLI (``--engine local``) on the same records."""
    source, target = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert cli.main(["sanitize", str(source), "-o", str(target), "--strategy", strategy, "-q"]) == 0
    rows = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    return {row["id"]: row for row in rows}


def comparable(row):
    """A Ray output row as the CLI writes it without --keep-original (spans without their
    text, ``why`` an object, replacement rows as lists)."""
    spans = [{**{k: v for k, v in span.items() if k != "text"}, "risk": dict(span["risk"]), "why": json.loads(span["why"])} for span in row["spans"]]
    replacements = [
        [r["start"], r["end"], r["label"], r["entity_id"], r["replacement"], r["out_start"], r["out_end"]] for r in row["replacements"]
    ]
    return {"sanitized": row["sanitized"], "spans": spans, "replacements": replacements}


# W102: a surrogate that would give a date back is replaced by its type (local and Ray alike)
@pytest.mark.filterwarnings("ignore:\\[W102\\]:UserWarning")
# typed and numbered in the default suite; surrogate and pseudonym (8 s each: a Ray start) with -m slow
@pytest.mark.parametrize("strategy", ["typed", "numbered", pytest.param("surrogate", marks=pytest.mark.slow),
                                      pytest.param("pseudonym", marks=pytest.mark.slow)])
def test_two_workers_give_the_one_process_output(local_ray, sample, tmp_path, monkeypatch, strategy):
    monkeypatch.setenv(DEFAULT_SECRET_ENV, SECRET)
    expected = local_run(tmp_path, sample, strategy)
    # batches of one record over two actors: records land on both workers
    ds = sanitize_dataset(ray_data.from_items(sample + [{"id": "no-text", "text": None}]), strategy=strategy, num_workers=2, batch_size=1)
    rows = {row["id"]: row for row in ds.take_all()}
    assert sorted(rows) == sorted([r["id"] for r in sample] + ["no-text"])  # nothing lost, nothing twice
    for record in sample:
        want = expected[record["id"]]
        want_comparable = {"sanitized": want["sanitized"], "spans": want["spans"], "replacements": want["replacements"]}
        assert comparable(rows[record["id"]]) == want_comparable, record["id"]
        # keep_original (the default of the Python API): each span keeps its text
        assert [span["text"] for span in rows[record["id"]]["spans"]] == [record["text"][span["start"]:span["end"]] for span in want["spans"]]
        assert rows[record["id"]]["error"] is None
        assert rows[record["id"]]["text"] == record["text"]
    failed = rows["no-text"]
    assert (failed["sanitized"], failed["error"], list(failed["spans"])) == (FAILED_TEXT, "TypeError [E010]", [])


def test_on_error_raise_stops_the_run_with_the_record_id(local_ray, tmp_path):
    config = tmp_path / "codes.cfg"
    config.write_text(CODES_CONFIG, encoding="utf-8")
    ds = ray_data.from_items([{"id": "r1", "text": "case 36110/97"}, {"id": "r2", "text": None}])
    with pytest.raises(Exception, match=r"E952.*'r2'"):
        sanitize_dataset(ds, pipeline=str(config), on_error="raise").take_all()



def test_cli_engine_ray_writes_the_local_engines_records(local_ray, tmp_path):
    config = tmp_path / "codes.cfg"
    config.write_text(CODES_CONFIG, encoding="utf-8")
    folder = tmp_path / "in"
    folder.mkdir()
    records = [{"id": f"r{i}", "text": f"Case {36110 + i}/97, mail a{i}@example.org.", "meta": {"n": i}} for i in range(6)]
    for part in range(2):
        (folder / f"part{part}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records[part::2]), encoding="utf-8")
    local = tmp_path / "local.jsonl"
    assert cli.main(["sanitize", str(folder / "part0.jsonl"), "-o", str(local), "-p", str(config), "-q"]) == 0
    out = tmp_path / "out"
    argv = ["sanitize", str(folder), "-o", str(out), "-p", str(config), "--engine", "ray", "--num-workers", "2", "--batch-size", "2", "-q"]
    assert cli.main(argv) == 0
    rows = {}
    for shard in sorted(out.glob("*.jsonl")):
        for line in shard.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            rows[row["id"]] = row
    assert sorted(rows) == [r["id"] for r in records]
    for want in map(json.loads, local.read_text(encoding="utf-8").splitlines()):
        got = rows[want["id"]]
        assert got.pop("error") is None
        got["replacements"] = [list(r.values()) for r in got["replacements"]]
        assert got == want  # one record type: the same fields and values as the local engine's
    assert cli.main(argv) == 2  # a second run into the same (now full) folder is refused


@pytest.mark.slow  # a second Ray start (about 12 s); the JSONL run above covers the engine in the default suite
def test_cli_engine_ray_reads_and_writes_parquet(local_ray, tmp_path):
    config = tmp_path / "codes.cfg"
    config.write_text(CODES_CONFIG, encoding="utf-8")
    records = [{"id": f"r{i}", "text": f"Case {36110 + i}/97, mail a{i}@example.org."} for i in range(6)]
    local = tmp_path / "local.jsonl"
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert cli.main(["sanitize", str(tmp_path / "in.jsonl"), "-o", str(local), "-p", str(config), "-q"]) == 0
    rows = {row["id"]: row for row in map(json.loads, local.read_text(encoding="utf-8").splitlines())}
    # Parquet in, Parquet out
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.Table.from_pylist([{"id": r["id"], "text": r["text"]} for r in records]), str(tmp_path / "in.parquet"))
    assert cli.main(["sanitize", str(tmp_path / "in.parquet"), "-o", str(tmp_path / "pq"), "-p", str(config), "--engine", "ray", "-q"]) == 0
    table = pq.read_table(str(tmp_path / "pq"))
    assert sorted(table.column("sanitized").to_pylist()) == sorted(r["sanitized"] for r in rows.values())


def test_a_killed_actor_loses_and_duplicates_nothing(local_ray, tmp_path):
    """The actor processing "DIE:..." exits mid-batch (os._exit, as the OOM killer would
    end it); Ray restarts it and reruns the batch: every record comes out once."""
    config = tmp_path / "die.cfg"
    config.write_text(CODES_CONFIG.replace('pipeline = ["pii_codes", "masker"]', 'pipeline = ["test_die_once", "pii_codes", "masker"]')
                      .replace("[components.pii_codes]", '[components.test_die_once]\nfactory = "test_die_once"\n\n[components.pii_codes]'), encoding="utf-8")
    marker = tmp_path / "died"
    records = [{"id": f"r{i}", "text": f"case {36110 + i}/97"} for i in range(6)]
    records[3]["text"] = f"DIE:{marker} case 99999/97"
    rows = sanitize_dataset(ray_data.from_items(records), pipeline=str(config), num_workers=1, batch_size=1).take_all()
    assert marker.exists()  # the actor did die
    assert sorted(row["id"] for row in rows) == [r["id"] for r in records]
    assert all(row["error"] is None for row in rows)
    died = next(row for row in rows if row["id"] == "r3")
    assert "99999/97" not in died["sanitized"] and died["sanitized"].endswith("case [CODE]")


def test_jsonl_sink_writes_null_for_nan():
    """A field only some records have comes back as NaN from pandas batches: the JSON line
    holds null, never a bare NaN (invalid JSON)."""
    from spacy_sanitize.cli.ray import json_safe

    row = {"id": 1, "extra": float("nan"), "nested": {"x": [1.0, float("inf")]}, "text": "ok"}
    line = json.dumps(json_safe(row), allow_nan=False)
    assert json.loads(line) == {"id": 1, "extra": None, "nested": {"x": [1.0, None]}, "text": "ok"}


def test_cli_engine_ray_stops_on_a_record_without_text_or_skips_it(local_ray, tmp_path, capsys):
    """A record without the text field was masked with an error and the run exited 0; it now
    stops the run (exit 2, the record named) or, with --skip-bad, is left out and counted."""
    config = tmp_path / "codes.cfg"
    config.write_text(CODES_CONFIG, encoding="utf-8")
    source = tmp_path / "in.jsonl"
    records = [{"id": "r0", "text": "Case 36110/97."}, {"id": "r1", "body": "no text field"}, {"id": "r2", "text": "mail a@example.org"}]
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    argv = ["sanitize", str(source), "-p", str(config), "--engine", "ray", "-q"]
    assert cli.main([*argv, "-o", str(tmp_path / "stopped")]) == 2
    assert "[E960]" in capsys.readouterr().err
    assert cli.main([*argv, "-o", str(tmp_path / "skipped"), "--skip-bad"]) == 0
    rows = [json.loads(line) for shard in sorted((tmp_path / "skipped").glob("*.jsonl")) for line in shard.read_text(encoding="utf-8").splitlines()]
    assert sorted(row["id"] for row in rows) == ["r0", "r2"]
    assert all("36110/97" not in row["sanitized"] and "a@example.org" not in row["sanitized"] for row in rows)
