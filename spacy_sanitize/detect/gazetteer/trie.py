"""The trie of gazetteer keys over word ids, and the matching engine that walks it.

Every key (a normalized word sequence) is a path from the root; the transitions
(node, word) -> child live in one ``HashTable`` keyed by ``node * (n_words + 1) + word + 1``,
the root's children in a plain array indexed by word id. ``match`` finds every key
occurrence in a stream of word ids level by level: every position whose word starts some
key is a candidate, and each further level keeps the candidates whose next word continues
a key (one vectorized probe per level), emitting those that sit on a key's last word.

``match_short`` is the same walk over Python lists. It exists for speed only: on one short
Doc numpy's per-call cost dominates (a 30-token Doc: ~15 us against ~90 us), and a pipeline
called Doc by Doc (``nlp(text)``) matches short Docs one at a time. Both walk the same
arrays; the tests check that they agree on every input.
"""

from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .hashtable import GOLDEN, MISS, HashTable

BARRIER = -1  # a word id no match can cross: unknown word, newline, Doc boundary
ARRAYS = ("root_child", "node_key", "table_keys", "table_values")
_MASK64 = (1 << 64) - 1


class Trie:
    """root_child (np.ndarray): the root's child per word id (-1: no key starts there).
    node_key (np.ndarray): the key ending at each node (-1: none). Node 0 is the root.
    table (HashTable): the other transitions.
    n_words (int): the size of the word-id space.
    """

    def __init__(
        self, root_child: np.ndarray, node_key: np.ndarray, table: HashTable, n_words: int
    ) -> None:
        self.root_child = root_child
        self.node_key = node_key
        self.table = table
        self.n_words = n_words
        # BARRIER (-1) indexes the -1 appended after the last word.
        self._root_lookup = np.append(root_child, np.int32(-1))
        self._root_list: Optional[List[int]] = None

    @classmethod
    def empty(cls) -> "Trie":
        return cls(np.zeros(0, dtype=np.int32), np.full(1, -1, dtype=np.int32), HashTable(), 0)

    @classmethod
    def build(cls, key_offsets: np.ndarray, key_word_ids: np.ndarray, n_words: int) -> "Trie":
        """The trie of keys given as flat word ids (key i: ``key_word_ids[key_offsets[i]:
        key_offsets[i + 1]]``)."""
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
        return cls(root_child, node_key, table, n_words)

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], n_words: int, n_keys: int) -> "Trie":
        """The trie saved by ``arrays``; ValueError when it cannot belong to the key table."""
        if any(name not in arrays for name in ARRAYS):
            raise ValueError("no index saved")
        size = len(arrays["table_keys"])
        n_nodes = len(arrays["node_key"])
        if (
            len(arrays["root_child"]) != n_words
            or n_nodes < 1
            or size & (size - 1)
            or len(arrays["table_values"]) != size
            or (n_words and int(arrays["root_child"].max()) >= n_nodes)
            or (size and int(arrays["table_values"].max()) >= n_nodes)
            or int(arrays["node_key"].max()) >= n_keys
        ):
            raise ValueError("the index does not match the key table")
        table = HashTable.from_arrays(arrays["table_keys"], arrays["table_values"])
        return cls(arrays["root_child"], arrays["node_key"], table, n_words)

    def arrays(self) -> Dict[str, np.ndarray]:
        return {
            "root_child": self.root_child,
            "node_key": self.node_key,
            "table_keys": self.table.keys,
            "table_values": self.table.values,
        }

    def match(
        self,
        word_ids: np.ndarray,
        first: Optional[np.ndarray] = None,
        last: Optional[np.ndarray] = None,
    ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every key occurrence in a stream of word ids (BARRIER for barriers; the stream
        must end with one): (first position, last position, key), positions in the stream.
        ``first``/``last`` (bool per position) restrict where matches may start and end."""
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
        stride = self.n_words + 1
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

    def match_short(
        self,
        word_ids: Sequence[int],
        first: Optional[Sequence[bool]] = None,
        last: Optional[Sequence[bool]] = None,
    ) -> List[Tuple[int, int, int]]:
        """``match`` over Python sequences, probing one key at a time (see the module
        docstring for why): (first position, last position, key) in order of first position."""
        if self._root_list is None:
            self._root_list = self._root_lookup.tolist()
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
        stride = self.n_words + 1
        golden = int(GOLDEN)
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
