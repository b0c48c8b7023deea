"""The masked-LM span scoring interface shared by risk_llm_prob, risk_perturb and the
information-weighted precision.

A scorer takes texts and, per text, the spans to score (character offsets, optionally
with co-referent mentions masked together with the span) and returns, per span, the
log-probabilities of the span's original (sub)word units when all of them are hidden.
Backends: a Hugging Face masked LM (:mod:`.hf`) and a word-frequency information-content
model (:mod:`.frequency`). Both are registered in spaCy's ``misc`` registry, so a
component config picks one with ``scorer = {"@misc": "spacy_sanitize.lm.frequency.v1"}``.
"""
from dataclasses import dataclass, field
from statistics import median
from typing import Dict, List, Optional, Protocol, Sequence, Tuple, runtime_checkable


CharRange = Tuple[int, int]
AGGREGATES = ("lp_min", "lp_max", "lp_mean", "lp_median", "lp_sum")


@dataclass(frozen=True)
class SpanQuery:
    """A span to score.

    start (int): first character of the span.
    end (int): character after the span.
    also_mask (Tuple[CharRange, ...]): other character ranges (co-referent mentions) hidden
        together with the span; their log-probs are not returned.
    """

    start: int
    end: int
    also_mask: Tuple[CharRange, ...] = ()


@dataclass
class SpanLogProbs:
    """The scoring result of one span.

    logprobs (List[float]): natural-log probability of each original unit of the span
        (subwords for a transformer, words for the frequency scorer), all of them hidden.
    n_words (int): number of words (``\\w+`` runs) in the span.
    error (Optional[str]): why the span could not be scored (``logprobs`` is then empty).
    """

    logprobs: List[float] = field(default_factory=list)
    n_words: int = 0
    error: Optional[str] = None

    @property
    def n_subwords(self) -> int:
        return len(self.logprobs)

    def aggregates(self) -> Dict[str, float]:
        """min, max, mean, median and sum of the log-probs (seed 000, "LLM Probabilities")."""
        lps = self.logprobs or [0.0]
        return {
            "lp_min": float(min(lps)),
            "lp_max": float(max(lps)),
            "lp_mean": float(sum(lps) / len(lps)),
            "lp_median": float(median(lps)),
            "lp_sum": float(sum(lps)),
        }


@runtime_checkable
class SpanScorer(Protocol):
    """What every scorer backend provides."""

    name: str

    def score(self, texts: Sequence[str], queries: Sequence[Sequence[SpanQuery]]) -> List[List[SpanLogProbs]]:
        """texts (Sequence[str]): the documents.
        queries (Sequence[Sequence[SpanQuery]]): per document, the spans to score.
        RETURNS (List[List[SpanLogProbs]]): per document, one result per query, in order.
        A span that cannot be scored gets a result with ``error`` set; an exception means
        the whole call failed."""
        ...
