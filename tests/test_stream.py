"""Long texts in pieces: record-level entities across pieces, streaming output, linear engine."""
import gc
import json
import re
import time

import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_sanitize.cli import main
from spacy_sanitize.text import occurrences
from spacy_sanitize.pipeline import merged_output, sanitize_pieces, sanitize_texts

from .conftest import rules_config


def person_nlp(strategy: str = "spacy_sanitize.numbered.v1", **masker_cfg):
    """Rules only: an entity ruler for the people, pii_ent_mapper, pii_coref, masker."""
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns([
        {"label": "PERSON", "pattern": "Anna Berg"}, {"label": "PERSON", "pattern": "Berg"},
        {"label": "PERSON", "pattern": "Karl Lund"}, {"label": "DATE", "pattern": "3 April 1999"},
    ])
    nlp.add_pipe("pii_ent_mapper")
    nlp.add_pipe("pii_coref")
    nlp.add_pipe("masker", config={"strategy": {"@strategies": strategy}, **masker_cfg})
    return nlp


# pieces are at least MIN_CHUNK_CHARS (1,000) long: the filler makes a text of several
FILLER = " It was long." * 80
FIRST = "Anna Berg wrote the letter on 3 April 1999." + FILLER + "\n\n"
SECOND = "Karl Lund answered. Then Berg wrote again.\n\n"


def test_numbered_placeholders_hold_across_the_pieces_of_a_text():
    """The masker's numbering restarted with each piece: in the second piece Karl Lund
    (met first there) became [PERSON 1], Anna Berg's number."""
    nlp = person_nlp()
    text = FIRST + SECOND
    (_, docs, offsets), = sanitize_texts(nlp, [text], max_chars=len(FIRST) + 5)
    assert len(docs) == 2
    sanitized, rows = merged_output(docs, offsets)
    assert sanitized == (
        "[PERSON 1] wrote the letter on [DATETIME 1]." + FILLER + "\n\n[PERSON 2] answered. Then [PERSON 1] wrote again.\n\n"
    )
    ids = {text[s:e]: entity for s, e, _, entity, *_ in rows}
    assert ids["Anna Berg"] == ids["Berg"] != ids["Karl Lund"]
    # a second text starts its own numbering
    outputs = list(sanitize_texts(nlp, [SECOND, text], max_chars=len(FIRST) + 5))
    assert merged_output(*outputs[0][1:])[0].startswith("[PERSON 1] answered")


def test_surrogate_dates_shift_by_one_offset_across_pieces(monkeypatch):
    monkeypatch.setenv("SPACY_SANITIZE_SECRET", "k")
    nlp = person_nlp("spacy_sanitize.surrogate.v1")
    text = FIRST + FIRST.replace("Anna Berg", "Karl Lund")
    (_, docs, offsets), = sanitize_texts(nlp, [text], max_chars=len(FIRST) + 5)
    assert len(docs) == 2
    dates = [row[4] for row in merged_output(docs, offsets)[1] if row[2] == "DATETIME"]
    assert len(dates) == 2 and dates[0] == dates[1] != "3 April 1999"
    # a text in one piece is masked as the Doc on its own (its date offset keyed on its text)
    assert merged_output(*next(sanitize_texts(nlp, [text]))[1:])[0] == nlp(text)._.sanitized


def test_pieces_stream_in_order_and_hold_no_docs():
    nlp = person_nlp()
    texts = [FIRST * 3, "", SECOND]
    seen = [(p.index, p.offset, p.last) for p in sanitize_pieces(nlp, iter(texts), max_chars=len(FIRST) + 5)]
    assert seen == [(0, 0, False), (0, len(FIRST), False), (0, 2 * len(FIRST), True), (1, 0, True), (2, 0, True)]


def test_cli_text_output_of_a_long_file_in_pieces(tmp_path):
    source = tmp_path / "long.txt"
    text = (FIRST + SECOND) * 30
    source.write_text(text)
    out = tmp_path / "out.txt"
    assert main(["sanitize", str(source), "-o", str(out), "-q", "--max-chars", "2000", "--operators", "PERSON=numbered"]) == 0
    sanitized = out.read_text()
    assert "Berg" not in sanitized and "Lund" not in sanitized
    # one numbering for the whole file, not one per piece
    assert set(re.findall(r"\[PERSON \d+\]", sanitized)) == {"[PERSON 1]", "[PERSON 2]"}
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_text(json.dumps({"id": "r", "text": text}) + "\n")
    assert main(["sanitize", str(jsonl), "-o", str(out), "-q", "--max-chars", "2000", "--operators", "PERSON=numbered", "--keep-original"]) == 0
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["text"] == text and record["sanitized"] == sanitized
    for start, end, _, _, replacement, out_start, out_end in record["replacements"]:
        assert record["sanitized"][out_start:out_end] == replacement
    assert all(text[s["start"] : s["end"]] == s["text"] for s in record["spans"])


def test_n_process_must_be_positive(tmp_path, capsys):
    source = tmp_path / "a.txt"
    source.write_text("x")
    assert main(["sanitize", str(source), "--n-process", "0", "-q"]) == 2
    assert "E023" in capsys.readouterr().err


def _reference_occurrences(text, strings, overlapping):
    """The engine's specification: a regex scan per string (the old implementation)."""
    strings = list(dict.fromkeys(s for s in strings if s))
    if not overlapping:
        unique = sorted(set(strings), key=len, reverse=True)
        if not unique:
            return []
        pattern = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, unique)) + r")(?!\w)")
        return [(m.start(), m.end(), m.group(0)) for m in pattern.finditer(text)]
    found = []
    for string in strings:
        found += [(m.start(), m.end(), string) for m in re.finditer(r"(?<!\w)" + re.escape(string) + r"(?!\w)", text)]
    return sorted(found, key=lambda item: (item[0], item[1]))


WORDS = st.sampled_from(["a", "ab", "Mr", "Berg", "Anna", "-", ".", "'s", "é", "x_y", "(", " ", "\n", "1", "A.B"])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(WORDS, max_size=40).map("".join),
    st.lists(st.lists(WORDS, min_size=1, max_size=4).map("".join), max_size=6),
    st.booleans(),
)
def test_occurrences_match_a_regex_per_string(text, strings, overlapping):
    assert occurrences(text, strings, overlapping) == _reference_occurrences(text, strings, overlapping)


def test_occurrences_time_is_linear_in_the_text():
    """One regex scan per string made pii_coref quadratic: a document twice as long has
    about twice the distinct names. 8x the text (and the names) must cost well under 64x."""

    def cost(n: int) -> float:
        names = [f"Name{i} Surname{i}" for i in range(n)]
        text = " ".join(f"{name} met Surname{i} and wrote." for i, name in enumerate(names))
        best = float("inf")
        gc.disable()  # a collection's cost depends on everything alive, not on this call
        try:
            for _ in range(3):
                start = time.perf_counter()
                occurrences(text, names + [f"Surname{i}" for i in range(n)], overlapping=True)
                best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
        return best

    small, big = cost(1000), cost(8000)
    assert big / small < 24, (small, big)


@pytest.mark.parametrize("overlapping", [False, True])
def test_occurrences_of_nested_strings(overlapping):
    text = "Anna Berg and Berg's sister met Anna."
    found = occurrences(text, ["Anna Berg", "Berg", "Anna"], overlapping)
    expected = [(0, 9, "Anna Berg"), (14, 18, "Berg"), (32, 36, "Anna")]
    if overlapping:
        expected = [(0, 4, "Anna"), (0, 9, "Anna Berg"), (5, 9, "Berg"), (14, 18, "Berg"), (32, 36, "Anna")]
    assert found == expected


@settings(max_examples=200, deadline=None)
@given(
    # runs longer than a piece, with and without separators and digits (safe cuts, grown pieces)
    st.lists(st.sampled_from(["ab" * 40, " ", ". ", "\n", "\n\n", "xyz" * 30, ",", "}", "9" * 30]), max_size=120).map("".join),
    st.integers(min_value=1000, max_value=1600),
    st.integers(min_value=1, max_value=2500),
)
def test_a_text_read_in_blocks_is_cut_as_the_whole_text(text, max_chars, block):
    from spacy_sanitize.pipeline import split_stream, split_text

    blocks = [text[i : i + block] for i in range(0, len(text), block)]
    assert list(split_stream(blocks, max_chars)) == split_text(text, max_chars)


def test_text_file_streams_in_blocks_and_bad_bytes_are_bad_input(tmp_path, capsys):
    from spacy_sanitize.io import TextChunks

    source = tmp_path / "big.txt"
    source.write_text("Mail anna@example.org now.\r\n" * 50)
    # line ends kept as in the file (#20 item 10), as every text input reads them
    assert "".join(TextChunks(str(source), size=7)) == "Mail anna@example.org now.\r\n" * 50
    source.write_bytes(b"Mail anna@example.org now.\n" * 50 + b"\xff\xfe bad")
    out = tmp_path / "out.txt"
    assert main(["sanitize", str(source), "-o", str(out), "-q"]) == 2
    assert "E017" in capsys.readouterr().err and not out.exists()


RULES_CFG = rules_config("spacy_sanitize.numbered.v1", ["Anna Berg", "Karl Lund"])


def test_cli_n_process_keeps_order_and_record_numbering(tmp_path):
    config = tmp_path / "rules.cfg"
    config.write_text(RULES_CFG)
    source = tmp_path / "in.jsonl"
    long_text = (FIRST + SECOND) * 12
    source.write_text("".join(json.dumps({"id": str(i), "text": long_text if i % 2 else SECOND}) + "\n" for i in range(6)))
    outputs = []
    for n in ("1", "2"):
        out = tmp_path / f"out{n}.jsonl"
        assert main(["sanitize", str(source), "-o", str(out), "-q", "-p", str(config), "--max-chars", "1500", "--n-process", n]) == 0
        outputs.append([json.loads(line) for line in out.read_text().splitlines()])
    assert outputs[0] == outputs[1]
    assert [r["id"] for r in outputs[1]] == [str(i) for i in range(6)]
    assert outputs[1][0]["sanitized"] == "[PERSON 1] answered. Then Berg wrote again.\n\n"
    assert set(re.findall(r"\[PERSON \d\]", outputs[1][1]["sanitized"])) == {"[PERSON 1]", "[PERSON 2]"}
