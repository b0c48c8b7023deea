"""Errors and warnings never repeat document text (#20 item 7): bad inputs that carry a
secret string must raise or warn with messages that name the document, line or offsets,
never the secret."""

import json
import logging
import warnings
from typing import Callable, List

import pytest

import spacy_sanitize  # noqa: F401
from spacy_sanitize.corpus.tab import parse_tab
from spacy_sanitize.detect.gazetteer.records import read_records as read_gazetteer
from spacy_sanitize.io import read_records
from spacy_sanitize.masker import restore

SECRET = "Zebulon Quarrington-Vasquez"


def tab_with(mention_change: dict) -> list:
    text = f"{SECRET} was born in Oslo."
    mention = {
        "entity_mention_id": "m1",
        "entity_id": "e1",
        "start_offset": 0,
        "end_offset": len(SECRET),
        "entity_type": "PERSON",
        "identifier_type": "DIRECT",
        "span_text": SECRET,
        **mention_change,
    }
    return [{"doc_id": "d1", "text": text, "annotations": {"A": {"entity_mentions": [mention]}}}]


def bad_tab_strict() -> None:
    parse_tab(tab_with({"span_text": SECRET + "s"}))


def bad_tab_lenient() -> None:
    parse_tab(tab_with({"span_text": SECRET[:-1]}), lenient=True)


def bad_tab_offsets() -> None:
    parse_tab(tab_with({"start_offset": 3, "end_offset": 12}))  # text at the offsets != span_text


def bad_gazetteer(tmp_path) -> Callable[[], None]:
    path = tmp_path / "terms.jsonl"
    path.write_text(json.dumps({"term": SECRET}) + "\n", encoding="utf8")  # no label
    return lambda: list(read_gazetteer(path))


def bad_gazetteer_label() -> None:
    from spacy_sanitize.detect.gazetteer.table import GazetteerTable

    GazetteerTable.build([{"term": "Oslo", "label": "LOC"}, {"term": SECRET, "label": "NAME"}])


def bad_jsonl(tmp_path) -> Callable[[], None]:
    path = tmp_path / "in.jsonl"
    path.write_text('{"id": 1, "text": "' + SECRET + '"\n', encoding="utf8")  # truncated line
    return lambda: list(read_records(str(path), fmt="jsonl"))


def edited_restore() -> None:
    mapping = {
        "version": 1,
        "doc_id": "d1",
        "entries": [{"out_start": 0, "out_end": 30, "replacement": f"[{SECRET} Street]",
                     "original": SECRET, "label": "LOC", "entity_id": "e1"}],
    }
    restore("the text was edited", mapping)


@pytest.mark.parametrize(
    "case",
    ["tab_strict", "tab_lenient", "tab_offsets", "gazetteer", "gazetteer_label", "jsonl", "restore"],
)
def test_bad_input_messages_do_not_repeat_the_secret(tmp_path, caplog, case):
    run = {
        "tab_strict": bad_tab_strict,
        "tab_lenient": bad_tab_lenient,
        "tab_offsets": bad_tab_offsets,
        "gazetteer": bad_gazetteer(tmp_path),
        "gazetteer_label": bad_gazetteer_label,
        "jsonl": bad_jsonl(tmp_path),
        "restore": edited_restore,
    }[case]
    messages: List[str] = []
    caplog.set_level(logging.DEBUG)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        try:
            run()
        except Exception as err:  # every failure must still be reported, without the secret
            messages.append(f"{err!s} {err!r} {err.__cause__!r} {err.__context__!r}")
    messages.extend(str(w.message) for w in record)
    messages.extend(r.getMessage() for r in caplog.records)
    assert messages, "the bad input was accepted silently"
    for part in (SECRET, "Quarrington", "Zebulon"):
        assert all(part not in message for message in messages), messages
