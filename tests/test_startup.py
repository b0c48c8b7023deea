"""Start-up: the CLI with a shipped pipeline imports no torch, transformers, sklearn or scipy."""
import subprocess
import sys

import pytest

from spacy_sanitize._startup import shipped_only

HEAVY = ("torch", "transformers", "sklearn", "scipy")


def run_python(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip().splitlines()[-1]


def test_cli_default_pipeline_imports_no_heavy_library(tmp_path):
    """thinc imported torch with spaCy (1.2 s of the 3.4 s start-up) and risk_infer scipy,
    although the default pipeline needs neither."""
    source = tmp_path / "one_line.txt"
    source.write_text("Maya Kodnani was born in Mumbai.\n")
    code = (
        "import sys; sys.argv = ['spacy-sanitize', 'sanitize', %r, '-o', %r, '-q'];"
        "from spacy_sanitize.cli import main; assert main(sys.argv[1:]) == 0;"
        "print(sorted(m for m in %r if m in sys.modules))"
    ) % (str(source), str(tmp_path / "out.txt"), HEAVY)
    assert run_python(code) == "[]"
    assert (tmp_path / "out.txt").read_text() == "[PERSON] was born in [LOC].\n"


def test_a_library_process_keeps_thincs_torch():
    """Importing the package from a program changes nothing: thinc still sees torch (a
    spacy-transformers pipeline in the same process needs it)."""
    pytest.importorskip("torch")
    assert run_python("import spacy_sanitize, thinc.compat; print(thinc.compat.has_torch)") == "True"


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["sanitize", "in.txt"], True),
        (["-v", "sanitize", "in.txt", "-p", "accurate"], True),
        (["evaluate", "gold.json", "--pipeline=vote"], True),
        (["sanitize", "in.txt", "-p", "my_pipeline_dir"], False),
        (["sanitize", "in.txt", "-p", "configs/default"], False),
        (["train-pii-ner"], False),
        ([], False),
    ],
)
def test_shipped_only(argv, expected):
    assert shipped_only(argv) is expected


def test_the_cli_finds_wordfreqs_data_without_reading_the_stack(tmp_path):
    """wordfreq's data folder is where its own file is, found from the caller's frame only
    (locate.this_dir read every frame's source: 0.1 s of a start-up); frequencies unchanged.
    A library process keeps locate as it is."""
    code = (
        "import sys; sys.argv = ['spacy-sanitize', 'sanitize', 'x.txt'];"
        "import spacy_sanitize, locate, wordfreq, wordfreq.util;"
        "from pathlib import Path;"
        "assert wordfreq.util.data_path() == Path(wordfreq.__file__).resolve().parent / 'data', wordfreq.util.data_path();"
        "print(locate.this_dir.__module__, wordfreq.zipf_frequency('house', 'en'))"
    )
    patched = run_python(code)
    plain = run_python("import spacy_sanitize, locate, wordfreq; print(locate.this_dir.__module__, wordfreq.zipf_frequency('house', 'en'))")
    assert patched.split()[0] == "spacy_sanitize._startup" and plain.split()[0] != "spacy_sanitize._startup"
    assert patched.split()[1] == plain.split()[1]
