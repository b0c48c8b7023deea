"""The TAB metrics as a spaCy scorer, so ``spacy evaluate`` and training report them."""
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import registry

from ..corpus.tab import docs_to_tab
from ..masker.plan import PlanSettings, masking_plan
from ..types import DEFAULT_SPANS_KEY
from .tab_metrics import Tokens, tab_scores


def predicted_mask_offsets(doc: Doc, spans_key: str = DEFAULT_SPANS_KEY, settings: Optional[PlanSettings] = None) -> List[List[int]]:
    """The character spans a processed Doc masks: the masker's replacements when it ran,
    else, with ``settings``, the masking plan the masker would follow (``masking_plan``),
    else the spans whose decision is not False (no decision means mask: fail closed)."""
    if doc._.replacements is not None:
        return [[row[0], row[1]] for row in doc._.replacements]
    if settings is not None:
        return [[r.start, r.end] for r in masking_plan(doc, settings)]
    return [[s.start_char, s.end_char] for s in doc.spans.get(spans_key, []) if s._.mask is not False]


def detected_triples(doc: Doc, spans_key: str = DEFAULT_SPANS_KEY) -> List[List[Any]]:
    """``[start, end, label]`` of the detected spans of a processed Doc (what
    ``detection_scores`` reads)."""
    return [[s.start_char, s.end_char, s.label_] for s in doc.spans.get(spans_key, [])]


# Components fitted on the annotated biographies: evaluations on those documents leave them
# out, or every detected row would be in-sample.
FITTED_ON_EVALUATION_DATA = ("pii_relabel",)


def detection_stage(nlp: Language) -> List[str]:
    """The components of ``nlp`` that detect: those before its risk stage (the ``risk_*``
    indicators and deciders) and the masker, less those fitted on the evaluation documents
    (``FITTED_ON_EVALUATION_DATA``). ``court``'s is ``ensemble``'s detector + ``pii_extend``."""
    from ..pipeline import detection_prefix

    def factory(name: str) -> str:
        return nlp.get_pipe_meta(name).factory

    return [name for name in detection_prefix(nlp.pipe_names, factory) if factory(name) not in FITTED_ON_EVALUATION_DATA]


def detect_docs(nlp: Language, texts: Sequence[str], doc_ids: Optional[Sequence[Optional[str]]] = None) -> List[Doc]:
    """The detector's docs for an evaluation: ``nlp``'s ``detection_stage`` only, with
    ``doc._.doc_id`` set from ``doc_ids``."""
    keep = set(detection_stage(nlp))
    disable = [n for n in nlp.pipe_names if n not in keep]
    with nlp.select_pipes(disable=disable):
        docs = list(nlp.pipe(texts))
    for doc, doc_id in zip(docs, doc_ids or [None] * len(docs)):
        if doc_id is not None:
            doc._.doc_id = doc_id
    return docs


def score_tab(
    examples: Iterable[Example],
    spans_key: str = DEFAULT_SPANS_KEY,
    tokens: Optional[Tokens] = None,
    risk_key: Optional[str] = None,
    risk_threshold: float = 0.5,
    **_: Any,
) -> Dict[str, Any]:
    """TAB metrics of the predicted docs' masking against the references. With ``risk_key``
    (an indicator scored alone, e.g. risk_seq in ``spacy train``), a span counts as masked
    when ``Span._.risk[risk_key] >= risk_threshold`` (a span without that score is masked:
    fail closed); otherwise what the masker or the decider decided."""
    examples = list(examples)
    # Gold and predictions are matched by document id; examples without one (plain Examples,
    # a DocBin without ids) are numbered so that each is still scored against its own reference.
    ids = [eg.reference._.doc_id or eg.predicted._.doc_id or f"#{i}" for i, eg in enumerate(examples)]
    references = []
    for doc_id, eg in zip(ids, examples):
        reference = eg.reference
        if reference._.doc_id != doc_id:
            reference = reference.copy()
            reference._.doc_id = doc_id
        references.append(reference)
    gold = docs_to_tab(references)
    def masked(doc: Doc) -> List[List[int]]:
        if risk_key is None:
            return predicted_mask_offsets(doc, spans_key)
        return [
            [s.start_char, s.end_char]
            for s in doc.spans.get(spans_key, [])
            if s._.risk.get(risk_key, 1.0) >= risk_threshold
        ]

    predictions = {doc_id: masked(eg.predicted) for doc_id, eg in zip(ids, examples)}
    scores = tab_scores(gold, predictions, tokens=tokens)
    return {
        "tab_p": scores.precision,
        "tab_r_all": scores.recall,
        "tab_f1": scores.f1,
        "tab_r_ent": scores.entity_recall,
        "tab_r_direct": scores.direct_recall,
        "tab_r_quasi": scores.quasi_recall,
        # `spacy evaluate --spans-key pii` prints these keys only (as SPAN P/R/F): the masked
        # spans' TAB precision, recall and F1; its --output JSON has every key above
        f"spans_{spans_key}_p": scores.precision,
        f"spans_{spans_key}_r": scores.recall,
        f"spans_{spans_key}_f": scores.f1,
    }


@registry.scorers("spacy_sanitize.tab_scorer.v1")
def make_tab_scorer() -> Callable[..., Dict[str, Any]]:
    return score_tab
