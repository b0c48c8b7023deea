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
