"""Tokens -> the trie's word-id stream.

Each token's 64-bit orth hash maps to a *token class*: a word id (one known word), BARRIER
(an unknown word, a newline, or a multi-word token with an unknown word), TRANSPARENT
(hyphens, apostrophes, spaces: no word at all), or a multi-word token of known words. The
classes are cached per orth, so only orths never seen before go through the Python
normalization (``normalize.split_words``). The cache has two forms over one multi-word
table: a numpy ``HashTable`` for batches and a dict for single short Docs (see ``trie``).
"""

import threading
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from spacy.attrs import ORTH

from .hashtable import MISS, HashTable
from .normalize import split_words
from .trie import BARRIER

TRANSPARENT = -2  # a token without words (hyphen, apostrophe, space): skipped
MULTI_BASE = -3  # token classes <= -3: multi-word tokens, index -3 - class
ORTH_CACHE_MAX = 2_000_000  # cached orths before the caches start over

WordStream = Tuple[Any, Any, Optional[Any], Optional[Any]]


class TokenClasses:
    """The orth -> token class caches of one gazetteer (``word_index`` gives its words)."""

    def __init__(self, word_index: Callable[[], Dict[str, int]]) -> None:
        self._word_index = word_index
        self._array_cache = HashTable(load=0.25)
        self._multi: List[Tuple[int, ...]] = []
        # The dict cache with the multi-word table it indexes, replaced together on a reset.
        self._dict_state: Tuple[Dict[int, int], List[Tuple[int, ...]]] = ({}, self._multi)
        # The caches grow while matching: one thread at a time fills them.
        self._lock = threading.RLock()

    def reset(self) -> None:
        with self._lock:
            self._array_cache.clear()
            self._multi = []
            self._dict_state = ({}, self._multi)

    def token_class(self, text: str) -> int:
        """The class of one token's text (a match never covers part of a token: a
        multi-word token with an unknown word is a barrier). A multi-word token of known
        words gets ``MULTI_BASE - i`` with ``self._multi[i]`` its word ids."""
        if not text.strip():
            # any line break (as str.splitlines sees them: \r, \x0c, \u2028 ...) is a barrier
            return (
                BARRIER
                if len(text.splitlines()) > 1 or text.splitlines() != [text]
                else TRANSPARENT
            )
        words = split_words(text)
        if not words:
            return TRANSPARENT
        index = self._word_index()
        ids = [index.get(word, BARRIER) for word in words]
        if len(ids) == 1:
            return ids[0]
        if BARRIER in ids:
            return BARRIER
        self._multi.append(tuple(ids))
        return MULTI_BASE - (len(self._multi) - 1)

    # ------------------------------------------------------------------ batches (numpy)
    def classes(
        self, orths: np.ndarray, docs: Sequence[Any]
    ) -> Tuple[np.ndarray, List[Tuple[int, ...]]]:
        """Token classes of orth hashes (0 = Doc boundary), computing unseen ones (whose
        strings are in the ``docs``' vocabs), and the multi-word table they index."""
        with self._lock:
            cache = self._array_cache
            classes = cache.get(orths)
            classes[orths == 0] = BARRIER
            missing = np.flatnonzero(classes == MISS)
            if len(missing):
                if cache.count > ORTH_CACHE_MAX:
                    self.reset()
                    return self.classes(orths, docs)
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

    @staticmethod
    def word_stream(classes: np.ndarray, multi: Sequence[Tuple[int, ...]]) -> WordStream:
        """Token classes -> (word ids ending with a barrier, token of each word, first-word
        and last-word flags; None when every token has at most one word)."""
        if not len(classes) or classes.min() >= TRANSPARENT:
            token = np.flatnonzero(classes != TRANSPARENT)
            word_ids = np.empty(len(token) + 1, dtype=np.int32)
            word_ids[:-1] = classes[token]
            word_ids[-1] = BARRIER
            return word_ids, token, None, None
        counts = np.where(classes == TRANSPARENT, 0, 1)
        multi_at = np.flatnonzero(classes <= MULTI_BASE)
        sequences = [multi[MULTI_BASE - c] for c in classes[multi_at].tolist()]
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

    # ------------------------------------------------------------------ one short Doc
    def doc_stream(self, doc: Any) -> WordStream:
        """``word_stream`` of one Doc as Python lists, through the dict cache."""
        cache, multi = self._dict_state  # one snapshot: a reset replaces both together
        orths = doc.to_array(ORTH).tolist()
        classes = list(map(cache.get, orths))
        if None in classes:
            with self._lock:
                if cache is not self._dict_state[0] or len(cache) > ORTH_CACHE_MAX:
                    if len(cache) > ORTH_CACHE_MAX:
                        self.reset()
                    return self.doc_stream(doc)
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
                words = (value,) if value > MULTI_BASE else multi[MULTI_BASE - value]  # type: ignore[operator]
                word_ids.extend(words)  # type: ignore[arg-type]
                token.extend([i] * len(words))
                first.extend([True] + [False] * (len(words) - 1))
                last.extend([False] * (len(words) - 1) + [True])
            first.append(True)
            last.append(True)
        word_ids.append(BARRIER)
        return word_ids, token, first, last


def _orth_text(orth: int, vocabs: Sequence[Any]) -> str:
    for vocab in vocabs:
        try:
            return vocab.strings[orth]
        except KeyError:
            continue
    return "\n"  # pragma: no cover - a token's orth is always in its vocab: a barrier
