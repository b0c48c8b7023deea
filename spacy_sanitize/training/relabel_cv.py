"""Cross-validation helpers for pii_relabel: run the detector over gold texts, fold by
document, count token-level labelled hits (as ``evaluation.detection_scores``) and choose the
hyper-parameters by grouped CV. Used by ``benchmarks/quality/relabel_eval.py`` (nested CV) and
``scripts/train_relabel.py`` (the shipped model)."""
import itertools
import math
from collections import defaultdict
from typing import Any, Dict, List, Optional, Sequence, Tuple

from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import load_config

from ..corpus.tab import TabDocument
from ..evaluation.folds import document_folds, index_ids
from ..evaluation.scorer import detect_docs, detected_triples
from ..evaluation.tab_metrics import Tokens, detection_counts, pool_detection_counts
from ..lm.context import ContextEncoder
from ..detect.relabel import PIIRelabel, doc_features, relabel_decisions
from ..shipped import SHIPPED_MLM

GRID: Dict[str, List[Any]] = {"C": [0.3, 1.0, 3.0], "none_class": [False, True], "min_prob": [0.0, 0.5, 0.7], "entity_vote": [True]}
# entity_vote is fixed (not searched): mentions of one entity must get one type, or the
# masker would write "[PERSON]" for one mention and "[ORG]" for another of the same entity.
PARAM_NAMES = ("C", "none_class", "min_prob", "entity_vote")
_FEATURES: Dict[Tuple[int, Optional[str], float, int, bool], Tuple[Doc, List[Dict[str, float]]]] = {}
# The context encoder of the relabeller's features, the vectors' weight and the layer read
# (chosen by 5-fold CV by document: weights 1, 3, 5, 10 with MiniLM and 3, 5 with the domain
# MLM; layers 2, 3, 4, 6 of the domain MLM: docs/pii_relabel.md).
ENCODER = SHIPPED_MLM
ENCODER_SCALE = 5.0
ENCODER_LAYERS = 3
_ENCODERS: Dict[Tuple[str, int, bool], ContextEncoder] = {}


def detector() -> Language:
    """``accurate``'s pipeline up to pii_relabel, the detector the relabeller follows: built
    without pii_relabel, so a shipped model of older features does not stop its retraining."""
    from ..pipeline import config_path, load_pipeline

    names = [name for name in load_config(config_path("accurate"))["nlp"]["pipeline"] if name != "pii_relabel"]
    return load_pipeline("accurate", {"nlp.pipeline": names})


def detect(nlp: Language, texts: Sequence[str]) -> List[Doc]:
    """The detector's docs: ``nlp`` without pii_relabel and the masker (``evaluation.detect_docs``)."""
    return detect_docs(nlp, texts)


def folds(n: int, k: int, seed: int) -> List[List[int]]:
    """``k`` folds of document indices (shuffled with ``seed``)."""
    return document_folds(index_ids(n), k, seed)


def features_of(doc: Doc, encoder: Optional[str] = None, scale: float = ENCODER_SCALE, layers: int = ENCODER_LAYERS, quantize: bool = False) -> List[Dict[str, float]]:
    """Feature dicts of a detected doc (with the span vectors of context encoder ``encoder``
    read at layer ``layers``, in int8 with ``quantize``), computed once per doc object (the
    cache holds the doc, so its id cannot be reused by another one)."""
    key = (id(doc), encoder, scale, layers, quantize)
    cached = _FEATURES.get(key)
    if cached is None or cached[0] is not doc:
        context = None
        if encoder:
            if (encoder, layers, quantize) not in _ENCODERS:
                _ENCODERS[(encoder, layers, quantize)] = ContextEncoder(encoder, layers=layers, quantize=quantize)
            context = _ENCODERS[(encoder, layers, quantize)]
        cached = _FEATURES[key] = (doc, doc_features(doc, encoder=context, encoder_scale=scale))
    return cached[1]


def fit(params: Dict[str, Any], predicted: Sequence[Doc], references: Sequence[Doc]) -> PIIRelabel:
    """A relabeller fit with ``params`` (C, none_class, min_prob, entity_vote; optional
    keep_labels, encoder, encoder_scale, encoder_layers, encoder_quantize)."""
    encoder, scale = params.get("encoder"), float(params.get("encoder_scale", ENCODER_SCALE))
    layers, quantize = int(params.get("encoder_layers", ENCODER_LAYERS)), bool(params.get("encoder_quantize", False))
    component = PIIRelabel("pii_relabel", "pii", None, params["min_prob"], params["entity_vote"], params["C"], params["none_class"], 2, params.get("keep_labels"), encoder, scale, layers, quantize)
    component.fit(predicted, references, [features_of(doc, encoder, scale, layers, quantize) for doc in predicted])
    return component


def relabelled(component: PIIRelabel, docs: Sequence[Doc]) -> List[List[list]]:
    """[start, end, label] triples of the docs' spans after relabelling."""
    out = []
    for doc in docs:
        rows = features_of(doc, component.encoder_name, component.encoder_scale, component.encoder_layers, component.encoder_quantize)
        decisions = relabel_decisions(component.model, doc, "pii", component.min_prob, component.entity_vote, rows=rows, keep_labels=component.keep_labels)  # type: ignore[arg-type]
        out.append([[s.start_char, s.end_char, d[0]] for s, d in zip(doc.spans.get("pii", []), decisions)])
    return out


def unchanged(docs: Sequence[Doc]) -> List[List[list]]:
    return [detected_triples(doc) for doc in docs]


def micro_f1(per_doc: Sequence[Dict[str, List[int]]]) -> float:
    """Labelled micro F1 of summed per-document counts."""
    return pool_detection_counts(per_doc).micro_labelled["F1"]


def type_f1(per_doc: Sequence[Dict[str, List[int]]], label: str) -> float:
    return pool_detection_counts(per_doc).per_type.get(label, {}).get("F1", 0.0)


def choose_params(
    predicted: Sequence[Doc], references: Sequence[Doc], gold: Sequence[TabDocument], tokens: Tokens, seed: int, k: int = 4, encoder: Optional[str] = ENCODER, encoder_scale: float = ENCODER_SCALE,
    encoder_layers: int = ENCODER_LAYERS, encoder_quantize: bool = False,
) -> Tuple[Dict[str, Any], float]:
    """Grid search over ``GRID`` by ``k``-fold CV by document; returns the parameters with the
    best pooled labelled micro F1 on the held-out documents, and that F1 (ties: C nearest 1 on a log scale)."""
    scores: Dict[Tuple, List[Dict]] = defaultdict(list)
    for held in folds(len(predicted), k, seed):
        train = [i for i in range(len(predicted)) if i not in held]
        for C, none_class in itertools.product(GRID["C"], GRID["none_class"]):
            base = fit({"C": C, "none_class": none_class, "min_prob": 0.0, "entity_vote": False, "encoder": encoder, "encoder_scale": encoder_scale, "encoder_layers": encoder_layers,
                        "encoder_quantize": encoder_quantize}, [predicted[i] for i in train], [references[i] for i in train])
            for min_prob, vote in itertools.product(GRID["min_prob"], GRID["entity_vote"]):
                base.min_prob, base.entity_vote = min_prob, vote
                preds = relabelled(base, [predicted[i] for i in held])
                scores[(C, none_class, min_prob, vote)].extend(detection_counts(gold[i], p, tokens) for i, p in zip(held, preds))
    best = max(scores, key=lambda key: (round(micro_f1(scores[key]), 6), -abs(math.log(key[0]))))
    params = {"encoder": encoder, "encoder_scale": encoder_scale, "encoder_layers": encoder_layers, "encoder_quantize": encoder_quantize}
    return {**dict(zip(PARAM_NAMES, best)), **params}, micro_f1(scores[best])
