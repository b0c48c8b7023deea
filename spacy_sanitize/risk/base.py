"""Small pieces shared by the risk components."""
from typing import Any, Callable, Dict, List, Optional, Sequence, TypeVar

from spacy.language import Language
from spacy.tokens import Span

T = TypeVar("T")
R = TypeVar("R")


def risk_key(component_name: str) -> str:
    """The key a risk component writes under in ``Span._.risk``: its name without the
    ``risk_`` prefix (``risk_seq`` -> ``seq``), so two instances never collide."""
    return component_name[len("risk_") :] if component_name.startswith("risk_") else component_name


def is_risk_component(nlp: Language, name: str) -> bool:
    """Whether pipe ``name`` of ``nlp`` was made by a ``risk_*`` factory."""
    return nlp.get_pipe_meta(name).factory.startswith("risk_")


def other_deciders(nlp: Language, name: str) -> list:
    """Risk components in ``nlp`` other than ``name``: when there are none, a risk
    component decides ``Span._.mask`` itself."""
    return [other for other in nlp.pipe_names if other != name and is_risk_component(nlp, other)]


def decides(nlp: Language, name: str, set_mask: Optional[bool]) -> bool:
    """Whether risk component ``name`` sets ``Span._.mask``: ``set_mask``, or when None,
    when it is the only risk component of the pipeline."""
    return bool(set_mask) if set_mask is not None else not other_deciders(nlp, name)


def write_risk(span: Span, key: str, risk: float, explain: Dict[str, Any], mask: Optional[bool]) -> None:
    """Write a span's risk and its explanation under ``key``, and ``Span._.mask`` unless
    ``mask`` is None (the component does not decide)."""
    span._.risk[key] = risk
    span._.risk_explain[key] = explain
    if mask is not None:
        span._.mask = bool(mask)


def isolate_failures(run: Callable[[List[T]], Sequence[R]], items: Sequence[T], describe: Callable[[Exception], Any]) -> List[Any]:
    """``run(items)``, one result per item; when the batch fails, every item is run alone so
    that only the culprits fail, each getting ``describe(error)`` as its result (fail closed)."""
    items = list(items)
    try:
        return list(run(items))
    except Exception as err:  # noqa: BLE001 - fail closed on any model or scorer failure
        if len(items) == 1:
            return [describe(err)]
    return [result for item in items for result in isolate_failures(run, [item], describe)]


FAIL_CLOSED_RISK = 1.0


def failure(error: str, **details: Any) -> Dict[str, Any]:
    """The ``Span._.risk_explain`` entry of a span an indicator could not score. Such a span
    gets risk ``FAIL_CLOSED_RISK`` (mask), and ``risk_vote`` counts it as a MASK vote."""
    return {**details, "error": error, "fail_closed": True}
