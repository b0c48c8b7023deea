"""text.zipf: wordfreq's English Zipf values, plain words and logins looked up in wordfreq's own
list without importing wordfreq (start-up), everything else through wordfreq."""
import re
import subprocess
import sys

import pytest

from spacy_sanitize.text import _ONE_TOKEN, _english_zipf, zipf

wordfreq = pytest.importorskip("wordfreq")


def test_every_word_of_the_list_read_directly_has_wordfreqs_value():
    table = _english_zipf()
    assert table is not None  # wordfreq 3 (setup.cfg: wordfreq>=3.0) keeps its English list there
    direct = [word for word in table if _ONE_TOKEN.fullmatch(word)]
    assert len(direct) > 250_000  # the plain words and the ones with inner periods ("e.coli")
    assert [w for w in direct if table[w] != wordfreq.zipf_frequency(w, "en")] == []


@pytest.mark.parametrize("word", [
    "house", "the", "kodnani", "zzqxj", "anna.berg", "h.takeda", "anna_berg", "e.coli", "u.s",  # the table
    "House", "don't", "café", "co-op", "anna-berg", "3pm", "", "a.b.c.d.e",                         # wordfreq
])
def test_zipf_is_wordfreqs(word):
    assert zipf(word) == wordfreq.zipf_frequency(word, "en")


def test_logins_made_from_names_are_looked_up_directly():
    # the forms detect.names.login_forms makes of "Hiroshi Takeda"
    forms = ["htakeda", "takedah", "hiroshitakeda", "hiroshi.takeda", "hiroshi_takeda", "h.takeda"]
    assert all(_ONE_TOKEN.fullmatch(f) for f in forms)
    assert all(zipf(f) == wordfreq.zipf_frequency(f, "en") for f in forms)


def test_a_one_line_file_does_not_import_wordfreq(tmp_path):
    """The CLI on a one-line file reads the list, not the library (0.2 s of start-up)."""
    source = tmp_path / "one_line.txt"
    source.write_text("Anna Berg (anna.berg@example.org) moved to Oslo on 3 May 2020.\n")
    code = (
        "import sys; sys.argv = ['spacy-sanitize', 'sanitize', %r, '-o', %r, '-q'];"
        "from spacy_sanitize.cli import main; assert main(sys.argv[1:]) == 0;"
        "print('wordfreq' in sys.modules)"
    ) % (str(source), str(tmp_path / "out.txt"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "False"
    assert re.fullmatch(r"\[PERSON\] \(\[CODE\]\) moved to \[LOC\] on \[DATETIME\]\.\n", (tmp_path / "out.txt").read_text())


def test_without_the_list_every_word_goes_through_wordfreq(monkeypatch):
    import spacy_sanitize.text as text

    monkeypatch.setattr(text, "_english_zipf", lambda: None)
    assert text.zipf("house") == wordfreq.zipf_frequency("house", "en") > 0
