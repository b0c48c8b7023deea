"""The decide stage: risk_threshold (one indicator), the order checks shared with risk_vote,
and the masker's check that every indicator's score reaches a decider (W700)."""
import warnings

import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc, Span

import spacy_sanitize  # noqa: F401 - registers the factories
from spacy_sanitize.decide.check import undecided_indicators
from spacy_sanitize.risk.base import failure, risk_key, write_risk

from .test_risk_infer import hand_attacker

TEXT = "Anna met Bob in Oslo"
RISKS = {"Anna": 0.9, "Bob": 0.3, "Oslo": 0.6}


class Capitalized:
    """A tiny detector: every capitalized token is a LOC span (a label the deciders do not
    protect by default, so the indicators decide)."""

    def __call__(self, doc: Doc) -> Doc:
        doc.spans["pii"] = [Span(doc, i, i + 1, label="LOC") for i, t in enumerate(doc) if t.text[0].isupper()]
        return doc


class FixedIndicator:
    """A risk indicator that scores each span from a table (``scale`` times it)."""

    def __init__(self, name: str, scale: float, decision_threshold) -> None:
        self.key = risk_key(name)
        self.scale = scale
        if decision_threshold is not None:
            self.decision_threshold = decision_threshold

    def __call__(self, doc: Doc) -> Doc:
        for span in doc.spans["pii"]:
            write_risk(span, self.key, RISKS[span.text] * self.scale, {"table": True})
        return doc


@Language.factory("test_capitalized")
def make_capitalized(nlp: Language, name: str) -> Capitalized:
    return Capitalized()


@Language.factory("risk_test_fixed", default_config={"scale": 1.0, "decision_threshold": None})
def make_fixed(nlp: Language, name: str, scale: float, decision_threshold) -> FixedIndicator:
    return FixedIndicator(name, scale, decision_threshold)


def pipeline(*pipes, **configs) -> Language:
    """``pipes``: (factory, name) pairs or factory names, in order; ``configs[name]``."""
    nlp = spacy.blank("en")
    nlp.add_pipe("test_capitalized")
    for pipe in pipes:
        factory, name = pipe if isinstance(pipe, tuple) else (pipe, pipe)
        nlp.add_pipe(factory, name=name, config=configs.get(name, {}))
    return nlp


def masks(doc: Doc) -> dict:
    return {s.text: s._.mask for s in doc.spans["pii"]}


# --- the bug: a second indicator silently disabled every decision ----------------------


def test_two_indicators_without_a_decider_warn_once_and_mask_everything():
    """Old code: each indicator saw the other and left Span._.mask alone, nothing decided,
    the masker masked every span and nobody was told."""
    nlp = pipeline(("risk_test_fixed", "risk_a"), ("risk_test_fixed", "risk_b"), "masker")
    with pytest.warns(UserWarning, match=r"W700.*risk_a.*risk_b.*risk_threshold.*risk_vote"):
        doc = nlp(TEXT)
    assert set(masks(doc).values()) == {None}
    assert doc._.sanitized == "[LOC] met [LOC] in [LOC]"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nlp(TEXT)  # checked once, not on every document


def test_one_indicator_without_a_decider_warns_too():
    nlp = pipeline(("risk_test_fixed", "risk_a"), "masker")
    with pytest.warns(UserWarning, match="W700"):
        nlp(TEXT)


def test_two_indicators_and_risk_vote_decide():
    nlp = pipeline(
        ("risk_test_fixed", "risk_a"), ("risk_test_fixed", "risk_b"), "risk_vote", "masker",
        risk_b={"scale": 0.5}, risk_vote={"rule": "k", "k": 2},
    )
    doc = nlp(TEXT)  # warnings are errors: no W700
    # a: 0.9 0.3 0.6, b: 0.45 0.15 0.3 -> only Anna has a MASK vote... from a alone
    assert masks(doc) == {"Anna": False, "Bob": False, "Oslo": False}
    nlp.get_pipe("risk_vote").k = 1
    assert masks(nlp(TEXT)) == {"Anna": True, "Bob": False, "Oslo": True}


def test_a_threshold_decider_that_reads_only_one_of_two_indicators_warns_about_the_other():
    nlp = pipeline(
        ("risk_test_fixed", "risk_a"), ("risk_test_fixed", "risk_b"), "risk_threshold", "masker",
        risk_threshold={"indicator": "a"},
    )
    assert undecided_indicators(nlp, "masker") == ["risk_b"]
    with pytest.warns(UserWarning, match=r"W700.*\['risk_b'\]"):
        doc = nlp(TEXT)
    assert masks(doc) == {"Anna": True, "Bob": False, "Oslo": True}


def test_risk_vote_limited_to_other_indicators_leaves_one_undecided():
    nlp = pipeline(
        ("risk_test_fixed", "risk_a"), ("risk_test_fixed", "risk_b"), "risk_vote", "masker",
        risk_vote={"indicators": ["a"]},
    )
    assert undecided_indicators(nlp, "masker") == ["risk_b"]
    assert undecided_indicators(pipeline(("risk_test_fixed", "risk_a"), "risk_vote")) == []


# --- risk_threshold ------------------------------------------------------------------------


@pytest.mark.parametrize("risk", [0.0, 0.099, 0.1, 0.1000001, 0.5, 1.0])
@pytest.mark.parametrize("threshold", [0.1, 0.5])
def test_one_indicator_with_risk_threshold_decides_like_the_old_self_decision(risk, threshold):
    """The old single-indicator rule was ``mask = risk >= threshold`` (risk_seq, risk_web,
    risk_llm_prob; risk_perturb's risk >= 0.5). risk_threshold and a k=1 risk_vote agree."""
    nlp = spacy.blank("en")
    decide = nlp.add_pipe("risk_threshold", config={"indicator": "seq", "threshold": threshold})
    vote = nlp.add_pipe("risk_vote", config={"indicators": ["seq"], "thresholds": {"seq": threshold}})
    doc = nlp.make_doc("Anna lives here")
    doc.spans["pii"] = [doc.char_span(0, 4, label="LOC")]
    span = doc.spans["pii"][0]
    span._.risk["seq"] = risk
    assert decide(doc).spans["pii"][0]._.mask is (risk >= threshold)
    explain = span._.risk_explain["threshold"]
    assert explain["votes"] == {"seq": {"risk": risk, "threshold": threshold, "vote": risk >= threshold}}
    assert explain["n"] == 1 and explain["k"] == 1
    assert vote(doc).spans["pii"][0]._.mask is (risk >= threshold)


@pytest.mark.parametrize(
    "label,risks,explains,reason",
    [
        ("PERSON", {"seq": 0.0}, {"seq": failure("RuntimeError: boom")}, "fail_closed"),
        ("PERSON", {}, {}, "missing"),
        ("PERSON", {"web": 0.0}, {}, "missing"),  # another indicator's score does not count
        ("CODE", {"seq": 0.0}, {}, None),
    ],
)
def test_risk_threshold_fails_closed(label, risks, explains, reason):
    nlp = spacy.blank("en")
    decide = nlp.add_pipe("risk_threshold", config={"indicator": "seq", "threshold": 0.5})
    doc = nlp.make_doc("Anna lives here")
    doc.spans["pii"] = [doc.char_span(0, 4, label=label)]
    span = doc.spans["pii"][0]
    for key, value in risks.items():
        span._.risk[key] = value
    for key, value in explains.items():
        span._.risk_explain[key] = value
    decide(doc)
    assert span._.mask is True
    explain = span._.risk_explain["threshold"]
    if reason:
        assert explain["votes"]["seq"]["reason"] == reason
    else:
        assert "types_always_mask" in explain["reason"]


def test_risk_threshold_null_uses_the_indicators_threshold_and_an_explicit_one_wins():
    nlp = pipeline(
        ("risk_test_fixed", "risk_a"), "risk_threshold", risk_a={"decision_threshold": 0.65},
        risk_threshold={"indicator": "a"},
    )
    assert masks(nlp(TEXT)) == {"Anna": True, "Bob": False, "Oslo": False}
    doc = nlp(TEXT)
    assert doc.spans["pii"][0]._.risk_explain["threshold"]["votes"]["a"]["threshold"] == 0.65
    nlp.get_pipe("risk_a").decision_threshold = 0.55  # a refit moves the decision with it
    assert masks(nlp(TEXT))["Oslo"] is True
    explicit = pipeline(
        ("risk_test_fixed", "risk_a"), "risk_threshold", risk_a={"decision_threshold": 0.65},
        risk_threshold={"indicator": "a", "threshold": 0.2},
    )
    assert masks(explicit(TEXT)) == {"Anna": True, "Bob": True, "Oslo": True}
    without = pipeline(("risk_test_fixed", "risk_a"), "risk_threshold", risk_threshold={"indicator": "a"})
    assert masks(without(TEXT)) == {"Anna": True, "Bob": False, "Oslo": True}  # 0.5


@pytest.mark.parametrize(
    "config,code",
    [
        ({"indicator": "seq", "missing": "ignore"}, "E705"),
        ({"indicator": "seq", "threshold": 1.5}, "E702"),
        ({"indicator": ""}, "E702"),
    ],
)
def test_risk_threshold_bad_settings_are_coded_errors(config, code):
    with pytest.raises(ValueError, match=code):
        spacy.blank("en").add_pipe("risk_threshold", config=config)


def test_risk_threshold_needs_an_indicator():
    with pytest.raises(Exception, match="indicator"):
        spacy.blank("en").add_pipe("risk_threshold")


def test_risk_threshold_before_its_indicator_raises():
    nlp = pipeline("risk_threshold", ("risk_test_fixed", "risk_a"), risk_threshold={"indicator": "a"})
    with pytest.raises(ValueError, match=r"\[E703\] risk_threshold"):
        nlp(TEXT)


def test_risk_threshold_round_trips(tmp_path):
    nlp = pipeline(("risk_test_fixed", "risk_a"), "risk_threshold", risk_threshold={"indicator": "a", "threshold": 0.2})
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.get_pipe("risk_threshold").threshold == 0.2
    assert masks(loaded(TEXT)) == masks(nlp(TEXT))


# --- risk_infer adds masking after the decision ---------------------------------------------


@pytest.mark.parametrize("decider,config", [("risk_vote", {}), ("risk_threshold", {"indicator": "a"})])
def test_a_decider_before_risk_infer_is_the_documented_order(decider, config):
    """Old code: risk_vote counted risk_infer as an indicator it ran before (E703), though
    docs/risk_infer.md places risk_infer after the decision."""
    nlp = pipeline(("risk_test_fixed", "risk_a"), decider, "risk_infer", "masker", **{decider: config, "risk_infer": {"threshold": 0.6, "search": "exact"}})
    nlp.get_pipe("risk_infer").attacker = hand_attacker()
    doc = nlp("Anna met Bob in Oslo and i love kyoto gyoen")
    assert masks(doc)["Bob"] is False  # decided by the decider, left alone by risk_infer
    assert "[MISC]" in doc._.sanitized and "kyoto" not in doc._.sanitized  # risk_infer's own masking


def test_a_decider_after_risk_infer_raises():
    nlp = pipeline("risk_infer", "risk_vote")
    doc = nlp.make_doc(TEXT)
    with pytest.raises(ValueError, match="E704"):
        nlp.get_pipe("risk_vote")(doc)


def test_the_deciders_have_decider_names_and_their_earlier_names_still_load():
    """The decide stage's factories are decide_threshold and decide_vote; risk_threshold and
    risk_vote (named like the indicators) load the same components, deciders both."""
    from spacy_sanitize.pipeline import is_risk_stage, load_pipeline
    from spacy_sanitize.risk.base import is_decider, is_indicator

    nlp = spacy.blank("en")
    for new, old, config in (("decide_threshold", "risk_threshold", {"indicator": "x"}), ("decide_vote", "risk_vote", {})):
        a = nlp.add_pipe(new, name=f"{new}_a", config=config)
        b = nlp.add_pipe(old, name=f"{new}_b", config=config)
        assert type(a) is type(b)
        assert all(is_decider(nlp, n) and not is_indicator(nlp, n) for n in (f"{new}_a", f"{new}_b"))
        assert is_risk_stage(new) and is_risk_stage(old)
    default = load_pipeline("default")
    assert default.get_pipe_meta("risk_threshold").factory == "decide_threshold"
