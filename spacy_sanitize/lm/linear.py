"""One export of linear models (scikit-learn's ``LogisticRegression``) as plain arrays, for
every component that stores one: pii_relabel's label model, risk_infer's attacker and
risk_llm_prob's logistic regression. Loading needs numpy only (scikit-learn where a caller
wants the estimator back); nothing is pickled."""
import io
from dataclasses import dataclass
from typing import Any, Dict, List

import numpy


@dataclass
class LinearWeights:
    """classes (List[Any]): the class labels, in the rows' order.
    coef (numpy.ndarray): (rows, features) weights.
    intercept (numpy.ndarray): (rows,) biases."""

    classes: List[Any]
    coef: numpy.ndarray
    intercept: numpy.ndarray

    @classmethod
    def from_sklearn(cls, clf: Any, softmax_rows: bool = True) -> "LinearWeights":
        """The weights of a fitted linear classifier. ``softmax_rows``: a binary model (one
        row in scikit-learn) becomes two symmetric rows, so a softmax over the rows gives
        scikit-learn's probabilities and each class has its own weights; False keeps
        scikit-learn's shapes (``to_sklearn`` rebuilds the same estimator)."""
        coef = numpy.asarray(clf.coef_)
        intercept = numpy.asarray(clf.intercept_)
        if softmax_rows and coef.shape[0] == 1 and len(clf.classes_) == 2:
            coef = numpy.vstack([-coef[0] / 2, coef[0] / 2])
            intercept = numpy.asarray([-intercept[0] / 2, intercept[0] / 2])
        return cls([_plain(c) for c in clf.classes_], coef, intercept)

    def to_sklearn(self) -> Any:
        """A ``LogisticRegression`` that predicts with these weights (as stored by
        ``from_sklearn(..., softmax_rows=False)``)."""
        from sklearn.linear_model import LogisticRegression

        lr = LogisticRegression()
        lr.coef_ = numpy.asarray(self.coef, dtype=float)
        lr.intercept_ = numpy.asarray(self.intercept, dtype=float)
        lr.classes_ = numpy.asarray(self.classes)
        lr.n_features_in_ = lr.coef_.shape[1]
        return lr

    def to_dict(self) -> Dict[str, Any]:
        """JSON-able lists: ``coef``, ``intercept``, ``classes``."""
        return {"coef": self.coef.tolist(), "intercept": self.intercept.tolist(), "classes": list(self.classes)}

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "LinearWeights":
        return cls(list(data["classes"]), numpy.asarray(data["coef"], dtype=float), numpy.asarray(data["intercept"], dtype=float))


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value JSON and msgpack store (int, str, float)."""
    return value.item() if isinstance(value, numpy.generic) else value


def npy_bytes(array: numpy.ndarray) -> bytes:
    """``array`` in the .npy format (no pickle), for msgpack payloads."""
    buffer = io.BytesIO()
    numpy.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def npy_array(data: bytes) -> numpy.ndarray:
    return numpy.load(io.BytesIO(data), allow_pickle=False)
