"""Reading inputs for the CLI: .txt files, folders of .txt, JSONL, TAB JSON, stdin."""
import io
import itertools
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from .corpus.tab import load_tab
from .errors import Errors

FORMATS = ("auto", "txt", "dir", "jsonl", "tab")


class InputError(ValueError):
    """An input the user has to fix."""


# A code point in the surrogate range is never part of valid text in a Python str (a pair
# is one code point): a lone one comes from a JSON escape ("\ud800") or from
# errors="surrogateescape", and neither spaCy nor a UTF-8 output can hold it.
_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(text: str) -> Optional[int]:
    """The offset of the first lone surrogate in ``text``, or None."""
    found = _SURROGATE.search(text)
    return None if found is None else found.start()


def _stdin() -> Any:
    """sys.stdin, decoding strict UTF-8 (E017 on bad bytes, as for a file): under a C or
    POSIX locale Python decodes stdin with surrogateescape, which turns bytes that are not
    UTF-8 into lone surrogates. Newlines are not translated on stdin ("\\r\\n" stays)."""
    if getattr(sys.stdin, "errors", "strict") != "strict" and hasattr(sys.stdin, "reconfigure"):
        try:
            sys.stdin.reconfigure(errors="strict")
        except io.UnsupportedOperation:
            pass  # already read from: lone surrogates are still refused (E025) before spaCy
    return sys.stdin


def _open_text(path: Union[str, Path], newline: str = "") -> Any:
    """A UTF-8 file without newline translation: "\\r\\n" and "\\r" reach the pipeline and
    the output as they are in the file, and offsets count them."""
    return open(path, encoding="utf8", newline=newline)


class TextChunks:
    """A text file (or stdin: ``path`` "-") read in blocks of ``size`` characters when
    iterated, so a text of any size is never in memory at once (``pipeline.split_stream``
    cuts it into the same pieces as the whole text). Undecodable bytes raise E017, a lone
    surrogate (from stdin) E025; line ends are kept as they are."""

    def __init__(self, path: str, size: int = 1 << 20, head: str = "") -> None:
        self.path = path
        self.size = size
        self.head = head  # what was already read from stdin to detect its format

    def __iter__(self) -> Iterator[str]:
        stream = _stdin() if self.path == "-" else _open_text(self.path)
        offset = 0
        try:
            if self.head:
                yield _checked(self.head, self.path, offset)
                offset += len(self.head)
            while True:
                try:
                    block = stream.read(self.size)
                except UnicodeDecodeError as err:
                    raise InputError(Errors.E017.format(path=self.path, err=err)) from None
                if not block:
                    return
                yield _checked(block, self.path, offset)
                offset += len(block)
        finally:
            if self.path != "-":
                stream.close()


def _checked(text: str, path: Union[str, Path], offset: int = 0) -> str:
    at = lone_surrogate(text)
    if at is not None:
        raise InputError(Errors.E025.format(where=f"'{path}'", offset=offset + at, code=f"{ord(text[at]):04X}"))
    return text


@dataclass
class Record:
    """text: the text, or with ``read_records(stream_text=True)`` the chunks of a text file.
    source: a JSONL record as it came (all its fields, in order), for output that keeps it.
    fields: the texts of the further ``--text-field`` fields of a JSONL record, (field, text)."""

    id: str
    text: Union[str, TextChunks]
    meta: Dict[str, Any]
    source: Optional[Dict[str, Any]] = None
    fields: List[Tuple[str, str]] = field(default_factory=list)


def get_field(record: Dict[str, Any], dotted: str) -> Any:
    """``record["meta"]["countries"]`` for ``"meta.countries"``; None when missing.
    Alternatives separated by ``|`` are tried in order (``meta.countries|label``)."""
    if "|" in dotted:
        for alternative in dotted.split("|"):
            value = get_field(record, alternative)
            if value not in (None, ""):
                return value
        return None
    value: Any = record
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    if isinstance(value, list):  # a single-valued list counts as its value
        value = value[0] if len(value) == 1 else None
    return value


def set_field(record: Dict[str, Any], dotted: str, value: Any) -> Dict[str, Any]:
    """A copy of ``record`` with the field ``dotted`` (as ``get_field`` reads it: the first of
    ``|`` alternatives that holds a value) set to ``value``; the nested objects on its path are
    copied, the others shared."""
    if "|" in dotted:
        dotted = next((alt for alt in dotted.split("|") if get_field(record, alt) not in (None, "")), dotted.split("|")[0])
    head, _, rest = dotted.partition(".")
    inner = record.get(head)
    return {**record, head: set_field(inner, rest, value) if rest and isinstance(inner, dict) else value}


@dataclass
class Input:
    """An input whose format is known. ``head``: the lines already read from stdin to
    detect its format, given back before the rest of the stream."""

    path: str
    format: str
    head: List[str] = field(default_factory=list)


def open_input(path: str, fmt: str = "auto") -> Input:
    """Resolve the format of ``path`` now (a missing path raises E006 before any output is
    opened). With ``auto``, stdin is JSONL when its first non-blank line is a JSON object,
    plain text otherwise: only that line is read ahead, the stream is not consumed."""
    if fmt != "auto":
        if fmt not in FORMATS:
            raise InputError(Errors.E016.format(fmt=fmt, formats=", ".join(FORMATS)))
        return Input(path, fmt)
    if path != "-":
        return Input(path, detect_format(path))
    head: List[str] = []
    stdin = _stdin()
    try:
        for line in iter(stdin.readline, ""):
            head.append(line)
            if line.strip():
                break
    except UnicodeDecodeError as err:
        raise InputError(Errors.E017.format(path=path, err=err)) from None
    return Input(path, "jsonl" if head and _is_json_object(head[-1]) else "txt", head)


def _is_json_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def detect_format(path: str) -> str:
    """The format from the file name (stdin: see ``open_input``, which reads ahead)."""
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
    path: Union[str, Input],
    fmt: str = "auto",
    text_field: Union[str, Sequence[str]] = "text",
    id_field: str = "id",
    skip_bad: bool = False,
    skipped: Optional[List[int]] = None,
    stream_text: bool = False,
) -> Iterator[Record]:
    """Stream the records of an input (the format and the field options are checked now, the
    records read as iterated). Bad JSONL lines raise InputError naming the line, or
    with ``skip_bad`` are skipped, their line numbers appended to ``skipped`` (the caller's
    list: no state is kept between calls). ``stream_text``: a text file's record holds
    ``TextChunks`` instead of the whole text. ``text_field`` and ``id_field`` are dotted
    paths (``doc.body``); a non-default one with an input that is not JSONL is E037, never
    ignored. Several text fields: the first is ``Record.text``, the others ``Record.fields``
    (each must be a string, as the first). ``path``: a path or an ``open_input`` result."""
    source = path if isinstance(path, Input) else open_input(path, fmt)
    fields = [text_field] if isinstance(text_field, str) else list(text_field) or ["text"]
    if source.format != "jsonl":
        # the fields only mean something in JSONL: ignoring them could leave the text unmasked
        given = [f"--text-field {value}" for value in fields if fields != ["text"]] + ([f"--id-field {id_field}"] if id_field != "id" else [])
        if given:
            raise InputError(Errors.E037.format(path=source.path, fmt=source.format, given=", ".join(given)))
    return _records(source, fields, id_field, skip_bad, skipped, stream_text)


def _records(
    source: Input, fields: List[str], id_field: str, skip_bad: bool, skipped: Optional[List[int]], stream_text: bool
) -> Iterator[Record]:
    path, fmt = source.path, source.format
    if fmt == "txt":
        head = "".join(source.head)
        if stream_text:
            text: Union[str, TextChunks] = TextChunks(path, head=head)
        else:
            text = _checked(head, path) + _read_stdin(path) if path == "-" else _read_text(Path(path))
        yield Record("stdin" if path == "-" else Path(path).stem, text, {})
    elif fmt == "dir":
        files = sorted(Path(path).rglob("*.txt"))
        if not files:
            raise InputError(Errors.E015.format(path=path))
        for file in files:
            yield Record(str(file.relative_to(path)), _read_text(file), {"path": str(file)})
    elif fmt == "jsonl":
        yield from _read_jsonl(path, fields, id_field, skip_bad, skipped, source.head)
    elif fmt == "tab":
        for document in load_tab(path):
            yield Record(document.doc_id, document.text, {})
    else:
        raise InputError(Errors.E016.format(fmt=fmt, formats=", ".join(FORMATS)))


def _read_text(path: Path) -> str:
    try:
        with _open_text(path) as file:
            return _checked(file.read(), path)
    except UnicodeDecodeError as err:
        raise InputError(Errors.E017.format(path=path, err=err)) from None


def _read_stdin(path: str) -> str:
    try:
        return _checked(_stdin().read(), path)
    except UnicodeDecodeError as err:
        raise InputError(Errors.E017.format(path=path, err=err)) from None


def _read_jsonl(
    path: str, fields: List[str], id_field: str, skip_bad: bool, skipped: Optional[List[int]], head: Iterable[str] = ()
) -> Iterator[Record]:
    # lines end at "\n" only (JSON Lines): a "\r" before it is whitespace to the JSON parser;
    # a file is decoded line by line, so a line that is not UTF-8 is that line's error
    # (skipped with --skip-bad), not the whole file's
    stream = _stdin() if path == "-" else open(path, "rb")
    lines = stream if path == "-" else _decoded_lines(stream)
    try:
        for number, line in enumerate(itertools.chain(head, lines), start=1):
            if isinstance(line, UnicodeDecodeError):
                error = Errors.E053.format(line=number, path=path, err=line)
                if skip_bad:
                    if skipped is not None:
                        skipped.append(number)
                    continue
                raise InputError(error)
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                if not isinstance(obj, dict):
                    raise ValueError("not a JSON object")
            except ValueError as err:
                error = Errors.E007.format(line=number, path=path, err=err)
            else:
                texts = [get_field(obj, name) for name in fields]
                error = next((Errors.E038.format(line=number, path=path, field=name, found=_kind(text)) for name, text in zip(fields, texts) if not isinstance(text, str)), None)
                if error is None and "\\u" in line:  # only an escape can make a lone surrogate
                    error = _surrogate_error(obj, number, path)
            if error is not None:
                if skip_bad:
                    if skipped is not None:
                        skipped.append(number)
                    continue
                raise InputError(error) from None
            meta = {k: v for k, v in obj.items() if k not in (*fields, id_field)}
            record_id = get_field(obj, id_field)
            yield Record(str(record_id if record_id is not None else obj.get("doc_id", number)), texts[0], meta, source=obj, fields=list(zip(fields[1:], texts[1:])))
    finally:
        if path != "-":
            stream.close()


def _decoded_lines(stream: Any) -> Iterator[Union[str, UnicodeDecodeError]]:
    """The lines of a binary stream as UTF-8 text, or the decoding error of a line that is not."""
    for raw in stream:
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as err:
            yield err


def _surrogate_error(obj: Any, number: int, path: str, where: str = "") -> Optional[str]:
    """E026 for the first string of a JSONL record holding a lone surrogate escape: spaCy
    cannot tokenize it and the output cannot be written as UTF-8."""
    if isinstance(obj, str):
        at = lone_surrogate(obj)
        return None if at is None else Errors.E026.format(line=number, path=path, field=where or "(the record)", offset=at, code=f"{ord(obj[at]):04X}")
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for key, value in items:
        if isinstance(key, str):
            at = lone_surrogate(key)
            if at is not None:
                return Errors.E026.format(line=number, path=path, field=f"{where}.{key}".lstrip(".") + " (its name)", offset=at, code=f"{ord(key[at]):04X}")
        error = _surrogate_error(value, number, path, f"{where}.{key}".lstrip("."))
        if error is not None:
            return error
    return None


# A string with a letter and a space reads as text a person wrote: worth sanitizing.
_TEXTLIKE = re.compile(r"(?<!\S)(?:(?![^\W\d_])\S)*[^\W\d_]\S*\s+\S")


def unsanitized_text_fields(record: Dict[str, Any], sanitized: Sequence[str], prefix: str = "") -> List[str]:
    """Dotted paths of the string fields of ``record`` that look like text (letters and
    spaces) and are not among the ``sanitized`` fields: copied to the output as they are."""
    found: List[str] = []
    skip = {part for name in sanitized for part in name.split("|")}
    for key, value in record.items():
        path = f"{prefix}{key}"
        if path in skip:
            continue
        if isinstance(value, dict):
            found += unsanitized_text_fields(value, sanitized, f"{path}.")
        elif isinstance(value, str) and _TEXTLIKE.search(value):
            found.append(path)
        elif isinstance(value, list) and any(isinstance(v, str) and _TEXTLIKE.search(v) for v in value):
            found.append(path)
    return found


def _kind(value: Any) -> str:
    return "no such field" if value is None else f"a {type(value).__name__}, not a string"


class PendingFile:
    """A file made in ``target``'s folder (mode 0600) that appears at ``target`` only on
    ``commit`` (renamed over it: readers never see a partial file) and is gone after
    ``discard``. On Linux it has no name until ``commit`` (``O_TMPFILE``): a run that is
    killed (SIGKILL, out of memory) or whose disk fills leaves no file with its text behind.
    Elsewhere, or on a file system without ``O_TMPFILE``, it is a hidden ``.NAME.*.tmp`` file
    that only a killed run leaves."""

    def __init__(self, target: Union[str, Path]) -> None:
        self.target = Path(target)
        self.folder = str(self.target.parent) or "."
        self.name: Optional[str] = None
        try:
            self.fd = os.open(self.folder, os.O_TMPFILE | os.O_WRONLY, 0o600)  # type: ignore[attr-defined]
        except (AttributeError, OSError):
            self.fd, self.name = tempfile.mkstemp(prefix=f".{self.target.name}.", suffix=".tmp", dir=self.folder)

    def commit(self, mode: int = 0o600) -> None:
        """Give the file ``mode`` and put it at ``target``; the caller closes the descriptor after."""
        os.fchmod(self.fd, mode)
        if self.name is None:  # an unnamed file: link it under a hidden name, then rename that
            folder = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY)
            try:
                while True:
                    name = f".{self.target.name}.{os.urandom(6).hex()}.tmp"
                    try:  # with a dir_fd os.link is linkat(..., AT_SYMLINK_FOLLOW): the file, not /proc's link
                        os.link(f"/proc/self/fd/{self.fd}", name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=True)
                        break
                    except FileExistsError:
                        continue
            finally:
                os.close(folder)
            self.name = os.path.join(self.folder, name)
        os.replace(self.name, self.target)
        self.name = None

    def discard(self) -> None:
        """Remove what ``commit`` did not publish (the caller closes the descriptor)."""
        if self.name is not None:
            try:
                os.unlink(self.name)
            except FileNotFoundError:
                pass
            self.name = None


def write_file(path: Union[str, Path], content: str, mode: int = 0o600) -> None:
    """``content`` written to ``path`` through a ``PendingFile`` (``mode``, 0600 by default): the
    file appears whole or not at all, and a killed run leaves nothing."""
    pending = PendingFile(path)
    try:
        with os.fdopen(pending.fd, "w", encoding="utf8") as out:
            out.write(content)
            out.flush()
            pending.commit(mode)
    finally:
        pending.discard()


class Output:
    """A text stream to stdout (``None`` or ``-``) or to a file. A file is written next to its
    destination (``PendingFile``: no name on Linux) and put in its place only by
    ``close(ok=True)``: a run that fails (bad input, an error halfway, a kill) leaves an
    existing output file as it was and no partial copy."""

    def __init__(self, path: Optional[str], inputs: Iterable[str] = (), private: bool = False) -> None:
        # private: the output holds original text (restore, --keep-original): a new file is 0600
        self.path = path
        self.private = private
        self._pending: Optional[PendingFile] = None
        if path in (None, "-"):
            self.stream = sys.stdout
            return
        target = Path(path)
        for source in inputs:
            if source != "-" and Path(source).exists() and target.exists() and target.resolve() == Path(source).resolve():
                raise InputError(Errors.E021.format(output=path))
        self._pending = PendingFile(target)
        self.stream = os.fdopen(self._pending.fd, "w", encoding="utf8", newline="")  # "\n" written as it is

    def write(self, text: str) -> None:
        self.stream.write(text)

    def close(self, ok: bool = True) -> None:
        """Keep the output (``ok``) or discard it. A failure here (a full disk fails the last
        buffered write) discards the temporary file too: no partial copy of the input stays."""
        if self.stream is sys.stdout:
            self.stream.flush()
            return
        pending, self._pending = self._pending, None
        try:
            self.stream.flush()
            if pending is not None and ok:
                if Path(self.path).exists():  # keep the permissions of the file being replaced
                    mode = Path(self.path).stat().st_mode & 0o777
                else:
                    mode = 0o600 if self.private else 0o666 & ~_umask()
                pending.commit(mode)
        finally:
            try:
                self.stream.close()
            finally:
                if pending is not None:
                    pending.discard()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
