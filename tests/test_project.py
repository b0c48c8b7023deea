from pathlib import Path

from weasel.util import load_project_config

ROOT = Path(__file__).resolve().parents[1]


def test_project_commands_are_well_formed():
    config = load_project_config(ROOT)
    names = [c["name"] for c in config["commands"]]
    assert len(names) == len(set(names))
    for workflow, steps in config.get("workflows", {}).items():
        assert set(steps) <= set(names), workflow
    for command in config["commands"]:
        for key in ("deps", "outputs"):
            for path in command.get(key, []):
                # Two list items that both start with ${vars...} can be joined by the config
                # interpolation into one "a, b" path that never exists.
                assert ", " not in path, (command["name"], key, path)


def test_only_publish_writes_into_the_package_data():
    """Training commands stage their artefacts under training/; only the explicit maintainer
    step `publish` copies them into spacy_sanitize/data (they rewrote the shipped models)."""
    config = load_project_config(ROOT)
    package_data = "spacy_sanitize/data"
    for command in config["commands"]:
        if command["name"] == "publish":
            assert command["outputs"] == [package_data]
            continue
        written = [*command.get("outputs", []), *command.get("script", [])]
        assert not any(package_data in item for item in written), (command["name"], written)


def test_publish_copies_staged_artefacts(tmp_path):
    import subprocess
    import sys

    staged, data = tmp_path / "staged", tmp_path / "data"
    (staged / "risk_seq").mkdir(parents=True)
    (staged / "risk_seq" / "model.bin").write_bytes(b"new")
    (data / "risk_seq").mkdir(parents=True)
    (data / "risk_seq" / "model.bin").write_bytes(b"old")
    (data / "risk_seq" / "backend.json").write_text("{}")
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "publish_artefacts.py"), str(staged), str(data)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert (data / "risk_seq" / "model.bin").read_bytes() == b"new" and (data / "risk_seq" / "backend.json").exists()


def test_publish_sends_the_torch_weights_to_their_package(tmp_path, monkeypatch):
    """The torch pipelines' weights ship in packages/torch-data: publishing into the package
    data folder puts them there, the rest where they were."""
    from .conftest import load_script

    publish = load_script("scripts", "publish_artefacts.py")
    monkeypatch.setattr(publish, "PACKAGE_DATA", tmp_path / "pkg")
    monkeypatch.setattr(publish, "TORCH_DATA", tmp_path / "torch")
    staged = tmp_path / "staged"
    for artefact in ("risk_seq_trf", "risk_seq"):
        (staged / artefact).mkdir(parents=True)
        (staged / artefact / "model.bin").write_bytes(artefact.encode())
    copied = publish.publish(staged, tmp_path / "pkg")
    assert sorted(p.relative_to(tmp_path).as_posix() for p in copied) == ["pkg/risk_seq/model.bin", "torch/risk_seq_trf/model.bin"]
    # one artefact's folder as the target (training/shipped/risk_seq_trf -> data/risk_seq_trf)
    copied = publish.publish(staged / "risk_seq_trf", tmp_path / "pkg" / "risk_seq_trf")
    assert [p.relative_to(tmp_path).as_posix() for p in copied] == ["torch/risk_seq_trf/model.bin"]
