"""Sanitizing texts of any length: a text is cut into pieces (at paragraph, sentence or
whitespace boundaries, never inside a word), the pieces go through ``nlp.pipe`` in batches
bounded in characters, and the masker runs on them in order with one record state per text,
so entity ids, numbering and surrogates hold across its pieces. Every front door (the CLI,
the service, batch, Ray, the report) runs texts through here, via ``run.session``."""
import warnings
from dataclasses import dataclass
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc

from ..errors import Errors, Warnings
from ..io import TextChunks, lone_surrogate
from ..long_runs import make_doc, pipe_input

DEFAULT_CHUNK_CHARS = 100_000
# The most characters one batch of ``sanitize_pieces`` holds: memory grows with a batch's text.
BATCH_CHARS = 100_000


# Smaller pieces cannot hold the context a detector needs (at 1-5 characters nothing is
# detected at all), and 0 or less never advances.
MIN_CHUNK_CHARS = 1_000
# A run with no safe place to cut within ``max_chars`` may grow its piece up to this many
# times ``max_chars`` before it is cut anyway (W013).
HARD_CAP_FACTOR = 2
# Cutting after these never splits an identifier: JSON/CSV/markup separators. "," and ";"
# only when not between two digits ("1,000" is one number).
_SAFE_AFTER = ",;}]>"


def check_max_chars(max_chars: Any) -> int:
    """``max_chars`` if it is a usable piece size, else ValueError (E024)."""
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < MIN_CHUNK_CHARS:
        raise ValueError(Errors.E024.format(n=max_chars, minimum=MIN_CHUNK_CHARS, default=DEFAULT_CHUNK_CHARS))
    return max_chars


def split_text(text: str, max_chars: int = DEFAULT_CHUNK_CHARS) -> List[Tuple[int, str]]:
    """Cut ``text`` into pieces of at most ``max_chars`` at paragraph, line, sentence or
    whitespace boundaries, never inside a word, number, e-mail or URL; a run without
    whitespace is cut after a separator (``, ; } ] >``), and without one either its piece
    grows up to ``HARD_CAP_FACTOR * max_chars``. Returns (offset, piece) pairs whose
    concatenation is ``text``."""
    return list(split_stream([text], max_chars))


def split_stream(chunks: Iterable[str], max_chars: int = DEFAULT_CHUNK_CHARS) -> Iterator[Tuple[int, str]]:
    """``split_text`` of the concatenation of ``chunks`` (a file read in blocks), piece by
    piece, holding at most one (grown) piece and one chunk: a cut depends only on the next
    ``HARD_CAP_FACTOR * max_chars`` characters, so the pieces are those of the whole text."""
    check_max_chars(max_chars)
    buffer = ""
    offset = 0
    # after a run with no safe cut, look again only once the hard cap is in (the cut is then
    # certain): rescanning at every small chunk would be quadratic
    wait = max_chars
    for chunk in chunks:
        buffer += chunk
        while len(buffer) > wait:
            cut = _cut(buffer, max_chars, offset)
            if cut is None:
                wait = max_chars * HARD_CAP_FACTOR
                break  # no safe cut yet: read on
            wait = max_chars
            yield offset, buffer[:cut]
            offset += cut
            buffer = buffer[cut:]
    while len(buffer) > max_chars:
        cut = _cut(buffer, max_chars, offset)
        if cut is None:
            break  # the rest is one grown piece
        yield offset, buffer[:cut]
        offset += cut
        buffer = buffer[cut:]
    yield offset, buffer


def _safe_cut(buffer: str, cut: int, space: bool, digits: bool = False) -> bool:
    """Whether ``buffer`` may be cut before index ``cut``: after whitespace (``space``) or
    after a separator, and not between two digits ("+33 1 23", "1,000") unless
    ``digits`` (whitespace only: the last resort before a piece grows)."""
    if not 0 < cut < len(buffer):
        return False
    before = buffer[cut - 1]
    if not (before.isspace() if space else before in _SAFE_AFTER):
        return False
    if before in "}]>" or digits:
        return True
    return not (cut >= 2 and buffer[cut - 2].isdigit() and buffer[cut].isdigit())


def _last_safe_cut(buffer: str, high: int, low: int, space: bool, digits: bool = False) -> Optional[int]:
    for cut in range(high, low - 1, -1):
        if _safe_cut(buffer, cut, space, digits):
            return cut
    return None


def _cut(buffer: str, max_chars: int, offset: int) -> Optional[int]:
    """Where to cut ``buffer`` (longer than ``max_chars``), or None when it needs more text
    to tell (or, at the end of the text, when the rest is one piece)."""
    window = buffer[:max_chars]
    half = max_chars // 2
    for sep in ("\n\n", "\n", ". "):
        cut = window.rfind(sep, half)
        if cut != -1:
            return cut + len(sep)
    # a space between digits ("+33 1 23 45") comes last: between two values of a table
    for low, space, digits in ((half, True, False), (half, False, False), (1, True, False), (1, False, False), (1, True, True)):
        found = _last_safe_cut(buffer, max_chars, low, space, digits)
        if found is not None:
            return found
    # one run with no safe cut: the piece grows to the run's end rather than cut inside it
    hard = max_chars * HARD_CAP_FACTOR
    for cut in range(max_chars + 1, min(len(buffer) - 1, hard) + 1):
        if _safe_cut(buffer, cut, True) or _safe_cut(buffer, cut, False):
            return cut
    if len(buffer) > hard:
        warnings.warn(Warnings.W013.format(start=offset, cap=hard), UserWarning, stacklevel=4)
        return hard
    return None


@dataclass
class Piece:
    """One processed piece of a text. index (int): which text of the input. offset (int):
    where the piece starts in that text. doc (Doc): the piece, masked. last (bool): the
    text's last piece."""

    index: int
    offset: int
    doc: Doc
    last: bool


Text = Union[str, TextChunks]


def _pieces(nlp: Language, texts: Iterable[Union[Text, Tuple[Text, Dict[str, Any]]]], max_chars: int) -> Iterator[Tuple[Union[str, Doc], Tuple[int, int, bool]]]:
    for index, item in enumerate(texts):
        text, values = item if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], dict) else (item, None)
        if not isinstance(text, (str, TextChunks)):
            raise TypeError(Errors.E010.format(doc_id=index, type_name=type(text).__name__))
        split = split_stream([text] if isinstance(text, str) else text, max_chars)
        previous = next(split)
        for current in split:  # one piece ahead, to know which is the last
            yield _piece_input(nlp, previous[1], values, index, previous[0]), (index, previous[0], False)
            previous = current
        yield _piece_input(nlp, previous[1], values, index, previous[0]), (index, previous[0], True)


def _piece_input(nlp: Language, text: str, values: Optional[Dict[str, Any]], index: int = 0, offset: int = 0) -> Union[str, Doc]:
    """A piece as nlp.pipe takes it: the text, or a Doc carrying the record's ``Doc._``
    values (e.g. ``protect``) on every piece, set before any component runs. A lone
    surrogate is E025 here, not a UnicodeEncodeError deep in spaCy's tokenizer: replacing
    it would change the text outside the masked spans without a word."""
    at = lone_surrogate(text)
    if at is not None:
        raise ValueError(Errors.E025.format(where=f"text {index}", offset=offset + at, code=f"{ord(text[at]):04X}"))
    if not values:
        return pipe_input(nlp, text)
    doc = make_doc(nlp, text)
    for name, value in values.items():
        doc._.set(name, value)
    return doc


def sanitize_pieces(
    nlp: Language, texts: Iterable[Union[Text, Tuple[Text, Dict[str, Any]]]], batch_size: int = 16, max_chars: int = DEFAULT_CHUNK_CHARS,
    n_process: int = 1, masker: Optional[Any] = None,
) -> Iterator[Piece]:
    """Run ``nlp`` over texts of any length, one piece (at most ``max_chars``, cut at
    paragraph or sentence boundaries) at a time, in input order. An item may be a pair
    (text, {extension: value}): every piece's Doc gets ``Doc._.extension = value`` before
    the pipeline runs (``{"protect": "Galip Yalman"}``). Texts are read and pieces
    yielded as they go, so memory holds a batch, not the input. The components up to the
    masker run in ``nlp.pipe`` (``n_process`` workers); the masker (and what follows it)
    runs here, in order, with one ``RecordState`` per text, so entity ids, numbered
    placeholders and surrogates hold across the pieces of a text. The record's document
    key (surrogates' date offset) is its first piece's, as a Doc of its own would have.
    ``masker``: a Masker used in place of the pipeline's (the service's per-request strategy)."""
    from ..masker.component import Masker
    from ..masker.record import RecordState
    from ..masker.strategies.base import doc_key_for

    check_max_chars(max_chars)
    # a run without a safe cut grows its piece (see split_text): spaCy must take it
    nlp.max_length = max(nlp.max_length, HARD_CAP_FACTOR * max_chars + 1)
    names = nlp.pipe_names
    first = next((i for i, (_, proc) in enumerate(nlp.pipeline) if isinstance(proc, Masker)), len(names))
    tail = nlp.pipeline[first:]
    record: Optional[RecordState] = None
    disable = [n for n, _ in tail]
    pieces = _pieces(nlp, texts, max_chars)
    if n_process == 1:
        # batches bounded in characters too: a batch of 16 full pieces took 3 GB
        docs: Iterable[Tuple[Doc, Tuple[int, int, bool]]] = (
            out for batch in _char_batches(pieces, batch_size, BATCH_CHARS)
            for out in nlp.pipe(batch, as_tuples=True, batch_size=len(batch), disable=disable)
        )
    else:
        per_batch = max(1, min(batch_size, BATCH_CHARS // max(max_chars, 1)))
        docs = nlp.pipe(pieces, as_tuples=True, batch_size=per_batch, n_process=n_process, disable=disable)
    for doc, (index, offset, last) in docs:
        if offset == 0:
            record = RecordState(doc_key_for(doc.text, doc._.doc_id))
        for _, proc in tail:
            doc = (masker or proc).mask(doc, record) if isinstance(proc, Masker) else proc(doc)
        yield Piece(index, offset, doc, last)


def _char_batches(items: Iterable[Tuple[Union[str, Doc], Any]], size: int, chars: int) -> Iterator[List[Tuple[Union[str, Doc], Any]]]:
    """Batches of at most ``size`` items and ``chars`` characters (one item at least)."""
    batch: List[Tuple[Union[str, Doc], Any]] = []
    total = 0
    for item in items:
        n = len(item[0].text) if isinstance(item[0], Doc) else len(item[0])
        if batch and (len(batch) >= size or total + n > chars):
            yield batch
            batch, total = [], 0
        batch.append(item)
        total += n
    if batch:
        yield batch


def sanitize_texts(
    nlp: Language, texts: Iterable[str], batch_size: int = 16, max_chars: int = DEFAULT_CHUNK_CHARS, n_process: int = 1,
    masker: Optional[Any] = None,
) -> Iterator[Tuple[str, List[Doc], List[int]]]:
    """``sanitize_pieces``, gathered per text: yields (text, docs, offsets of the docs in
    the text). It keeps a text's Docs until its last piece; a caller that streams big
    texts uses ``sanitize_pieces``."""
    parts: List[Tuple[int, Doc]] = []
    for piece in sanitize_pieces(nlp, texts, batch_size, max_chars, n_process, masker):
        parts.append((piece.offset, piece.doc))
        if piece.last:
            yield _assemble(parts)
            parts = []


def _assemble(parts: List[Tuple[int, Doc]]) -> Tuple[str, List[Doc], List[int]]:
    return "".join(doc.text for _, doc in parts), [doc for _, doc in parts], [offset for offset, _ in parts]


def merged_output(docs: List[Doc], offsets: List[int]) -> Tuple[str, List[List[Any]]]:
    """Sanitized text and replacement rows (offsets in the whole text) of a text cut into
    pieces (entity ids are the record's: ``sanitize_pieces`` masks the pieces of a text
    with one ``RecordState``)."""
    sanitized: List[str] = []
    rows: List[List[Any]] = []
    out_offset = 0
    for doc, offset in zip(docs, offsets):
        text, piece_rows = piece_output(doc, offset, out_offset)
        rows += piece_rows
        sanitized.append(text)
        out_offset += len(text)
    return "".join(sanitized), rows


def piece_output(doc: Doc, offset: int, out_offset: int) -> Tuple[str, List[List[Any]]]:
    """A piece's sanitized text and its replacement rows in the whole text's offsets (the
    piece starts at ``offset`` in the text and at ``out_offset`` in the output)."""
    text = doc._.sanitized if doc._.sanitized is not None else doc.text
    return text, shift_rows(doc._.replacements or [], offset, out_offset)


def shift_rows(rows: Iterable[List[Any]], offset: int, out_offset: int) -> List[List[Any]]:
    """Replacement rows of a piece with offsets in the whole text and the whole output."""
    return [[s + offset, e + offset, label, entity_id, repl, os_ + out_offset, oe + out_offset] for s, e, label, entity_id, repl, os_, oe in rows]
