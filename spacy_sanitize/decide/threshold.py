"""risk_threshold: the decision of a pipeline with one risk indicator: ``Span._.mask =
Span._.risk[indicator] >= threshold``.

It is ``risk_vote`` with ``indicators = [indicator]``, ``rule = "k"``, ``k = 1`` and
``missing = "mask"`` (one code path, so the two never disagree on the same indicator):

- a span whose indicator failed (``risk_explain[indicator]["fail_closed"]``) is masked;
- a span without a score from the indicator is masked (fail closed);
- labels in ``protect`` (default PERSON and CODE, as risk_vote; ``types_always_mask`` is its
  older name) are masked whatever the score, and the explanation says what the score decided;
- so are, when switched on, the spans of risk_vote's other protection rules
  (``decide/rules.py``): a word of the shipped name lists in a span of any label
  (``protect_names``), a span found by a rule of ``protect_detectors``, a validated identifier
  (``protect_validated``), a date after a cue of ``protect_date_cues`` ("born", "DOB");
- the breakdown goes to ``Span._.risk_explain["threshold"]`` (the component's name without
  ``risk_``), in risk_vote's format.

``threshold`` null: the indicator's own threshold on the risk scale, read from the indicator
component (``decision_threshold``) at every document, so a refit or a loaded model moves the
decision with it: risk_llm_prob's ``threshold`` (the one its classifier was selected for),
0.5 for risk_perturb (its risk is 0.5 at its influence threshold). An indicator without one
(risk_seq, risk_web), or not in the pipeline, gets 0.5: risk is a probability that the span
should be masked, and 0.5 is risk_vote's ``default_threshold``.

Place it after its indicator and before ``masker`` (and ``risk_infer``); E703/E704 otherwise.
"""
from typing import List, Optional

from spacy.language import Language
from spacy.tokens import Doc

from ..extensions import register_extensions
from ..risk.base import is_indicator, risk_key
from .vote import RiskVote, _check_range
from ..errors import Errors

DEFAULT_THRESHOLD = 0.5


class RiskThreshold(RiskVote):
    """A one-indicator ``RiskVote`` (k = 1 of n = 1); see the module docstring."""

    def __init__(
        self,
        nlp: Language,
        name: str,
        indicator: str,
        threshold: Optional[float],
        spans_key: str,
        missing: str,
        protect: Optional[List[str]],
        types_always_mask: Optional[List[str]],
        protect_names: bool = False,
        protect_detectors: Optional[List[str]] = None,
        protect_validated: bool = False,
        protect_date_cues: Optional[List[str]] = None,
        date_cue_window: int = 5,
        protect_code_shaped: bool = False,
        protect_numeric_dates: bool = False,
        protect_special: bool = False,
        protect_ages: bool = False,
    ) -> None:
        if missing != "mask":
            raise ValueError(Errors.E705.format(missing=missing))
        if not indicator:
            raise ValueError(
                Errors.E702.format(name="indicator", value=indicator, problem="give the risk key to decide from, e.g. 'seq'")
            )
        if threshold is not None:
            _check_range("threshold", threshold)
        super().__init__(
            nlp,
            name,
            spans_key,
            indicators=[indicator],
            thresholds={} if threshold is None else {indicator: float(threshold)},
            default_threshold=DEFAULT_THRESHOLD,
            rule="k",
            k=1,
            mean_threshold=DEFAULT_THRESHOLD,
            missing="mask",
            protect=protect,
            types_always_mask=types_always_mask,
            protect_names=protect_names,
            protect_detectors=protect_detectors,
            protect_validated=protect_validated,
            protect_date_cues=protect_date_cues,
            date_cue_window=date_cue_window,
            protect_code_shaped=protect_code_shaped,
            protect_numeric_dates=protect_numeric_dates,
            protect_special=protect_special,
            protect_ages=protect_ages,
        )
        self.indicator = indicator
        self.threshold = None if threshold is None else float(threshold)

    def indicator_threshold(self) -> float:
        """The threshold in use: the configured one, else the indicator component's."""
        if self.threshold is not None:
            return self.threshold
        for name, proc in self.nlp.pipeline:
            if risk_key(name) == self.indicator and is_indicator(self.nlp, name):
                own = getattr(proc, "decision_threshold", None)
                if own is not None:
                    _check_range(f"{name}.decision_threshold", own)
                    return float(own)
        return DEFAULT_THRESHOLD

    def __call__(self, doc: Doc) -> Doc:
        self.thresholds = {self.indicator: self.indicator_threshold()}
        return super().__call__(doc)


# the factory's settings, shared by its name and its older one
FACTORY_SETTINGS = dict(
    default_config={
        "threshold": None,
        "spans_key": "pii",
        "missing": "mask",
        "protect": None,
        "types_always_mask": None,
        "protect_names": False,
        "protect_detectors": [],
        "protect_validated": False,
        "protect_date_cues": [],
        "date_cue_window": 5,
        "protect_code_shaped": False,
        "protect_numeric_dates": False,
        "protect_special": False,
        "protect_ages": False,
    },
    requires=["doc.spans", "span._.risk"],
    assigns=["span._.mask", "span._.risk_explain"],
)


@Language.factory("decide_threshold", **FACTORY_SETTINGS)
def make_risk_threshold(
    nlp: Language,
    name: str,
    indicator: str,
    threshold: Optional[float],
    spans_key: str,
    missing: str,
    protect: Optional[List[str]],
    types_always_mask: Optional[List[str]],
    protect_names: bool,
    protect_detectors: List[str],
    protect_validated: bool,
    protect_date_cues: List[str],
    date_cue_window: int,
    protect_code_shaped: bool,
    protect_numeric_dates: bool,
    protect_special: bool,
    protect_ages: bool,
) -> RiskThreshold:
    """indicator (str): the risk key to decide from (``seq`` for ``risk_seq``); required.
    threshold (Optional[float]): mask when risk >= threshold, in [0, 1]; null = the
    indicator's own (see the module docstring), 0.5 when it has none.
    missing (str): ``mask`` only (a span without a score is masked: fail closed).
    protect (Optional[List[str]]): PII labels masked whatever the score (likely direct
    identifiers); null = ``["CODE", "PERSON"]`` unless types_always_mask is set; [] = none.
    types_always_mask (Optional[List[str]]): the older name of ``protect`` (lists joined).
    protect_names, protect_detectors, protect_validated, protect_date_cues, date_cue_window:
    risk_vote's protection rules (``decide/rules.py``; off by default): a span with a word of
    the shipped name lists, a span of these detectors, a validated identifier, a DATETIME span
    with one of these cues among the date_cue_window words before it stay masked.
    protect_code_shaped (bool): so does a span (not DATETIME) with 4 digits in a row or a word
    of letters and digits. protect_numeric_dates (bool): so does a DATETIME span written in
    digits with a day, a month and a year ("1990-06-11"). protect_special (bool): so does, in a
    text that names a person or holds a code, a span that is or holds a term of the gazetteer's
    special categories of personal data (health conditions and states, sexual orientation,
    religion, ethnic group). protect_ages (bool): so does, in such a text, a span holding an age
    ("age 52", "11 years old", "29-year-old")."""
    register_extensions()
    return RiskThreshold(
        nlp, name, indicator, threshold, spans_key, missing, protect, types_always_mask,
        protect_names, protect_detectors, protect_validated, protect_date_cues, date_cue_window, protect_code_shaped,
        protect_numeric_dates, protect_special, protect_ages,
    )



# the older name (the decide stage's components were named as risk indicators): loads as before
Language.factory("risk_threshold", **FACTORY_SETTINGS)(make_risk_threshold)
