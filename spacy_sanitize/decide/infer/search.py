"""Deletion searches of risk_infer: which words to remove so that the attacker's maximum
class probability falls below a threshold (seed 001).

A *unit* is a word form (all its unmasked occurrences are removed together). With binary
n-gram features and a linear model, removing a set S of units removes exactly the
features all of whose occurrences contain a unit of S (removed words leave a gap that
n-grams do not cross), so the decision function after a deletion is
``z0 - W[:, killed(S)].sum(1)``: candidates are scored with a few matrix products
instead of re-running the attacker.
"""
import itertools
import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .attacker import LinearAttacker, softmax

if TYPE_CHECKING:
    from scipy import sparse

SEARCHES = ("exact", "greedy", "beam")


@dataclass
class DeletionProblem:
    """units (List[str]): the removable word forms. z0 (np.ndarray): decision function of
    the text as it is. weights (np.ndarray): (n_classes, n_present) weights of the features
    present. kills (sparse.csr_matrix): (n_units, n_present), 1 where removing the unit
    removes the feature."""

    units: List[str]
    z0: np.ndarray
    weights: np.ndarray
    kills: "sparse.csr_matrix"
    feature_names: List[str] = field(default_factory=list)

    def proba(self, removed: Sequence[int] = ()) -> np.ndarray:
        alive = np.ones(self.weights.shape[1], dtype=bool)
        if len(removed):
            alive[self.kills[list(removed)].nonzero()[1]] = False
        return softmax(self.z0 - self.weights[:, ~alive].sum(axis=1))


@dataclass
class SearchResult:
    method: str
    removed: List[int]
    removed_units: List[str]
    p_before: float
    p_after: float
    label_before: int
    label_after: int
    success: bool
    reason: str
    evaluations: int = 0
    seconds: float = 0.0


def build_problem(
    attacker: LinearAttacker,
    seq: Sequence[Optional[str]],
    removable: Sequence[bool],
    unit_keys: Optional[Sequence[Optional[str]]] = None,
    unit_index: Optional[Dict[str, int]] = None,
) -> DeletionProblem:
    """The deletion problem of a token sequence (None = gap). Only tokens flagged
    ``removable`` belong to units (placeholders of masked spans are not removable).
    ``unit_keys``: the unit of each position (default: its form), so that attackers that
    read different forms (lower case, lemmas, characters) share units; ``unit_index``: a
    unit numbering shared by several problems (extended here)."""
    keys = seq if unit_keys is None else unit_keys
    kill_sets: Dict[int, Optional[set]] = {}
    gram_of: Dict[int, str] = {}
    for gram, start, end in attacker.occurrences(seq):
        fid = attacker.vocab.get(gram)
        if fid is None:
            continue
        gram_of.setdefault(fid, gram)
        units = {keys[i] for i in range(start, end) if removable[i] and keys[i] is not None}
        # a feature dies only when every occurrence loses a token: intersect over occurrences
        previous = kill_sets.get(fid)
        kill_sets[fid] = units if previous is None else previous & units
    fids = sorted(kill_sets)
    unit_index = {} if unit_index is None else unit_index
    rows, cols = [], []
    for col, fid in enumerate(fids):
        for unit in sorted(kill_sets[fid] or ()):
            rows.append(unit_index.setdefault(unit, len(unit_index)))
            cols.append(col)
    from scipy import sparse  # here, not at import: the package's start-up needs no scipy

    kills = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(len(unit_index), len(fids)))
    weights = attacker.coef[:, fids].astype(np.float64) if fids else np.zeros((len(attacker.classes), 0))
    z0 = attacker.intercept + weights.sum(axis=1)
    return DeletionProblem(list(unit_index), z0, weights, kills, [gram_of[f] for f in fids])


def total_variation(p: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """Total variation distance between posteriors (last axis) and a prior."""
    return 0.5 * np.abs(p - prior).sum(axis=-1)


def shortfall(p: np.ndarray, prior: np.ndarray, bound: float, guess: bool = False) -> np.ndarray:
    """How far posteriors (last axis) are from passing: the total variation above
    ``bound``; with ``guess``, at most the probability gap between the best guess and the
    prior's best guess (an attacker whose best guess is the blind guess learns nothing
    about the top class from the text)."""
    short = np.maximum(total_variation(p, prior) - bound, 0.0)
    if guess:
        gap = p.max(axis=-1) - p[..., int(np.argmax(prior))]
        short = np.minimum(short, gap)
    return short


def ensemble_problems(
    attackers: Sequence[LinearAttacker], views: Sequence[Tuple[Sequence[Optional[str]], Sequence[bool], Sequence[Optional[str]]]]
) -> List[DeletionProblem]:
    """One deletion problem per attacker, (forms, removable, unit keys) of its view, all
    with the same unit numbering (the kill matrices are padded to the shared units)."""
    from scipy import sparse

    unit_index: Dict[str, int] = {}
    problems = [build_problem(a, seq, rem, keys, unit_index) for a, (seq, rem, keys) in zip(attackers, views)]
    units = list(unit_index)
    for problem in problems:
        kills = problem.kills.tocoo()
        problem.kills = sparse.csr_matrix((kills.data, (kills.row, kills.col)), shape=(len(units), kills.shape[1]))
        problem.units = units
    return problems


def ensemble_greedy_search(
    problems: Sequence[DeletionProblem], priors: Sequence[np.ndarray], bound: float, max_removals: int = 100, guess: bool = False
) -> SearchResult:
    """Remove one unit at a time until every attacker passes: its posterior within total
    variation ``bound`` of its prior (or, with ``guess``, its best guess the prior's; see
    ``shortfall``). Each step removes the unit that most lowers the summed shortfall (a
    maximum would stall when two attackers are tied and one unit helps only one of them);
    all candidates of all attackers are scored with one sparse product per attacker, so a
    step costs the size of the kill maps, as for one attacker. ``p_before``/``p_after``
    are the worst attacker's shortfall."""
    started = time.perf_counter()
    n_units = len(problems[0].units) if problems else 0
    alive = [np.ones(p.weights.shape[1], dtype=bool) for p in problems]
    z = [p.z0.copy() for p in problems]

    def tvs(zs: Sequence[np.ndarray]) -> np.ndarray:
        return np.array([float(shortfall(softmax(za), pa, bound, guess)) for za, pa in zip(zs, priors)])

    before = tvs(z)
    current = before
    removed: List[int] = []
    evaluations = 0
    available = np.ones(n_units, dtype=bool)
    reason = "max_removals"
    while current.sum() > 0:
        if len(removed) >= max_removals:
            break
        effects = [_effects(p, a) for p, a in zip(problems, alive)]
        useful = available.copy()
        if effects:
            useful &= np.any([np.abs(e).sum(axis=1) > 0 for e in effects], axis=0)
        candidates = np.flatnonzero(useful)
        if len(candidates) == 0:
            reason = "exhausted"
            break
        evaluations += len(candidates) * len(problems)
        excess = np.zeros(len(candidates))
        for e, za, pa in zip(effects, z, priors):
            excess += shortfall(softmax(za[None, :] - e[candidates]), pa, bound, guess)
        best_index = int(np.argmin(excess))
        if excess[best_index] >= current.sum() - 1e-12:
            reason = "no_improvement"
            break
        best = int(candidates[best_index])
        removed.append(best)
        available[best] = False
        for a, (p, e) in enumerate(zip(problems, effects)):
            z[a] = z[a] - e[best]
            alive[a][p.kills[best].indices] = False
        current = tvs(z)
    worst_before, worst_after = int(np.argmax(before)) if len(before) else 0, int(np.argmax(current)) if len(current) else 0
    success = bool(np.all(current <= 0))
    return SearchResult(
        method="ensemble-greedy",
        removed=list(removed),
        removed_units=[problems[0].units[u] for u in removed] if problems else [],
        p_before=float(before.max()) if len(before) else 0.0,
        p_after=float(current.max()) if len(current) else 0.0,
        label_before=worst_before,
        label_after=worst_after,
        success=success,
        reason="within_bound" if success else reason,
        evaluations=evaluations,
        seconds=time.perf_counter() - started,
    )


def _result(problem: DeletionProblem, method: str, removed: List[int], threshold: float, reason: str, evaluations: int, started: float) -> SearchResult:
    p0, p1 = softmax(problem.z0), problem.proba(removed)
    success = float(p1.max()) < threshold
    return SearchResult(
        method=method,
        removed=list(removed),
        removed_units=[problem.units[u] for u in removed],
        p_before=float(p0.max()),
        p_after=float(p1.max()),
        label_before=int(p0.argmax()),
        label_after=int(p1.argmax()),
        success=success,
        reason="below_threshold" if success else reason,
        evaluations=evaluations,
        seconds=time.perf_counter() - started,
    )


def _effects(problem: DeletionProblem, alive: np.ndarray) -> np.ndarray:
    """(n_units, n_classes): how much removing each unit lowers each class's score."""
    return np.asarray(problem.kills @ (problem.weights * alive[None, :]).T)


def greedy_search(problem: DeletionProblem, threshold: float, max_removals: int = 100, criterion: str = "maxprob") -> SearchResult:
    """Remove one unit at a time until the maximum probability is below ``threshold``.
    criterion ``maxprob``: the unit whose removal gives the lowest maximum probability;
    ``contribution``: the unit contributing most to the predicted class's log-probability.
    Stops (failure) when no removal lowers the maximum probability."""
    started = time.perf_counter()
    alive = np.ones(problem.weights.shape[1], dtype=bool)
    z = problem.z0.copy()
    removed: List[int] = []
    evaluations = 0
    available = np.ones(len(problem.units), dtype=bool)
    reason = "max_removals"
    while softmax(z).max() >= threshold:
        if len(removed) >= max_removals:
            break
        effects = _effects(problem, alive)
        useful = available & (np.abs(effects).sum(axis=1) > 0)
        if not useful.any():
            reason = "exhausted"
            break
        candidates = np.flatnonzero(useful)
        evaluations += len(candidates)
        p_candidates = softmax(z[None, :] - effects[candidates]).max(axis=1)
        if criterion == "contribution":
            p = softmax(z)
            top = int(p.argmax())
            gain = effects[candidates, top] - effects[candidates] @ p
            best = int(candidates[int(np.argmax(gain))])
        else:
            best = int(candidates[int(np.argmin(p_candidates))])
        new_p = softmax(z - effects[best]).max()
        if new_p >= softmax(z).max():
            reason = "no_improvement"
            break
        removed.append(best)
        available[best] = False
        z = z - effects[best]
        alive[problem.kills[best].indices] = False
    return _result(problem, f"greedy-{criterion}" if criterion != "maxprob" else "greedy", removed, threshold, reason, evaluations, started)


def beam_search(problem: DeletionProblem, threshold: float, beam_width: int = 5, max_removals: int = 50, budget: int = 500_000) -> SearchResult:
    """Keep the ``beam_width`` deletion sets with the lowest maximum probability at each
    size; return the best set at the first size that gets below ``threshold``."""
    started = time.perf_counter()
    n_features = problem.weights.shape[1]
    beam: List[Tuple[Tuple[int, ...], np.ndarray, np.ndarray]] = [((), np.ones(n_features, dtype=bool), problem.z0.copy())]
    evaluations = 0
    if softmax(problem.z0).max() < threshold:
        return _result(problem, "beam", [], threshold, "below_threshold", 0, started)
    best_set: Tuple[int, ...] = ()
    best_p = float(softmax(problem.z0).max())
    reason = "max_removals"
    for _ in range(max_removals):
        pool: Dict[frozenset, Tuple[float, Tuple[int, ...], int, int]] = {}
        for index, (removed, alive, z) in enumerate(beam):
            effects = _effects(problem, alive)
            useful = np.abs(effects).sum(axis=1) > 0
            useful[list(removed)] = False
            candidates = np.flatnonzero(useful)
            evaluations += len(candidates)
            if len(candidates) == 0:
                continue
            p_candidates = softmax(z[None, :] - effects[candidates]).max(axis=1)
            for u in candidates[np.argsort(p_candidates)[: beam_width]]:
                key = frozenset(removed + (int(u),))
                p = float(p_candidates[np.searchsorted(candidates, u)])
                if key not in pool or p < pool[key][0]:
                    pool[key] = (p, removed + (int(u),), index, int(u))
        if not pool:
            reason = "exhausted"
            break
        ranked = sorted(pool.values(), key=lambda item: (item[0], item[1]))[:beam_width]
        new_beam = []
        for _, removed, index, u in ranked:
            _, alive, z = beam[index]
            effects_u = np.asarray(problem.kills[u] @ (problem.weights * alive[None, :]).T).ravel()
            alive = alive.copy()
            alive[problem.kills[u].indices] = False
            new_beam.append((removed, alive, z - effects_u))
        beam = new_beam
        if ranked[0][0] < best_p:
            best_p, best_set = ranked[0][0], ranked[0][1]
        if ranked[0][0] < threshold:
            return _result(problem, "beam", list(ranked[0][1]), threshold, "below_threshold", evaluations, started)
        if evaluations >= budget:
            reason = "budget"
            break
    return _result(problem, "beam", list(best_set), threshold, reason, evaluations, started)


def exact_search(problem: DeletionProblem, threshold: float, max_m: Optional[int] = None, budget: int = 200_000, chunk_cells: int = 2_000_000) -> SearchResult:
    """Seed 001's search: for m = 1, 2, ... score every set of m units and keep the one
    with the lowest maximum probability; stop at the first m that gets below
    ``threshold``. Fails with reason ``budget`` when the next m has more sets than the
    evaluations left."""
    started = time.perf_counter()
    if softmax(problem.z0).max() < threshold:
        return _result(problem, "exact", [], threshold, "below_threshold", 0, started)
    kills = problem.kills.tocsr()
    candidates = np.flatnonzero(np.asarray(kills.sum(axis=1)).ravel() > 0)
    dense = kills[candidates].toarray().astype(bool)
    n, n_features = dense.shape
    evaluations = 0
    best_set: List[int] = []
    best_p = float(softmax(problem.z0).max())
    max_m = n if max_m is None else min(max_m, n)
    reason = "exhausted"
    for m in range(1, max_m + 1):
        if evaluations + math.comb(n, m) > budget:
            reason = "budget"
            break
        chunk = max(1, chunk_cells // max(1, m * n_features))
        level_best_p, level_best = math.inf, None
        combos = itertools.combinations(range(n), m)
        while True:
            block = np.array(list(itertools.islice(combos, chunk)), dtype=np.int64).reshape(-1, m)
            if len(block) == 0:
                break
            killed = dense[block].any(axis=1)
            p = softmax(problem.z0[None, :] - killed @ problem.weights.T).max(axis=1)
            evaluations += len(block)
            i = int(np.argmin(p))
            if p[i] < level_best_p:
                level_best_p, level_best = float(p[i]), block[i]
        if level_best is not None and level_best_p < best_p:
            best_p, best_set = level_best_p, [int(candidates[j]) for j in level_best]
        if level_best_p < threshold:
            return _result(problem, "exact", [int(candidates[j]) for j in level_best], threshold, "below_threshold", evaluations, started)
    return _result(problem, "exact", best_set, threshold, reason, evaluations, started)


def run_search(problem: DeletionProblem, threshold: float, search: str = "greedy", **kwargs: object) -> SearchResult:
    if search == "exact":
        return exact_search(problem, threshold, **kwargs)  # type: ignore[arg-type]
    if search == "beam":
        return beam_search(problem, threshold, **kwargs)  # type: ignore[arg-type]
    return greedy_search(problem, threshold, **kwargs)  # type: ignore[arg-type]
