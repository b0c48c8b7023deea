"""GazetteerMatcher: a trie over word ids, matched with numpy over whole batches of Docs,
with a compact entry table (label, Wikidata property, item id, count, canonical term).

Every normalized word of the gazetteer gets an id (the most frequent words the smallest),
and every key (the normalized word sequence of a term or of one of its variants) is a path
in a trie whose transitions (node, word) -> child live in one open-addressing hash table
of numpy arrays. Matching a batch of Docs:

1. ``doc.to_array("ORTH")`` for every Doc, concatenated with a barrier between Docs;
2. each token's 64-bit orth hash is mapped to a *token class* through a second numpy hash
   table, a cache filled on demand: a word id (one known word), a barrier (an unknown
   word, a newline, or a multi-word token with an unknown word), "transparent" (hyphens,
   apostrophes, spaces: no word at all), or a multi-word token of known words. Only orths
   never seen before go through the Python normalization (``normalize.split_words``);
3. the resulting word-id stream is matched level by level: every position whose word
   starts some key is a candidate, and each further level keeps the candidates whose
   next word continues a key (one vectorized hash-table probe per level), emitting the
   candidates that sit on a key's last word. Candidates shrink at every level, so the
   work is a few numpy passes over the batch.

Matches come back as numpy arrays (doc, start token, end token, entry), every occurrence,
nested ones included, so that callers can apply their own longest-match rule. Nothing is
kept as per-term Python objects: saving writes the arrays (trie and tables included) to
one ``.npz``, and a million terms load in a fraction of a second.
"""

import gzip
import io
import json
import threading
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
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
)

import numpy as np
import srsly
from spacy.attrs import ORTH

from ...types import PII_TYPES
from .errors import Errors, Warnings
from .normalize import split_words, term_variants, word_spans

FORMAT_VERSION = 2
# The trie's hash-table layout (hash function, key packing); a saved index with another
# layout is rebuilt from the saved keys.
INDEX_VERSION = "trie-fib64-lp-1"
TABLE_FILE = "table.npz"
META_FILE = "meta.json"

Match = Tuple[int, int, int]  # start, end (tokens or characters), entry index

BARRIER = -1  # a token no match can cross: unknown word, newline, Doc boundary
TRANSPARENT = -2  # a token without words (hyphen, apostrophe, space): skipped
MISS = np.iinfo(np.int32).min  # not in a hash table
_MULTI_BASE = -3  # token classes <= -3: multi-word tokens, index -3 - class
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_ORTH_CACHE_MAX = 2_000_000
_BOUNDARY = np.zeros(1, dtype=np.uint64)
_MASK64 = (1 << 64) - 1


class MatchArrays(NamedTuple):
    """Matches over a batch of Docs, sorted by doc, end token, start token.

    doc (np.ndarray): index of the Doc in the batch.
    start (np.ndarray): first token.
    end (np.ndarray): token after the last one.
    entry (np.ndarray): entry index in the matcher's table.
    """

    doc: np.ndarray
    start: np.ndarray
    end: np.ndarray
    entry: np.ndarray

    def __len__(self) -> int:  # type: ignore[override]
        return len(self.entry)


def _empty_matches() -> MatchArrays:
    empty = np.zeros(0, dtype=np.int64)
    return MatchArrays(empty, empty, empty, empty)


class HashTable:
    """uint64 key (never 0) -> int32 value, open addressing with linear probing, in numpy:
    lookups and insertions are vectorized over arrays of keys."""

    def __init__(self, bits: int = 4, load: float = 0.5) -> None:
        self.bits = bits
        self.load = load  # the largest share of occupied slots before the table grows
        self.keys = np.zeros(1 << bits, dtype=np.uint64)
        self.values = np.full(1 << bits, MISS, dtype=np.int32)
        self.count = 0

    @staticmethod
    def bits_for(n: int, load: float = 0.4) -> int:
        return max(4, int(np.ceil(np.log2(max(n, 1) / load))))

    @classmethod
    def from_arrays(cls, keys: np.ndarray, values: np.ndarray) -> "HashTable":
        table = cls(int(np.log2(len(keys))) if len(keys) else 4)
        if len(keys):
            table.keys, table.values = keys, values
            table.count = int(np.count_nonzero(keys))
        return table

    @classmethod
    def build(cls, keys: np.ndarray, values: np.ndarray, load: float = 0.4) -> "HashTable":
        table = cls(cls.bits_for(len(keys), load), load=max(load, 0.5))
        table.insert(keys, values)
        return table

    def _slots(self, keys: np.ndarray) -> np.ndarray:
        return ((keys * _GOLDEN) >> np.uint64(64 - self.bits)).astype(np.intp)

    def get(self, queries: np.ndarray) -> np.ndarray:
        """Values of ``queries`` (uint64), MISS for absent keys."""
        table_keys, table_values = self.keys, self.values
        mask = len(table_keys) - 1
        slots = self._slots(queries)
        found = table_keys[slots]
        out = table_values[slots]
        # A miss on an occupied slot of another key: probe on (rarely more than a step).
        again = np.flatnonzero((found != queries) & (found != 0))
        if len(again):
            out[again] = MISS
            slots, queries = slots[again], queries[again]
            while len(again):
                slots = (slots + 1) & mask
                found = table_keys[slots]
                hit = found == queries
                if hit.any():
                    out[again[hit]] = table_values[slots[hit]]
                go_on = ~hit & (found != 0)
                again, slots, queries = again[go_on], slots[go_on], queries[go_on]
        return out

    def insert(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Add keys that are not in the table yet (distinct, non-zero)."""
        if not len(keys):
            return
        if (self.count + len(keys)) > self.load * len(self.keys):
            old = np.flatnonzero(self.keys)
            old_keys, old_values = self.keys[old], self.values[old]
            self.bits = self.bits_for(self.count + len(keys), self.load / 2)
            self.keys = np.zeros(1 << self.bits, dtype=np.uint64)
            self.values = np.full(1 << self.bits, MISS, dtype=np.int32)
            self.count = 0
            self.insert(old_keys, old_values)
        mask = len(self.keys) - 1
        keys = keys.astype(np.uint64, copy=False)
        values = values.astype(np.int32, copy=False)
        slots = self._slots(keys)
        while len(keys):
            free = self.keys[slots] == 0
            _, first = np.unique(slots[free], return_index=True)
            placed = np.flatnonzero(free)[first]
            self.keys[slots[placed]] = keys[placed]
            self.values[slots[placed]] = values[placed]
            rest = np.ones(len(keys), dtype=bool)
            rest[placed] = False
            keys, values, slots = keys[rest], values[rest], (slots[rest] + 1) & mask
        self.count = int(np.count_nonzero(self.keys))

    def clear(self) -> None:
        self.__init__(load=self.load)  # type: ignore[misc]


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


def build_trie(
    key_offsets: np.ndarray, key_word_ids: np.ndarray, n_words: int
) -> Tuple[np.ndarray, np.ndarray, HashTable]:
    """The trie of keys given as flat word ids: (root_child per word, key per node, table of
    transitions (node * (n_words + 1) + word + 1) -> child node). Node 0 is the root."""
    n_keys = len(key_offsets) - 1
    lengths = np.diff(key_offsets).astype(np.int64)
    starts = key_offsets[:-1].astype(np.int64)
    current = np.zeros(n_keys, dtype=np.int64)
    root_child = np.full(n_words, -1, dtype=np.int32)
    n_nodes = 1
    trans_keys: List[np.ndarray] = []
    trans_children: List[np.ndarray] = []
    stride = np.uint64(n_words + 1)
    for level in range(int(lengths.max()) if n_keys else 0):
        active = np.flatnonzero(lengths > level)
        words = key_word_ids[starts[active] + level].astype(np.uint64)
        composite = current[active].astype(np.uint64) * stride + words + np.uint64(1)
        unique, inverse = np.unique(composite, return_inverse=True)
        children = np.arange(n_nodes, n_nodes + len(unique), dtype=np.int64)
        n_nodes += len(unique)
        current[active] = children[inverse]
        if level == 0:
            root_child[(unique - np.uint64(1)).astype(np.int64)] = children
        else:
            trans_keys.append(unique)
            trans_children.append(children)
    node_key = np.full(n_nodes, -1, dtype=np.int32)
    node_key[current] = np.arange(n_keys, dtype=np.int32)
    table = HashTable.build(
        np.concatenate(trans_keys) if trans_keys else np.zeros(0, dtype=np.uint64),
        np.concatenate(trans_children) if trans_children else np.zeros(0, dtype=np.int32),
    )
    return root_child, node_key, table


class GazetteerMatcher:
    """Term -> label lookup over Docs or texts. Build with ``GazetteerMatcher.build``."""

    # ``find_in_doc`` matches Docs up to this length in plain Python (faster than numpy's
    # per-call overhead on short inputs).
    python_max_tokens = 250

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
    INDEX_ARRAYS = ("root_child", "node_key", "table_keys", "table_values")

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
        self.root_child = np.zeros(0, dtype=np.int32)
        self.node_key = np.full(1, -1, dtype=np.int32)
        self.table = HashTable()
        self._n_words = 0
        self._word_index: Optional[Dict[str, int]] = None
        # Token classes of orth hashes seen so far, and the word ids of multi-word tokens.
        self._orth_classes = HashTable(load=0.25)
        self._multi: List[Tuple[int, ...]] = []
        # The plain-Python path's cache (orth -> class) with the multi-word table it indexes.
        self._py_state: Tuple[Dict[int, int], List[Tuple[int, ...]]] = ({}, self._multi)
        self._root_lookup: Optional[np.ndarray] = None
        self._root_list: Optional[List[int]] = None
        # The caches above grow while matching: one thread at a time fills them.
        self._cache_lock = threading.RLock()

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
        index = {word: i for i, word in enumerate(words)}
        matcher = cls()
        matcher.labels = list(labels)
        matcher.properties = list(props)
        matcher.key_offsets = np.zeros(len(keys) + 1, dtype=np.int64)
        np.cumsum(
            np.fromiter(map(len, keys), dtype=np.int64, count=len(keys)),
            out=matcher.key_offsets[1:],
        )
        matcher.key_word_ids = np.fromiter(
            (index[word] for key in keys for word in key),
            dtype=np.int32,
            count=int(matcher.key_offsets[-1]),
        )
        matcher.key_entry = np.array(key_entry, dtype=np.uint32)
        matcher.entry_label = np.array(e_label, dtype=np.uint8)
        matcher.entry_prop = np.array(e_prop, dtype=np.uint16)
        matcher.entry_qid = np.array(e_qid, dtype=np.uint32)
        matcher.entry_count = np.array(np.minimum(e_count, 2**32 - 1), dtype=np.uint32)
        matcher.term_offsets, matcher.term_blob = _pack_strings(terms)
        matcher.words_blob = np.frombuffer("\n".join(words).encode("utf8"), dtype=np.uint8).copy()
        matcher._n_words = len(words)
        matcher._word_index = index
        matcher._make_index()
        return matcher

    def _make_index(self) -> None:
        self.root_child, self.node_key, self.table = build_trie(
            self.key_offsets, self.key_word_ids, self._n_words
        )

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

    # ------------------------------------------------------------------ token classes
    def token_class(self, text: str) -> int:
        """The class of one token's text: its word id, BARRIER (unknown word, newline, or a
        multi-word token with an unknown word: no key can cover the whole token, and a match
        never covers part of one), TRANSPARENT (no word: hyphen, apostrophe, spaces), or, for
        a multi-word token of known words, ``-3 - i`` with ``self._multi[i]`` its word ids."""
        if not text.strip():
            # any line break (as str.splitlines sees them: \r, \x0c, \u2028 ...) is a barrier
            return BARRIER if len(text.splitlines()) > 1 or text.splitlines() != [text] else TRANSPARENT
        words = split_words(text)
        if not words:
            return TRANSPARENT
        index = self.word_index
        ids = [index.get(word, BARRIER) for word in words]
        if len(ids) == 1:
            return ids[0]
        if BARRIER in ids:
            return BARRIER
        self._multi.append(tuple(ids))
        return _MULTI_BASE - (len(self._multi) - 1)

    def _classes(
        self, orths: np.ndarray, docs: Sequence[Any]
    ) -> Tuple[np.ndarray, List[Tuple[int, ...]]]:
        """Token classes of orth hashes (0 = Doc boundary), computing unseen ones (whose
        strings are in the ``docs``' vocabs), and the multi-word table they index."""
        with self._cache_lock:
            cache = self._orth_classes
            classes = cache.get(orths)
            classes[orths == 0] = BARRIER
            missing = np.flatnonzero(classes == MISS)
            if len(missing):
                if cache.count > _ORTH_CACHE_MAX:
                    self._reset_caches()
                    return self._classes(orths, docs)
                vocabs = list({id(doc.vocab): doc.vocab for doc in docs}.values())
                new, inverse = np.unique(orths[missing], return_inverse=True)
                values = np.fromiter(
                    (self.token_class(_orth_text(int(orth), vocabs)) for orth in new.tolist()),
                    dtype=np.int32,
                    count=len(new),
                )
                cache.insert(new, values)
                classes[missing] = values[inverse]
            return classes, self._multi

    # ------------------------------------------------------------------ matching
    def _match_words(
        self,
        word_ids: np.ndarray,
        first: Optional[np.ndarray] = None,
        last: Optional[np.ndarray] = None,
    ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every key occurrence in a stream of word ids (BARRIER for barriers; the stream
        must end with one): (first position, last position, key), positions in the stream.
        ``first``/``last`` (bool per position) restrict where matches may start and end."""
        # The root's child of every word; BARRIER indexes the -1 appended to root_child.
        if self._root_lookup is None or len(self._root_lookup) != len(self.root_child) + 1:
            self._root_lookup = np.append(self.root_child, np.int32(-1))
        node = self._root_lookup[word_ids]
        if first is not None:
            node[~first] = -1
        position = np.flatnonzero(node >= 0)
        node = node[position].astype(np.int64)
        start = position
        found_start: List[np.ndarray] = []
        found_end: List[np.ndarray] = []
        found_key: List[np.ndarray] = []
        node_key = self.node_key
        stride = self._n_words + 1
        while len(position):
            key = node_key[node]
            hit = key >= 0
            if last is not None:
                hit &= last[position]
            if hit.any():
                found_start.append(start[hit])
                found_end.append(position[hit])
                found_key.append(key[hit])
            position = position + 1
            word = word_ids[position]
            keep = np.flatnonzero(word >= 0)
            if len(keep) < len(position):
                position, node, start, word = position[keep], node[keep], start[keep], word[keep]
            if not len(position):
                break
            composite = node * stride  # int64: node ids * (words + 1) stay far below 2**63
            composite += word
            composite += 1
            child = self.table.get(composite.view(np.uint64))
            keep = np.flatnonzero(child != MISS)
            position, node, start = position[keep], child[keep].astype(np.int64), start[keep]
        if not found_key:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        return np.concatenate(found_start), np.concatenate(found_end), np.concatenate(found_key)

    def match_docs(self, docs: Sequence[Any]) -> MatchArrays:
        """Every gazetteer match in a batch of spaCy Docs, as numpy arrays (see
        ``MatchArrays``): one vectorized pass over the whole batch."""
        if not len(docs) or not self.n_keys:
            return _empty_matches()
        # Each Doc's orth hashes, then a 0 (Doc boundary: a barrier).
        parts: List[np.ndarray] = []
        for doc in docs:
            parts.append(doc.to_array(ORTH))
            parts.append(_BOUNDARY)
        lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
        doc_starts = np.zeros(len(docs) + 1, dtype=np.int64)
        np.cumsum(lengths.reshape(-1, 2).sum(axis=1), out=doc_starts[1:])
        orths = np.concatenate(parts)
        classes, multi = self._classes(orths, docs)
        word_ids, token, first, last = self._word_stream(classes, multi)
        start, end, key = self._match_words(word_ids, first, last)
        if not len(key):
            return _empty_matches()
        # Sorted by end token, then start token (global positions: Docs in order).
        start_token = token[start]
        end_token = token[end] + 1
        order = np.argsort((end_token << 32) | (end_token - start_token) ^ 0xFFFFFFFF)
        start_token, end_token = start_token[order], end_token[order]
        entry = self.key_entry[key[order]].astype(np.int64)
        if len(docs) == 1:
            return MatchArrays(np.zeros(len(key), dtype=np.int64), start_token, end_token, entry)
        doc_index = np.searchsorted(doc_starts, start_token, side="right") - 1
        offset = doc_starts[doc_index]
        return MatchArrays(doc_index, start_token - offset, end_token - offset, entry)

    def _word_stream(
        self, classes: np.ndarray, multi: Sequence[Tuple[int, ...]]
    ) -> Tuple[np.ndarray, np.ndarray, Optional[np.ndarray], Optional[np.ndarray]]:
        """Token classes -> (word ids ending with a barrier, token of each word, first-word
        and last-word flags; None when every token has at most one word)."""
        if not len(classes) or classes.min() >= TRANSPARENT:
            token = np.flatnonzero(classes != TRANSPARENT)
            word_ids = np.empty(len(token) + 1, dtype=np.int32)
            word_ids[:-1] = classes[token]
            word_ids[-1] = BARRIER
            return word_ids, token, None, None
        counts = np.where(classes == TRANSPARENT, 0, 1)
        multi_at = np.flatnonzero(classes <= _MULTI_BASE)
        sequences = [multi[_MULTI_BASE - c] for c in classes[multi_at].tolist()]
        counts[multi_at] = [len(s) for s in sequences]
        token = np.repeat(np.arange(len(classes)), counts)
        word_ids = np.empty(len(token) + 1, dtype=np.int32)
        word_ids[:-1] = np.repeat(classes, counts)
        word_ids[-1] = BARRIER
        # Overwrite the repeated class of multi-word tokens with their words.
        token_first = np.zeros(len(classes) + 1, dtype=np.int64)
        np.cumsum(counts, out=token_first[1:])
        for at, sequence in zip(token_first[multi_at].tolist(), sequences):
            word_ids[at : at + len(sequence)] = sequence
        n = len(token)
        first = np.ones(n + 1, dtype=bool)
        first[1:n] = token[1:] != token[:-1]
        last = np.ones(n + 1, dtype=bool)
        last[: n - 1] = token[1:] != token[:-1]
        return word_ids, token, first, last

    def _match_words_py(
        self,
        word_ids: Sequence[int],
        first: Optional[Sequence[bool]] = None,
        last: Optional[Sequence[bool]] = None,
    ) -> List[Tuple[int, int, int]]:
        """``_match_words`` in plain Python, for short inputs where numpy's per-call cost
        dominates: the same trie and hash table, probed one key at a time."""
        # The root's child of every word, and -1 at the end for BARRIER (index -1).
        if self._root_list is None or len(self._root_list) != len(self.root_child) + 1:
            self._root_list = self.root_child.tolist() + [-1]
        root_child = self._root_list
        if first is None:
            begins = [i for i, word in enumerate(word_ids) if root_child[word] >= 0]
        else:
            begins = [i for i, word in enumerate(word_ids) if root_child[word] >= 0 and first[i]]
        if not begins:
            return []
        node_key = self.node_key.item
        table_keys = self.table.keys.item
        table_values = self.table.values.item
        mask = len(self.table.keys) - 1
        shift = 64 - self.table.bits
        stride = self._n_words + 1
        golden = int(_GOLDEN)
        found: List[Tuple[int, int, int]] = []
        for begin in begins:
            node = root_child[word_ids[begin]]
            position = begin
            while node >= 0:
                key = node_key(node)
                if key >= 0 and (last is None or last[position]):
                    found.append((begin, position, key))
                position += 1
                word = word_ids[position]
                if word < 0:
                    break
                query = node * stride + word + 1
                slot = ((query * golden) & _MASK64) >> shift
                while True:
                    stored = table_keys(slot)
                    if stored == query:
                        node = table_values(slot)
                        break
                    if stored == 0:
                        node = -1
                        break
                    slot = (slot + 1) & mask
        return found

    def _find_in_doc_py(self, doc: Any) -> List[Match]:
        """``find_in_doc`` without numpy calls per step (short Docs)."""
        cache, multi = self._py_state  # one snapshot: a reset replaces both together
        orths = doc.to_array(ORTH).tolist()
        classes = list(map(cache.get, orths))
        if None in classes:
            with self._cache_lock:
                if cache is not self._py_state[0] or len(cache) > _ORTH_CACHE_MAX:
                    if len(cache) > _ORTH_CACHE_MAX:
                        self._reset_caches()
                    return self._find_in_doc_py(doc)
                strings = doc.vocab.strings
                for i, orth in enumerate(orths):
                    if classes[i] is None:
                        classes[i] = cache[orth] = self.token_class(strings[orth])
        word_ids: List[int] = []
        token: List[int] = []
        first: Optional[List[bool]] = None
        last: Optional[List[bool]] = None
        if min(classes, default=0) >= TRANSPARENT:  # type: ignore[type-var]
            if TRANSPARENT in classes:
                token = [i for i, value in enumerate(classes) if value != TRANSPARENT]
                word_ids = [value for value in classes if value != TRANSPARENT]  # type: ignore[misc]
            else:
                token = list(range(len(classes)))
                word_ids = classes  # type: ignore[assignment]
        else:
            first, last = [], []
            for i, value in enumerate(classes):
                if value == TRANSPARENT:
                    continue
                words = (value,) if value > _MULTI_BASE else multi[_MULTI_BASE - value]  # type: ignore[operator]
                word_ids.extend(words)  # type: ignore[arg-type]
                token.extend([i] * len(words))
                first.extend([True] + [False] * (len(words) - 1))
                last.extend([False] * (len(words) - 1) + [True])
            first.append(True)
            last.append(True)
        word_ids.append(BARRIER)
        found = self._match_words_py(word_ids, first, last)
        key_entry = self.key_entry.item
        matches = [(token[b], token[e] + 1, key_entry(k)) for b, e, k in found]
        matches.sort(key=lambda m: (m[1], m[0]))
        return matches

    def _reset_caches(self) -> None:
        with self._cache_lock:
            self._orth_classes.clear()
            self._multi = []
            self._py_state = ({}, self._multi)

    def find_in_docs(self, docs: Sequence[Any]) -> List[List[Match]]:
        """Matches per Doc of a batch: lists of (start token, end token, entry), each sorted
        by end then start token."""
        docs = list(docs)
        if len(docs) == 1 and len(docs[0]) <= self.python_max_tokens:
            return [self.find_in_doc(docs[0])]
        found: List[List[Match]] = [[] for _ in docs]
        arrays = self.match_docs(docs)
        if len(arrays):
            bounds = np.searchsorted(arrays.doc, np.arange(len(docs) + 1)).tolist()
            rows = list(zip(arrays.start.tolist(), arrays.end.tolist(), arrays.entry.tolist()))
            for i in range(len(docs)):
                found[i] = rows[bounds[i] : bounds[i + 1]]
        return found

    def find_in_doc(self, doc: Any) -> List[Match]:
        """Matches over a spaCy Doc's tokens: (start token, end token, entry), sorted by end
        then start token. Short Docs are matched in plain Python, longer ones with numpy;
        for many Docs, ``find_in_docs``/``match_docs``/``pipe`` are much faster."""
        if not self.n_keys:
            return []
        if len(doc) <= self.python_max_tokens:
            return self._find_in_doc_py(doc)
        arrays = self.match_docs([doc])
        return list(zip(arrays.start.tolist(), arrays.end.tolist(), arrays.entry.tolist()))

    def pipe(self, docs: Iterable[Any], batch_size: int = 256) -> Iterator[Tuple[Any, List[Match]]]:
        """(doc, matches) for a stream of Docs, matched by batches of ``batch_size``."""
        batch: List[Any] = []
        for doc in docs:
            batch.append(doc)
            if len(batch) >= batch_size:
                yield from zip(batch, self.find_in_docs(batch))
                batch = []
        if batch:
            yield from zip(batch, self.find_in_docs(batch))

    def find(self, text: str) -> List[Match]:
        """Matches in a plain text: (start char, end char, entry), overlapping, unordered."""
        if not self.n_keys:
            return []
        spans = word_spans(text)
        index = self.word_index
        word_ids = np.fromiter(
            [index.get(word, BARRIER) for _, _, word in spans] + [BARRIER],
            dtype=np.int32,
            count=len(spans) + 1,
        )
        start, end, key = self._match_words(word_ids)
        entries = self.key_entry[key]
        return [
            (spans[s][0], spans[e][1], int(entry))
            for s, e, entry in zip(start.tolist(), end.tolist(), entries.tolist())
        ]

    def lookup(self, term: str) -> Optional[int]:
        """The entry of a whole term, or None."""
        words = split_words(term)
        if not self.n_keys or not words:
            return None
        index = self.word_index
        ids = [index.get(word, BARRIER) for word in words]
        if BARRIER in ids:
            return None
        node = int(self.root_child[ids[0]])
        stride = self._n_words + 1
        for word in ids[1:]:
            if node < 0:
                return None
            query = np.array([node * stride + word + 1], dtype=np.uint64)
            node = int(self.table.get(query)[0])
            node = -1 if node == MISS else node
        key = int(self.node_key[node]) if node >= 0 else -1
        return None if key < 0 else int(self.key_entry[key])

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
        arrays = {name: getattr(self, name) for name in self.ARRAYS}
        arrays.update(
            root_child=self.root_child,
            node_key=self.node_key,
            table_keys=self.table.keys,
            table_values=self.table.values,
        )
        return arrays

    def _set_arrays(
        self, arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any], source: str
    ) -> None:
        if meta.get("format") == 1:
            arrays = _upgrade_format_1(arrays)
        missing = [name for name in self.ARRAYS if name not in arrays]
        if missing or meta.get("format") not in (1, FORMAT_VERSION):
            raise ValueError(
                Errors.E208.format(
                    path=source, problem=f"missing {missing} or format {meta.get('format')}"
                )
            )
        for name in self.ARRAYS:
            setattr(self, name, arrays[name])
        self.labels = list(meta["labels"])
        self.properties = list(meta["properties"])
        self._n_words = len(self.words)
        if (
            len(self.key_entry) != len(self.key_offsets) - 1
            or len(self.term_offsets) != len(self.entry_label) + 1
            or int(self.key_offsets[-1]) != len(self.key_word_ids)
        ):
            raise ValueError(Errors.E208.format(path=source, problem="array lengths disagree"))
        try:
            if meta.get("index") != INDEX_VERSION:
                raise ValueError(f"index layout {meta.get('index')!r}, not {INDEX_VERSION!r}")
            if any(name not in arrays for name in self.INDEX_ARRAYS):
                raise ValueError("no index saved")
            size = len(arrays["table_keys"])
            n_nodes = len(arrays["node_key"])
            if (
                len(arrays["root_child"]) != self._n_words
                or n_nodes < 1
                or size & (size - 1)
                or len(arrays["table_values"]) != size
                or (self._n_words and int(arrays["root_child"].max()) >= n_nodes)
                or (size and int(arrays["table_values"].max()) >= n_nodes)
                or int(arrays["node_key"].max()) >= self.n_keys
            ):
                raise ValueError("the index does not match the key table")
            self.root_child = arrays["root_child"]
            self.node_key = arrays["node_key"]
            self.table = HashTable.from_arrays(arrays["table_keys"], arrays["table_values"])
        except ValueError as err:
            warnings.warn(Warnings.W201.format(path=source, err=err), stacklevel=3)
            self._make_index()

    def to_disk(self, path: Union[str, Path]) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        np.savez(path / TABLE_FILE, **self._arrays())
        srsly.write_json(path / META_FILE, self._meta())
        stale = path / "automaton.pkl"  # format 1
        if stale.exists():
            stale.unlink()

    @classmethod
    def from_disk(cls, path: Union[str, Path]) -> "GazetteerMatcher":
        path = Path(path)
        if not (path / META_FILE).exists():
            raise FileNotFoundError(Errors.E200.format(name=path))
        meta = srsly.read_json(path / META_FILE)
        matcher = cls()
        with np.load(path / TABLE_FILE) as data:
            matcher._set_arrays({name: data[name] for name in data.files}, meta, str(path))
        return matcher

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        np.savez(buffer, **self._arrays())
        return srsly.msgpack_dumps({"meta": self._meta(), "table": buffer.getvalue()})

    @classmethod
    def from_bytes(cls, data: bytes) -> "GazetteerMatcher":
        msg = srsly.msgpack_loads(data)
        matcher = cls()
        with np.load(io.BytesIO(msg["table"])) as table:
            matcher._set_arrays({name: table[name] for name in table.files}, msg["meta"], "<bytes>")
        return matcher


def _orth_text(orth: int, vocabs: Sequence[Any]) -> str:
    for vocab in vocabs:
        try:
            return vocab.strings[orth]
        except KeyError:
            continue
    return "\n"  # pragma: no cover - a token's orth is always in its vocab: a barrier


def _upgrade_format_1(arrays: Mapping[str, np.ndarray]) -> Dict[str, np.ndarray]:
    """Format 1 (pyahocorasick over word codes) -> format 2 arrays: keys decoded from their
    ``|c1|c2|...|`` codes (bijective base 32 over '0'..'O'); the index is rebuilt."""
    upgraded = dict(arrays)
    blob = arrays.get("keys_blob")
    coded = blob.tobytes().decode("utf8").split("\n") if blob is not None and len(blob) else []
    ids: List[int] = []
    lengths: List[int] = []
    for key in coded:
        codes = key.strip("|").split("|")
        for code in codes:
            value = 0
            for char in code:
                value = value * 32 + (ord(char) - 0x30) + 1
            ids.append(value - 1)
        lengths.append(len(codes))
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    upgraded["key_offsets"] = offsets
    upgraded["key_word_ids"] = np.array(ids, dtype=np.int32)
    for name in GazetteerMatcher.INDEX_ARRAYS:
        upgraded.pop(name, None)
    return upgraded


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
