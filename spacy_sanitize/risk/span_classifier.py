"""scikit-learn span classifiers for risk_llm_prob: logistic regression, gradient-boosted
trees and soft-voting ensembles of both (the paper's AutoML ensemble, in small), a model
selection by grouped cross-validation, and safe serialization.

Everything is stored as plain data: logistic regression as its numbers (scaler mean/scale,
coefficients, intercept), boosted trees as their node arrays (``BoostedTrees``), which
predict exactly what the fitted scikit-learn model predicts. Models saved by earlier
versions hold the trees as pickles, and unpickling can run code: ``from_dict`` refuses them
(E439) unless ``allow_pickle=True`` says the source is trusted.
"""
import math
import pickle
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy

from ..errors import Errors
from ..lm.linear import LinearWeights

CANDIDATES: Dict[str, Dict[str, Any]] = {
    "logreg_c0.1": {"kind": "logreg", "C": 0.1},
    "logreg_c1": {"kind": "logreg", "C": 1.0},
    "logreg_c10": {"kind": "logreg", "C": 10.0},
    "hgb_small": {"kind": "hgb", "max_iter": 100, "learning_rate": 0.1, "max_leaf_nodes": 15, "min_samples_leaf": 20},
    "hgb_deep": {"kind": "hgb", "max_iter": 200, "learning_rate": 0.05, "max_depth": 4, "l2_regularization": 1.0},
    # soft voting: the mean of the members' probabilities (a linear and a non-linear boundary)
    "vote_lr_hgb": {"kind": "vote", "members": ["logreg_c1", "hgb_small"]},
    "vote_lr_hgb_deep": {"kind": "vote", "members": ["logreg_c0.1", "logreg_c1", "hgb_small", "hgb_deep"]},
}
FAMILIES = {
    "logreg": ["logreg_c0.1", "logreg_c1", "logreg_c10"],
    "hgb": ["hgb_small", "hgb_deep"],
    "ensemble": ["vote_lr_hgb", "vote_lr_hgb_deep"],
}
FAMILIES["auto"] = FAMILIES["logreg"] + FAMILIES["hgb"] + FAMILIES["ensemble"]


# BoostedTrees' node arrays, in its ``to_dict``: floats as float.hex strings (exact whatever
# the JSON writer's float precision), the other fields as ints.
_FLOAT_FIELDS = ("threshold", "value")
_INT_FIELDS = ("feature", "left", "right", "missing_left", "leaf")


def _expit(x: numpy.ndarray) -> numpy.ndarray:
    """The logistic link scikit-learn's binomial loss uses, bit for bit as scipy's expit computes
    it (``1 / (1 + exp(-x))`` with the C library's exp; numpy's vectorised exp can differ in the
    last bit): scipy would cost the default pipeline's start-up a heavy import for one function."""
    def one(v: float) -> float:
        try:
            return 1.0 / (1.0 + math.exp(-v))
        except OverflowError:  # exp(-v) is inf past 709.78: 1 / inf
            return 0.0

    return numpy.fromiter((one(float(v)) for v in numpy.ravel(x)), dtype=numpy.float64, count=numpy.size(x)).reshape(numpy.shape(x))


class BoostedTrees:
    """The prediction of a fitted binary ``HistGradientBoostingClassifier`` from its trees as
    plain arrays, without pickle: the same traversal (NaN follows ``missing_left``, else
    ``x <= threshold`` goes left), the same summation order and the same link (expit), so the
    same probabilities to the last bit. Node indices are global (trees concatenated)."""

    def __init__(self, baseline: float, n_features: int, roots: Sequence[int], nodes: Dict[str, numpy.ndarray]) -> None:
        self.baseline = float(baseline)
        self.n_features = int(n_features)
        self.roots = numpy.asarray(roots, dtype=numpy.intp)
        self.nodes = nodes
        self.classes_ = numpy.asarray([0, 1])
        # The traversal's tables: a leaf is its own child on both sides, so every row takes the
        # same number of steps (the deepest tree's) with no test of which nodes are inner.
        leaf = nodes["leaf"]
        own = numpy.arange(len(leaf))
        self._left = numpy.where(leaf, own, nodes["left"]).astype(numpy.intp)
        self._right = numpy.where(leaf, own, nodes["right"]).astype(numpy.intp)
        self._feature = numpy.where(leaf, 0, nodes["feature"]).astype(numpy.intp)
        self._depth = self._max_depth()

    def _max_depth(self) -> int:
        """Steps from a root to its deepest leaf (over all trees)."""
        depth, node = 0, self.roots.copy()
        while not self.nodes["leaf"][node].all():
            node = numpy.unique(numpy.concatenate([self._left[node], self._right[node]]))
            depth += 1
            if depth > len(self._left):  # a cycle: no tree is deeper than its nodes are many
                raise ValueError("the boosted trees' node arrays are inconsistent")
        return depth

    @classmethod
    def from_sklearn(cls, model: Any) -> "BoostedTrees":
        if model.n_trees_per_iteration_ != 1 or list(model.classes_) != [0, 1] or model.is_categorical_ is not None:
            raise ValueError(Errors.E440)
        parts: Dict[str, List[numpy.ndarray]] = {name: [] for name in _FLOAT_FIELDS + _INT_FIELDS}
        roots: List[int] = []
        offset = 0
        for (predictor,) in model._predictors:
            tree = predictor.nodes
            roots.append(offset)
            parts["threshold"].append(tree["num_threshold"].astype(numpy.float64))
            parts["value"].append(tree["value"].astype(numpy.float64))
            parts["feature"].append(tree["feature_idx"].astype(numpy.int64))
            parts["left"].append(tree["left"].astype(numpy.int64) + offset)
            parts["right"].append(tree["right"].astype(numpy.int64) + offset)
            parts["missing_left"].append(tree["missing_go_to_left"].astype(bool))
            parts["leaf"].append(tree["is_leaf"].astype(bool))
            offset += len(tree)
        nodes = {name: numpy.concatenate(arrays) for name, arrays in parts.items()}
        return cls(float(model._baseline_prediction.ravel()[0]), model.n_features_in_, roots, nodes)

    def predict_proba(self, X: numpy.ndarray) -> numpy.ndarray:
        X = numpy.asarray(X, dtype=numpy.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"X has {X.shape[-1]} features, but the boosted trees expect {self.n_features}")
        if numpy.isinf(X).any():  # as scikit-learn: NaN is a missing value, infinity an error
            raise ValueError("Input X contains infinity.")
        n = self.nodes
        flat = X.ravel()
        offsets = (numpy.arange(len(X)) * self.n_features)[:, None]
        node = numpy.broadcast_to(self.roots, (len(X), len(self.roots))).copy()
        missing = bool(numpy.isnan(X).any())
        for _ in range(self._depth):
            x = flat[offsets + self._feature[node]]
            left = x <= n["threshold"][node]
            if missing:
                left = numpy.where(numpy.isnan(x), n["missing_left"][node], left)
            node = numpy.where(left, self._left[node], self._right[node])
        # scikit-learn adds the trees to the baseline one after another: cumsum keeps that order.
        terms = numpy.hstack([numpy.full((len(X), 1), self.baseline), n["value"][node]])
        raw = numpy.cumsum(terms, axis=1)[:, -1] if len(X) else numpy.zeros(0)
        proba = numpy.empty((len(X), 2))
        proba[:, 1] = _expit(raw)
        proba[:, 0] = 1 - proba[:, 1]
        return proba

    def to_dict(self) -> Dict[str, Any]:
        nodes: Dict[str, Any] = {name: [float(v).hex() for v in self.nodes[name].tolist()] for name in _FLOAT_FIELDS}
        nodes.update({name: self.nodes[name].astype(numpy.int64).tolist() for name in _INT_FIELDS})
        return {"baseline": self.baseline.hex(), "n_features": self.n_features, "roots": self.roots.tolist(), "nodes": nodes}

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "BoostedTrees":
        raw = data["nodes"]
        nodes = {name: numpy.asarray([float.fromhex(v) for v in raw[name]], dtype=numpy.float64) for name in _FLOAT_FIELDS}
        nodes.update({name: numpy.asarray(raw[name], dtype=numpy.int64) for name in ("feature", "left", "right")})
        nodes.update({name: numpy.asarray(raw[name], dtype=bool) for name in ("missing_left", "leaf")})
        sizes = {len(v) for v in nodes.values()}
        n_nodes = sizes.pop() if len(sizes) == 1 else -1
        roots = numpy.asarray(data["roots"], dtype=numpy.intp)
        inner = ~nodes["leaf"]
        if (
            n_nodes < 1
            or not len(roots)
            or roots.min() < 0
            or roots.max() >= n_nodes
            or any(((nodes[k][inner] < 0) | (nodes[k][inner] >= n_nodes)).any() for k in ("left", "right"))
            or ((nodes["feature"][inner] < 0) | (nodes["feature"][inner] >= int(data["n_features"]))).any()
        ):
            raise ValueError("the boosted trees' node arrays are inconsistent")
        return cls(float.fromhex(data["baseline"]), int(data["n_features"]), roots, nodes)


@dataclass
class SpanClassifier:
    """A fitted binary classifier; ``predict_proba`` gives P(mask)."""

    params: Dict[str, Any]
    model: Any = None
    cv: Dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return str(self.params["kind"])

    def fit(self, X: numpy.ndarray, y: numpy.ndarray, seed: int = 0, sample_weight: Optional[numpy.ndarray] = None) -> "SpanClassifier":
        params = {k: v for k, v in self.params.items() if k not in ("kind", "name")}
        if len(set(numpy.asarray(y).tolist())) < 2:
            raise ValueError(Errors.E437)
        if self.kind == "vote":
            self.model = [SpanClassifier(dict(CANDIDATES[m], name=m)).fit(X, y, seed, sample_weight) for m in params["members"]]
            return self
        if self.kind == "logreg":
            from sklearn.linear_model import LogisticRegression
            from sklearn.pipeline import make_pipeline
            from sklearn.preprocessing import StandardScaler

            self.model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, random_state=seed, **params))
        elif self.kind == "hgb":
            from sklearn.ensemble import HistGradientBoostingClassifier

            self.model = HistGradientBoostingClassifier(random_state=seed, **params)
        else:
            raise ValueError(Errors.E436.format(kind=self.kind))
        if sample_weight is None:
            self.model.fit(X, y)
        elif self.kind == "logreg":
            self.model.fit(X, y, logisticregression__sample_weight=sample_weight)
        else:
            self.model.fit(X, y, sample_weight=sample_weight)
        return self

    def predict_proba(self, X: numpy.ndarray) -> numpy.ndarray:
        if len(X) == 0:
            return numpy.zeros(0)
        if self.kind == "vote":
            return numpy.mean([member.predict_proba(X) for member in self.model], axis=0)
        classes = list(self._classes())
        return self.model.predict_proba(X)[:, classes.index(1)]

    def _classes(self) -> Sequence[int]:
        return self.model.classes_

    # serialization -----------------------------------------------------------------------------
    def to_dict(self) -> Dict[str, Any]:
        data: Dict[str, Any] = {"params": self.params, "cv": self.cv}
        if self.kind == "vote":
            data["members"] = [member.to_dict() for member in self.model]
        elif self.kind == "logreg":
            scaler, lr = self.model[0], self.model[-1]
            data["weights"] = {"mean": scaler.mean_.tolist(), "scale": scaler.scale_.tolist(), **LinearWeights.from_sklearn(lr, softmax_rows=False).to_dict()}
        else:
            trees = self.model if isinstance(self.model, BoostedTrees) else BoostedTrees.from_sklearn(self.model)
            data["trees"] = trees.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: Dict[str, Any], allow_pickle: bool = False) -> "SpanClassifier":
        """The classifier of ``to_dict``. allow_pickle (bool): also load pickled members (saved
        by earlier versions; unpickling can run code, so only from a trusted source)."""
        if "pickle" in data and not allow_pickle:
            raise ValueError(Errors.E439)
        self = cls(dict(data["params"]), cv=dict(data.get("cv", {})))
        if self.kind == "vote":
            # Earlier versions: one top-level pickle, a list of the members' pickles (None for JSON ones).
            pickles = pickle.loads(data["pickle"]) if "pickle" in data else [None] * len(data["members"])
            self.model = [
                cls.from_dict(dict(member, pickle=blob) if blob is not None else member, allow_pickle)
                for member, blob in zip(data["members"], pickles)
            ]
        elif self.kind == "logreg":
            from sklearn.pipeline import make_pipeline
            from sklearn.preprocessing import StandardScaler

            w = data["weights"]
            scaler = StandardScaler()
            scaler.mean_ = numpy.asarray(w["mean"], dtype=float)
            scaler.scale_ = numpy.asarray(w["scale"], dtype=float)
            scaler.var_ = scaler.scale_**2
            scaler.n_features_in_ = len(scaler.mean_)
            self.model = make_pipeline(scaler, LinearWeights.from_dict(w).to_sklearn())
        elif "trees" in data:
            self.model = BoostedTrees.from_dict(data["trees"])
        else:
            self.model = pickle.loads(data["pickle"])  # allow_pickle: the caller trusts the source
        return self


def group_folds(groups: Sequence[str], n_folds: int, seed: int = 0) -> List[Tuple[numpy.ndarray, numpy.ndarray]]:
    """Train/test index pairs with all rows of a group (document) in the same fold: the folds
    of ``evaluation.document_folds`` (its numpy permutation, as the committed risk_llm_prob
    models and tables were made), empty ones left out."""
    from ..evaluation.folds import document_folds

    n = len(groups)
    pairs = []
    for test in document_folds(groups, n_folds, seed, permutation="numpy"):
        if test:
            held = numpy.zeros(n, dtype=bool)
            held[test] = True
            pairs.append((numpy.flatnonzero(~held), numpy.flatnonzero(held)))
    return pairs


def f1_at(y: numpy.ndarray, p: numpy.ndarray, threshold: float) -> Dict[str, float]:
    pred = p >= threshold
    tp = float((pred & (y == 1)).sum())
    prec = tp / max(pred.sum(), 1)
    rec = tp / max((y == 1).sum(), 1)
    return {"P": prec, "R": rec, "F1": 2 * prec * rec / (prec + rec) if prec + rec else 0.0}


def select_and_fit(
    X: numpy.ndarray,
    y: numpy.ndarray,
    groups: Sequence[str],
    family: str = "auto",
    n_folds: int = 5,
    threshold: float = 0.5,
    seed: int = 0,
) -> SpanClassifier:
    """Pick the candidate of ``family`` (logreg, hgb, auto, or one candidate name) with the best
    span-level F1 of the MASK class under grouped cross-validation, then refit it on all rows."""
    names = FAMILIES.get(family, [family] if family in CANDIDATES else None)
    if names is None:
        raise ValueError(Errors.E438.format(family=family, names=sorted(FAMILIES) + sorted(CANDIDATES)))
    report: Dict[str, Any] = {}
    best: Optional[str] = None
    folds = group_folds(groups, n_folds, seed) if len(names) > 1 and len(set(groups)) >= n_folds else []
    out_of_fold: Dict[str, numpy.ndarray] = {}

    def oof(name: str) -> numpy.ndarray:
        """Out-of-fold P(mask) of a candidate; a vote's is the mean of its members' (each
        member cross-validated once, however many votes it is in)."""
        if name not in out_of_fold:
            params = CANDIDATES[name]
            if params["kind"] == "vote":
                out_of_fold[name] = numpy.mean([oof(member) for member in params["members"]], axis=0)
            else:
                p = numpy.zeros(len(y))
                for train, test in folds:
                    p[test] = SpanClassifier(dict(params)).fit(X[train], y[train], seed).predict_proba(X[test])
                out_of_fold[name] = p
        return out_of_fold[name]

    for name in names if folds else []:
        report[name] = f1_at(y, oof(name), threshold)
        if best is None or report[name]["F1"] > report[best]["F1"]:
            best = name
    best = best or names[0]
    return SpanClassifier(dict(CANDIDATES[best], name=best), cv={"selected": best, "folds": len(folds), "scores": report}).fit(X, y, seed)
