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


# The decide stage (``decide/``): the only components that write ``Span._.mask``: from risk
# scores ``decide_vote`` and ``decide_threshold`` (and their older names, which started with
# ``risk_`` as the indicators' do), from the detectors' confidence ``decide_confidence``.
DECIDER_FACTORIES = ("decide_vote", "decide_threshold", "risk_vote", "risk_threshold", "decide_confidence")
# Components that run after the decision and may only add masking (never remove it):
# risk_infer (decide/infer/) masks what an attacker still infers from the decided output. They are neither
# indicators (no decider reads them, so W700 ignores them) nor deciders (a decider after
# them would overwrite their masking: E704).
AFTER_DECISION_FACTORIES = ("risk_infer",)


def is_indicator(nlp: Language, name: str) -> bool:
    """Whether pipe ``name`` is a risk indicator: a ``risk_*`` component that writes
    ``Span._.risk`` and leaves the decision to a decider."""
    factory = nlp.get_pipe_meta(name).factory
    return factory.startswith("risk_") and factory not in DECIDER_FACTORIES + AFTER_DECISION_FACTORIES


def is_decider(nlp: Language, name: str) -> bool:
    """Whether pipe ``name`` writes ``Span._.mask`` (``decide/``)."""
    return nlp.get_pipe_meta(name).factory in DECIDER_FACTORIES


def write_risk(span: Span, key: str, risk: float, explain: Dict[str, Any]) -> None:
    """Write a span's risk and its explanation under ``key``. Indicators never write
    ``Span._.mask``: a decider (``risk_vote``, ``risk_threshold``) does."""
    span._.risk[key] = risk
    span._.risk_explain[key] = explain


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
    gets risk ``FAIL_CLOSED_RISK``, and the deciders count it as a MASK vote whatever its score."""
    return {**details, "error": error, "fail_closed": True}


class FittedThreshold:
    """A threshold that is a setting and can also be learned by ``initialize``: the one set in
    the config wins, else the fitted one (saved with the component), else ``default_threshold``.
    Subclasses set ``default_threshold``, ``configured_threshold`` and ``fitted_threshold``."""

    default_threshold: float
    configured_threshold: Optional[float] = None
    fitted_threshold: Optional[float] = None

    @property
    def threshold(self) -> float:
        if self.configured_threshold is not None:
            return self.configured_threshold
        if self.fitted_threshold is not None:
            return self.fitted_threshold
        return self.default_threshold

    @threshold.setter
    def threshold(self, value: Optional[float]) -> None:
        """Setting it is setting it in the config: it wins over a fitted one."""
        self.configured_threshold = None if value is None else float(value)
