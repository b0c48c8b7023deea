"""Keyed pseudonyms that hold across processes and runs, and the encrypted mapping (#19.3)."""
import importlib.util
import json
import os
import re
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import spacy
from spacy.language import Language

from spacy_sanitize.cli import main
from spacy_sanitize.masker import build_mapping, load_mapping, restore, save_mapping
from spacy_sanitize.masker.strategies.pseudonym import normalise
from spacy_sanitize.pipeline import sanitize_pieces
from .conftest import rules_config

ROOT = Path(__file__).resolve().parent.parent
SECRET = "k3yed-Pseudonym-Secret-Qx7"  # must never reach an output or a log
MAPPING_KEY = "Mapping-Key-Zr9-Wv2"
PSEUDONYM = re.compile(r"\[PERSON ([0-9a-f]{8})\]")
# encryption is the [crypto] extra (.ci/run installs it)
needs_crypto = pytest.mark.skipif(importlib.util.find_spec("cryptography") is None, reason="needs spacy-sanitize[crypto]")
TEXTS = ["Per Aasen wrote.", "Per Aasen called again.", "Kari Nordmann wrote.", "Kari Nordmann called again."]

RULES_CFG = rules_config("spacy_sanitize.pseudonym.v1", ["Per Aasen", "Kari Nordmann", "Aasen"])


@Language.component("test_record_pid")
def record_pid(doc):
    doc.user_data["pid"] = os.getpid()
    return doc


def person_nlp(strategy):
    nlp = spacy.blank("en")
    nlp.add_pipe("test_record_pid")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns([{"label": "PERSON", "pattern": name} for name in ("Per Aasen", "Kari Nordmann", "Aasen")])
    nlp.add_pipe("pii_ent_mapper")
    nlp.add_pipe("pii_coref")
    nlp.add_pipe("masker", config={"strategy": strategy})
    return nlp


def ids(texts):
    return [PSEUDONYM.findall(text) for text in texts]


def test_pseudonym_same_entity_same_id_different_entities_differ(monkeypatch):
    monkeypatch.setenv("SPACY_SANITIZE_SECRET", SECRET)
    first = [doc._.sanitized for doc in person_nlp({"@strategies": "spacy_sanitize.pseudonym.v1"}).pipe(TEXTS)]
    # a second pipeline (a second run) with the same secret agrees; nothing is counted
    second = [doc._.sanitized for doc in person_nlp({"@strategies": "spacy_sanitize.pseudonym.v1"}).pipe(TEXTS[::-1])][::-1]
    assert first == second
    (a1,), (a2,), (k1,), (k2,) = ids(first)
    assert a1 == a2 and k1 == k2 and a1 != k1
    assert first[0] == f"[PERSON {a1}] wrote."
    monkeypatch.setenv("SPACY_SANITIZE_SECRET", SECRET + "x")  # another secret, other ids
    other = [doc._.sanitized for doc in person_nlp({"@strategies": "spacy_sanitize.pseudonym.v1"}).pipe(TEXTS)]
    assert ids(other)[0] != [a1]


@pytest.mark.parametrize("a,b,label", [
    ("Per Aasen", "PER  AASEN", "PERSON"), ("Mr Per Aasen", "Per Aasen's", "PERSON"), ("Dr. Per Aasen", "per aasen", "PERSON"),
    ("the University of Oslo", "University of Oslo", "ORG"), ("Ｏｓｌｏ", "Oslo", "LOC"),
])
def test_normalise_merges_forms_of_one_entity(a, b, label):
    assert normalise(label, a) == normalise(label, b)


def test_normalise_keeps_different_entities_apart():
    assert normalise("PERSON", "Per Aasen") != normalise("PERSON", "Aasen")
    assert normalise("PERSON", "Mr") == "mr"  # a title alone is not dropped to nothing


def test_pseudonym_config_errors_and_no_secret_warning(monkeypatch):
    from spacy_sanitize.masker.options import build_strategy

    for cfg, match in [
        ({"template": "[{label}]"}, "needs '{id}'"), ({"id_length": 4}, "6 to 32"), ({"id_length": 33}, "6 to 32"),
        ({"secret": "inline"}, "E106"),
    ]:
        with pytest.raises(ValueError, match=re.escape(match) if "{" in match else match):
            build_strategy({"@strategies": "spacy_sanitize.pseudonym.v1", **cfg})
    monkeypatch.delenv("SPACY_SANITIZE_SECRET", raising=False)
    nlp = person_nlp({"@strategies": "spacy_sanitize.pseudonym.v1", "id_length": 12, "template": "<{id}>"})
    with pytest.warns(UserWarning, match="W104"):
        out = [doc._.sanitized for doc in nlp.pipe(TEXTS[:2])]
    assert re.fullmatch(r"<[0-9a-f]{12}> wrote\.", out[0]) and out[0][:14] == out[1][:14]


def test_pseudonym_collision_is_warned():
    from spacy_sanitize.masker.strategies.pseudonym import make_pseudonym

    strategy = make_pseudonym(id_length=6)
    strategy.set_secret(SECRET)
    seen = {}
    with pytest.warns(UserWarning, match=r"W105.*CODE.*6 hex digits"):
        for i in range(200_000):  # 24-bit ids: a collision is expected after ~5,000 entities
            short = strategy.pseudonym_id("CODE", f"code {i}")
            if short in seen:
                break
            seen[short] = i
    assert short in seen and len(seen) < 200_000


def test_pseudonym_holds_across_the_pieces_of_a_record(monkeypatch):
    monkeypatch.setenv("SPACY_SANITIZE_SECRET", SECRET)
    nlp = person_nlp({"@strategies": "spacy_sanitize.pseudonym.v1"})
    long_text = "Per Aasen wrote. " + "Nothing else happened that day. " * 60 + "Aasen left."
    pieces = list(sanitize_pieces(nlp, [long_text, "Per Aasen wrote."], max_chars=1000))
    assert len(pieces) == 3
    found = [PSEUDONYM.findall(p.doc._.sanitized) for p in pieces]
    # the later piece names only "Aasen": the record's entity, so the record's id
    assert found[0] == found[1] == found[2] and len(found[0]) == 1


def test_pipe_two_processes_same_entity_same_pseudonym(monkeypatch):
    """Two workers: the same person in documents of different workers gets the same id,
    different people different ids (numbered.v1 across_docs gave both [PERSON 1])."""
    monkeypatch.setenv("SPACY_SANITIZE_SECRET", SECRET)
    nlp = person_nlp({"@strategies": "spacy_sanitize.pseudonym.v1"})
    docs = list(nlp.pipe(TEXTS, n_process=2, batch_size=1))
    assert docs[0].user_data["pid"] != docs[1].user_data["pid"]  # Per Aasen in both workers
    (a1,), (a2,), (k1,), (k2,) = ids([doc._.sanitized for doc in docs])
    assert a1 == a2 and k1 == k2 and a1 != k1
    assert [doc._.sanitized for doc in docs] == [doc._.sanitized for doc in nlp.pipe(TEXTS)]


def test_pipe_two_processes_set_secret_reaches_the_workers(monkeypatch):
    monkeypatch.delenv("SPACY_SANITIZE_SECRET", raising=False)
    nlp = person_nlp({"@strategies": "spacy_sanitize.pseudonym.v1"})
    nlp.get_pipe("masker").set_secret(SECRET)
    parallel = [doc._.sanitized for doc in nlp.pipe(TEXTS, n_process=2, batch_size=1)]
    assert parallel == [doc._.sanitized for doc in nlp.pipe(TEXTS)]


@pytest.mark.parametrize("strategy,code", [
    ({"@strategies": "spacy_sanitize.numbered.v1", "across_docs": True}, "E114"),
    ({"@strategies": "spacy_sanitize.pseudonym.v1"}, "E115"),
    ({"@strategies": "spacy_sanitize.surrogate.v1"}, "E115"),
])
def test_pipe_two_processes_fail_closed_without_a_shared_key(monkeypatch, strategy, code):
    """Per-process counters (numbered across_docs) and one-time secrets (no secret set)
    silently gave different people the same placeholder, or one person two, across workers."""
    monkeypatch.delenv("SPACY_SANITIZE_SECRET", raising=False)
    nlp = person_nlp(strategy)
    with pytest.raises(ValueError, match=code):
        list(nlp.pipe(TEXTS, n_process=2, batch_size=1))


def test_numbered_across_docs_still_counts_in_one_process():
    nlp = person_nlp({"@strategies": "spacy_sanitize.numbered.v1", "across_docs": True})
    assert [doc._.sanitized for doc in nlp.pipe(TEXTS)][::2] == ["[PERSON 1] wrote.", "[PERSON 2] wrote."]


def _cli_env(**extra):
    env = {k: v for k, v in os.environ.items() if k != "SPACY_SANITIZE_SECRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return {**env, **extra}


def test_cli_runs_and_processes_agree(tmp_path, monkeypatch, capsys):
    """--n-process 2 and two separate runs (one in another interpreter) give one person one
    pseudonym and two people two."""
    config = tmp_path / "rules.cfg"
    config.write_text(RULES_CFG)
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"id": str(i), "text": text}) + "\n" for i, text in enumerate(TEXTS)))
    monkeypatch.setenv("SPACY_SANITIZE_SECRET", SECRET)
    out = tmp_path / "out.jsonl"
    assert main(["sanitize", str(source), "-o", str(out), "-q", "-p", str(config), "--n-process", "2"]) == 0
    first = [json.loads(line)["sanitized"] for line in out.read_text().splitlines()]
    (a1,), (a2,), (k1,), (k2,) = ids(first)
    assert a1 == a2 and k1 == k2 and a1 != k1
    only_kari = tmp_path / "kari.txt"
    only_kari.write_text("Kari Nordmann and Per Aasen met.")
    run = subprocess.run(
        [sys.executable, "-m", "spacy_sanitize", "sanitize", str(only_kari), "-q", "-p", str(config), "-v"],
        capture_output=True, text=True, timeout=300, env=_cli_env(SPACY_SANITIZE_SECRET=SECRET), cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout == f"[PERSON {k1}] and [PERSON {a1}] met.\n"
    assert SECRET not in run.stdout + run.stderr + out.read_text() + capsys.readouterr().err


def _sanitize_with_mapping(tmp_path, monkeypatch, *key_args, fmt="jsonl"):
    config = tmp_path / "rules.cfg"
    config.write_text(RULES_CFG)
    monkeypatch.setenv("SPACY_SANITIZE_SECRET", SECRET)
    monkeypatch.setenv("TEST_MAPPING_KEY", MAPPING_KEY)
    long_text = "Per Aasen wrote. " + "Nothing else happened that day. " * 60 + "Aasen left. Kari Nordmann too."
    if fmt == "jsonl":
        source = tmp_path / "in.jsonl"
        source.write_text("".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate([long_text, *TEXTS])))
        out = tmp_path / "out.jsonl"
    else:
        source = tmp_path / "in.txt"
        source.write_text(long_text)
        out = tmp_path / "out.txt"
    mapping = tmp_path / "mapping.json"
    args = ["sanitize", str(source), "-o", str(out), "-q", "-p", str(config), "--max-chars", "1000", "--mapping", str(mapping), *key_args]
    assert main(args) == 0
    return source, out, mapping


@needs_crypto
@pytest.mark.parametrize("fmt", ["jsonl", "text"])
def test_cli_encrypted_mapping_round_trip(tmp_path, monkeypatch, capsys, fmt):
    source, out, mapping = _sanitize_with_mapping(tmp_path, monkeypatch, "--mapping-key-env", "TEST_MAPPING_KEY", fmt=fmt)
    stored = mapping.read_text()
    assert stat.S_IMODE(mapping.stat().st_mode) == 0o600
    assert json.loads(stored)["format"] == "spacy-sanitize-mapping+fernet"
    assert "Aasen" not in stored and "Nordmann" not in stored and MAPPING_KEY not in stored
    restored = tmp_path / "restored"
    assert main(["restore", str(out), "--mapping", str(mapping), "--mapping-key-env", "TEST_MAPPING_KEY", "-o", str(restored)]) == 0
    if fmt == "jsonl":
        records = [json.loads(line) for line in restored.read_text().splitlines()]
        originals = [json.loads(line)["text"] for line in source.read_text().splitlines()]
        assert [r["restored"] for r in records] == originals
        assert "Aasen" not in records[0]["sanitized"]
    else:
        assert restored.read_text() == source.read_text()
    logs = capsys.readouterr()
    assert MAPPING_KEY not in logs.out + logs.err and SECRET not in logs.out + logs.err + out.read_text()


@needs_crypto
def test_cli_mapping_key_from_a_private_file(tmp_path, monkeypatch, capsys):
    key_file = tmp_path / "mapping.key"
    key_file.write_text(MAPPING_KEY + "\n")
    os.chmod(key_file, 0o600)
    _, out, mapping = _sanitize_with_mapping(tmp_path, monkeypatch, "--mapping-key-file", str(key_file), fmt="text")
    restored = tmp_path / "restored.txt"
    # the same key from the environment opens it too (the trailing newline is not key)
    assert main(["restore", str(out), "--mapping", str(mapping), "--mapping-key-env", "TEST_MAPPING_KEY", "-o", str(restored)]) == 0
    assert "Per Aasen wrote." in restored.read_text()
    os.chmod(key_file, 0o644)
    assert main(["restore", str(out), "--mapping", str(mapping), "--mapping-key-file", str(key_file)]) == 2
    err = capsys.readouterr().err
    assert "E117" in err and "chmod 600" in err and MAPPING_KEY not in err


@needs_crypto
@pytest.mark.parametrize("args,code", [
    (["--mapping-key-env", "TEST_WRONG_KEY"], "E116"),
    ([], "E117"),
    (["--mapping-key-env", "TEST_UNSET_KEY"], "E117"),
])
def test_cli_restore_wrong_or_missing_key_is_a_clear_error(tmp_path, monkeypatch, capsys, args, code):
    _, out, mapping = _sanitize_with_mapping(tmp_path, monkeypatch, "--mapping-key-env", "TEST_MAPPING_KEY")
    monkeypatch.setenv("TEST_WRONG_KEY", MAPPING_KEY + "!")
    monkeypatch.delenv("TEST_UNSET_KEY", raising=False)
    restored = tmp_path / "restored.jsonl"
    assert main(["restore", str(out), "--mapping", str(mapping), "-o", str(restored), *args]) == 2
    err = capsys.readouterr().err
    assert code in err and "Traceback" not in err and MAPPING_KEY not in err
    assert not restored.exists()


def test_cli_key_errors_before_any_work(tmp_path, monkeypatch, capsys):
    source = tmp_path / "in.txt"
    source.write_text("Per Aasen wrote.")
    out = tmp_path / "out.txt"
    monkeypatch.delenv("TEST_UNSET_KEY", raising=False)
    # a key without --mapping would be ignored: refused
    assert main(["sanitize", str(source), "-o", str(out), "-q", "--mapping-key-env", "TEST_UNSET_KEY"]) == 2
    assert "without --mapping" in capsys.readouterr().err
    assert main(["sanitize", str(source), "-o", str(out), "-q", "--mapping", str(tmp_path / "m.json"), "--mapping-key-env", "TEST_UNSET_KEY"]) == 2
    assert "TEST_UNSET_KEY is unset or empty" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "m.json").exists()
    # the mapping written over the input would destroy it
    assert main(["sanitize", str(source), "-o", str(out), "-q", "--mapping", str(source)]) == 2
    assert "E021" in capsys.readouterr().err and source.read_text() == "Per Aasen wrote."


def test_cli_plaintext_mapping_warns_and_restores(tmp_path, monkeypatch):
    with pytest.warns(UserWarning, match="W101.*--mapping-key-env"):
        source, out, mapping = _sanitize_with_mapping(tmp_path, monkeypatch, fmt="text")
    assert "Per Aasen" in mapping.read_text() and stat.S_IMODE(mapping.stat().st_mode) == 0o600
    restored = tmp_path / "restored.txt"
    assert main(["restore", str(out), "--mapping", str(mapping), "-o", str(restored)]) == 0
    assert restored.read_text() == source.read_text()
    assert stat.S_IMODE(restored.stat().st_mode) == 0o600  # the original text: owner only
    # a key given for a plaintext mapping: refused (it may have been swapped in), unless allowed
    assert main(["restore", str(out), "--mapping", str(mapping), "--mapping-key-env", "TEST_MAPPING_KEY", "-o", str(restored)]) == 2
    with pytest.warns(UserWarning, match="W106"):  # not silently dropped either
        assert main(["restore", str(out), "--mapping", str(mapping), "--mapping-key-env", "TEST_MAPPING_KEY", "-o", str(restored),
                     "--allow-plaintext-mapping"]) == 0


@needs_crypto
def test_restore_refuses_a_mapping_of_other_records(tmp_path, monkeypatch, capsys):
    _, out, mapping = _sanitize_with_mapping(tmp_path, monkeypatch, "--mapping-key-env", "TEST_MAPPING_KEY")
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[1:]) + "\n")
    assert main(["restore", str(out), "--mapping", str(mapping), "--mapping-key-env", "TEST_MAPPING_KEY"]) == 2
    assert "E119" in capsys.readouterr().err


@needs_crypto
def test_save_and_load_encrypted_mapping(tmp_path):
    nlp = person_nlp({"@strategies": "spacy_sanitize.numbered.v1"})
    doc = nlp("Per Aasen met Kari Nordmann.")
    path = tmp_path / "mapping.json"
    save_mapping(build_mapping(doc), path, key=b"\x00\xffraw key bytes")
    assert restore(doc._.sanitized, load_mapping(path, key=b"\x00\xffraw key bytes")) == doc.text
    with pytest.raises(ValueError, match="E117"):
        load_mapping(path)
    envelope = json.loads(path.read_text())
    token = envelope["token"]
    envelope["token"] = token[:-6] + ("A" if token[-6] != "A" else "B") + token[-5:]
    path.write_text(json.dumps(envelope))
    with pytest.raises(ValueError, match="E116"):  # an altered file is not decrypted half-way
        load_mapping(path, key=b"\x00\xffraw key bytes")
    for n, r, p in ((2**30, 8, 1), (2**20, 64, 1), (2**20, 8, 16), (2**18, 16, 1)):  # crafted costs (8 GiB, minutes) must not run
        envelope["kdf"].update(n=n, r=r, p=p)
        path.write_text(json.dumps(envelope))
        started = time.perf_counter()
        with pytest.raises(ValueError, match="E116"):
            load_mapping(path, key=b"\x00\xffraw key bytes")
        assert time.perf_counter() - started < 1.0
    with pytest.raises(ValueError, match="E117.*empty"):
        save_mapping(build_mapping(doc), path, key="")


def test_encryption_without_cryptography_says_which_extra(tmp_path, monkeypatch, capsys):
    for module in ("cryptography", "cryptography.fernet", "cryptography.hazmat.primitives.kdf.scrypt"):
        monkeypatch.setitem(sys.modules, module, None)  # as if the [crypto] extra were not installed
    monkeypatch.setenv("TEST_MAPPING_KEY", MAPPING_KEY)
    source = tmp_path / "in.txt"
    source.write_text("Per Aasen wrote.")
    mapping = tmp_path / "m.json"
    assert main(["sanitize", str(source), "-o", str(tmp_path / "out.txt"), "-q", "--mapping", str(mapping), "--mapping-key-env", "TEST_MAPPING_KEY"]) == 2
    err = capsys.readouterr().err
    assert "E118" in err and "spacy-sanitize[crypto]" in err and not mapping.exists()
    with pytest.raises(ValueError, match=r"E118.*spacy-sanitize\[crypto\]"):
        save_mapping({"version": 1, "doc_id": None, "entries": []}, mapping, key=MAPPING_KEY)


@pytest.mark.parametrize("mapping", [
    {"version": 1, "doc_id": "a"},  # no entries
    {"version": 1, "entries": [{"replacement": 5, "out_start": 0, "out_end": 1, "original": "x"}]},  # wrong type
    {"version": 1, "entries": [{"out_start": 0}]},  # an entry without its fields
    {"version": 1, "entries": "not a list"},
])
def test_a_malformed_plaintext_mapping_is_a_clear_error(tmp_path, capsys, mapping):
    """A mapping without `entries` gave a KeyError traceback and wrong types raw TypeErrors (exit 1):
    now E119, exit 2, naming the file (issue #36, Low)."""
    from spacy_sanitize.masker.restore import MAPPING_VERSION

    mapping = {**mapping, "version": MAPPING_VERSION}
    sanitized, path = tmp_path / "s.txt", tmp_path / "m.json"
    sanitized.write_text("[PERSON] wrote.\n")
    path.write_text(json.dumps(mapping))
    assert main(["restore", str(sanitized), "--mapping", str(path), "-o", str(tmp_path / "r.txt")]) == 2
    err = capsys.readouterr().err
    assert "E119" in err and str(path) in err and "Traceback" not in err
    assert not (tmp_path / "r.txt").exists()
