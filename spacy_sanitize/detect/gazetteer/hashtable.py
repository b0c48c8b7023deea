"""An open-addressing hash table of numpy arrays (uint64 key -> int32 value): the trie's
transitions and the cache of token classes, probed for whole arrays of keys at once."""

import numpy as np

MISS = np.iinfo(np.int32).min  # not in the table
GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: slot = (key * GOLDEN) >> (64 - bits)


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
        return ((keys * GOLDEN) >> np.uint64(64 - self.bits)).astype(np.intp)

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
