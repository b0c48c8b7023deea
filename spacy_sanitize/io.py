"""Reading inputs for the CLI: .txt files, folders of .txt, JSONL, TAB JSON, stdin."""
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Union

from .corpus.tab import load_tab
from .errors import Errors

FORMATS = ("auto", "txt", "dir", "jsonl", "tab")


class InputError(ValueError):
    """An input the user has to fix."""


class TextChunks:
    """A text file (or stdin: ``path`` "-") read in blocks of ``size`` characters when
    iterated, so a text of any size is never in memory at once (``pipeline.split_stream``
    cuts it into the same pieces as the whole text). Undecodable bytes raise E017."""

    def __init__(self, path: str, size: int = 1 << 20) -> None:
        self.path = path
        self.size = size

    def __iter__(self) -> Iterator[str]:
        stream = sys.stdin if self.path == "-" else open(self.path, encoding="utf8")
        try:
            while True:
                try:
                    block = stream.read(self.size)
                except UnicodeDecodeError as err:
                    raise InputError(Errors.E017.format(path=self.path, err=err)) from None
                if not block:
                    return
                yield block
        finally:
            if stream is not sys.stdin:
                stream.close()


@dataclass
class Record:
    """text: the text, or with ``read_records(stream_text=True)`` the chunks of a text file."""

    id: str
    text: Union[str, TextChunks]
    meta: Dict[str, Any]


def detect_format(path: str) -> str:
    if path == "-":
        return "txt"
    p = Path(path)
    if not p.exists():
        raise InputError(Errors.E006.format(path=path))
    if p.is_dir():
        return "dir"
    if p.suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if p.suffix == ".json":
        return "tab"
    return "txt"


def read_records(
    path: str,
    fmt: str = "auto",
    text_field: str = "text",
    id_field: str = "id",
    skip_bad: bool = False,
    skipped: Optional[List[int]] = None,
    stream_text: bool = False,
) -> Iterator[Record]:
    """Stream the records of an input. Bad JSONL lines raise InputError naming the line, or
    with ``skip_bad`` are skipped, their line numbers appended to ``skipped`` (the caller's
    list: no state is kept between calls). ``stream_text``: a text file's record holds
    ``TextChunks`` instead of the whole text."""
    fmt = detect_format(path) if fmt == "auto" else fmt
    if fmt == "txt":
        if stream_text:
            text: Union[str, TextChunks] = TextChunks(path)
        else:
            text = sys.stdin.read() if path == "-" else _read_text(Path(path))
        yield Record("stdin" if path == "-" else Path(path).stem, text, {})
    elif fmt == "dir":
        files = sorted(Path(path).rglob("*.txt"))
        if not files:
            raise InputError(Errors.E015.format(path=path))
        for file in files:
            yield Record(str(file.relative_to(path)), _read_text(file), {"path": str(file)})
    elif fmt == "jsonl":
        yield from _read_jsonl(path, text_field, id_field, skip_bad, skipped)
    elif fmt == "tab":
        for document in load_tab(path):
            yield Record(document.doc_id, document.text, {})
    else:
        raise InputError(Errors.E016.format(fmt=fmt, formats=", ".join(FORMATS)))


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf8")
    except UnicodeDecodeError as err:
        raise InputError(Errors.E017.format(path=path, err=err)) from None


def _read_jsonl(path: str, text_field: str, id_field: str, skip_bad: bool, skipped: Optional[List[int]]) -> Iterator[Record]:
    stream = sys.stdin if path == "-" else open(path, encoding="utf8")
    try:
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                if not isinstance(obj, dict):
                    raise ValueError("not a JSON object")
                text = obj.get(text_field)
                if not isinstance(text, str):
                    raise ValueError(f"no string field '{text_field}'")
            except ValueError as err:
                if skip_bad:
                    if skipped is not None:
                        skipped.append(number)
                    continue
                raise InputError(Errors.E007.format(line=number, path=path, err=err)) from None
            meta = {k: v for k, v in obj.items() if k not in (text_field, id_field)}
            yield Record(str(obj.get(id_field, obj.get("doc_id", number))), text, meta)
    finally:
        if stream is not sys.stdin:
            stream.close()



class Output:
    """A text stream to stdout (``None`` or ``-``) or to a file. A file is written next to its
    destination under a temporary name and renamed over it only by ``close(ok=True)``: a run
    that fails (bad input, an error halfway) leaves an existing output file as it was."""

    def __init__(self, path: Optional[str], inputs: Iterable[str] = ()) -> None:
        self.path = path
        self._tmp: Optional[str] = None
        if path in (None, "-"):
            self.stream = sys.stdout
            return
        target = Path(path)
        for source in inputs:
            if source != "-" and Path(source).exists() and target.exists() and target.resolve() == Path(source).resolve():
                raise InputError(Errors.E021.format(output=path))
        fd, self._tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=str(target.parent) or ".")
        self.stream = os.fdopen(fd, "w", encoding="utf8")

    def write(self, text: str) -> None:
        self.stream.write(text)

    def close(self, ok: bool = True) -> None:
        if self.stream is sys.stdout:
            self.stream.flush()
            return
        self.stream.close()
        if self._tmp is None:
            return
        if ok:
            if Path(self.path).exists():  # keep the permissions of the file being replaced
                os.chmod(self._tmp, Path(self.path).stat().st_mode & 0o777)
            else:
                os.chmod(self._tmp, 0o666 & ~_umask())
            os.replace(self._tmp, self.path)
        else:
            os.unlink(self._tmp)
        self._tmp = None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
