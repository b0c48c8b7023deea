"""risk_perturb on a tiny random-weight BERT (no downloads)."""

import math
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc, Span

import spacy_sanitize  # noqa: F401 - registers the factories
from spacy_sanitize.corpus.tab import Mention, TabDocument
from spacy_sanitize.evaluation import Tokens, tab_scores
from spacy_sanitize.errors import Errors
from spacy_sanitize.risk.perturb import (
    compute_influences,
    entity_keys,
    fit_threshold,
    plan_queries,
    predictions_at,
    squash,
)

from .lm_fixtures import build_tiny_bert, direct_logprobs

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

TEXTS = [
    "john smith was born in paris in 1988 . smith studied law at the university of oslo .",
    "mary jones played football for the club in london . jones married john in march 1988 .",
]
# (start word, end word, label, entity id) per doc
SPANS = [
    [
        (0, 2, "PERSON", "e1"),
        (5, 6, "LOC", "e2"),
        (7, 8, "DATETIME", "e3"),
        (9, 10, "PERSON", "e1"),
        (15, 16, "LOC", "e4"),
    ],
    [
        (0, 2, "PERSON", "m1"),
        (8, 9, "LOC", "m2"),
        (10, 11, "PERSON", "m1"),
        (12, 13, "PERSON", "m3"),
        (14, 16, "DATETIME", "m4"),
    ],
]


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny_bert_perturb"), seed=1)


def scorer_cfg(model, batch_size=4):
    return {
        "@misc": "spacy_sanitize.lm.hf.v1",
        "model": model,
        "window": 128,
        "batch_size": batch_size,
    }


def make_docs(nlp):
    docs = []
    for i, (text, spans) in enumerate(zip(TEXTS, SPANS)):
        doc = nlp.make_doc(text)
        group = []
        for start, end, label, entity in spans:
            span = doc[start:end]
            span.label_ = label
            group.append(span)
        doc.spans["pii"] = group
        for span, (_, _, _, entity) in zip(doc.spans["pii"], spans):
            span._.entity_id = entity
        doc._.doc_id = f"doc{i}"
        docs.append(doc)
    return docs


def make_nlp(model, **config):
    nlp = spacy.blank("en")
    comp = nlp.add_pipe("risk_perturb", config={"scorer": scorer_cfg(model), **config})
    return nlp, comp


def decide(nlp, doc):
    """Span._.mask from risk_threshold at risk_perturb's own threshold (0.5 on its risk)."""
    if "risk_threshold" not in nlp.pipe_names:
        nlp.add_pipe("risk_threshold", config={"indicator": "perturb"})
    return nlp.get_pipe("risk_threshold")(doc)


def direct_logprob(model_dir, text, target, hidden):
    """Unbatched reference: one forward pass for one variant, no padding, no scorer code."""
    return float(sum(direct_logprobs(model_dir, text, target, hidden)))


def mentions_of(doc, entity):
    return [(s.start_char, s.end_char) for s in doc.spans["pii"] if s._.entity_id == entity]


def test_batched_influences_equal_direct_computation(tiny_bert):
    nlp, comp = make_nlp(tiny_bert)
    docs = make_docs(nlp)
    infos = comp.influences(docs)  # one scorer call for both documents
    n_variants = sum(len(info.base) + len(info.perturbed) for info in infos)
    assert n_variants == 2 * 5 * (1 + 3)  # per doc: 5 targets x (nothing + 3 other entities hidden)
    # rows are batched: far fewer forward passes than variants
    assert 0 < comp.scorer.stats["forward_passes"] < n_variants / 2
    checked = 0
    for doc, info in zip(docs, infos):
        spans = list(doc.spans["pii"])
        for t in info.targets:
            target = spans[t]
            own = target._.entity_id
            coref = [r for r in mentions_of(doc, own) if r != (target.start_char, target.end_char)]
            base = direct_logprob(tiny_bert, doc.text, (target.start_char, target.end_char), coref)
            assert info.base[t] == pytest.approx(base, abs=1e-4)
            for entity in {s._.entity_id for s in spans} - {own}:
                hidden = coref + mentions_of(doc, entity)
                value = direct_logprob(
                    tiny_bert, doc.text, (target.start_char, target.end_char), hidden
                )
                assert info.perturbed[(t, "id:" + entity)] == pytest.approx(value, abs=1e-4)
                assert info.delta(t, "id:" + entity) == pytest.approx(base - value, abs=2e-4)
                checked += 1
    assert checked == 30
    # the component writes the largest delta over the other entities' targets
    comp.set_annotations(docs, infos)
    span = docs[0].spans["pii"][1]  # paris
    expected = max(
        infos[0].delta(t, "id:e2") for t in infos[0].targets if infos[0].entity_of[t] != "id:e2"
    )
    assert span._.risk_explain["perturb"]["influence"] == pytest.approx(expected)
    assert span._.risk["perturb"] == pytest.approx(squash(expected, comp.threshold, comp.scale))


def test_coreferent_mentions_are_masked_together(tiny_bert):
    nlp, comp = make_nlp(tiny_bert)
    doc = make_docs(nlp)[0]
    spans = list(doc.spans["pii"])
    keys = entity_keys(spans, coref_masking=True)
    assert keys[0] == keys[3] == "id:e1"
    queries, index = plan_queries(spans, keys, [1])  # target: paris
    by_entity = dict(zip([e for _, e in index], queries))
    john, smith = (spans[0].start_char, spans[0].end_char), (spans[3].start_char, spans[3].end_char)
    assert set(by_entity["id:e1"].also_mask) == {john, smith}
    assert by_entity[None].also_mask == ()
    # a target's own co-referent mention is hidden in every variant
    queries, index = plan_queries(spans, keys, [3])  # target: smith
    assert all(john in q.also_mask for q in queries)
    # the perturbation of e1 hides both mentions: differs from hiding "john smith" only
    info = comp.influences([doc])[0]
    both = info.perturbed[(1, "id:e1")]
    only_first = direct_logprob(
        tiny_bert, doc.text, (spans[1].start_char, spans[1].end_char), [john]
    )
    assert both == pytest.approx(
        direct_logprob(
            tiny_bert, doc.text, (spans[1].start_char, spans[1].end_char), [john, smith]
        ),
        abs=1e-4,
    )
    assert abs(both - only_first) > 1e-6
    # without coreference masking every span is its own entity
    assert len(set(entity_keys(spans, coref_masking=False))) == len(spans)


def test_person_targets_and_mask_decision(tiny_bert):
    nlp, comp = make_nlp(tiny_bert, targets="person", threshold=0.0)
    doc = make_docs(nlp)[0]
    decide(nlp, comp(doc))
    spans = list(doc.spans["pii"])
    info = comp.influences([doc])[0]
    assert info.person == "id:e1" and info.targets == [0, 3]
    assert len(info.perturbed) == 2 * 3  # 2 person mentions x 3 other entities
    for span in spans:
        risk = span._.risk["perturb"]
        assert 0.0 <= risk <= 1.0
        if span._.entity_id == "e1":
            assert risk == 1.0 and span._.risk_explain["perturb"]["target"] == "person"
        else:
            assert (
                span._.mask == (span._.risk_explain["perturb"]["influence"] >= 0.0) == (risk >= 0.5)
            )


def test_fail_closed_when_the_model_is_missing(tmp_path):
    nlp, comp = make_nlp(str(tmp_path / "no_such_model"))
    doc = make_docs(nlp)[0]
    with pytest.warns(UserWarning, match=r"\[W452\].*\[E450\]"):
        comp(doc)
    decide(nlp, doc)
    for span in doc.spans["pii"]:
        assert span._.risk["perturb"] == 1.0
        assert span._.mask is True
        assert "E400" in span._.risk_explain["perturb"]["error"]


def test_fail_closed_without_other_entities(tiny_bert):
    nlp, comp = make_nlp(tiny_bert)
    doc = nlp.make_doc("john smith was born .")
    span = doc[0:2]
    span.label_ = "PERSON"
    doc.spans["pii"] = [span]
    with pytest.warns(UserWarning, match=r"\[W453\] risk_perturb could not measure the influence of 1 span"):
        comp(doc)
    span = decide(nlp, doc).spans["pii"][0]
    assert span._.risk["perturb"] == 1.0 and span._.mask is True
    assert span._.risk_explain["perturb"]["error"] == Errors.E451


def test_never_writes_mask_even_next_to_another_indicator(tiny_bert):
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_perturb", config={"scorer": scorer_cfg(tiny_bert)})
    nlp.add_pipe(
        "risk_perturb",
        name="risk_perturb2",
        config={"scorer": scorer_cfg(tiny_bert), "targets": "person"},
    )
    doc = make_docs(nlp)[1]
    for _, proc in nlp.pipeline:
        proc(doc)
    for span in doc.spans["pii"]:
        assert span._.mask is None
        assert set(span._.risk) == {"perturb", "perturb2"}


def test_serialization_round_trip(tiny_bert, tmp_path):
    # the fitted threshold is learned state and travels; scale is a setting (config.cfg)
    nlp, comp = make_nlp(tiny_bert, scale=0.5)
    comp.fitted_threshold = 0.123
    comp.meta = {"objective": "paper", "n_docs": 2}
    data = comp.to_bytes()
    _, other = make_nlp(tiny_bert)
    other.from_bytes(data)
    assert (other.threshold, other.scale, other.meta) == (0.123, 1.0, comp.meta)
    nlp.to_disk(tmp_path / "pipe")
    loaded = spacy.load(tmp_path / "pipe")
    comp2 = loaded.get_pipe("risk_perturb")
    assert (comp2.threshold, comp2.scale, comp2.meta) == (0.123, 0.5, comp.meta)
    doc_a, doc_b = make_docs(nlp)[0], make_docs(loaded)[0]
    comp(doc_a)
    comp2(doc_b)
    assert [s._.risk["perturb"] for s in doc_a.spans["pii"]] == pytest.approx(
        [s._.risk["perturb"] for s in doc_b.spans["pii"]]
    )


def test_squash_is_monotone_and_centred():
    assert squash(3.5, 3.5, 1.0) == 0.5
    values = [squash(x, 3.5, 1.0) for x in (-1000.0, -2.0, 0.0, 3.0, 4.0, 10.0)]
    assert values == sorted(values) and values[0] == 0.0 and 0.99 < values[-1] < 1.0
    assert squash(4.5, 3.5, 1.0) == pytest.approx(1 / (1 + math.exp(-1)))


def test_fit_threshold_separates_masked_spans():
    text = "alpha beta gamma delta epsilon"
    gold = TabDocument("d", text)
    gold.annotations["a"] = [
        Mention(0, 5, "MISC", "QUASI", "e1", "m1", "alpha"),
        Mention(6, 10, "MISC", "NO_MASK", "e2", "m2", "beta"),
        Mention(11, 16, "MISC", "DIRECT", "e3", "m3", "gamma"),
        Mention(17, 22, "MISC", "NO_MASK", "e4", "m4", "delta"),
    ]
    table = {"d": [(0, 5, 4.0), (6, 10, 1.0), (11, 16, 5.0), (17, 22, 0.5)]}
    tokens = Tokens(spacy.blank("en"))
    for objective in ("paper", "f1"):
        t, curve = fit_threshold([gold], table, objective, tokens=tokens)
        assert 1.0 < t <= 4.0
        scores = tab_scores([gold], predictions_at(table, t), tokens=tokens)
        assert scores.precision == 1.0 and scores.recall == 1.0
        assert max(p["objective"] for p in curve) == pytest.approx(
            3.0 if objective == "paper" else 1.0
        )
    # spans without a measurable influence are always masked (fail closed)
    assert predictions_at({"d": [(0, 5, None)]}, 100.0) == {"d": [[0, 5]]}


def test_unmeasurable_document_in_a_batch(tiny_bert):
    nlp, comp = make_nlp(tiny_bert)
    docs = make_docs(nlp)
    lone = Doc(nlp.vocab, words=["x", "was", "born"])
    lone.spans["pii"] = [lone[0:1]]
    alone = compute_influences(docs, comp.scorer)
    infos = compute_influences(docs + [lone], comp.scorer)
    assert infos[2].influence("span:0")[0] is None and infos[2].targets == [0]
    assert infos[0].base == pytest.approx(alone[0].base) and infos[1].perturbed == pytest.approx(
        alone[1].perturbed
    )


def test_shipped_config_runs_offline():
    from spacy_sanitize.lm.hf import resolve_model
    from spacy_sanitize.pipeline import load_pipeline

    if not (Path(resolve_model("minilm_mlm")) / "config.json").exists():
        pytest.skip("the shipped domain MLM (packages/torch-data: minilm_mlm) is not installed")
    nlp = load_pipeline("risk_perturb")
    comp = nlp.get_pipe("risk_perturb")
    assert comp.scorer.model_name == "minilm_mlm" and comp.scorer.name == "hf:minilm_mlm"
    assert nlp.pipe_names[-3:] == ["risk_perturb", "risk_threshold", "masker"]
    doc = nlp(
        "Maria Olsen is a Norwegian politician born in Bergen in 1961. Olsen studied law at the University of Oslo."
    )
    spans = list(doc.spans["pii"])
    assert len(spans) >= 3
    for span in spans:
        assert 0.0 <= span._.risk["perturb"] <= 1.0
        assert span._.mask == (span._.risk["perturb"] >= 0.5)
    replaced = {(r[0], r[1]) for r in doc._.replacements}
    assert replaced == {(s.start_char, s.end_char) for s in spans if s._.mask}


def test_initialize_fits_the_threshold_on_gold_docs(tiny_bert):
    from spacy.training import Example

    nlp, comp = make_nlp(tiny_bert)
    docs = make_docs(nlp)
    for doc in docs:
        first = doc.spans["pii"][0]
        doc.spans["mask"] = [Span(doc, first.start, first.end, label="DIRECT")]
    examples = [Example(nlp.make_doc(d.text), d) for d in docs]
    nlp.initialize(lambda: examples)
    assert comp.threshold == comp.fitted_threshold != 3.5
    assert comp.meta["n_docs"] == 2 and comp.meta["fitted_threshold"] == comp.threshold
    values = [v for d in docs for v in comp.influences([d])[0].span_influences() if v is not None]
    assert min(values) - 1.0 <= comp.threshold <= max(values) + 1.0
