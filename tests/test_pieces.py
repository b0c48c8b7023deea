"""Long texts cut into pieces: masked strings carried forward, safe cuts, a valid piece size."""
import json
import re

import pytest
import spacy

from spacy_sanitize.cli import main
from spacy_sanitize.pipeline import merged_output, sanitize_texts, split_text

FILLER = " It was long." * 80


def kodnani_nlp(**masker_cfg):
    """The ruler knows only the full name: a later "Kodnani" alone is found by no detector."""
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns([{"label": "PERSON", "pattern": "Maya Kodnani"}])
    nlp.add_pipe("pii_ent_mapper")
    nlp.add_pipe("pii_coref")
    nlp.add_pipe("masker", config={"strategy": {"@strategies": "spacy_sanitize.numbered.v1"}, **masker_cfg})
    return nlp


FIRST = "Maya Kodnani was born in a city." + FILLER + "\n\n"
LATER = "Later, Kodnani denied it." + FILLER + "\n\n"


def test_a_name_masked_in_an_earlier_piece_is_masked_where_it_recurs():
    """Each piece was masked on its own: the surname alone, in the second piece, stayed."""
    (_, docs, offsets), = sanitize_texts(kodnani_nlp(), [FIRST + LATER + LATER], max_chars=len(FIRST) + 5)
    assert len(docs) == 3
    sanitized, rows = merged_output(docs, offsets)
    assert "Kodnani" not in sanitized and "Maya" not in sanitized
    assert sanitized.count("[PERSON 1]") == 3  # the record's entity, its number
    assert {row[3] for row in rows} == {"e1"}


def test_nothing_is_carried_when_the_masker_does_not_propagate():
    (_, docs, offsets), = sanitize_texts(kodnani_nlp(propagate=False), [FIRST + LATER], max_chars=len(FIRST) + 5)
    assert len(docs) == 2
    assert merged_output(docs, offsets)[0].count("Kodnani") == 1


def minified_json(max_chars: int) -> str:
    """Records without a space, the ``max_chars``-th character inside an e-mail address."""
    records, i = [], 0
    while True:
        records.append({"id": i, "email": f"maya.kodnani{i}@example.com"})
        text = json.dumps(records, separators=(",", ":"))
        at = text.find("maya.kodnani", max(0, max_chars - 30))
        if 0 <= at < max_chars < at + len(f"maya.kodnani{i}@example.com") and text.endswith("]"):
            return text + "," + json.dumps(records, separators=(",", ":"))
        i += 1


def test_minified_json_is_never_cut_inside_an_email():
    """No whitespace in the run: the cut fell at max_chars, inside an e-mail ("maya.kod")."""
    text = minified_json(1000)
    pieces = split_text(text, 1000)
    assert "".join(piece for _, piece in pieces) == text and len(pieces) > 2
    emails = [m.span() for m in re.finditer(r"[\w.]+@example\.com", text)]
    for offset, piece in pieces[1:]:
        assert not any(start < offset < end for start, end in emails)
        assert text[offset - 1] in ",}]"
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_codes")
    nlp.add_pipe("masker")
    (_, docs, offsets), = sanitize_texts(nlp, [text], max_chars=1000)
    assert "maya" not in merged_output(docs, offsets)[0]


@pytest.mark.parametrize(
    "text,sizes",
    [
        ("a" * 1500 + " rest", [1501, 4]),  # the run ends before the hard cap: its piece grows
        ("x " * 400 + "9" * 800 + " tail", [800, 805]),  # a number is not cut: the cut is before it
        ("12 " * 600, [999, 801]),  # a space between digits ("+33 1 23") is not a cut
    ],
)
def test_runs_are_not_cut_inside(text, sizes):
    assert [len(piece) for _, piece in split_text(text, 1000)] == sizes


def test_a_run_longer_than_the_hard_cap_is_cut_with_a_warning():
    with pytest.warns(UserWarning, match="W013"):
        pieces = split_text("a" * 4500, 1000)
    assert [len(piece) for _, piece in pieces] == [2000, 2000, 500]


@pytest.mark.parametrize("max_chars", [0, -5, 1, 5, 999, 1000.0, True, "2000"])
def test_a_tiny_or_bad_piece_size_is_an_error(max_chars, tmp_path):
    """1 or 5 switched detection off (exit 0); 0 or less looped until memory ran out."""
    with pytest.raises(ValueError, match="E024"):
        split_text("Maya Kodnani. " * 10, max_chars)
    with pytest.raises(ValueError, match="E024"):
        list(sanitize_texts(kodnani_nlp(), ["Maya Kodnani."], max_chars=max_chars))


@pytest.mark.parametrize("value", ["0", "-1", "5"])
def test_cli_rejects_a_tiny_max_chars(value, tmp_path, capsys):
    source = tmp_path / "a.txt"
    source.write_text("Maya Kodnani was born in Mumbai.")
    assert main(["sanitize", str(source), "--max-chars", value, "-q"]) == 2
    assert "E024" in capsys.readouterr().err
