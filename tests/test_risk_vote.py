import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc

from spacy_sanitize.decide.vote import vote_summary


def _doc(nlp, risks, label="LOC", explains=None) -> Doc:
    """One span 'Anna' with the given ``Span._.risk`` (and ``risk_explain``)."""
    doc = nlp.make_doc("Anna lives here")
    span = doc.char_span(0, 4, label=label)
    doc.spans["pii"] = [span]
    for key, value in risks.items():
        span._.risk[key] = value
    for key, value in (explains or {}).items():
        span._.risk_explain[key] = value
    return doc


def _vote(config, risks, label="LOC", explains=None):
    nlp = spacy.blank("en")
    vote = nlp.add_pipe("risk_vote", config=config)
    doc = vote(_doc(nlp, risks, label, explains))
    span = doc.spans["pii"][0]
    return span._.mask, span._.risk_explain["vote"]


THREE = {"seq": 0.9, "web": 0.2, "llm_prob": 0.7}  # two of three vote MASK at 0.5


@pytest.mark.parametrize(
    "config,expected",
    [
        ({"rule": "k", "k": 1}, True),
        ({"rule": "k", "k": 2}, True),
        ({"rule": "k", "k": 3}, False),
        ({"rule": "any"}, True),
        ({"rule": "all"}, False),
        ({"rule": "majority"}, True),
        ({"rule": "mean", "mean_threshold": 0.6}, True),  # mean = 0.6
        ({"rule": "mean", "mean_threshold": 0.61}, False),
        ({"rule": "k", "k": 3, "thresholds": {"web": 0.2}}, True),  # web now votes MASK
        ({"rule": "all", "default_threshold": 0.95}, False),
        ({"rule": "k", "k": 1, "default_threshold": 0.95}, False),
        ({"rule": "all", "indicators": ["seq", "llm_prob"]}, True),  # web not consulted
    ],
)
def test_rules(config, expected):
    mask, explain = _vote(config, THREE)
    assert mask is expected
    assert explain["rule"] == config["rule"]
    assert set(explain["votes"]) == set(config.get("indicators") or THREE)


def test_vote_breakdown_is_explained():
    mask, explain = _vote({"rule": "k", "k": 2}, THREE)
    assert mask is True
    assert explain["n"] == 3 and explain["n_mask"] == 2 and explain["k"] == 2
    assert explain["votes"]["web"] == {"risk": 0.2, "threshold": 0.5, "vote": False}
    assert explain["votes"]["seq"]["vote"] is True


def test_missing_indicator_votes_mask_unless_ignored():
    config = {"rule": "all", "indicators": ["seq", "web"]}
    mask, explain = _vote(config, {"seq": 0.9})
    assert mask is True
    assert explain["votes"]["web"] == {
        "risk": None,
        "threshold": 0.5,
        "vote": True,
        "reason": "missing",
    }
    # ignoring it: only seq counts
    mask, explain = _vote({**config, "rule": "all", "missing": "ignore"}, {"seq": 0.1})
    assert mask is False and explain["n"] == 1
    # a missing indicator does push a k-of-n vote over the line
    mask, _ = _vote({"rule": "k", "k": 2, "indicators": ["seq", "web"]}, {"seq": 0.9})
    assert mask is True


def test_failed_indicator_votes_mask_whatever_its_score():
    explains = {"web": {"error": "E803: timeout", "fail_closed": True}}
    mask, explain = _vote(
        {"rule": "all", "default_threshold": 1.0}, {"seq": 1.0, "web": 1.0}, explains=explains
    )
    assert mask is True
    assert explain["votes"]["web"]["reason"] == "fail_closed"
    # without the error flag, risk 0.3 would not vote at threshold 0.5
    mask, _ = _vote(
        {"rule": "all"},
        {"seq": 0.9, "web": 0.3},
        explains={"web": {"error": "x", "fail_closed": True}},
    )
    assert mask is True
    mask, _ = _vote({"rule": "all"}, {"seq": 0.9, "web": 0.3})
    assert mask is False


def test_no_indicator_at_all_fails_closed():
    mask, explain = _vote({"rule": "all"}, {})
    assert mask is True
    assert explain["n"] == 0 and "fail closed" in explain["reason"]
    mask, explain = _vote({"rule": "all", "indicators": ["seq"], "missing": "ignore"}, {})
    assert mask is True and "fail closed" in explain["reason"]


@pytest.mark.parametrize(
    "label,types,expected",
    [("CODE", ["CODE"], True), ("PERSON", ["CODE"], False), ("PERSON", ["CODE", "PERSON"], True)],
)
def test_types_always_mask(label, types, expected):
    mask, explain = _vote({"rule": "any", "types_always_mask": types}, {"seq": 0.0}, label=label)
    assert mask is expected
    assert ("reason" in explain) is expected


def test_k_larger_than_available_needs_all_of_them():
    mask, explain = _vote({"rule": "k", "k": 5}, {"seq": 0.9, "web": 0.9})
    assert mask is True and explain["k"] == 2
    mask, _ = _vote({"rule": "k", "k": 5}, {"seq": 0.9, "web": 0.1})
    assert mask is False


def test_own_key_is_not_an_indicator():
    mask, explain = _vote({"rule": "all"}, {"seq": 0.1, "vote": 1.0})
    assert mask is False and set(explain["votes"]) == {"seq"}


@pytest.mark.parametrize(
    "config,code",
    [
        ({"rule": "two"}, "E700"),
        ({"missing": "keep"}, "E701"),
        ({"k": 0}, "E702"),
        ({"default_threshold": 1.5}, "E702"),
        ({"thresholds": {"seq": -0.1}}, "E702"),
    ],
)
def test_bad_settings_are_coded_errors(config, code):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match=code):
        nlp.add_pipe("risk_vote", config=config)


def test_must_run_after_the_risk_components():
    @Language.component("risk_dummy_late")
    def late(doc):
        return doc

    nlp = spacy.blank("en")
    nlp.add_pipe("risk_vote")
    nlp.add_pipe("risk_dummy_late")
    with pytest.raises(ValueError, match="E703"):
        nlp("Anna lives here")
    nlp.remove_pipe("risk_dummy_late")
    nlp.add_pipe("risk_dummy_late", before="risk_vote")
    nlp("Anna lives here")


def test_risk_seq_leaves_the_decision_to_vote_and_masker_follows_it():
    """risk_seq only scores; risk_vote decides and the masker follows it."""
    import numpy as np

    nlp = spacy.blank("en")
    seq = nlp.add_pipe("risk_seq", config={"tagger": {"@misc": "spacy_sanitize.seq_cnn.v1"}})
    nlp.add_pipe("risk_vote", config={"indicators": ["seq"], "thresholds": {"seq": 0.95}})
    masker = nlp.add_pipe("masker")
    doc = nlp.make_doc("Anna Lee lives in Oslo")
    doc.spans["pii"] = [doc[0:2], doc.char_span(18, 22, label="LOC")]
    seq.set_annotations([doc], [np.array([0.9, 0.9, 0.1, 0.1, 0.99])])
    assert [s._.mask for s in doc.spans["pii"]] == [None, None]
    doc = masker(nlp.get_pipe("risk_vote")(doc))
    assert [s._.mask for s in doc.spans["pii"]] == [False, True]
    assert doc._.sanitized.startswith("Anna Lee lives in ") and "Oslo" not in doc._.sanitized
    summary = vote_summary([doc])
    assert summary == {"spans": 2, "masked": 1, "mask_votes": {"seq": {"mask": 1, "n": 2}}}


def test_vote_survives_docbin_and_serialization(tmp_path):
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    nlp.add_pipe("risk_vote", config={"rule": "k", "k": 2})
    doc = nlp.get_pipe("risk_vote")(_doc(nlp, THREE))
    restored = next(iter(DocBin(docs=[doc], store_user_data=True).get_docs(nlp.vocab)))
    span = restored.spans["pii"][0]
    assert span._.risk_explain["vote"]["n_mask"] == 2
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.get_pipe("risk_vote").k == 2


def test_shipped_vote_config_runs_offline():
    from spacy_sanitize import load_pipeline
    from spacy_sanitize.risk.seq import shipped_weights

    if not (shipped_weights() / "backend.json").exists():
        pytest.skip("no shipped tagger; build it with `spacy project run build-seq`")
    nlp = load_pipeline("vote")
    assert nlp.pipe_names[-3:] == ["risk_seq", "risk_vote", "masker"]
    doc = nlp("Angela Merkel was born in Hamburg in 1954. Her passport number is X1234567.")
    spans = list(doc.spans["pii"])
    assert any(s.label_ == "CODE" for s in spans)
    for span in spans:
        expected = span.label_ == "CODE" or span._.risk["seq"] >= 0.1
        assert span._.mask is expected
        assert span._.risk_explain["vote"]["votes"]["seq"]["threshold"] == 0.1
    assert "X1234567" not in doc._.sanitized and "Angela Merkel" not in doc._.sanitized


@pytest.mark.parametrize("factory", ["risk_vote", "risk_threshold"])
@pytest.mark.parametrize(
    "config,label,expected",
    [
        # Old code: only CODE was kept masked by default, so an indicator un-masked names.
        ({}, "PERSON", True),
        ({}, "CODE", True),
        ({}, "LOC", False),
        ({"protect": []}, "PERSON", False),  # the user opted out
        ({"protect": []}, "CODE", False),
        ({"protect": ["LOC"]}, "PERSON", False),  # the user's list, not the default
        ({"protect": ["LOC"]}, "LOC", True),
        ({"types_always_mask": ["CODE"]}, "PERSON", False),  # an older config keeps its meaning
        ({"types_always_mask": ["CODE"], "protect": ["PERSON"]}, "PERSON", True),  # both lists count
        ({"types_always_mask": ["CODE"], "protect": ["PERSON"]}, "CODE", True),
    ],
)
def test_protect_keeps_direct_identifiers_masked_by_default(factory, config, label, expected):
    nlp = spacy.blank("en")
    settings = {"indicator": "seq", "threshold": 0.5} if factory == "risk_threshold" else {}
    decider = nlp.add_pipe(factory, config={**settings, **config})
    doc = decider(_doc(nlp, {"seq": 0.01}, label=label))
    span = doc.spans["pii"][0]
    assert span._.mask is expected
    explain = span._.risk_explain[decider.key]
    assert explain["votes"]["seq"]["vote"] is False  # the indicator alone would not mask
    if expected:
        assert explain["votes_decision"] is False and "protect" in explain["reason"]
    else:
        assert "votes_decision" not in explain


def test_protect_survives_a_saved_pipeline(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_vote", config={"protect": []})
    nlp.to_disk(tmp_path / "pipe")
    loaded = spacy.load(tmp_path / "pipe")
    doc = loaded.get_pipe("risk_vote")(_doc(loaded, {"seq": 0.01}, label="PERSON"))
    assert doc.spans["pii"][0]._.mask is False
