"""risk_vote: combines the risk indicators into the masking decision (seed 000,
"Combination of Risk Indicators": a span is masked when at least k of the n indicators
consider it risky).

Each risk component writes ``Span._.risk[<key>]`` (its name without ``risk_``). risk_vote
turns every score into a vote (score >= the indicator's threshold = MASK), counts them with
a ``rule`` and writes ``Span._.mask`` plus the breakdown in ``Span._.risk_explain["vote"]``.

Privacy fails closed:
- an indicator listed in ``indicators`` that wrote nothing for a span votes MASK
  (``missing="mask"``; ``missing="ignore"`` leaves it out of n instead);
- an indicator that failed (``risk_explain[key]["fail_closed"]``) votes MASK whatever its score;
- a span with no indicator at all is masked;
- labels in ``protect`` (likely direct identifiers, default PERSON and CODE: names and
  codes) are masked whatever the votes, so no indicator un-masks a name; the breakdown still
  says what the votes alone would have decided (``protect = []`` opts out);
- so are, when switched on, spans of any label with a word of the shipped name lists
  (``protect_names``), spans found by a rule of the ``protect_detectors``, validated
  identifiers (``protect_validated``) and dates after a cue of ``protect_date_cues`` ("born",
  "DOB") among the ``date_cue_window`` words before them: ``decide/rules.py`` (off by
  default; the ``court`` pipeline sets them);
- rule ``k`` with fewer than k indicators available needs all of them (k is capped at n);
- when the document names the person to protect (``Doc._.protect``, see ``decide/protect.py``),
  every span sharing a name part with them is masked whatever its label and the votes
  (``protected_person`` in the breakdown); ``protect = []`` does not opt out of this, the
  document's own setting.

Place it after every risk indicator and before ``masker`` (and ``risk_infer``, which adds
masking to the decided text): it checks the order on the first document and raises E703 or
E704 otherwise. Indicators only score; a decider (this, or ``risk_threshold`` for one
indicator) is the only writer of ``Span._.mask`` from risk scores, and the masker warns
(W700) when an indicator's score reaches no decider.
"""

from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..doc_reads import doc_text
from ..extensions import register_extensions
from ..risk.base import AFTER_DECISION_FACTORIES, is_indicator, risk_key
from ..errors import Errors
from ..spans import is_validated
from .protect import matched_parts, name_parts, protected_names
from .rules import ProtectRules, person_words


RULES = ("k", "any", "all", "majority", "mean")
COUNTING_RULES = RULES[:-1]  # decided by counting MASK votes (count_rule_masks)
MISSING = ("mask", "ignore")
# The labels kept masked whatever the indicators say when the config sets neither ``protect``
# nor the older ``types_always_mask``: names and codes are the direct identifiers (TAB's
# DIRECT mentions are PERSON and CODE), and an indicator that un-masks them loses R_direct.
DEFAULT_PROTECT = ("CODE", "PERSON")


def protected_labels(protect: Optional[List[str]], types_always_mask: Optional[List[str]]) -> List[str]:
    """The labels a decider keeps masked: ``protect`` and ``types_always_mask`` (its older name,
    still read so saved configs keep their meaning) together; ``DEFAULT_PROTECT`` when neither
    is set. An empty list given by the user is honoured: nothing is protected."""
    if protect is None and types_always_mask is None:
        return list(DEFAULT_PROTECT)
    return sorted(set(protect or []) | set(types_always_mask or []))


def _check_range(name: str, value: float) -> None:
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError(
            Errors.E702.format(name=name, value=value, problem="must be in [0, 1]")
        )


def count_rule_masks(rule: str, n: int, n_mask: int, k: int = 1) -> bool:
    """Whether ``n_mask`` MASK votes of ``n`` (n >= 1) mask under a counting rule (``k``,
    ``any``, ``all``, ``majority``); one place for the rules, which the review report
    (``report/why.py``) replays from a span's breakdown."""
    if rule == "k":
        return n_mask >= min(k, n)
    if rule == "any":
        return n_mask >= 1
    if rule == "all":
        return n_mask == n
    if rule == "majority":
        return 2 * n_mask > n
    raise ValueError(f"not a counting rule: {rule!r}")


class RiskVote:
    """Writes ``Span._.mask`` for the spans in ``doc.spans[spans_key]`` from their
    ``Span._.risk`` scores, and the vote breakdown in ``Span._.risk_explain[<own key>]``."""

    def __init__(
        self,
        nlp: Language,
        name: str,
        spans_key: str,
        indicators: List[str],
        thresholds: Dict[str, float],
        default_threshold: float,
        rule: str,
        k: int,
        mean_threshold: float,
        missing: str,
        protect: Optional[List[str]] = None,
        types_always_mask: Optional[List[str]] = None,
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
        if rule not in RULES:
            raise ValueError(Errors.E700.format(rule=rule, rules=", ".join(RULES)))
        if missing not in MISSING:
            raise ValueError(Errors.E701.format(missing=missing))
        if int(k) < 1:
            raise ValueError(Errors.E702.format(name="k", value=k, problem="must be >= 1"))
        _check_range("default_threshold", default_threshold)
        _check_range("mean_threshold", mean_threshold)
        for key, value in thresholds.items():
            _check_range(f"thresholds.{key}", value)
        self.nlp = nlp
        self.name = name
        self.key = risk_key(name)
        self.spans_key = spans_key
        self.indicators = list(indicators)
        self.thresholds = dict(thresholds)
        self.default_threshold = float(default_threshold)
        self.rule = rule
        self.k = int(k)
        self.mean_threshold = float(mean_threshold)
        self.missing = missing
        self.protect = protected_labels(protect, types_always_mask)
        self.rules = ProtectRules(self.protect, protect_names, protect_detectors, protect_validated, protect_date_cues, date_cue_window,
                                  protect_code_shaped, protect_numeric_dates, protect_special, protect_ages)
        self._order_checked = False

    # ---------------------------------------------------------------- decision

    def _check_order(self) -> None:
        """E703: an indicator runs after this decider; E704: a component that adds masking to
        the decided text (risk_infer) runs before it."""
        if self._order_checked or self.name not in self.nlp.pipe_names:
            return
        names = self.nlp.pipe_names
        here = names.index(self.name)
        factory = self.nlp.get_pipe_meta(self.name).factory
        late = [other for other in names[here + 1 :] if is_indicator(self.nlp, other)]
        if late:
            raise ValueError(Errors.E703.format(factory=factory, name=self.name, late=late))
        early = [other for other in names[:here] if self.nlp.get_pipe_meta(other).factory in AFTER_DECISION_FACTORIES]
        if early:
            raise ValueError(Errors.E704.format(factory=factory, name=self.name, early=early, first=early[0]))
        self._order_checked = True

    def reads(self, key: str) -> bool:
        """Whether this decider counts the indicator that writes ``Span._.risk[key]``."""
        return not self.indicators or key in self.indicators

    def _keys(self, span: Span) -> List[str]:
        if self.indicators:
            return self.indicators
        return sorted(key for key in span._.risk if key != self.key)

    def votes(self, span: Span) -> Tuple[Dict[str, Dict[str, Any]], List[float]]:
        """Per-indicator votes ``{key: {"risk", "threshold", "vote", "reason"?}}`` and the
        scores that count towards the mean (missing/failed indicators count as 1.0)."""
        risks = span._.risk
        explains = span._.risk_explain
        votes: Dict[str, Dict[str, Any]] = {}
        scores: List[float] = []
        for key in self._keys(span):
            threshold = float(self.thresholds.get(key, self.default_threshold))
            explain = explains.get(key)
            if key not in risks:
                if self.missing == "ignore":
                    continue
                risk, reason = None, "missing"
            elif isinstance(explain, dict) and explain.get("fail_closed"):
                risk, reason = float(risks[key]), "fail_closed"
            else:
                risk = float(risks[key])
                votes[key] = {"risk": risk, "threshold": threshold, "vote": risk >= threshold}
                scores.append(risk)
                continue
            # An indicator that is missing or could not decide votes MASK (fail closed).
            votes[key] = {"risk": risk, "threshold": threshold, "vote": True, "reason": reason}
            scores.append(1.0)
        return votes, scores

    def decide(self, span: Span, person_parts: FrozenSet[str] = frozenset(), text: Optional[str] = None,
               name_words: FrozenSet[str] = frozenset(), identified: bool = False) -> Tuple[bool, Dict[str, Any]]:
        """The decision for one span and its explanation; ``person_parts``: the name parts of
        the document's protected person(s) (``protect.name_parts``); ``text``: the document's
        text, when the caller has it; ``name_words``: ``rules.person_words`` of its PERSON spans;
        ``identified``: whether it holds a PERSON or CODE span."""
        mask, explain = self._decide_by_votes(span)
        matched = matched_parts(span.text, person_parts) if person_parts else []
        if matched:
            explain["votes_decision"] = mask
            explain["protected_person"] = matched
            explain["reason"] = f"shares the name part(s) {matched} of the person to protect (Doc._.protect): masked whatever the votes"
            return True, explain
        reason = self.protection(span, text, name_words, identified)
        if reason:
            explain["votes_decision"] = mask
            explain["reason"] = reason
            return True, explain
        return mask, explain

    def protection(self, span: Span, text: Optional[str] = None, name_words: FrozenSet[str] = frozenset(), identified: bool = False) -> Optional[str]:
        """Why a protection rule keeps ``span`` masked whatever the votes (None: none does).
        ``text``: the document's text (``Doc.text`` joins every token again on each call, which
        made the decision quadratic in a document's spans)."""
        explain = span.doc.user_data.get(("._.", "risk_explain", span.start_char, span.end_char))
        detector = str(explain.get("detector", "")) if isinstance(explain, dict) else ""
        text = doc_text(span.doc) if text is None else text
        return self.rules.reason(span.label_, text, span.start_char, span.end_char, detector, is_validated(span), name_words, identified)

    def _decide_by_votes(self, span: Span) -> Tuple[bool, Dict[str, Any]]:
        votes, scores = self.votes(span)
        n = len(votes)
        n_mask = sum(1 for v in votes.values() if v["vote"])
        explain: Dict[str, Any] = {"rule": self.rule, "n": n, "n_mask": n_mask, "votes": votes}
        if n == 0:
            explain["reason"] = "no risk indicator for this span: masked (fail closed)"
            return True, explain
        if self.rule != "mean":
            if self.rule == "k":
                explain["k"] = min(self.k, n)
            return count_rule_masks(self.rule, n, n_mask, self.k), explain
        mean = sum(scores) / len(scores)
        explain["mean"] = round(mean, 6)
        explain["mean_threshold"] = self.mean_threshold
        return mean >= self.mean_threshold, explain

    def __call__(self, doc: Doc) -> Doc:
        self._check_order()
        person_parts = name_parts(protected_names(doc._.protect))
        text = doc_text(doc)
        spans = list(doc.spans.get(self.spans_key, []))
        name_words = person_words(text[s.start_char : s.end_char] for s in spans if s.label_ == "PERSON") if self.rules.reads_names else frozenset()
        identified = self.rules.reads_identity and any(s.label_ in ("PERSON", "CODE") for s in spans)
        for span in spans:
            mask, explain = self.decide(span, person_parts, text, name_words, identified)
            span._.mask = mask
            span._.risk_explain[self.key] = explain
        return doc


# the factory's settings, shared by its name and its older one
FACTORY_SETTINGS = dict(
    default_config={
        "spans_key": "pii",
        "indicators": [],
        "thresholds": {},
        "default_threshold": 0.5,
        "rule": "k",
        "k": 1,
        "mean_threshold": 0.5,
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


@Language.factory("decide_vote", **FACTORY_SETTINGS)
def make_risk_vote(
    nlp: Language,
    name: str,
    spans_key: str,
    indicators: List[str],
    thresholds: Dict[str, float],
    default_threshold: float,
    rule: str,
    k: int,
    mean_threshold: float,
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
) -> RiskVote:
    """indicators (List[str]): risk keys to combine (``seq``, ``web``...); empty = every key
    present on the span. thresholds (Dict[str, float]): per-key vote threshold (risk >=
    threshold = MASK); others use default_threshold. rule (str): ``k`` (at least k of n),
    ``any``, ``all``, ``majority`` (more than half) or ``mean`` (mean risk >= mean_threshold).
    missing (str): ``mask`` (an absent indicator votes MASK) or ``ignore``.
    protect (Optional[List[str]]): PII labels masked whatever the votes (likely direct
    identifiers); null = ``["CODE", "PERSON"]`` unless types_always_mask is set; [] = none.
    types_always_mask (Optional[List[str]]): the older name of ``protect``, still honoured
    (the two lists are joined).
    protect_names (bool): also keep masked a span of any label with a word of the shipped
    given or family name lists (a surname typed LOC or ORG); false = off.
    protect_detectors (List[str]): detectors (prefixes of ``risk_explain["detector"]``, e.g.
    ``pii_titles``, ``pii_script``) whose spans stay masked whatever their label; [] = none.
    protect_validated (bool): keep masked the identifiers whose format or check digits were
    verified (postcodes, phone numbers, IBANs...), whatever their label; false = off.
    protect_date_cues (List[str]): cues ("born", "date of birth", "DOB") that keep a DATETIME
    span masked when one is among the date_cue_window words before it; [] = off.
    date_cue_window (int): how many words before a date are searched for the cues (>= 1).
    protect_code_shaped (bool): keep masked a span (not DATETIME) with 4 digits in a row or a
    word of letters and digits ("69003", "19b", "ST-40917"), whatever its label; false = off.
    protect_numeric_dates (bool): keep masked a DATETIME span written in digits with a day, a
    month and a year ("1990-06-11", "11/06/1990"); false = off.
    protect_special (bool): in a text that names a person or holds a code, keep masked a span
    that is or holds a term of the shipped gazetteer's special categories of personal data
    (health conditions and states, sexual orientation, religion, ethnic group: "breast cancer",
    "14 weeks pregnant", "lesbian"); false = off.
    protect_ages (bool): in such a text, keep masked a span holding an age ("age 52", "aged
    17", "11 years old", "29-year-old"); false = off."""
    register_extensions()
    return RiskVote(
        nlp,
        name,
        spans_key,
        indicators,
        thresholds,
        default_threshold,
        rule,
        k,
        mean_threshold,
        missing,
        protect,
        types_always_mask,
        protect_names,
        protect_detectors,
        protect_validated,
        protect_date_cues,
        date_cue_window,
        protect_code_shaped,
        protect_numeric_dates,
        protect_special,
        protect_ages,
    )


# the older name (the decide stage's components were named as risk indicators): loads as before
Language.factory("risk_vote", **FACTORY_SETTINGS)(make_risk_vote)


def vote_summary(docs: Iterable[Doc], spans_key: str = "pii", key: str = "vote") -> Dict[str, Any]:
    """Counts over docs: spans, masked spans, and how often each indicator voted MASK."""
    spans = masked = 0
    per_key: Dict[str, List[int]] = {}
    for doc in docs:
        for span in doc.spans.get(spans_key, []):
            spans += 1
            masked += bool(span._.mask)
            explain: Optional[Dict[str, Any]] = span._.risk_explain.get(key)
            for indicator, vote in (explain or {}).get("votes", {}).items():
                counts = per_key.setdefault(indicator, [0, 0])
                counts[0] += bool(vote["vote"])
                counts[1] += 1
    return {
        "spans": spans,
        "masked": masked,
        "mask_votes": {k: {"mask": v[0], "n": v[1]} for k, v in sorted(per_key.items())},
    }
