"""Why a span was masked or kept: one JSON-able explanation built from the data contract
(``Span._.risk_explain``, ``Span._.risk``, ``Span._.mask``) and the masker's replacements.

The same object is the ``why`` of each span in ``sanitize``'s JSONL output and the tooltip of
the review report, so what a reviewer reads and what a program reads never disagree.
"""
import re
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from spacy.tokens import Span

from ..decide.confidence import confidence_explain
from ..decide.vote import COUNTING_RULES, count_rule_masks
from ..spans import SortedRanges

# The final outcome of a span (CSS classes of the report and the decision view of render()):
# masked by the decision; kept in clear; masked because something could not decide (fail
# closed); "added" is a replaced region that no detected span covers (propagation, deny list).
DECISIONS = ("masked", "kept", "failed_closed", "added")
# Indicator failures a decider counted as MASK votes (decide/vote.py).
FAIL_REASONS = ("missing", "fail_closed")


def is_decider_explain(value: Any) -> bool:
    """Whether a ``risk_explain`` entry is a decider's breakdown (risk_vote, risk_threshold)."""
    return isinstance(value, dict) and "rule" in value and "votes" in value


def detectors(explain: Dict[str, Any]) -> List[str]:
    """The detector that found the span (``risk_explain["detector"]``, e.g. ``pii_codes:email``)
    and the detection components that left a trace on it (gazetteer match, relabel, refine)."""
    found: List[str] = []
    if explain.get("detector"):
        found.append(str(explain["detector"]))
    for key in explain:
        if key.startswith("pii_") and not any(name.split(":")[0] == key for name in found):
            found.append(key)
    return found


def _failure_decided(decided: Dict[str, Any]) -> bool:
    """Whether the votes mask only because of indicators that could not decide (missing or
    failed, counted as MASK: fail closed), or because no indicator was there at all."""
    votes = decided.get("votes", {})
    n = decided.get("n", len(votes))
    if n == 0:
        return True
    failed = [v for v in votes.values() if v.get("reason") in FAIL_REASONS]
    if not failed:
        return False
    ok_mask = sum(1 for v in votes.values() if v.get("vote") and v.get("reason") not in FAIL_REASONS)
    rule = decided.get("rule")
    if rule in COUNTING_RULES:
        return not count_rule_masks(rule, n, ok_mask, int(decided.get("k", 1)))
    return True  # mean: the failed indicators' 1.0 moved it, as far as can be told


def votes_decision(decided: Dict[str, Any]) -> bool:
    """What a decider's votes decided (its breakdown, ``decide/vote.py``), whatever a later
    component (risk_infer) set in ``Span._.mask``; a policy's ``votes_decision`` wins."""
    if "votes_decision" in decided:
        return bool(decided["votes_decision"])
    n, n_mask = int(decided.get("n", 0)), int(decided.get("n_mask", 0))
    rule = decided.get("rule")
    if n == 0:
        return True
    if rule in COUNTING_RULES:
        return count_rule_masks(rule, n, n_mask, int(decided.get("k", 1)))
    return float(decided.get("mean", 1.0)) >= float(decided.get("mean_threshold", 0.5))


def span_why(span: Span, rows: Union[SortedRanges, Sequence[Sequence[Any]]]) -> Dict[str, Any]:
    """The explanation of ``span`` given its doc's replacement rows (``Doc._.replacements``,
    offsets in the span's doc; a ``spans.SortedRanges`` of them for many spans). Keys: ``decision`` (one of ``DECISIONS``), ``detectors``,
    ``indicators`` (key -> risk, threshold, vote, reason), ``vote`` (the decider's rule and
    count, null without one), ``policy`` (what forced masking whatever the votes, or null),
    ``replacement`` (null when kept) and ``summary`` (one sentence)."""
    explain = span._.risk_explain
    risks = span._.risk
    decider_key = next((key for key, value in explain.items() if is_decider_explain(value)), None)
    decided = explain.get(decider_key, {}) if decider_key else {}
    indicators: Dict[str, Dict[str, Any]] = {}
    for key, vote in decided.get("votes", {}).items():
        indicators[key] = {k: vote[k] for k in ("risk", "threshold", "vote", "reason") if k in vote}
    for key, risk in risks.items():  # scores no decider read: shown without a vote
        if key not in indicators and key != decider_key:
            indicators[key] = {"risk": float(risk)}
    for key, entry in indicators.items():
        if entry.get("risk") is not None:
            entry["risk"] = round(float(entry["risk"]), 4)
        if isinstance(explain.get(key), dict) and explain[key].get("error"):
            entry["error"] = str(explain[key]["error"])
    vote = None
    if decider_key:
        vote = {"decider": decider_key, **{k: decided[k] for k in ("rule", "k", "n", "n_mask", "mean", "mean_threshold") if k in decided}}
        vote["decision"] = votes_decision(decided)
    policy = decided.get("reason") if "votes_decision" in decided else None
    if "protected_person" in decided:  # its reason quotes the name parts: original text
        policy = "shares a name part with the person to protect (Doc._.protect): masked whatever the votes"
    row = (rows if isinstance(rows, SortedRanges) else SortedRanges(rows)).covering(span.start_char, span.end_char)
    failed = _failure_decided(decided) if decider_key else False
    kept_low = confidence_explain(explain)
    if row is None:
        decision = "kept"
        if kept_low is not None:
            summary = (f"kept in clear: its confidence {kept_low['confidence']} is below min_confidence "
                       f"{kept_low['min_confidence']} (decide_confidence)")
        else:
            summary = "kept in clear: " + (f"the {decider_key} decision is not to mask" if decider_key else "not masked")
    elif span._.mask is None:
        decision = "masked"
        summary = "masked: no decider in the pipeline, so every detected span is masked (safe default)"
    elif failed and not policy:
        decision = "failed_closed"
        reasons = sorted({f"{key}: {entry['reason']}" for key, entry in indicators.items() if entry.get("reason")}) or ["no risk indicator"]
        summary = "masked because an indicator could not decide (fail closed; " + ", ".join(reasons) + ")"
    elif span._.mask is False:
        decision = "masked"
        summary = f"masked although the decision kept it: another mention of entity {span._.entity_id} or a propagated string is masked"
    elif vote is not None and not vote["decision"] and not policy:
        added_by = [key for key, value in explain.items() if isinstance(value, dict) and value.get("removed_by_search")]
        decision = "masked"
        summary = "masked after the decision kept it" + (f", by {added_by[0]}: an attacker would still infer it" if added_by else "")
    else:
        decision = "masked"
        summary = "masked: " + ("forced by the policy below" if policy else f"the {decider_key} decision" if decider_key else "detected")
    return {
        "decision": decision,
        "detectors": detectors(explain),
        "indicators": indicators,
        "vote": vote,
        "policy": policy,
        "replacement": None if row is None else row[4],
        "summary": summary,
    }


def added_why(row: Sequence[Any], source: Optional[str] = None) -> Dict[str, Any]:
    """The explanation of a replaced region no detected span covers; ``source``: the masking
    plan's region source when known (``deny``, ``propagated``, ``entity``)."""
    summary = {
        "deny": "masked by the deny list (deny_list)",
        "propagated": "masked because the same string is masked elsewhere (propagation)",
        "entity": "masked as a mention of a masked entity",
    }.get(source or "", "masked by the masker, not a detected span: propagation of a masked string or the deny list")
    return {
        "decision": "added",
        "detectors": ["masker:" + (source or "propagated/deny")],
        "indicators": {},
        "vote": None,
        "policy": summary,
        "replacement": row[4],
        "summary": summary,
    }


def uncovered_rows(rows: Sequence[Sequence[Any]], spans: Iterable[Tuple[int, int]]) -> List[Sequence[Any]]:
    """The replacement rows that overlap no span ``(start, end)`` (the spans do not overlap
    each other: the longest-span rule)."""
    detected = SortedRanges([tuple(span) for span in spans])
    return [row for row in rows if detected.covering(row[0], row[1]) is None]


_ERROR_CODE = re.compile(r"^\[[EW]\d+\]")


def without_errors(why: Dict[str, Any], note: str = "details left out (--no-original)") -> Dict[str, Any]:
    """A why without the original text (the --no-original page, a record built without it): an
    indicator's error message may quote the text (an exception's), so only its code is kept."""
    if not any("error" in entry for entry in why.get("indicators", {}).values()):
        return why
    indicators = {}
    for key, entry in why["indicators"].items():
        if "error" in entry:
            code = _ERROR_CODE.match(entry["error"])
            entry = {**entry, "error": (code.group(0) + " " if code else "") + note}
        indicators[key] = entry
    return {**why, "indicators": indicators}
