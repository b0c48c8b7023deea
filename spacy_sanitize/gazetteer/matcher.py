"""GazetteerMatcher: an Aho-Corasick automaton over sequences of word codes, with a
compact entry table (label, Wikidata property, item id, count, canonical term).

Every normalized word of the gazetteer gets a short code over a 64-character alphabet
(the most frequent words the shortest), and a term becomes ``|c1|c2|...|``. A document
becomes the same kind of string, one code per token (``~`` for words the gazetteer does
not know, for newlines, and for punctuation it never contains), and one pass of the
automaton (``pyahocorasick``, written in C) finds every term occurrence. Words instead of
characters keep the automaton small (about five nodes per term) and the separator makes
every match start and end on a word. Numpy arrays map key indices to their length and
entry, and entries to their fields; nothing is kept as per-term Python objects, so a
million terms load in about a second.
"""

import gzip
import io
import json
import pickle
import warnings
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import ahocorasick
import numpy as np
import srsly

from ..types import PII_TYPES
from .errors import Errors, Warnings
from .normalize import split_words, term_variants, word_spans

FORMAT_VERSION = 1
AUTOMATON_FILE = "automaton.pkl"
TABLE_FILE = "table.npz"
META_FILE = "meta.json"

ALPHABET = "".join(chr(c) for c in range(0x30, 0x50))  # '0'..'O': 32 characters, no '|' or '~'
BASE = len(ALPHABET)
SEP = "|"
UNKNOWN = "~"

Match = Tuple[int, int, int]  # start, end (tokens or characters), entry index


def word_code(index: int) -> str:
    """Bijective base-64 code of a word index: 0 -> '0', 63 -> 'o', 64 -> '00', ..."""
    digits = []
    index += 1
    while index > 0:
        index -= 1
        digits.append(ALPHABET[index % BASE])
        index //= BASE
    return "".join(reversed(digits))


def _ahocorasick_version() -> str:
    try:
        from importlib.metadata import version

        return version("pyahocorasick")
    except (
        ImportError,
        ValueError,
        LookupError,
    ):  # pragma: no cover - metadata missing in odd installs
        return "unknown"


def _pack_strings(strings: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
    encoded = [s.encode("utf8") for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.uint64)
    if encoded:
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()


def _qid_number(qid: Any) -> int:
    text = str(qid or "")
    if len(text) > 1 and text[0] in "Qq" and text[1:].isdigit():
        return int(text[1:])
    return 0


class GazetteerMatcher:
    """Term -> label lookup over Docs or texts. Build with ``GazetteerMatcher.build``."""

    ARRAYS = (
        "key_len",
        "key_words",
        "key_entry",
        "entry_label",
        "entry_prop",
        "entry_qid",
        "entry_count",
        "entry_cased",
        "term_offsets",
        "term_blob",
        "words_blob",
        "keys_blob",
    )

    def __init__(self) -> None:
        self.automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
        self.labels: List[str] = []
        self.properties: List[str] = []
        self.codes: Dict[str, str] = {}
        self.key_len = np.zeros(0, dtype=np.uint32)
        self.key_words = np.zeros(0, dtype=np.uint16)
        self.key_entry = np.zeros(0, dtype=np.uint32)
        self.entry_label = np.zeros(0, dtype=np.uint8)
        self.entry_prop = np.zeros(0, dtype=np.uint16)
        self.entry_qid = np.zeros(0, dtype=np.uint32)
        self.entry_count = np.zeros(0, dtype=np.uint32)
        self.entry_cased = np.zeros(0, dtype=bool)
        self.term_offsets = np.zeros(1, dtype=np.uint64)
        self.term_blob = np.zeros(0, dtype=np.uint8)
        self.words_blob = np.zeros(0, dtype=np.uint8)
        self.keys_blob = np.zeros(0, dtype=np.uint8)
        self._token_cache: Dict[int, str] = {}

    # ------------------------------------------------------------------ building
    @classmethod
    def build(
        cls, records: Iterable[Mapping[str, Any]], progress: bool = False
    ) -> "GazetteerMatcher":
        """Build from records with ``term`` and ``label`` (DEM, MISC or another PII type) and
        optional ``property``, ``qid``, ``count``. A key (normalized word sequence) shared
        by several records keeps the record with the highest count (the first on ties)."""
        labels: Dict[str, int] = {}
        props: Dict[str, int] = {}
        key_index: Dict[Tuple[str, ...], int] = {}
        keys: List[Tuple[str, ...]] = []
        key_entry: List[int] = []
        terms: List[str] = []
        e_label: List[int] = []
        e_prop: List[int] = []
        e_qid: List[int] = []
        e_count: List[int] = []
        iterator: Iterable[Mapping[str, Any]] = records
        if progress:
            from tqdm import tqdm

            iterator = tqdm(records, desc="gazetteer terms", unit=" terms", mininterval=2)
        for record in iterator:
            term = str(record["term"]).strip()
            label = str(record["label"])
            if label not in PII_TYPES:
                raise ValueError(
                    Errors.E202.format(label=label, term=term, labels=", ".join(PII_TYPES))
                )
            count = int(record.get("count") or 0)
            entry = len(terms)
            added = False
            for variant in term_variants(term):
                key = tuple(split_words(variant))
                if not key:
                    continue
                existing = key_index.get(key)
                if existing is None:
                    key_index[key] = len(keys)
                    keys.append(key)
                    key_entry.append(entry)
                    added = True
                elif key_entry[existing] != entry and count > e_count[key_entry[existing]]:
                    key_entry[existing] = entry
                    added = True
            if not added:
                continue
            terms.append(term)
            e_label.append(labels.setdefault(label, len(labels)))
            e_prop.append(props.setdefault(str(record.get("property") or ""), len(props)))
            e_qid.append(_qid_number(record.get("qid")))
            e_count.append(count)
        del key_index
        frequency = Counter(word for key in keys for word in key)
        words = [word for word, _ in frequency.most_common()]
        matcher = cls()
        matcher.codes = {word: word_code(i) for i, word in enumerate(words)}
        coded = [SEP + SEP.join(matcher.codes[w] for w in key) + SEP for key in keys]
        matcher.labels = list(labels)
        matcher.properties = list(props)
        matcher.key_len = np.array([len(key) for key in coded], dtype=np.uint32)
        matcher.key_words = np.array([len(key) for key in keys], dtype=np.uint16)
        matcher.key_entry = np.array(key_entry, dtype=np.uint32)
        matcher.entry_label = np.array(e_label, dtype=np.uint8)
        matcher.entry_prop = np.array(e_prop, dtype=np.uint16)
        matcher.entry_qid = np.array(e_qid, dtype=np.uint32)
        matcher.entry_count = np.array(np.minimum(e_count, 2**32 - 1), dtype=np.uint32)
        matcher.entry_cased = np.array([t[:1].isupper() for t in terms], dtype=bool)
        matcher.term_offsets, matcher.term_blob = _pack_strings(terms)
        matcher.words_blob = np.frombuffer("\n".join(words).encode("utf8"), dtype=np.uint8).copy()
        matcher.keys_blob = np.frombuffer("\n".join(coded).encode("utf8"), dtype=np.uint8).copy()
        matcher._make_automaton(coded)
        return matcher

    def _make_automaton(self, coded_keys: Iterable[str]) -> None:
        automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
        for index, key in enumerate(coded_keys):
            automaton.add_word(key, index)
        if len(automaton):
            automaton.make_automaton()
        self.automaton = automaton

    # ------------------------------------------------------------------ entries
    def __len__(self) -> int:
        return len(self.entry_label)

    @property
    def n_keys(self) -> int:
        return len(self.key_len)

    def term(self, entry: int) -> str:
        return (
            self.term_blob[int(self.term_offsets[entry]) : int(self.term_offsets[entry + 1])]
            .tobytes()
            .decode("utf8")
        )

    def label(self, entry: int) -> str:
        return self.labels[int(self.entry_label[entry])]

    def property(self, entry: int) -> str:
        return self.properties[int(self.entry_prop[entry])]

    def qid(self, entry: int) -> str:
        number = int(self.entry_qid[entry])
        return f"Q{number}" if number else ""

    def count(self, entry: int) -> int:
        return int(self.entry_count[entry])

    def cased(self, entry: int) -> bool:
        return bool(self.entry_cased[entry])

    def record(self, entry: int) -> Dict[str, Any]:
        return {
            "term": self.term(entry),
            "label": self.label(entry),
            "property": self.property(entry),
            "qid": self.qid(entry),
            "count": self.count(entry),
        }

    def records(self) -> Iterator[Dict[str, Any]]:
        for entry in range(len(self)):
            yield self.record(entry)

    # ------------------------------------------------------------------ matching
    def encode_words(self, words: Iterable[str]) -> str:
        """The code of a sequence of normalized words (``~`` for unknown ones)."""
        codes = self.codes
        return "".join(codes.get(word, UNKNOWN) + SEP for word in words)

    def token_code(self, text: str) -> str:
        """The code of one token: its words' codes, each followed by ``|``; "" for a
        hyphen, an apostrophe or spaces; ``~|`` for a newline."""
        if not text.strip():
            return UNKNOWN + SEP if "\n" in text else ""
        words = split_words(text)
        if len(words) > 1 and any(word not in self.codes for word in words):
            # No key can cover the whole token, and a match never covers part of one.
            return UNKNOWN + SEP
        return self.encode_words(words)

    def match_codes(self, token_codes: Sequence[str]) -> List[Match]:
        """Matches over tokens given their codes: (first token, end token, entry)."""
        if not len(self.automaton):
            return []
        text = SEP + "".join(token_codes)
        hits = list(self.automaton.iter(text))
        if not hits:
            return []
        key_len = self.key_len
        key_entry = self.key_entry
        matches: List[Match] = []
        n_coded = len(token_codes) - token_codes.count("")
        if text.count(SEP) == n_coded + 1:
            # Every token has at most one word: a hit's last word is the n-th coded token,
            # n counted by separators (incrementally: hits come in text order).
            coded = (
                [i for i, c in enumerate(token_codes) if c] if n_coded < len(token_codes) else None
            )
            key_words = memoryview(self.key_words)
            entries = memoryview(key_entry)
            seen, position = -1, 0
            for last, key_index in hits:
                seen += text.count(SEP, position, last)
                position = last
                first = seen - key_words[key_index] + 1
                if coded is None:
                    matches.append((first, seen + 1, entries[key_index]))
                else:
                    matches.append((coded[first], coded[seen] + 1, entries[key_index]))
            return matches
        # Where each token's code starts; a match must start and end on token boundaries.
        starts = np.empty(len(token_codes) + 1, dtype=np.int64)
        starts[0] = 1
        np.cumsum(
            np.fromiter(map(len, token_codes), dtype=np.int64, count=len(token_codes)),
            out=starts[1:],
        )
        starts[1:] += 1
        lasts = np.fromiter((last for last, _ in hits), dtype=np.int64, count=len(hits))
        keys = np.fromiter((key for _, key in hits), dtype=np.int64, count=len(hits))
        begins = lasts - key_len[keys].astype(np.int64) + 2
        # searchsorted "right" - 1: the last token starting at or before the position (so
        # tokens with an empty code, like hyphens, are never a match's first token).
        start_tokens = np.searchsorted(starts, begins, side="right") - 1
        end_tokens = np.searchsorted(starts, lasts, side="right") - 1
        ok = (starts[start_tokens] == begins) & (
            starts[np.minimum(end_tokens + 1, len(token_codes))] == lasts + 1
        )
        entries = key_entry[keys]
        for i in np.flatnonzero(ok).tolist():
            matches.append((int(start_tokens[i]), int(end_tokens[i]) + 1, int(entries[i])))
        return matches

    def find_in_doc(self, doc: Any) -> List[Match]:
        """Matches over a spaCy Doc's tokens: (start token, end token, entry)."""
        cache = self._token_cache
        if len(cache) > 1_000_000:
            cache.clear()
        orths = doc.to_array("ORTH").tolist()
        codes = [cache.get(orth) for orth in orths]
        if None in codes:
            strings = doc.vocab.strings
            for i, orth in enumerate(orths):
                if codes[i] is None:
                    codes[i] = cache[orth] = self.token_code(strings[orth])
        return self.match_codes(codes)  # type: ignore[arg-type]

    def find(self, text: str) -> List[Match]:
        """Matches in a plain text: (start char, end char, entry), overlapping, unordered."""
        spans = word_spans(text)
        codes = self.codes
        matches = self.match_codes([codes.get(word, UNKNOWN) + SEP for _, _, word in spans])
        return [(spans[s][0], spans[e - 1][1], entry) for s, e, entry in matches]

    def lookup(self, term: str) -> Optional[int]:
        """The entry of a whole term, or None."""
        if not len(self.automaton):
            return None
        key_index = self.automaton.get(SEP + self.encode_words(split_words(term)), None)
        return None if key_index is None else int(self.key_entry[key_index])

    # ------------------------------------------------------------------ serialization
    def _meta(self) -> Dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "labels": self.labels,
            "properties": self.properties,
            "pyahocorasick": _ahocorasick_version(),
            "entries": len(self),
            "keys": self.n_keys,
        }

    def _set_arrays(
        self, arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any], source: str
    ) -> None:
        missing = [name for name in self.ARRAYS if name not in arrays]
        if missing or meta.get("format") != FORMAT_VERSION:
            raise ValueError(
                Errors.E208.format(
                    path=source, problem=f"missing {missing} or format {meta.get('format')}"
                )
            )
        for name in self.ARRAYS:
            setattr(self, name, arrays[name])
        self.labels = list(meta["labels"])
        self.properties = list(meta["properties"])
        if (
            len(self.key_entry) != len(self.key_len)
            or len(self.term_offsets) != len(self.entry_label) + 1
        ):
            raise ValueError(Errors.E208.format(path=source, problem="array lengths disagree"))
        words = self.words_blob.tobytes().decode("utf8").split("\n") if len(self.words_blob) else []
        self.codes = {word: word_code(i) for i, word in enumerate(words)}

    def _load_automaton(self, data: Optional[bytes], meta: Mapping[str, Any], source: str) -> None:
        try:
            if meta.get("pyahocorasick") != _ahocorasick_version():
                raise ValueError(f"saved with pyahocorasick {meta.get('pyahocorasick')}")
            if data is None:
                raise ValueError("no automaton saved")
            automaton = pickle.loads(data)
            if not isinstance(automaton, ahocorasick.Automaton) or len(automaton) != self.n_keys:
                raise ValueError("the automaton does not match the key table")
            self.automaton = automaton
        except (ValueError, TypeError, EOFError, pickle.UnpicklingError) as err:
            warnings.warn(Warnings.W201.format(path=source, err=err), stacklevel=2)
            coded = (
                self.keys_blob.tobytes().decode("utf8").split("\n") if len(self.keys_blob) else []
            )
            self._make_automaton(coded)

    def to_disk(self, path: Union[str, Path]) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        np.savez(path / TABLE_FILE, **{name: getattr(self, name) for name in self.ARRAYS})
        srsly.write_json(path / META_FILE, self._meta())
        with (path / AUTOMATON_FILE).open("wb") as file_:
            pickle.dump(self.automaton, file_, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def from_disk(cls, path: Union[str, Path]) -> "GazetteerMatcher":
        path = Path(path)
        if not (path / META_FILE).exists():
            raise FileNotFoundError(Errors.E200.format(name=path))
        meta = srsly.read_json(path / META_FILE)
        matcher = cls()
        with np.load(path / TABLE_FILE) as data:
            matcher._set_arrays({name: data[name] for name in data.files}, meta, str(path))
        automaton_path = path / AUTOMATON_FILE
        matcher._load_automaton(
            automaton_path.read_bytes() if automaton_path.exists() else None, meta, str(path)
        )
        return matcher

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        np.savez(buffer, **{name: getattr(self, name) for name in self.ARRAYS})
        automaton = pickle.dumps(self.automaton, protocol=pickle.HIGHEST_PROTOCOL)
        return srsly.msgpack_dumps(
            {"meta": self._meta(), "table": buffer.getvalue(), "automaton": automaton}
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> "GazetteerMatcher":
        msg = srsly.msgpack_loads(data)
        matcher = cls()
        with np.load(io.BytesIO(msg["table"])) as table:
            matcher._set_arrays({name: table[name] for name in table.files}, msg["meta"], "<bytes>")
        matcher._load_automaton(msg.get("automaton"), msg["meta"], "<bytes>")
        return matcher


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
            Errors.E201.format(line=line_no, path=path, problem=json.dumps(record)[:200])
        )
