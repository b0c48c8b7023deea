"""The privacy report against brute-force log-ratios of seed 002's mechanism on small
vocabularies, including the real surrogate strategy's empirical policy."""
import math
from collections import Counter

import pytest

from spacy_sanitize.masker.privacy import (
    INF,
    as_json_number,
    brute_force_epsilon,
    epsilon_for,
    epsilon_independent,
    epsilon_value,
    randomized_response,
)
from spacy_sanitize.masker.strategies import DocState, Mention, Policy
from spacy_sanitize.masker.strategies.surrogate import make_surrogate

VOCAB = ["oslo", "paris", "rome", "lima"]
MARKER = "***"


def uniform(vocab):
    return lambda original: {t: 1 / len(vocab) for t in vocab}


@pytest.mark.parametrize("p", [1.0, 0.99, 0.9, 0.5, 0.1])
@pytest.mark.parametrize(
    "name,policy,pi",
    [
        ("redact", Policy("marker"), lambda o: {MARKER: 1.0}),
        ("typed", Policy("marker"), lambda o: {"[LOC]": 1.0}),
        ("named placeholder", Policy("exemplar"), lambda o: {"london": 1.0}),
        ("word-by-word uniform", Policy("distribution", len(VOCAB)), uniform(VOCAB)),
    ],
)
def test_closed_form_matches_brute_force(name, policy, pi, p):
    vocab = VOCAB + (["london"] if name == "named placeholder" else [])
    brute = brute_force_epsilon(randomized_response(p, pi), vocab)
    support = len(vocab) if policy.kind == "distribution" else None
    closed = epsilon_for(policy, p, support)
    assert closed == pytest.approx(brute) if math.isfinite(brute) else closed == INF


@pytest.mark.parametrize("p", [1.0, 0.8, 0.3])
def test_lemma_for_non_uniform_pi(p):
    pi = {"oslo": 0.1, "paris": 0.2, "rome": 0.3, "lima": 0.4}
    brute = brute_force_epsilon(randomized_response(p, lambda o: pi), VOCAB)
    assert epsilon_independent(p, pi, VOCAB) == pytest.approx(brute)
    if p < 1:
        assert brute == pytest.approx(math.log(1 + (1 - p) / (p * 0.1)))


def test_partial_support_is_unbounded():
    pi = {"oslo": 0.5, "paris": 0.5}
    assert brute_force_epsilon(randomized_response(0.9, lambda o: pi), VOCAB) == INF
    assert epsilon_independent(0.9, pi, VOCAB) == INF
    assert epsilon_independent(1.0, pi, VOCAB) == 0.0


def test_deterministic_generalization_is_unbounded_across_classes():
    classes = {"oslo": "europe", "paris": "europe", "lima": "americas"}
    mech = randomized_response(1.0, lambda o: {classes[o]: 1.0})
    assert brute_force_epsilon(mech, ["oslo", "paris"]) == 0.0  # same class
    assert brute_force_epsilon(mech, list(classes)) == INF
    assert epsilon_for(Policy("deterministic"), 1.0) == INF


def test_surrogate_policy_is_uniform_over_secrets():
    """Over random secrets, the real surrogate strategy draws the same distribution for
    any original (pi(t | t') = pi(t)): the empirical log-ratio stays near 0 at p = 1."""
    strategy = make_surrogate()
    state = DocState("doc", "")
    originals = ["Oslo", "Lima"]
    counts = {o: Counter() for o in originals}
    trials = 3000
    for i in range(trials):
        strategy.set_secret(f"secret-{i}")
        strategy.begin_doc(state)
        for original in originals:
            counts[original][strategy.replace(Mention(original, "LOC", "e", original), state)] += 1
    support = strategy.policy("LOC").support
    for original in originals:
        assert len(counts[original]) >= support * 0.9
    # every output appears under both originals with similar frequency
    shared = set(counts["Oslo"]) & set(counts["Lima"])
    assert len(shared) >= support * 0.8
    expected = trials / support
    assert max(abs(counts["Oslo"][t] - expected) for t in shared) < 5 * math.sqrt(expected) + 5


def test_json_numbers():
    assert as_json_number(INF) == "inf" and epsilon_value("inf") == INF
    assert as_json_number(0.25) == 0.25 and epsilon_value(0.25) == 0.25


@pytest.mark.parametrize("p", [0, -0.1, 1.5])
def test_bad_p(p):
    with pytest.raises(ValueError, match="E109"):
        epsilon_for(Policy("marker"), p)


def empirical_mechanism(strategy, label, originals, trials=400):
    """The real strategy's output distribution per original over random secrets (p = 1)."""
    state = DocState("doc", "")
    counts = {o: Counter() for o in originals}
    for i in range(trials):
        strategy.set_secret(f"secret-{i}")
        strategy.begin_doc(state)
        for original in originals:
            counts[original][strategy.replace(Mention(original, label, "e", original), state)] += 1
    return lambda original: {t: n / trials for t, n in counts[original].items()}


@pytest.mark.parametrize(
    "label,originals",
    [
        ("CODE", ["AB-1234", "5512 0099"]),  # the format is kept: disjoint outputs
        ("PERSON", ["Dr. Anna Berg", "A. Berg"]),  # the shape is kept (title, initial)
    ],
)
def test_the_report_gives_the_brute_force_epsilon_of_the_real_surrogate(label, originals):
    """The report said epsilon = 0 for surrogate CODE and PERSON at p = 1, where the
    brute-force log-ratio of the strategy's own outputs is infinite."""
    strategy = make_surrogate()
    brute = brute_force_epsilon(empirical_mechanism(strategy, label, originals), originals)
    assert brute == INF
    policy = strategy.policy(label)
    assert epsilon_for(policy, 1.0, strategy.support_for(label, originals[0])) == brute
    # within one class the draw itself is near uniform: finite, 0 at p = 1
    assert epsilon_for(policy, 1.0, strategy.support_for(label, originals[0]), same_class=True) == 0.0


def test_kept_spans_are_counted_and_make_epsilon_infinite():
    """With a decider that keeps spans (risk_vote, risk_seq, risk_perturb) the report said
    "assumed p=1: every detected span was masked" and epsilon = 0."""
    import spacy

    nlp = spacy.blank("en")
    masker = nlp.add_pipe("masker", config={"strategy": {"@strategies": "spacy_sanitize.typed.v1"}})
    doc = nlp.make_doc("Anna Berg met Bob Ray in Oslo.")
    spans = [doc.char_span(0, 9, "PERSON"), doc.char_span(14, 21, "PERSON"), doc.char_span(25, 29, "LOC")]
    doc.spans["pii"] = spans
    for span, decision in zip(spans, [True, False, None]):
        span._.mask = decision
    report = masker(doc)._.privacy
    assert "Bob Ray" in doc._.sanitized
    assert report["kept"] == {"PERSON": 1}
    assert report["labels"]["PERSON"]["kept"] == 1 and report["labels"]["PERSON"]["epsilon"] == "inf"
    assert report["epsilon"] == "inf" and report["p"] == pytest.approx(13 / 20)
    assert "every detected span was masked" not in report["p_source"] and "left in clear" in report["p_source"]
    # a type whose every span was kept is reported too
    doc = nlp.make_doc("Bob Ray left.")
    doc.spans["pii"] = [doc.char_span(0, 7, "PERSON")]
    doc.spans["pii"][0]._.mask = False
    report = masker(doc)._.privacy
    assert report["labels"]["PERSON"] == {"strategy": None, "policy": "kept", "epsilon": "inf", "note": report["labels"]["PERSON"]["note"], "kept": 1}


def test_a_report_without_kept_spans_still_assumes_p_1():
    import spacy

    nlp = spacy.blank("en")
    masker = nlp.add_pipe("masker")
    doc = nlp.make_doc("Anna Berg left.")
    doc.spans["pii"] = [doc.char_span(0, 9, "PERSON")]
    report = masker(doc)._.privacy
    assert report["p"] == 1.0 and "assumed" in report["p_source"] and report["epsilon"] == 0.0 and report["kept"] == {}
