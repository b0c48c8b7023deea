"""Information weighting of tokens for the weighted precision P_w: -log p of each word
unit with that unit hidden, from any span scorer."""
from typing import Callable, List, Sequence, Tuple

from .base import SpanQuery, SpanScorer


def lm_token_weighting(scorer: SpanScorer, min_weight: float = 1e-3) -> Callable[[str, Sequence[Tuple[int, int]]], List[float]]:
    """A ``token_weighting(text, token_spans) -> weights`` for
    :func:`spacy_sanitize.evaluation.tab_scores`: each unit's weight is minus the sum of its
    log-probs when hidden (information content in nats); units that cannot be scored get
    the mean weight."""

    def weighting(text: str, token_spans: Sequence[Tuple[int, int]]) -> List[float]:
        results = scorer.score([text], [[SpanQuery(int(s), int(e)) for s, e in token_spans]])[0]
        weights = [max(min_weight, -sum(r.logprobs)) if not r.error else None for r in results]
        known = [w for w in weights if w is not None]
        fallback = sum(known) / len(known) if known else 1.0
        return [fallback if w is None else w for w in weights]

    return weighting
