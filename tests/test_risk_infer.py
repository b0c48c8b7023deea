"""risk_infer: deletion searches, the component, serialization, training, weak labels and
the attack benchmark, on tiny hand-made models and corpora."""
import itertools
import json

import numpy as np
import pytest
import spacy
import srsly
from hypothesis import given, settings
from hypothesis import strategies as st
from spacy.tokens import Span

import spacy_sanitize  # noqa: F401  (registers the factories)
from spacy_sanitize.training.attack import masked_token_fraction, run_attack_benchmark, short_snippet
from spacy_sanitize.cli.attack import add_attack_subparser
from spacy_sanitize.decide.infer.attacker import LinearAttacker, ngram_occurrences, softmax, train_attacker
from spacy_sanitize.training.country_labels import (
    label_opening,
    label_records,
    label_title,
    procedure_and_facts,
)
from spacy_sanitize.decide.infer import fit_threshold
from spacy_sanitize.decide.infer.search import beam_search, build_problem, exact_search, greedy_search

CLASSES = ["KYO", "TOK", "OSA"]


def hand_attacker() -> LinearAttacker:
    """Kyoto words point to KYO; the bigram "kyoto gyoen" is the strongest clue."""
    vocab = {"kyoto": 0, "gyoen": 1, "temple": 2, "kyoto gyoen": 3, "tokyo": 4, "ramen": 5, "love": 6}
    coef = np.array(
        [
            [1.2, 1.0, 0.9, 1.5, -1.0, 0.2, 0.0],
            [0.0, 0.0, 0.0, 0.0, 2.5, 0.2, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.6, 0.0],
        ],
        dtype=np.float32,
    )
    return LinearAttacker(list(CLASSES), vocab, coef, np.zeros(3))


def gapped(seq, removed_units):
    return [None if token in removed_units else token for token in seq]


def brute_force(attacker, seq, threshold):
    """Smallest m and the lowest maximum probability at that m, recomputed from scratch."""
    units = sorted({t for t in seq if t is not None})
    for m in range(1, len(units) + 1):
        best = min(float(attacker.proba_seq(gapped(seq, set(c))).max()) for c in itertools.combinations(units, m))
        if best < threshold:
            return m, best
    return None, None


# --- searches -------------------------------------------------------------------------

def test_exact_search_finds_the_known_optimal_deletion():
    attacker = hand_attacker()
    seq = "i love kyoto gyoen and the temple".split()
    problem = build_problem(attacker, seq, [True] * len(seq))
    assert set(problem.units) == {"kyoto", "gyoen", "temple", "love"}  # words without a feature are no units
    p0 = float(softmax(problem.z0).max())
    assert p0 > 0.9
    # with threshold 0.6 no single word suffices; {kyoto, gyoen} (which also kills the bigram) is the best pair
    result = exact_search(problem, threshold=0.6)
    assert result.success and sorted(result.removed_units) == ["gyoen", "kyoto"]
    assert result.p_after == pytest.approx(float(attacker.proba_seq(gapped(seq, {"kyoto", "gyoen"})).max()))
    assert brute_force(attacker, seq, 0.6) == (2, pytest.approx(result.p_after))


def test_incremental_scores_equal_a_full_recomputation():
    attacker = hand_attacker()
    seq = "kyoto gyoen tokyo ramen kyoto temple".split()
    problem = build_problem(attacker, seq, [True] * len(seq))
    for m in range(len(problem.units) + 1):
        for combo in itertools.combinations(range(len(problem.units)), m):
            removed = {problem.units[i] for i in combo}
            np.testing.assert_allclose(problem.proba(list(combo)), attacker.proba_seq(gapped(seq, removed)), rtol=1e-6)


def test_placeholders_are_not_removable_and_features_die_only_with_every_occurrence():
    attacker = hand_attacker()
    seq = ["kyoto", "gyoen", "kyoto"]
    problem = build_problem(attacker, seq, [False, True, True])  # the first kyoto is a placeholder
    # removing the word kyoto kills nothing: its unigram survives through the placeholder
    # occurrence, and "kyoto gyoen" starts at the placeholder, so it dies only with gyoen
    assert "kyoto" not in problem.units
    gyoen = problem.units.index("gyoen")
    assert {problem.feature_names[j] for j in problem.kills[gyoen].indices} == {"gyoen", "kyoto gyoen"}


@settings(max_examples=40, deadline=None)
@given(
    weights=st.lists(st.floats(-3, 3, allow_nan=False, width=32), min_size=3 * 9, max_size=3 * 9),
    tokens=st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=1, max_size=7),
    threshold=st.floats(0.35, 0.95),
)
def test_searches_on_random_models(weights, tokens, threshold):
    vocab = {w: i for i, w in enumerate(["a", "b", "c", "d", "e", "a b", "b c", "c d", "d e"])}
    attacker = LinearAttacker(list(CLASSES), vocab, np.array(weights, dtype=np.float32).reshape(3, 9), np.zeros(3))
    problem = build_problem(attacker, tokens, [True] * len(tokens))
    expected_m, expected_p = brute_force(attacker, tokens, threshold)
    exact = exact_search(problem, threshold)
    if float(softmax(problem.z0).max()) < threshold:
        assert exact.success and exact.removed == []
        return
    if expected_m is None:
        assert not exact.success
    else:
        assert exact.success and len(exact.removed) == expected_m
        assert exact.p_after == pytest.approx(expected_p, rel=1e-5)
    for result in (greedy_search(problem, threshold), greedy_search(problem, threshold, criterion="contribution"), beam_search(problem, threshold, beam_width=3)):
        truth = float(attacker.proba_seq(gapped(tokens, set(result.removed_units))).max())
        assert result.p_after == pytest.approx(truth, rel=1e-5)
        # success is claimed only when the threshold is really reached; otherwise a failure is reported
        assert result.success == (truth < threshold)
        if result.success and exact.success:
            assert len(result.removed) >= len(exact.removed)


def test_exact_search_reports_budget_failure():
    attacker = hand_attacker()
    seq = "kyoto gyoen temple tokyo ramen".split()
    problem = build_problem(attacker, seq, [True] * len(seq))
    result = exact_search(problem, threshold=0.34, budget=3)
    assert not result.success and result.reason == "budget"


# --- component --------------------------------------------------------------------------

@pytest.fixture
def nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_infer", config={"threshold": 0.6, "search": "exact"})
    nlp.get_pipe("risk_infer").attacker = hand_attacker()
    return nlp


def test_untrained_component_fails_closed():
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_infer")
    with pytest.raises(ValueError, match="E601"):
        nlp("I love Kyoto.")


def test_removed_words_become_masked_spans(nlp):
    doc = nlp("I love Kyoto Gyoen and the temple.")
    spans = {s.text: s for s in doc.spans["pii"]}
    assert set(spans) == {"Kyoto Gyoen"}
    span = spans["Kyoto Gyoen"]
    assert span.label_ == "MISC" and span._.mask is True
    assert 0.0 < span._.risk["infer"] <= 1.0
    report = doc._.risk_infer
    assert report["success"] and report["p_max_after"] < 0.6 <= report["p_max_before"]
    nlp.add_pipe("masker")
    assert nlp("I love Kyoto Gyoen and the temple.")._.sanitized == "I love [MISC] and the temple."


def test_existing_masked_spans_are_seen_as_masked_and_scored(nlp):
    doc = nlp.make_doc("I love Kyoto Gyoen and the temple.")
    loc = Span(doc, 2, 4, label="LOC")
    doc.spans["pii"] = [loc]
    doc = nlp.get_pipe("risk_infer")(doc)
    # with the place masked, the attacker is below the threshold: nothing else is removed
    assert [s.text for s in doc.spans["pii"]] == ["Kyoto Gyoen"]
    assert doc._.risk_infer["n_removed_tokens"] == 0
    assert doc.spans["pii"][0]._.risk["infer"] > 0.3  # masking it lowers the confidence a lot


def test_the_attacker_sees_what_the_pipelines_masker_will_output(nlp):
    """A span the masker's allow list keeps in clear text is clear text for the attacker too."""
    nlp.add_pipe("masker", config={"allow_list": ["Kyoto Gyoen"]})
    doc = nlp.make_doc("I love Kyoto Gyoen and the temple.")
    doc.spans["pii"] = [Span(doc, 2, 4, label="LOC")]
    infer = nlp.get_pipe("risk_infer")
    assert "kyoto" in infer.view(doc)[0]
    assert "kyoto" not in infer.view(doc, spans_key="pii")[0]  # the default rules mask it


def test_unmasked_existing_span_is_scored_and_masked_when_it_holds_a_removed_word(nlp):
    doc = nlp.make_doc("I love Kyoto Gyoen and the temple.")
    loc = Span(doc, 2, 4, label="LOC")
    doc.spans["pii"] = [loc]
    loc._.mask = False
    doc = nlp.get_pipe("risk_infer")(doc)
    span = doc.spans["pii"][0]
    assert span.text == "Kyoto Gyoen" and span.label_ == "LOC" and span._.mask is True
    assert len(doc.spans["pii"]) == 1


def test_set_mask_false_leaves_the_decision_to_others():
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_infer", config={"threshold": 0.6, "set_mask": False})
    nlp.get_pipe("risk_infer").attacker = hand_attacker()
    doc = nlp("I love Kyoto Gyoen and the temple.")
    assert doc.spans["pii"] and all(s._.mask is None for s in doc.spans["pii"])
    assert all("infer" in s._.risk for s in doc.spans["pii"])


def test_unreachable_threshold_is_reported(nlp):
    nlp.get_pipe("risk_infer").threshold = 0.2  # below 1/3: impossible with three classes
    with pytest.warns(UserWarning, match=r"\[W601\]"):
        doc = nlp("I love Kyoto.")
    assert doc._.risk_infer["success"] is False


@pytest.mark.parametrize("search", ["exact", "greedy", "beam"])
def test_all_searches_reach_the_threshold_in_the_component(search):
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_infer", config={"threshold": 0.6, "search": search})
    nlp.get_pipe("risk_infer").attacker = hand_attacker()
    doc = nlp("I love Kyoto Gyoen, the temple and ramen in Kyoto.")
    assert doc._.risk_infer["success"]
    nlp.add_pipe("masker")
    sanitized = nlp("I love Kyoto Gyoen, the temple and ramen in Kyoto.")._.sanitized
    # the attacker, reading the masker's output, is below the threshold too
    assert nlp.get_pipe("risk_infer").attacker.proba_texts([sanitized], spacy.blank("en")).max() < 0.6


# --- serialization and training -------------------------------------------------------------

def test_attacker_round_trip(tmp_path):
    attacker = hand_attacker()
    attacker.to_disk(tmp_path / "att")
    loaded = LinearAttacker.from_disk(tmp_path / "att")
    assert loaded.classes == attacker.classes and loaded.vocab == attacker.vocab
    np.testing.assert_array_equal(loaded.coef, attacker.coef)
    assert LinearAttacker.from_bytes(attacker.to_bytes()).vocab == attacker.vocab
    assert not list(tmp_path.glob("**/*.pkl"))


def test_pipeline_round_trip(nlp, tmp_path):
    # the fitted threshold travels; the configured one (0.6, in config.cfg) wins unless
    # the load sets threshold = null
    infer = nlp.get_pipe("risk_infer")
    infer.fitted_threshold, infer.threshold = 0.56, None
    nlp.to_disk(tmp_path / "pipe")
    assert spacy.load(tmp_path / "pipe").get_pipe("risk_infer").threshold == 0.6
    loaded = spacy.load(tmp_path / "pipe", config={"components": {"risk_infer": {"threshold": None}}})
    text = "I love Kyoto Gyoen and the temple."
    assert loaded.get_pipe("risk_infer").threshold == 0.56
    doc_loaded, doc = loaded(text), nlp(text)
    assert [s.text for s in doc_loaded.spans["pii"]] == [s.text for s in doc.spans["pii"]] == ["Kyoto Gyoen"]
    other = spacy.blank("en")
    other.add_pipe("risk_infer")
    other.get_pipe("risk_infer").from_bytes(nlp.get_pipe("risk_infer").to_bytes())
    np.testing.assert_allclose(other.get_pipe("risk_infer").proba(other.make_doc(text)), nlp.get_pipe("risk_infer").proba(nlp.make_doc(text)))


def toy_corpus():
    cities = {
        "KYO": ["kyoto", "gion", "kamo river", "kinkakuji"],
        "TOK": ["tokyo", "shibuya", "sumida river", "asakusa"],
        "OSA": ["osaka", "dotonbori", "yodo river", "umeda"],
    }
    rows = []
    for label, words in cities.items():
        for i in range(6):
            rows.append({"text": f"We walked along the {words[i % 4]} and ate near {words[(i + 1) % 4]} today.", "meta": {"city": label}})
    return rows


def test_initialize_from_jsonl_and_from_saved_attacker(tmp_path):
    srsly.write_jsonl(tmp_path / "train.jsonl", toy_corpus())
    nlp = spacy.blank("en")
    infer = nlp.add_pipe("risk_infer", config={"threshold": 0.5})
    with pytest.raises(ValueError, match="E601"):
        nlp("We walked along the kamo river.")
    with pytest.raises(ValueError, match="E602"):
        nlp.initialize()  # nothing to train from
    infer.initialize(nlp=nlp, train_path=tmp_path / "train.jsonl", label_field="meta.city", min_df=1)
    assert sorted(infer.attacker.classes) == ["KYO", "OSA", "TOK"]
    assert infer.attacker.classes[int(infer.proba(nlp.make_doc("near gion and kinkakuji")).argmax())] == "KYO"
    doc = nlp("We walked near gion and kinkakuji.")
    assert doc._.risk_infer["success"] and {"gion", "kinkakuji"} & {w.lower() for w in doc._.risk_infer["removed_words"]}
    infer.attacker.to_disk(tmp_path / "attacker")
    other = spacy.blank("en")
    other.add_pipe("risk_infer").initialize(nlp=other, attacker_path=tmp_path / "attacker")
    assert other.get_pipe("risk_infer").attacker.vocab == infer.attacker.vocab


def test_a_lemma_attacker_trains_inside_its_own_pipeline(tmp_path):
    """Lemmas come from the components before risk_infer, not from the untrained risk_infer."""
    from spacy_sanitize.models import load_english

    srsly.write_jsonl(tmp_path / "train.jsonl", toy_corpus())
    nlp = load_english()
    infer = nlp.add_pipe("risk_infer", config={"threshold": 0.5})
    infer.initialize(nlp=nlp, train_path=tmp_path / "train.jsonl", label_field="meta.city", attr="LEMMA", min_df=1)
    assert infer.attacker.attr == "LEMMA"
    assert "walk" in infer.attacker.vocab and "walked" not in infer.attacker.vocab


def test_initialize_from_examples_with_cats():
    from spacy.training import Example

    nlp = spacy.blank("en")
    infer = nlp.add_pipe("risk_infer")
    examples = []
    for row in toy_corpus():
        doc = nlp.make_doc(row["text"])
        ref = nlp.make_doc(row["text"])
        ref.cats = {c: float(c == row["meta"]["city"]) for c in CLASSES}
        examples.append(Example(doc, ref))
    infer.initialize(lambda: examples, nlp=nlp, min_df=1)
    assert sorted(infer.attacker.classes) == sorted(CLASSES)


def test_fit_threshold_on_human_masked_documents(tmp_path):
    text = "We walked along the kamo river and ate near gion today."
    start = text.index("gion")
    gold = [{"doc_id": "d1", "text": text, "annotations": {"ann1": {"entity_mentions": [
        {"entity_mention_id": "m1", "entity_id": "e1", "start_offset": start, "end_offset": start + 4, "entity_type": "LOC", "identifier_type": "QUASI", "span_text": "gion"},
        {"entity_mention_id": "m2", "entity_id": "e2", "start_offset": text.index("kamo"), "end_offset": text.index("kamo") + 4, "entity_type": "LOC", "identifier_type": "QUASI", "span_text": "kamo"},
    ]}}}]
    srsly.write_json(tmp_path / "gold.json", gold)
    srsly.write_jsonl(tmp_path / "train.jsonl", toy_corpus())
    nlp = spacy.blank("en")
    infer = nlp.add_pipe("risk_infer")
    infer.initialize(nlp=nlp, train_path=tmp_path / "train.jsonl", label_field="meta.city", min_df=1)
    raw = float(infer.proba(nlp.make_doc(text)).max())
    fitted = fit_threshold(infer, tmp_path / "gold.json")
    seq = infer.attacker.sequence(nlp.make_doc(text))
    assert fitted == pytest.approx(float(infer.attacker.proba_seq(gapped(seq, {"gion", "kamo"})).max()), rel=1e-6)
    assert fitted < raw
    infer.initialize(nlp=nlp, train_path=tmp_path / "train.jsonl", label_field="meta.city", min_df=1, threshold_path=tmp_path / "gold.json")
    assert infer.threshold == pytest.approx(fitted)


def test_attacker_cli_train_and_evaluate(tmp_path, capsys):
    from spacy_sanitize.cli import main as cli_main

    srsly.write_jsonl(tmp_path / "train.jsonl", toy_corpus())
    assert cli_main(["attacker", "train", str(tmp_path / "train.jsonl"), str(tmp_path / "model"), "--label-field", "meta.city", "--min-df", "1"]) == 0
    assert (tmp_path / "model" / "attacker.msgpack").exists()
    assert cli_main(["attacker", "evaluate", str(tmp_path / "model"), str(tmp_path / "train.jsonl"), "--label-field", "meta.city"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["n"] == 18 and result["accuracy"] > 0.9


def test_labelled_files_are_read_in_order_and_the_train_cli_takes_several(tmp_path):
    from spacy_sanitize.cli import main as cli_main
    from spacy_sanitize.decide.infer.attacker import read_labeled_files

    rows = toy_corpus()
    srsly.write_jsonl(tmp_path / "a.jsonl", rows[:10])
    srsly.write_jsonl(tmp_path / "b.jsonl", [{"text": r["text"], "label": r["meta"]["city"]} for r in rows[10:]])
    texts, labels = read_labeled_files([tmp_path / "a.jsonl"], "meta.city")
    assert texts == [r["text"] for r in rows[:10]] and labels == [r["meta"]["city"] for r in rows[:10]]
    texts, labels = read_labeled_files([tmp_path / "b.jsonl", tmp_path / "b.jsonl"])
    assert texts == [r["text"] for r in rows[10:]] * 2
    assert cli_main(["attacker", "train", str(tmp_path / "a.jsonl"), str(tmp_path / "a.jsonl"), str(tmp_path / "model"), "--label-field", "meta.city", "--min-df", "1", "--max-chars", "20"]) == 0
    assert srsly.read_json(tmp_path / "model" / "attacker.json")["meta"]["n_train"] == 20


def test_train_attacker_binary_and_ngrams():
    seqs = [["red", "apple"], ["green", "apple"], ["red", "wine"], ["green", "tea"]]
    attacker = train_attacker(seqs, ["R", "G", "R", "G"], min_df=1)
    assert attacker.coef.shape == (2, attacker.n_features)
    assert "red apple" in attacker.vocab
    assert attacker.classes[int(attacker.proba_seq(["red"]).argmax())] == "R"
    assert list(ngram_occurrences(["a", None, "b", "c"], 2)) == [("a", 0, 1), ("b", 2, 3), ("b c", 2, 4), ("c", 3, 4)]
    with pytest.raises(ValueError, match="E607"):
        train_attacker(seqs, ["R"] * 4)


# --- weak labels ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "text,expected",
    [
        ("The case originated in an application (no. 1/04) against the Republic of Turkey lodged with the Court", "TUR"),
        ("The case originated in an application (no. 1/04) against the United Kingdom of Great Britain and Northern Ireland lodged", "GBR"),
        ("The case originated in two applications (nos. 1/04 and 2/05) against the Russian Federation lodged", "RUS"),
        ("The case originated in an application against the Kingdom of Sweden lodged", "SWE"),
        ("The applicant lives in Istanbul.", None),
    ],
)
def test_opening_sentence_labels(text, expected):
    assert label_opening(text) == expected


def test_title_labels_and_report():
    judgment = "FIFTH SECTION\nCASE OF N.S. v. DENMARK\n(Application no. 1/08)\nPROCEDURE\n1. The case originated in an application (no. 1/08) against the Kingdom of Denmark lodged.\nTHE FACTS\nx\nTHE LAW\ny"
    assert label_title(judgment) == "DNK"
    assert procedure_and_facts(judgment).startswith("PROCEDURE") and "THE LAW" not in procedure_and_facts(judgment)
    records, report = label_records([{"id": "1", "text": judgment, "meta": {"countries": "DNK"}}, {"id": "lacour:1", "text": "x"}], gold_field="meta.countries")
    assert [r["label"] for r in records] == ["DNK"]
    assert report["agreement"] == 1.0 and report["gold_accuracy"] == 1.0 and report["skipped_by_prefix"] == 1


# --- attack benchmark ---------------------------------------------------------------------------

def test_attack_benchmark_on_a_tiny_corpus(tmp_path):
    rows = toy_corpus()
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("span_ruler", config={"spans_key": "pii"})
    ruler.add_patterns([{"label": "LOC", "pattern": [{"LOWER": w}]} for w in ("kyoto", "tokyo", "osaka")])
    nlp.add_pipe("risk_infer", config={"threshold": 0.6})
    nlp.add_pipe("masker")
    result = run_attack_benchmark(
        [r["text"] for r in rows], [r["meta"]["city"] for r in rows], nlp, folds=3, attacker_params={"min_df": 1}, snippet_chars=80,
    )
    attack = result["attack"]
    assert set(attack) == {"a", "b", "c", "adaptive_b", "adaptive_c"}
    assert all(0.0 <= v["accuracy"] <= v["top3"] <= 1.0 for v in attack.values())
    assert attack["a"]["accuracy"] > result["majority_class_rate"]
    assert attack["c"]["accuracy"] <= attack["a"]["accuracy"]
    utility = result["utility"]
    assert 0.0 < utility["masked_token_fraction_b"] <= utility["masked_token_fraction_c"] < 1.0
    assert result["risk_infer"]["docs"] == len(rows)
    assert result["search_comparison"]["snippets"] > 0


def test_masked_token_fraction_and_snippets():
    assert masked_token_fraction("Ann met Bob in Oslo.", [[0, 3, "PERSON", "e1", "[PERSON]"]]) == (1, 5)
    text = "PROCEDURE x THE FACTS The applicant was born in 1950 and lives in Istanbul today."
    assert short_snippet(text, 40, section="facts") == "The applicant was born in 1950 and"
    assert short_snippet(text, 12) == "PROCEDURE x"


def test_attack_subparser_registers():
    import argparse

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    add_attack_subparser(sub)
    args = parser.parse_args(["attack", "data.jsonl", "--search", "beam", "--threshold", "0.5"])
    assert args.search == "beam" and args.threshold == 0.5 and callable(args.func)


def test_shared_data_weak_labels_match_tab_countries(tab_dev_texts_path):
    path = tab_dev_texts_path
    records, report = label_records(srsly.read_jsonl(path), gold_field="meta.countries")
    assert report["gold_accuracy"] > 0.95
