"""Small pieces shared by the risk components."""
from typing import Any, Dict

from spacy.language import Language


def risk_key(component_name: str) -> str:
    """The key a risk component writes under in ``Span._.risk``: its name without the
    ``risk_`` prefix (``risk_seq`` -> ``seq``), so two instances never collide."""
    return component_name[len("risk_") :] if component_name.startswith("risk_") else component_name


def other_deciders(nlp: Language, name: str) -> list:
    """Risk components in ``nlp`` other than ``name``: when there are none, a risk
    component decides ``Span._.mask`` itself."""
    return [
        other
        for other in nlp.pipe_names
        if other != name and nlp.get_pipe_meta(other).factory.startswith("risk_")
    ]


FAIL_CLOSED_RISK = 1.0


def failure(error: str, **details: Any) -> Dict[str, Any]:
    """The ``Span._.risk_explain`` entry of a span an indicator could not score. Such a span
    gets risk ``FAIL_CLOSED_RISK`` (mask), and ``risk_vote`` counts it as a MASK vote."""
    return {**details, "error": error, "fail_closed": True}
