"""The TAB metrics as a spaCy scorer, so ``spacy evaluate`` and training report them."""
from typing import Any, Callable, Dict, Iterable, List, Optional

from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import registry

from ..corpus.tab import docs_to_tab
from ..types import DEFAULT_SPANS_KEY
from .tab_metrics import Tokens, tab_scores


def predicted_mask_offsets(doc: Doc, spans_key: str = DEFAULT_SPANS_KEY) -> List[List[int]]:
    """The character spans a processed Doc masks: the masker's replacements when it ran,
    else the spans whose decision is not False (no decision means mask: fail closed)."""
    if doc._.replacements is not None:
        return [[row[0], row[1]] for row in doc._.replacements]
    return [[s.start_char, s.end_char] for s in doc.spans.get(spans_key, []) if s._.mask is not False]


def score_tab(examples: Iterable[Example], spans_key: str = DEFAULT_SPANS_KEY, tokens: Optional[Tokens] = None, **_: Any) -> Dict[str, Any]:
    examples = list(examples)
    gold = docs_to_tab(eg.reference for eg in examples)
    predictions: Dict[str, List[List[int]]] = {}
    for eg in examples:
        doc_id = eg.reference._.doc_id or eg.predicted._.doc_id
        predictions[doc_id] = predicted_mask_offsets(eg.predicted, spans_key)
    scores = tab_scores(gold, predictions, tokens=tokens)
    return {
        "tab_p": scores.precision,
        "tab_r_all": scores.recall,
        "tab_f1": scores.f1,
        "tab_r_ent": scores.entity_recall,
        "tab_r_direct": scores.direct_recall,
        "tab_r_quasi": scores.quasi_recall,
    }


@registry.scorers("spacy_sanitize.tab_scorer.v1")
def make_tab_scorer() -> Callable[..., Dict[str, Any]]:
    return score_tab
