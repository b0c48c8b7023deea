"""Text helpers every stage shares: folding, common English words, the parts of a written
name, and whole-word occurrences in any casing (the propagation engine of the masking plan,
also used by ``pii_coref``). Plain text in, plain values out: no component, no Doc."""
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Collection, Dict, FrozenSet, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from spacy.lang.en.stop_words import STOP_WORDS

from .shipped import data_path
from .types import MONTHS, PERSON_TITLES, WEEKDAYS

# quote marks around a nickname or a quoted name, straight and curly
QUOTES: FrozenSet[str] = frozenset("'\"‘’“”")
COMMON_WORDS: FrozenSet[str] = frozenset(STOP_WORDS) | {m.lower() for m in MONTHS + WEEKDAYS} | PERSON_TITLES
_POSSESSIVE = re.compile(r"['’]s?$")
# A lower-case word at least this frequent in general English (wordfreq Zipf) is read as
# the word, not as a name part ("smith", "rose"); rarer ones ("kodnani") are the name.
COMMON_ZIPF = 4.0


def fold(text: str) -> str:
    """Lower case without diacritics ('Gujarāt' -> 'gujarat'): the one text folder."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


_WORD = re.compile(r"\w+")
_FINAL_POSSESSIVE = re.compile(r"['’]s$")


def words(text: str) -> List[str]:
    """The casefolded words of ``text`` (runs of letters, digits, underscores)."""
    return [w.casefold() for w in _WORD.findall(text)]


def mention_key(text: str) -> str:
    """A mention's key for linking its repeats: its folded words without a final possessive
    ("Gujarāt's High Court" -> "gujarat high court")."""
    return " ".join(_WORD.findall(_FINAL_POSSESSIVE.sub("", fold(text))))


# Letters Unicode does not decompose into a base letter and a mark, as an English keyboard types them
_UNDECOMPOSED = str.maketrans("łŁøØđĐħĦı", "lLoOdDhHi")


@lru_cache(maxsize=65536)
def fold_name(text: str) -> str:
    """``fold`` that also reads "ł", "ø", "đ" as "l", "o", "d": a name repeated in chat or a
    login without its diacritics ("Łukasz" ... "lukasz", "Søren" ... "soren")."""
    return fold(text.translate(_UNDECOMPOSED))


# a field name of a CSV header ("id", "full_name", "Date of birth")
CSV_HEADER_FIELD = re.compile(r"[A-Za-z][A-Za-z0-9 _-]{0,40}")
MAX_CSV_FIELDS = 64  # a line is read this far: linear on a line of any length


def csv_fields(line: str, offset: int = 0) -> Optional[List[Tuple[int, int]]]:
    """The character ranges (shifted by ``offset``) of the fields of one CSV line, a quoted
    field without its quotes, at most ``MAX_CSV_FIELDS`` + 1; None when a quote does not close."""
    fields: List[Tuple[int, int]] = []
    i, size = 0, len(line)
    while True:
        if i < size and line[i] == '"':
            close = i + 1
            while True:
                close = line.find('"', close)
                if close < 0:
                    return None
                if close + 1 < size and line[close + 1] == '"':
                    close += 2  # an escaped quote
                    continue
                break
            fields.append((offset + i + 1, offset + close))
            i = close + 1
            if i < size and line[i] != ",":
                return None
        else:
            end = line.find(",", i)
            end = size if end < 0 else end
            fields.append((offset + i, offset + end))
            i = end
        if i >= size or len(fields) > MAX_CSV_FIELDS:
            return fields
        i += 1  # the comma


def csv_header(text: str, fields: Optional[Sequence[Tuple[int, int]]]) -> bool:
    """Whether ``fields`` (ranges of ``text``) are a CSV header: three or more plain field names."""
    return fields is not None and len(fields) >= 3 and all(CSV_HEADER_FIELD.fullmatch(text[a:b].strip()) for a, b in fields)


@dataclass(frozen=True)
class NamePartRule:
    """Which words of a PERSON name stand for the person on their own: at least
    ``min_chars`` characters, not in ``skip`` (lower-cased), with a letter (``letters``),
    and in title case (``title_case``)."""

    min_chars: int = 3
    skip: FrozenSet[str] = COMMON_WORDS
    title_case: bool = False
    letters: bool = True

    def accepts(self, word: str) -> bool:
        return (
            len(word) >= self.min_chars
            and word.lower() not in self.skip
            and (not self.letters or any(c.isalpha() for c in word))
            and (not self.title_case or word.istitle())
        )


def name_parts(text: str, rule: NamePartRule) -> List[str]:
    """The parts of a written name: its words without surrounding punctuation or a
    possessive ending, kept by ``rule``."""
    words = (_POSSESSIVE.sub("", token.strip(".,;:()\"'")) for token in text.split())
    return [word for word in words if rule.accepts(word)]


def whole_word_pattern(strings: Iterable[str]) -> Optional["re.Pattern[str]"]:
    """One regex for all strings, longest first, matching whole words only."""
    unique = sorted({s for s in strings if s}, key=len, reverse=True)
    if not unique:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(s) for s in unique) + r")(?!\w)")


_HEAD = re.compile(r"\w+|.", re.DOTALL)  # a word, or one non-word character
# where a whole-word occurrence may start: a word, or a non-word character after no word
# character (the regex skips the rest, not a Python test per character)
_START = re.compile(r"(?<!\w)(?:\w+|.)", re.DOTALL)


@lru_cache(maxsize=65536)
def is_common_word(word: str) -> bool:
    """A word of general English: a stop word, month, weekday or title, or a word of
    Zipf frequency >= ``COMMON_ZIPF``."""
    lowered = word.lower()
    return lowered in COMMON_WORDS or zipf(lowered) >= COMMON_ZIPF


# What wordfreq reads as one token as it stands (no case folding, digits, marks or apostrophes
# to normalise; inner periods and underscores stay: "e.coli", "anna.berg", "anna_berg"): its Zipf
# value is a lookup in wordfreq's English list (``_english_zipf``).
_ONE_TOKEN = re.compile(r"[a-z]{1,64}(?:[._][a-z]{1,64}){0,3}")


def zipf(word: str) -> float:
    """The word's Zipf frequency in general English: wordfreq's ``zipf_frequency(word, "en")``.
    A plain lower-case word or login is looked up in wordfreq's own English list, read without
    importing wordfreq (its import and its first lookup took about 0.2 s of a one-line file's
    start-up); anything else goes through wordfreq."""
    table = _english_zipf() if _ONE_TOKEN.fullmatch(word) else None
    if table is not None:
        return table.get(word, 0.0)
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


@lru_cache(maxsize=1)
def _english_zipf() -> Optional[Dict[str, float]]:
    """word -> Zipf value of wordfreq's English list ("best": ``large_en``), from its data file:
    the same values ``zipf_frequency`` computes for a one-token word (tests/test_zipf.py
    checks every word of the list). None where that file is not as wordfreq 3 lays it out:
    then every word goes through wordfreq."""
    import gzip
    import importlib.util
    import math

    import srsly

    spec = importlib.util.find_spec("wordfreq")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / "large_en.msgpack.gz"
    try:
        with gzip.open(path, "rb") as stream:
            data = srsly.msgpack_loads(stream.read())
    except (OSError, ValueError):
        return None
    header, buckets = (data[0], data[1:]) if isinstance(data, list) and data else (None, [])
    if not isinstance(header, dict) or header.get("format") != "cB" or header.get("version") != 1:
        return None
    table: Dict[str, float] = {}
    for index, bucket in enumerate(buckets):
        if not bucket:
            continue
        # wordfreq's arithmetic, step by step: the bucket's frequency (10 ** (cB / 100)), at
        # least its minimum (Zipf 0), rounded to 3 significant digits, then Zipf to 2 decimals
        freq = max(10 ** (-index / 100), 10 ** (0 - 9))
        freq = round(freq, math.floor(-math.log(freq, 10)) + 3)
        table.update(dict.fromkeys(bucket, round(math.log(freq, 10) + 9, 2)))
    return table


class NameLists(NamedTuple):
    given: FrozenSet[str]
    family: FrozenSet[str]


def read_words(path: Path) -> FrozenSet[str]:
    with open(path, encoding="utf8") as stream:
        return frozenset(line.strip() for line in stream if line.strip())


@lru_cache(maxsize=4)
def name_lists(folder: Optional[str] = None) -> NameLists:
    """The lower-cased given and family names of ``folder`` (None: the shipped lists,
    ``data/names``: names that are not also ordinary words)."""
    root = Path(folder) if folder else data_path("names")
    return NameLists(read_words(root / "given.txt"), read_words(root / "family.txt"))


def other_casing_ok(string: str, found: str) -> bool:
    """Whether ``found`` (``string`` in any casing, maybe plural) is a repeat of the name:
    always for a name of several words, and for one word unless the repeat is lower case
    and the word a common one (also when the name was written in lower case: a detected
    "john smith" does not make every "smith" a name). A listed given name is a name in
    lower case too ("Sarah Lin wrote ... sarah will reply": chat and notes drop capitals);
    the lists leave out the names that are also words ("will", "rose")."""
    if len(string.split()) > 1 or not found.islower():
        return True
    return not is_common_word(string) or string.lower() in name_lists().given


def _head(text: str) -> str:
    match = _HEAD.match(text)
    return match.group(0) if match else ""


def occurrences(
    text: str, strings: Iterable[str], overlapping: bool = False, any_case: Collection[str] = ()
) -> List[Tuple[int, int, str]]:
    """The propagation engine: ``(start, end, string)`` of every whole-word occurrence of
    ``strings`` in ``text``, sorted. Without ``overlapping``, one left-to-right pass that
    takes the longest string at each position (a cover: what the masker replaces); with
    it, every occurrence of every string, nested ones too (what a span filter chooses
    from); occurrences of one string do not overlap each other.

    One pass over the words of ``text``: a whole-word occurrence starts where a word (or
    a non-word character) starts after a non-word character, and its first word is the
    string's first word, so only the strings with that head are tried there. A regex per
    string (or one alternation of all of them) is tried at every position instead, which
    made ``pii_coref`` quadratic in the length of a document (its strings grow with it).

    ``any_case``: strings (names) that also match in other casing, without diacritics
    ("lucia" for "Lucía", ``fold_name``) and with a plural "s"
    (``other_casing_ok`` decides a match that differs from the string); their heads are
    indexed case-folded, so the pass stays linear."""
    by_head: Dict[str, List[str]] = {}
    by_fold: Dict[str, List[str]] = {}
    folded = frozenset(any_case)
    for string in sorted(dict.fromkeys(s for s in strings if s), key=len, reverse=True):
        by_head.setdefault(_head(string), []).append(string)
        if string in folded:
            by_fold.setdefault(fold_name(_head(string)), []).append(string)
    if not by_head:
        return []
    found: List[Tuple[int, int, str]] = []
    end_of: Dict[str, int] = {}  # overlapping: where each string's last occurrence ends
    cursor = 0  # cover: where the last occurrence ends
    size = len(text)
    for match in _START.finditer(text):
        p, head = match.start(), match.group(0)
        if p < cursor:
            continue
        candidates = by_head.get(head, [])
        if by_fold:
            key = fold_name(head)
            same, plural = by_fold.get(key, ()), by_fold.get(key[:-1], ()) if key.endswith("s") else ()
            if same or plural:  # most words are no name's head: no lists built for them
                extra = [c for c in same if c not in candidates]
                extra += [c for c in plural if c not in candidates and c not in extra]  # "Solheims"
                candidates = sorted(candidates + extra, key=len, reverse=True) if extra else candidates
        if not candidates:
            continue
        for string in candidates:  # longest first
            stop = p + len(string)
            if not text.startswith(string, p):
                if string not in folded or fold_name(text[p:stop]) != fold_name(string):
                    continue
            if string in folded and stop < size and text[stop] in "sS" and not string.endswith(("s", "S")) and not (
                stop + 1 < size and _is_word(text[stop + 1])
            ):
                stop += 1  # a plural family name: "the Solheims"
            if stop < size and _is_word(text[stop]):
                continue
            if string in folded and not other_casing_ok(string, text[p:stop]):
                continue
            if not overlapping:
                found.append((p, stop, string))
                cursor = stop
                break
            if p >= end_of.get(string, 0):
                found.append((p, stop, string))
                end_of[string] = stop
    return sorted(found, key=lambda item: (item[0], item[1])) if overlapping else found


_WORD_CHAR = re.compile(r"\w")


def _is_word(char: str) -> bool:
    return bool(char) and _WORD_CHAR.match(char) is not None
