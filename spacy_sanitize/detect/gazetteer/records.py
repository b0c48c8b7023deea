"""Reading gazetteer term records (JSONL, optionally gzipped)."""

import gzip
import json
from pathlib import Path
from typing import Any, Dict, Iterator, Union

from ...errors import Errors


def read_records(path: Union[str, Path]) -> Iterator[Dict[str, Any]]:
    """Records of a gazetteer JSONL file (``.jsonl`` or ``.jsonl.gz``)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(Errors.E200.format(name=path))
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf8") as stream:  # type: ignore[operator]
        for line_no, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as err:
                raise ValueError(Errors.E201.format(line=line_no, path=path, problem=err)) from None
            _check_record(record, line_no, path)
            yield record


def _check_record(record: Any, line_no: int, path: Path) -> None:
    if (
        not isinstance(record, dict)
        or not isinstance(record.get("term"), str)
        or "label" not in record
    ):
        raise ValueError(
            Errors.E201.format(line=line_no, path=path, problem=_record_problem(record))
        )


def _record_problem(record: Any) -> str:
    """What is wrong with a record, without repeating its terms (names: private data)."""
    if not isinstance(record, dict):
        return f"a JSON {type(record).__name__}, not an object"
    if not isinstance(record.get("term"), str):
        return "no string 'term'"
    return "no 'label'"
