"""The README's Python examples run as written."""
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def python_block_after(heading: str) -> str:
    text = README.read_text(encoding="utf8")
    start = text.index(heading)
    match = re.search(r"```python\n(.*?)```", text[start:], re.S)
    assert match, f"no python block after {heading!r}"
    return match.group(1)


def test_own_pipeline_example_runs_and_masks(capsys):
    code = python_block_after("In your own pipeline:")
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    nlp = namespace["nlp"]
    assert nlp.pipe_names[-2:] == ["pii_relabel", "masker"]
    printed = capsys.readouterr().out
    assert "Anna" not in printed and "Oslo" not in printed and "[PERSON]" in printed


@pytest.mark.parametrize("heading", ["## What it does"])
def test_quick_start_example_runs(heading, capsys):
    exec(compile(python_block_after(heading), "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "Kodnani" not in out.splitlines()[0] and "Mumbai" not in out.splitlines()[0]
