"""GazetteerMatcher: the compiled gazetteer (``table``) matched over batches of Docs.

Matching a batch: every Doc's ``ORTH`` array, concatenated with a barrier between Docs,
becomes a stream of word ids (``tokens``), and the trie (``trie``) finds every key in it
in a few vectorized passes. Matches come back per Doc as (start token, end token, entry),
every occurrence, nested ones included, so that callers apply their own longest-match rule.

``find_in_docs`` is the one entry point (``find_in_doc`` and ``pipe`` call it); it sends
a single short Doc through the same trie walked in plain Python (``Trie.match_short``),
which is several times faster there than numpy's per-call overhead.
"""

from typing import Any, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
from spacy.attrs import ORTH

from .normalize import split_words, word_spans
from .records import read_records  # noqa: F401  (imported from here by the component)
from .table import GazetteerTable
from .tokens import TokenClasses
from .trie import BARRIER

Match = Tuple[int, int, int]  # start, end (tokens or characters), entry index

_BOUNDARY = np.zeros(1, dtype=np.uint64)  # orth 0 between Docs: a barrier


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


class GazetteerMatcher(GazetteerTable):
    """Term -> label lookup over Docs or texts. Build with ``GazetteerMatcher.build``."""

    # A single Doc up to this length is matched in plain Python (see the module docstring).
    python_max_tokens = 250

    def __init__(self) -> None:
        super().__init__()
        self._tokens = TokenClasses(lambda: self.word_index)

    def token_class(self, text: str) -> int:
        """The class of one token's text (see ``tokens.TokenClasses.token_class``)."""
        return self._tokens.token_class(text)

    def _reset_caches(self) -> None:
        self._tokens.reset()

    # ------------------------------------------------------------------ matching Docs
    def find_in_docs(self, docs: Sequence[Any]) -> List[List[Match]]:
        """Matches per Doc of a batch: lists of (start token, end token, entry), each sorted
        by end then start token."""
        docs = list(docs)
        if not self.n_keys:
            return [[] for _ in docs]
        if len(docs) == 1 and len(docs[0]) <= self.python_max_tokens:
            return [self._find_in_short_doc(docs[0])]
        found: List[List[Match]] = [[] for _ in docs]
        arrays = self.match_docs(docs)
        if len(arrays):
            bounds = np.searchsorted(arrays.doc, np.arange(len(docs) + 1)).tolist()
            rows = list(zip(arrays.start.tolist(), arrays.end.tolist(), arrays.entry.tolist()))
            for i in range(len(docs)):
                found[i] = rows[bounds[i] : bounds[i + 1]]
        return found

    def find_in_doc(self, doc: Any) -> List[Match]:
        """``find_in_docs`` of one Doc; for many Docs, ``find_in_docs``/``pipe`` are much
        faster."""
        return self.find_in_docs([doc])[0]

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
        classes, multi = self._tokens.classes(orths, docs)
        word_ids, token, first, last = self._tokens.word_stream(classes, multi)
        start, end, key = self.trie.match(word_ids, first, last)
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

    def _find_in_short_doc(self, doc: Any) -> List[Match]:
        word_ids, token, first, last = self._tokens.doc_stream(doc)
        found = self.trie.match_short(word_ids, first, last)
        key_entry = self.key_entry.item
        matches = [(token[b], token[e] + 1, key_entry(k)) for b, e, k in found]
        matches.sort(key=lambda m: (m[1], m[0]))
        return matches

    # ------------------------------------------------------------------ matching text
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
        start, end, key = self.trie.match(word_ids)
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
        whole = (0, len(ids) - 1)
        for begin, end, key in self.trie.match_short(ids + [BARRIER]):
            if (begin, end) == whole:
                return int(self.key_entry[key])
        return None
