"""An information-content scorer without torch: the log-probability of each word of a
span under a mixture of general-English word frequencies (``wordfreq``), in-domain counts
(built from unlabeled court and biography texts by ``spacy project run build-lm-counts``)
and the document's own word counts outside the hidden spans (a cache model, the
frequency-world stand-in for "the rest of the document is the context": a name repeated
elsewhere in the text is predictable, an unseen one is not).

p(w) = a * wordfreq(w) + b * domain(w) + c * document(w) + floor, with a + b + c = 1.
"""
import math
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

import srsly

from ..registry import misc
from .base import SpanLogProbs, SpanQuery
from ..shipped import artefact_path, data_path
from ..errors import Errors

WORD = re.compile(r"\w+")
SHIPPED_COUNTS = "lm_counts"  # the shipped counts' folder under [paths] sanitize_data


def shipped_counts_path(data: Optional[Union[str, Path]] = None) -> Path:
    return (Path(data) if data is not None else data_path()) / SHIPPED_COUNTS / "counts.msgpack"


@lru_cache(maxsize=4)
def load_counts(path: str) -> Tuple[Dict[str, int], int]:
    """Read a counts file: msgpack ``{"total": int, "counts": {word: count}}``."""
    try:
        data = srsly.read_msgpack(path)
        return dict(data["counts"]), int(data["total"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise OSError(Errors.E405.format(path=path, err=err)) from None


def count_words(texts: Iterable[str]) -> Counter:
    counts: Counter = Counter()
    for text in texts:
        counts.update(w.lower() for w in WORD.findall(text))
    return counts


def write_counts(counts: Counter, path: Union[str, Path], min_count: int = 3, max_words: int = 200_000) -> Dict[str, int]:
    """Keep the ``max_words`` most frequent words seen at least ``min_count`` times (rare
    words are dropped: they are the identifiers we must not ship) and write them."""
    total = sum(counts.values())
    kept = {w: c for w, c in counts.most_common(max_words) if c >= min_count}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    srsly.write_msgpack(path, {"total": total, "counts": kept})
    return {"total": total, "words": len(kept)}


class FrequencyScorer:
    """general (float): weight of wordfreq's English frequencies.
    domain (float): weight of the in-domain counts.
    document (float): weight of the document's own counts outside the hidden spans.
    counts (Optional[str]): path of the in-domain counts; None: the shipped ones under ``data``.
    data (Optional[str]): the shipped artefacts' folder (``${paths.sanitize_data}`` in configs;
        None: the package's data folder).
    floor (float): probability mass of an unseen word.
    """

    def __init__(
        self,
        general: float = 0.45,
        domain: float = 0.45,
        document: float = 0.1,
        counts: Optional[str] = None,
        floor: float = 1e-8,
        data: Optional[str] = None,
    ) -> None:
        total = general + domain + document
        if total <= 0 or min(general, domain, document) < 0:
            raise ValueError(Errors.E409.format(general=general, domain=domain, document=document))
        self.weights = (general / total, domain / total, document / total)
        self.counts_path = str(counts if counts is not None else shipped_counts_path(data))
        if self.weights[1] > 0 and counts is None:
            # Checked (not read) now: missing shipped counts fail when the pipeline is built,
            # not as risk 1.0 on every span when the first document comes.
            artefact_path(str(Path(SHIPPED_COUNTS) / "counts.msgpack"), data, component="spacy_sanitize.lm.frequency.v1")
        self.floor = float(floor)
        self.name = f"frequency:{self.weights[0]:.2f}/{self.weights[1]:.2f}/{self.weights[2]:.2f}"

    @staticmethod
    @lru_cache(maxsize=200_000)
    def general_frequency(word: str) -> float:
        from wordfreq import word_frequency

        return float(word_frequency(word, "en"))

    def word_logprob(self, word: str, doc_counts: Optional[Counter] = None, doc_total: int = 0) -> float:
        domain_counts, domain_total = load_counts(self.counts_path) if self.weights[1] > 0 else ({}, 1)
        a, b, c = self.weights
        p = a * self.general_frequency(word) + b * domain_counts.get(word, 0) / max(domain_total, 1)
        if doc_counts is not None and doc_total > 0:
            p += c * doc_counts.get(word, 0) / doc_total
        return math.log(p + self.floor)

    def score(self, texts: Sequence[str], queries: Sequence[Sequence[SpanQuery]]) -> List[List[SpanLogProbs]]:
        """See :class:`SpanScorer`; the units are the span's words (lower-cased)."""
        out: List[List[SpanLogProbs]] = []
        for text, qs in zip(texts, queries):
            words = [(m.start(), m.end(), m.group().lower()) for m in WORD.finditer(text)]
            counts = Counter(w for _, _, w in words)
            results = []
            for q in qs:
                if not 0 <= q.start < q.end <= len(text):
                    results.append(SpanLogProbs(error=Errors.E403.format(start=q.start, end=q.end, length=len(text))))
                    continue
                hidden = [(q.start, q.end), *q.also_mask]
                inside = [w for s, e, w in words if any(s < he and e > hs for hs, he in hidden)]
                doc_counts = counts - Counter(inside)
                doc_total = len(words) - len(inside)
                units = [w.lower() for w in WORD.findall(text[q.start : q.end])]
                n_words = len(units)
                if not units:
                    units = [text[q.start : q.end].strip() or text[q.start : q.end]]
                results.append(SpanLogProbs([self.word_logprob(u, doc_counts, doc_total) for u in units], n_words))
            out.append(results)
        return out


# The class is the registered function: its __init__ is the config signature (one copy of it).
make_frequency_scorer = misc("spacy_sanitize.lm.frequency.v1")(FrequencyScorer)
