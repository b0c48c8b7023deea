"""The compiled gazetteer: keys, entries and the trie's index as flat numpy arrays, built
from term records, saved to one ``.npz`` (plus ``meta.json``) and loaded without per-term
Python objects (a million terms load in a fraction of a second).

Every normalized word gets an id (the most frequent words the smallest); a key is the
word-id sequence of a term or of one of its variants (``normalize.term_variants``) and
points at an entry (label, Wikidata property, item id, count, canonical term).
"""

import io
import warnings
from collections import Counter
from pathlib import Path
from typing import (
    Any,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Type,
    TypeVar,
    Union,
)

import numpy as np
import srsly

from ...types import PII_TYPES
from ...errors import Errors, Warnings
from .normalize import split_words, term_variants
from .trie import Trie

FORMAT_VERSION = 2
# The trie's hash-table layout (hash function, key packing); a saved index with another
# layout is rebuilt from the saved keys.
INDEX_VERSION = "trie-fib64-lp-1"
TABLE_FILE = "table.npz"
META_FILE = "meta.json"
ARRAYS = (
    "key_offsets",
    "key_word_ids",
    "key_entry",
    "entry_label",
    "entry_prop",
    "entry_qid",
    "entry_count",
    "term_offsets",
    "term_blob",
    "words_blob",
)
T = TypeVar("T", bound="GazetteerTable")


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


class GazetteerTable:
    """The arrays of a compiled gazetteer and its entries. Build with ``build``."""

    def __init__(self) -> None:
        self.labels: List[str] = []
        self.properties: List[str] = []
        self.key_offsets = np.zeros(1, dtype=np.int64)
        self.key_word_ids = np.zeros(0, dtype=np.int32)
        self.key_entry = np.zeros(0, dtype=np.uint32)
        self.entry_label = np.zeros(0, dtype=np.uint8)
        self.entry_prop = np.zeros(0, dtype=np.uint16)
        self.entry_qid = np.zeros(0, dtype=np.uint32)
        self.entry_count = np.zeros(0, dtype=np.uint32)
        self.term_offsets = np.zeros(1, dtype=np.uint64)
        self.term_blob = np.zeros(0, dtype=np.uint8)
        self.words_blob = np.zeros(0, dtype=np.uint8)
        self.trie = Trie.empty()
        self._n_words = 0
        self._word_index: Optional[Dict[str, int]] = None

    # ------------------------------------------------------------------ building
    @classmethod
    def build(cls: Type[T], records: Iterable[Mapping[str, Any]], progress: bool = False) -> T:
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
        for index, record in enumerate(iterator):
            term = str(record["term"]).strip()
            label = str(record["label"])
            if label not in PII_TYPES:  # the record's number, not its term (a name)
                raise ValueError(
                    Errors.E202.format(label=label, index=index, labels=", ".join(PII_TYPES))
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
        index = {word: i for i, word in enumerate(words)}
        built = cls()
        built.labels = list(labels)
        built.properties = list(props)
        built.key_offsets = np.zeros(len(keys) + 1, dtype=np.int64)
        np.cumsum(
            np.fromiter(map(len, keys), dtype=np.int64, count=len(keys)),
            out=built.key_offsets[1:],
        )
        built.key_word_ids = np.fromiter(
            (index[word] for key in keys for word in key),
            dtype=np.int32,
            count=int(built.key_offsets[-1]),
        )
        built.key_entry = np.array(key_entry, dtype=np.uint32)
        built.entry_label = np.array(e_label, dtype=np.uint8)
        built.entry_prop = np.array(e_prop, dtype=np.uint16)
        built.entry_qid = np.array(e_qid, dtype=np.uint32)
        built.entry_count = np.array(np.minimum(e_count, 2**32 - 1), dtype=np.uint32)
        built.term_offsets, built.term_blob = _pack_strings(terms)
        built.words_blob = np.frombuffer("\n".join(words).encode("utf8"), dtype=np.uint8).copy()
        built._n_words = len(words)
        built._word_index = index
        built._make_index()
        return built

    def _make_index(self) -> None:
        self.trie = Trie.build(self.key_offsets, self.key_word_ids, self._n_words)

    # ------------------------------------------------------------------ entries
    def __len__(self) -> int:
        return len(self.entry_label)

    @property
    def n_keys(self) -> int:
        return len(self.key_entry)

    @property
    def words(self) -> List[str]:
        """The gazetteer's normalized words, by word id."""
        return self.words_blob.tobytes().decode("utf8").split("\n") if len(self.words_blob) else []

    @property
    def word_index(self) -> Dict[str, int]:
        """Normalized word -> word id (built on first use)."""
        if self._word_index is None:
            self._word_index = {word: i for i, word in enumerate(self.words)}
        return self._word_index

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

    # ------------------------------------------------------------------ serialization
    def _meta(self) -> Dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "index": INDEX_VERSION,
            "labels": self.labels,
            "properties": self.properties,
            "entries": len(self),
            "keys": self.n_keys,
            "words": self._n_words,
        }

    def _arrays(self) -> Dict[str, np.ndarray]:
        arrays = {name: getattr(self, name) for name in ARRAYS}
        arrays.update(self.trie.arrays())
        return arrays

    def _set_arrays(
        self, arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any], source: str
    ) -> None:
        if meta.get("format") != FORMAT_VERSION:
            problem = (
                f"format {meta.get('format')}; this version reads format {FORMAT_VERSION} only, "
                "rebuild it from its term records"
            )
            raise ValueError(Errors.E208.format(path=source, problem=problem))
        missing = [name for name in ARRAYS if name not in arrays]
        if missing:
            raise ValueError(Errors.E208.format(path=source, problem=f"missing arrays {missing}"))
        for name in ARRAYS:
            setattr(self, name, arrays[name])
        self.labels = list(meta["labels"])
        self.properties = list(meta["properties"])
        self._n_words = len(self.words)
        self._word_index = None
        if (
            len(self.key_entry) != len(self.key_offsets) - 1
            or len(self.term_offsets) != len(self.entry_label) + 1
            or int(self.key_offsets[-1]) != len(self.key_word_ids)
        ):
            raise ValueError(Errors.E208.format(path=source, problem="array lengths disagree"))
        try:
            if meta.get("index") != INDEX_VERSION:
                raise ValueError(f"index layout {meta.get('index')!r}, not {INDEX_VERSION!r}")
            self.trie = Trie.from_arrays(arrays, self._n_words, self.n_keys)
        except ValueError as err:
            warnings.warn(Warnings.W201.format(path=source, err=err), stacklevel=3)
            self._make_index()

    def to_disk(self, path: Union[str, Path]) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        np.savez(path / TABLE_FILE, **self._arrays())
        srsly.write_json(path / META_FILE, self._meta())

    @classmethod
    def from_disk(cls: Type[T], path: Union[str, Path]) -> T:
        path = Path(path)
        if not (path / META_FILE).exists():
            raise FileNotFoundError(Errors.E200.format(name=path))
        meta = srsly.read_json(path / META_FILE)
        built = cls()
        with np.load(path / TABLE_FILE) as data:
            built._set_arrays({name: data[name] for name in data.files}, meta, str(path))
        return built

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        np.savez(buffer, **self._arrays())
        return srsly.msgpack_dumps({"meta": self._meta(), "table": buffer.getvalue()})

    @classmethod
    def from_bytes(cls: Type[T], data: bytes) -> T:
        msg = srsly.msgpack_loads(data)
        built = cls()
        with np.load(io.BytesIO(msg["table"])) as table:
            built._set_arrays({name: table[name] for name in table.files}, msg["meta"], "<bytes>")
        return built
