"""The privacy report: seed 002's randomized-response view of a replacement strategy.

Each private token t' is replaced with probability p by a token t drawn from the policy
pi, and kept otherwise: P(M(t') = t) = p * pi(t | t') + (1 - p) * [t = t']. The privacy
loss is the largest log-ratio P(M(t1) = o) / P(M(t2) = o) over neighbouring inputs
t1 != t2 and outputs o (``brute_force_epsilon``). For pi independent of the original
(pi(t | t') = pi(t)) this is max over t of log(1 + (1 - p) / (p * pi(t))) (seed 002's
lemma), infinite when pi gives some vocabulary token zero mass and p < 1, and 0 for
p = 1. See docs/privacy.md for the derivation and the per-strategy values.
"""
import math
from itertools import permutations
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from spacy.tokens import Doc

from ..errors import Errors
from .strategies.base import Policy

INF = float("inf")
Mechanism = Callable[[str], Mapping[str, float]]


def check_p(p: float) -> float:
    if not (0 < p <= 1):
        raise ValueError(Errors.E109.format(p=p))
    return float(p)


def randomized_response(p: float, pi: Callable[[str], Mapping[str, float]]) -> Mechanism:
    """The output distribution of seed 002's mechanism for policy ``pi(t')`` -> {t: prob}."""
    def mechanism(original: str) -> Dict[str, float]:
        out = {t: p * q for t, q in pi(original).items()}
        out[original] = out.get(original, 0.0) + (1 - p)
        return out
    return mechanism


def brute_force_epsilon(mechanism: Mechanism, vocabulary: Sequence[str]) -> float:
    """max over t1 != t2 in the vocabulary and outputs o of log P(M(t1)=o) / P(M(t2)=o)."""
    dists = {t: mechanism(t) for t in vocabulary}
    worst = 0.0
    for t1, t2 in permutations(vocabulary, 2):
        for output, prob in dists[t1].items():
            if prob <= 0:
                continue
            other = dists[t2].get(output, 0.0)
            if other <= 0:
                return INF
            worst = max(worst, math.log(prob / other))
    return worst


def epsilon_independent(p: float, pi: Mapping[str, float], vocabulary: Sequence[str]) -> float:
    """Closed form of seed 002's lemma for pi independent of the original."""
    check_p(p)
    if p == 1 or len(vocabulary) < 2:
        return 0.0
    smallest = min(pi.get(t, 0.0) for t in vocabulary)
    if smallest <= 0:
        return INF
    return math.log(1 + (1 - p) / (p * smallest))


def epsilon_for(policy: Policy, p: float, support: Optional[int] = None) -> float:
    """epsilon of one strategy (policy kind) at replacement probability p.

    marker / exemplar: 0 at p = 1, else infinite (a kept original is an output no
    neighbour can produce). distribution over N values (uniform): log(1 + N (1-p) / p),
    taking the vocabulary to be pi's support. deterministic / unknown: infinite (the
    output depends on the original, so neighbours from different classes are told apart).
    """
    check_p(p)
    if policy.kind in ("marker", "exemplar"):
        return 0.0 if p == 1 else INF
    if policy.kind == "distribution":
        size = support if support is not None else policy.support
        if p == 1:
            return 0.0
        return math.log(1 + size * (1 - p) / p) if size and size > 0 else INF
    return INF


def as_json_number(value: float) -> object:
    """Finite floats stay floats; infinity becomes the string ``"inf"`` (JSON has no inf)."""
    return round(value, 6) if math.isfinite(value) else "inf"


def epsilon_value(value: object) -> float:
    """The inverse of ``as_json_number``."""
    return INF if value == "inf" else float(value)  # type: ignore[arg-type]


def coverage(regions: Iterable[Tuple[int, int]], gold: Iterable[Tuple[int, int]]) -> Tuple[int, int]:
    """(gold characters covered by a region, gold characters)."""
    covered = set()
    for start, end in regions:
        covered.update(range(start, end))
    total = hit = 0
    for start, end in gold:
        chars = set(range(start, end))
        total += len(chars)
        hit += len(chars & covered)
    return hit, total


def estimate_p(pairs: Iterable[Tuple[Doc, Doc]], gold_key: str = "mask") -> Tuple[Optional[float], int]:
    """p estimated as the fraction of gold masked characters that the masker replaced
    (its recall, which bounds p: seed 002). pairs: (processed doc, gold doc).
    RETURNS: (p or None when there is no gold span, number of gold characters)."""
    hit = total = 0
    for predicted, gold in pairs:
        rows = predicted._.replacements or []
        h, t = coverage(((r[0], r[1]) for r in rows), ((s.start_char, s.end_char) for s in gold.spans.get(gold_key, [])))
        hit, total = hit + h, total + t
    return (hit / total if total else None), total


def privacy_report(
    policies: Mapping[str, Tuple[str, Policy, List[int]]],
    p: float,
    p_source: str,
) -> Dict[str, object]:
    """``Doc._.privacy``: per replaced type its strategy, policy and epsilon, and the max.

    policies: label -> (strategy name, policy, supports of the doc's mentions).
    """
    per_label: Dict[str, Dict[str, object]] = {}
    worst = 0.0
    for label, (name, policy, supports) in sorted(policies.items()):
        support = min(supports) if policy.kind == "distribution" and supports else None
        eps = epsilon_for(policy, p, support)
        worst = max(worst, eps)
        entry: Dict[str, object] = {"strategy": name, "policy": policy.kind, "epsilon": as_json_number(eps)}
        if support is not None or policy.kind == "distribution":
            entry["support"] = support if support is not None else policy.support
        if policy.kind == "deterministic":
            entry["epsilon_within_class"] = as_json_number(0.0 if p == 1 else INF)
        if policy.note:
            entry["note"] = policy.note
        per_label[label] = entry
    return {
        "mechanism": "randomized response (seed 002): replaced with probability p by a draw from pi",
        "p": round(p, 6),
        "p_source": p_source,
        "epsilon": as_json_number(worst),
        "labels": per_label,
    }


P_ASSUMED = (
    "assumed p=1: every detected span was masked; without gold data the recall of the "
    "detectors is unknown and PII they missed is outside this guarantee"
)
