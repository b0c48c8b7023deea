"""scikit-learn span classifiers for risk_llm_prob: logistic regression, gradient-boosted
trees and soft-voting ensembles of both (the paper's AutoML ensemble, in small), a model
selection by grouped cross-validation, and safe serialization.

Logistic regression is stored as plain numbers (scaler mean/scale, coefficients, intercept)
in JSON. Boosted trees are stored with pickle: **only load a risk_llm_prob model from a
source you trust**, since unpickling can run code.
"""
import pickle
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy

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


@dataclass
class SpanClassifier:
    """A fitted binary classifier; ``predict_proba`` gives P(mask)."""

    params: Dict[str, Any]
    model: Any = None
    cv: Dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return str(self.params["kind"])

    def fit(self, X: numpy.ndarray, y: numpy.ndarray, seed: int = 0) -> "SpanClassifier":
        params = {k: v for k, v in self.params.items() if k not in ("kind", "name")}
        if len(set(numpy.asarray(y).tolist())) < 2:
            raise ValueError("E421: the training spans all have the same label (all masked or none); add examples of both.")
        if self.kind == "vote":
            self.model = [SpanClassifier(dict(CANDIDATES[m], name=m)).fit(X, y, seed) for m in params["members"]]
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
            raise ValueError(f"E420: unknown classifier kind '{self.kind}'; use logreg, hgb or vote.")
        self.model.fit(X, y)
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
            # one top-level "pickle" (the trees' pickles, None for JSON members), like hgb
            members = [member.to_dict() for member in self.model]
            data["members"] = [{k: v for k, v in m.items() if k != "pickle"} for m in members]
            if any("pickle" in m for m in members):
                data["pickle"] = pickle.dumps([m.get("pickle") for m in members])
        elif self.kind == "logreg":
            scaler, lr = self.model[0], self.model[-1]
            data["weights"] = {"mean": scaler.mean_.tolist(), "scale": scaler.scale_.tolist(), **LinearWeights.from_sklearn(lr, softmax_rows=False).to_dict()}
        else:
            data["pickle"] = pickle.dumps(self.model)
        return data

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "SpanClassifier":
        self = cls(dict(data["params"]), cv=dict(data.get("cv", {})))
        if self.kind == "vote":
            pickles = pickle.loads(data["pickle"]) if "pickle" in data else [None] * len(data["members"])  # trusted source only
            self.model = [
                cls.from_dict(dict(member, pickle=blob) if blob is not None else member)
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
        else:
            self.model = pickle.loads(data["pickle"])  # trusted source only (see module docstring)
        return self


def group_folds(groups: Sequence[str], n_folds: int, seed: int = 0) -> List[Tuple[numpy.ndarray, numpy.ndarray]]:
    """Train/test index pairs with all rows of a group (document) in the same fold."""
    unique = sorted(set(groups))
    rng = numpy.random.RandomState(seed)
    order = rng.permutation(len(unique))
    fold_of = {unique[i]: n % n_folds for n, i in enumerate(order)}
    folds = numpy.asarray([fold_of[g] for g in groups])
    return [(numpy.flatnonzero(folds != k), numpy.flatnonzero(folds == k)) for k in range(n_folds) if (folds == k).any()]


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
        raise ValueError(f"E422: unknown classifier '{family}'; use one of {sorted(FAMILIES) + sorted(CANDIDATES)}.")
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
