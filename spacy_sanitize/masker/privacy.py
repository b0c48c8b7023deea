"""The privacy report: seed 002's randomized-response view of a replacement strategy.

Each private token t' is replaced with probability p by a token t drawn from the policy
pi, and kept otherwise: P(M(t') = t) = p * pi(t | t') + (1 - p) * [t = t']. The privacy
loss is the largest log-ratio P(M(t1) = o) / P(M(t2) = o) over neighbouring inputs
t1 != t2 and outputs o (``brute_force_epsilon``). For pi independent of the original
(pi(t | t') = pi(t)) this is max over t of log(1 + (1 - p) / (p * pi(t))) (seed 002's
lemma), infinite when pi gives some vocabulary token zero mass and p < 1, and 0 for
p = 1. The report's epsilon is ``brute_force_epsilon`` itself, run on a two-original model
of each policy (``policy_model``): the check and the report cannot disagree. See
docs/privacy.md for the derivation and the per-strategy values.
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


def policy_model(policy: Policy, support: Optional[int] = None, same_class: bool = False) -> Optional[Tuple[Callable[[str], Mapping[str, float]], List[str]]]:
    """(pi, vocabulary) of two originals "t1", "t2" on which ``brute_force_epsilon`` gives
    the policy's epsilon: pi is symmetric in the values it draws, so the worst pair of the
    real vocabulary is any pair, and the values no original equals are lumped into one
    output (their log-ratio is 0). ``same_class``: both originals of one class (format,
    shape, generalization class), for ``epsilon_within_class``. None: nothing to model
    (``unknown``: infinite).

    marker: one output outside the vocabulary. exemplar: one value of the vocabulary.
    distribution: uniform over N values, independent of the original (N < 2 counts as 2,
    N unknown as a value outside). class_distribution: uniform over the N values of the
    original's class (a format or shape kept), so originals of two classes have disjoint
    outputs. deterministic: a function of the original's class. kept: the original itself."""
    kind = policy.kind
    pair = ["t1", "t2"]
    if kind == "marker":
        return (lambda original: {"<marker>": 1.0}), pair
    if kind == "exemplar":
        return (lambda original: {"e": 1.0}), pair + ["e"]
    if kind == "kept":
        return (lambda original: {original: 1.0}), pair
    size = support if support is not None else policy.support
    if kind == "distribution" or (kind == "class_distribution" and same_class):
        if not size or size <= 0:
            return (lambda original: {"<others>": 1.0}), pair
        n = max(size, 2)
        return (lambda original: {"t1": 1 / n, "t2": 1 / n, "<others>": (n - 2) / n}), pair
    if kind == "class_distribution":
        return (lambda original: {f"<values of the class of {original}>": 1.0}), pair
    if kind == "deterministic":
        return (lambda original: {"<g>" if same_class else f"<g({original})>": 1.0}), pair
    return None


def epsilon_for(policy: Policy, p: float, support: Optional[int] = None, same_class: bool = False) -> float:
    """epsilon of one strategy (policy kind) at replacement probability p:
    ``brute_force_epsilon`` on ``policy_model``. marker / exemplar: 0 at p = 1, else
    infinite (a kept original is an output no neighbour can produce). distribution over N
    values: log(1 + N (1-p) / p). class_distribution, deterministic: infinite (the output
    tells the original's class), within a class as distribution / 0 at p = 1. kept,
    unknown: infinite."""
    check_p(p)
    model = policy_model(policy, support, same_class)
    if model is None:
        return INF
    pi, vocabulary = model
    return brute_force_epsilon(randomized_response(p, pi), vocabulary)


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


KEPT = Policy("kept", note="detected spans left in clear (decided Span._.mask = False, or allow-listed): the choice depends on the text, so no bound holds for them")
_DRAWN = ("distribution", "class_distribution")


def privacy_report(
    policies: Mapping[str, Tuple[str, Policy, List[int]]],
    p: float,
    p_source: str,
    kept: Optional[Mapping[str, int]] = None,
) -> Dict[str, object]:
    """``Doc._.privacy``: per type its strategy, policy and epsilon, and the max.

    policies: label -> (strategy name, policy, supports of the doc's mentions). kept:
    label -> detected spans left (partly) in clear; their type's epsilon is infinite.
    """
    kept = {label: n for label, n in (kept or {}).items() if n}
    per_label: Dict[str, Dict[str, object]] = {}
    worst = 0.0
    for label in sorted(set(policies) | set(kept)):
        name, policy, supports = policies.get(label, (None, KEPT, []))
        support = min(supports) if policy.kind in _DRAWN and supports else None
        eps = epsilon_for(policy, p, support)
        entry: Dict[str, object] = {"strategy": name, "policy": policy.kind, "epsilon": as_json_number(eps)}
        if support is not None or policy.kind in _DRAWN:
            entry["support"] = support if support is not None else policy.support
        if policy.kind in ("deterministic", "class_distribution"):
            entry["epsilon_within_class"] = as_json_number(epsilon_for(policy, p, support, same_class=True))
        if policy.note:
            entry["note"] = policy.note
        if label in kept:
            entry["kept"] = kept[label]
            eps = epsilon_for(KEPT, p)
            entry["epsilon"] = as_json_number(eps)
            entry.setdefault("note", KEPT.note)
        worst = max(worst, eps)
        per_label[label] = entry
    return {
        "mechanism": "randomized response (seed 002): replaced with probability p by a draw from pi",
        "p": round(p, 6),
        "p_source": p_source,
        "epsilon": as_json_number(worst),
        "kept": dict(sorted(kept.items())),
        "labels": per_label,
    }


P_ASSUMED = (
    "assumed p=1: every detected span was masked; without gold data the recall of the "
    "detectors is unknown and PII they missed is outside this guarantee"
)
P_DETECTED = (
    "masked fraction of the {total} detected characters: {kept} detected span(s) were left "
    "in clear (Span._.mask = False or the allow list); PII the detectors missed is outside "
    "this guarantee too"
)


def kept_spans(spans: Iterable[Tuple[int, int, str]], regions: Iterable[Tuple[int, int]]) -> Tuple[Dict[str, int], int, int]:
    """(label -> detected spans not wholly replaced, detected characters replaced, detected
    characters) for spans (start, end, label) and replaced regions (start, end)."""
    covered = set()
    for start, end in regions:
        covered.update(range(start, end))
    kept: Dict[str, int] = {}
    chars = set()
    for start, end, label in spans:
        span_chars = set(range(start, end))
        chars |= span_chars
        if not span_chars <= covered:
            kept[label] = kept.get(label, 0) + 1
    return kept, len(chars & covered), len(chars)
