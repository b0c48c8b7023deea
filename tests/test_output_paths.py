"""Output paths are checked before any work (issue #36, #39): `--mapping X -o X` exited 0 and
lost the mapping, `--mapping` onto the manifest was overwritten, an unwritable mapping folder
failed only after the whole run, and `-o` naming a directory ran the whole input first."""
import os

import pytest

from spacy_sanitize.cli import main


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("Anna Berg lives in Oslo.\n", encoding="utf8")
    return path


def _files(folder):
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("mapping,output,error", [("same.txt", "same.txt", "E046"), ("out.txt.manifest.json", "out.txt", "E046"), ("in.txt", "out.txt", "E021")])
def test_a_mapping_path_that_another_file_takes_is_refused_before_any_work(tmp_path, source, capsys, mapping, output, error):
    before = _files(tmp_path)
    code = main(["sanitize", str(source), "-o", str(tmp_path / output), "--mapping", str(tmp_path / mapping), "-q"])
    assert code == 2
    err = capsys.readouterr().err
    assert error in err and mapping in err
    assert _files(tmp_path) == before and source.read_text(encoding="utf8") == "Anna Berg lives in Oslo.\n"


def test_a_mapping_in_a_missing_or_read_only_folder_is_refused_before_any_work(tmp_path, source, capsys):
    assert main(["sanitize", str(source), "-o", str(tmp_path / "o.txt"), "--mapping", str(tmp_path / "nope" / "m.json"), "-q"]) == 2
    assert "E046" in capsys.readouterr().err and not (tmp_path / "o.txt").exists()
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user that writes into read-only folders (root)")
        assert main(["sanitize", str(source), "-o", str(tmp_path / "o.txt"), "--mapping", str(locked / "m.json"), "-q"]) == 2
    finally:
        locked.chmod(0o700)


def test_an_output_that_is_a_directory_is_refused_before_any_work(tmp_path, source, capsys):
    folder = tmp_path / "out"
    folder.mkdir()
    assert main(["sanitize", str(source), "-o", str(folder), "-q"]) == 2
    assert "E046" in capsys.readouterr().err
    assert _files(tmp_path) == ["in.txt", "out"] and _files(folder) == []  # no hidden temporary file either


@pytest.mark.parametrize("flags", [
    ["--manifest", "in.txt"],                           # the manifest would replace the input
    ["--manifest", "out.txt"],                          # ... or the output
    ["--submission", "out.txt"],                        # the submission would replace the output
    ["--submission", "in.txt"],                         # ... or the input
    ["--submission", "m.json", "--manifest", "m.json"],  # or each other
])
def test_a_manifest_or_submission_path_that_another_file_takes_is_refused_before_any_work(tmp_path, source, capsys, flags):
    before = _files(tmp_path)
    flags = [str(tmp_path / f) if not f.startswith("--") else f for f in flags]
    assert main(["sanitize", str(source), "-o", str(tmp_path / "out.txt"), *flags, "-q"]) == 2
    assert "E046" in capsys.readouterr().err
    assert _files(tmp_path) == before and source.read_text(encoding="utf8") == "Anna Berg lives in Oslo.\n"


def test_the_report_with_original_text_is_private(tmp_path, source):
    assert main(["report", str(source), "-o", str(tmp_path / "full.html"), "-q"]) == 0
    assert (tmp_path / "full.html").stat().st_mode & 0o777 == 0o600  # it holds the names it masked
