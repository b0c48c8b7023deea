"""`spacy-sanitize attack` names a missing input as missing (issue #19 small findings)."""
import json
from pathlib import Path

import pytest

from spacy_sanitize.cli import main


@pytest.fixture
def labelled(tmp_path: Path) -> Path:
    path = tmp_path / "texts.jsonl"
    path.write_text(json.dumps({"text": "Anna Berg v. Norway", "meta": {"countries": "NO"}}) + "\n", encoding="utf8")
    return path


@pytest.mark.parametrize("flag", [None, "--extra-train", "--gold"])
def test_missing_attack_input_is_bad_input_not_a_missing_attacker(tmp_path: Path, labelled: Path, flag, capsys) -> None:
    missing = tmp_path / "nope.jsonl"
    argv = ["attack", str(missing)] if flag is None else ["attack", str(labelled), flag, str(missing)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "E120" in err and str(missing) in err and "does not exist" in err
    assert "train an attacker" not in err  # E605's advice is for a missing attacker directory
