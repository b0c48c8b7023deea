"""risk_infer's attacker ensemble: character n-grams and their kill map, the prior (total
variation) criterion, serialization, cross-fitted adversarial rounds, the masker's view
(generalize, geography="kind") and the per-level attack report, on tiny hand-made models and corpora."""
import json
import time
import warnings

import numpy as np
import pytest
import spacy
import srsly
from spacy.tokens import Doc, Span

import spacy_sanitize  # noqa: F401  (registers the factories)
from spacy_sanitize.masker.strategies.generalize import place_kind
from spacy_sanitize.decide.infer.attacker import LinearAttacker, softmax, train_attacker
from spacy_sanitize.decide.infer.search import build_problem, total_variation
from spacy_sanitize.training.adversarial import AttackerFactory, adversarial_rounds
from spacy_sanitize.training.attack import plot_levels, run_rounds_benchmark

CLASSES = ["KYO", "TOK", "OSA"]
COUNTS = {"KYO": 5, "TOK": 2, "OSA": 1}  # priors 0.625 / 0.25 / 0.125


def word_attacker(vocab, rows) -> LinearAttacker:
    coef = np.array(rows, dtype=np.float32)
    return LinearAttacker(list(CLASSES), vocab, coef, np.log(np.array([5.0, 2.0, 1.0]) / 8), meta={"class_counts": dict(COUNTS)})


def kyoto_attacker() -> LinearAttacker:
    """Reads "kyoto" and "tokyo" only."""
    return word_attacker({"kyoto": 0, "tokyo": 1}, [[0.0, -1.0], [-3.0, 3.0], [0.0, 0.0]])


def temple_attacker() -> LinearAttacker:
    """Reads "temple" (Osaka, here) only: a second clue the first attacker does not see."""
    return word_attacker({"temple": 0}, [[0.0], [0.0], [3.5]])


def toy_corpus():
    cities = {
        "KYO": ["kyoto", "gion", "kamo river", "kinkakuji"],
        "TOK": ["tokyo", "shibuya", "sumida river", "asakusa"],
        "OSA": ["osaka", "dotonbori", "yodo river", "umeda"],
    }
    # every text starts with its own pair of stop words (never removed): no two texts, raw
    # or sanitized, are the same string
    stops = ["once", "again", "further", "then", "here", "there"]
    rows = []
    for label, words in cities.items():
        for i in range(6):
            mark = f"{stops[len(rows) // 6]} {stops[len(rows) % 6]}"
            rows.append({"doc_id": f"{label}{i}", "text": f"{mark.capitalize()} we walked along the {words[i % 4]} and ate near {words[(i + 1) % 4]} today.", "meta": {"city": label}})
    return rows


def toy_nlp(**config) -> spacy.language.Language:
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("span_ruler", config={"spans_key": "pii"})
    ruler.add_patterns([{"label": "LOC", "pattern": [{"LOWER": w}]} for w in ("kyoto", "tokyo", "osaka")])
    nlp.add_pipe("risk_infer", config={"score_existing": False, **config})
    nlp.add_pipe("masker")
    return nlp


# --- character n-grams ------------------------------------------------------------------

def test_a_char_feature_dies_only_with_every_word_that_holds_it():
    seqs = [["kyoto", "temple"], ["tokyo", "tower"], ["kyoto", "gion"], ["tokyo", "ramen"]]
    attacker = train_attacker(seqs, ["KYO", "TOK", "KYO", "TOK"], analyzer="char", ngram_min=3, ngram_max=4, min_df=1)
    assert attacker.analyzer == "char" and attacker.context == 0
    assert "#kyo" in attacker.vocab and "#kyoto" not in attacker.vocab  # n <= 4, inside words
    seq = ["kyoto", "love", "tokyo"]
    problem = build_problem(attacker, seq, [True] * 3)
    # "kyo" is in kyoto and in tokyo: no single removal kills it, so no unit's row has it
    kyo = problem.feature_names.index("#kyo")
    assert problem.kills[:, kyo].nnz == 0
    for unit, form in enumerate(problem.units):  # one removal: the cheap score is exact
        gapped = [None if token == form else token for token in seq]
        np.testing.assert_allclose(problem.proba([unit]), attacker.proba_seq(gapped), rtol=1e-6)


def test_char_attacker_round_trip_and_version_1_files_still_load():
    attacker = train_attacker([["kyoto"], ["tokyo"]], ["KYO", "TOK"], analyzer="char", ngram_min=3, ngram_max=5, min_df=1)
    back = LinearAttacker.from_bytes(attacker.to_bytes())
    assert (back.analyzer, back.ngram_min, back.ngram_max, back.vocab) == ("char", 3, 5, attacker.vocab)
    old = kyoto_attacker().to_dict()
    old.pop("analyzer"), old.pop("ngram_min")
    old["format"] = 1
    assert LinearAttacker.from_dict(old).analyzer == "word"
    with pytest.raises(ValueError, match="E710"):
        train_attacker([["a"], ["b"]], ["x", "y"], analyzer="char", ngram_min=4, ngram_max=3)


# --- the prior criterion -----------------------------------------------------------------

@pytest.fixture
def ensemble_nlp():
    nlp = spacy.blank("en")
    infer = nlp.add_pipe("risk_infer", config={"criterion": "prior", "tv_bound": 0.05})
    infer.set_attackers([kyoto_attacker(), temple_attacker()])
    return nlp


def test_every_attacker_ends_within_the_bound_of_its_prior(ensemble_nlp):
    doc = ensemble_nlp("I love tokyo and the temple.")
    report = doc._.risk_infer
    assert report["success"] and report["n_attackers"] == 2
    assert max(report["tv_before"]) > 0.05 >= max(report["tv_after"])
    assert {s.text for s in doc.spans["pii"]} == {"tokyo", "temple"}  # one clue per attacker
    # below half the gap between the two largest priors, the best guess is the prior's
    infer = ensemble_nlp.get_pipe("risk_infer")
    for attacker in infer.attackers:
        p = attacker.proba_seq(infer.view(doc)[0])
        assert float(total_variation(p, attacker.prior())) <= 0.05
        assert int(np.argmax(p)) == int(np.argmax(attacker.prior())) == CLASSES.index("KYO")


def test_find_removals_returns_how_the_call_ended(ensemble_nlp):
    """The per-call outcome comes back from find_removals, not through attributes on the
    shared component (which another call could overwrite before __call__ read them)."""
    infer = ensemble_nlp.get_pipe("risk_infer")
    removed, _, _, _, state = infer.find_removals(ensemble_nlp.make_doc("I love tokyo and the temple."))
    assert state["success"] and len(state["tv_before"]) == len(state["tv_after"]) == len(state["shortfall"]) == 2
    assert max(state["shortfall"]) <= 0 and state["label"] == ["KYO", "KYO"] and len(removed) == 2
    assert not any(hasattr(infer, name) for name in ("_tv_before", "_tv_now", "_short_now", "_label_now"))


def test_one_attacker_alone_leaves_the_other_clue(ensemble_nlp):
    infer = ensemble_nlp.get_pipe("risk_infer")
    infer.set_attackers([kyoto_attacker()])
    doc = ensemble_nlp("I love tokyo and the temple.")
    assert {s.text for s in doc.spans["pii"]} == {"tokyo"}
    p = temple_attacker().proba_seq(infer.view(doc)[0])
    assert CLASSES[int(np.argmax(p))] == "OSA"  # what the ensemble criterion protects against


def test_the_maxprob_criterion_stays_seed_001s():
    """criterion="maxprob" (the default) stops at the threshold even when the ensemble
    would go on, and reads only the first attacker."""
    nlp = spacy.blank("en")
    infer = nlp.add_pipe("risk_infer", config={"threshold": 0.7})
    infer.set_attackers([kyoto_attacker(), temple_attacker()])
    doc = nlp("I love tokyo and the temple.")
    assert doc._.risk_infer["criterion"] == "maxprob" and "tv_after" not in doc._.risk_infer
    assert {s.text for s in doc.spans["pii"]} == {"tokyo"}


def test_the_guess_criterion_passes_an_attacker_that_guesses_the_prior(ensemble_nlp):
    """A stop word keeps the second attacker's posterior off its prior (TV > 0), but
    "guess" passes it once its best guess is the prior's: the text tells the top class no more."""
    infer = ensemble_nlp.get_pipe("risk_infer")
    infer.criterion, infer.tv_bound = "guess", 0.0
    sticky = word_attacker({"the": 0, "temple": 1}, [[0.5, 0.0], [0.0, 0.0], [0.0, 3.5]])
    infer.set_attackers([kyoto_attacker(), sticky])
    doc = ensemble_nlp("I love tokyo and the temple.")
    report = doc._.risk_infer
    assert report["success"] and min(report["tv_after"]) > 0.0
    assert {s.text for s in doc.spans["pii"]} == {"tokyo", "temple"}
    for attacker in infer.attackers:
        assert CLASSES[int(np.argmax(attacker.proba_seq(infer.view(doc)[0])))] == "KYO"
    infer.criterion = "prior"  # the TV bound alone cannot be met: it warns
    with pytest.warns(UserWarning, match="W710"):
        assert not ensemble_nlp("I love tokyo and the temple.")._.risk_infer["success"]


def test_an_unreachable_bound_warns_and_masks_what_it_found(ensemble_nlp):
    infer = ensemble_nlp.get_pipe("risk_infer")
    infer.tv_bound = 0.0
    stuck = word_attacker({"the": 0}, [[0.0], [0.0], [2.0]])  # "the" is a stop word: never removed
    infer.set_attackers([kyoto_attacker(), stuck])
    with pytest.warns(UserWarning, match="W710"):
        doc = ensemble_nlp("I love tokyo and the temple.")
    assert not doc._.risk_infer["success"] and "tokyo" in doc._.risk_infer["removed_words"]


@pytest.mark.parametrize(
    "config, code",
    [({"criterion": "kl"}, "E711"), ({"criterion": "prior", "tv_bound": 1.0}, "E712")],
)
def test_bad_criterion_settings_are_refused(config, code):
    with pytest.raises(ValueError, match=code):
        spacy.blank("en").add_pipe("risk_infer", config=config)


def test_attackers_with_other_classes_are_each_held_to_their_own_prior(ensemble_nlp):
    infer = ensemble_nlp.get_pipe("risk_infer")
    two = LinearAttacker(["OSA", "ELSE"], {"temple": 0}, np.array([[3.0], [-3.0]], dtype=np.float32), np.zeros(2), meta={"class_counts": {"OSA": 1, "ELSE": 1}})
    infer.set_attackers([kyoto_attacker(), two])
    doc = ensemble_nlp("I love tokyo and the temple.")
    assert doc._.risk_infer["success"] and {s.text for s in doc.spans["pii"]} == {"tokyo", "temple"}


# --- serialization -----------------------------------------------------------------------

def test_an_initialized_ensemble_round_trips(tmp_path):
    srsly.write_jsonl(tmp_path / "train.jsonl", toy_corpus())
    nlp = spacy.blank("en")
    infer = nlp.add_pipe("risk_infer", config={"criterion": "prior", "tv_bound": 0.1})
    infer.initialize(nlp=nlp, train_path=tmp_path / "train.jsonl", label_field="meta.city", min_df=1, attackers=["word:LOWER", "word:NORM", "char:LOWER"])
    text = "Then we walked along the kamo river and ate near gion today."
    before = nlp(text)
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    back = loaded.get_pipe("risk_infer")
    assert [(a.analyzer, a.attr) for a in back.attackers] == [("word", "LOWER"), ("word", "NORM"), ("char", "LOWER")]
    assert [a.vocab for a in back.attackers] == [a.vocab for a in infer.attackers]
    assert (back.criterion, back.tv_bound) == ("prior", 0.1)  # settings from the config
    after = loaded(text)
    assert after._.risk_infer["removed_words"] == before._.risk_infer["removed_words"] != []
    np.testing.assert_allclose(after._.risk_infer["tv_after"], before._.risk_infer["tv_after"])
    copy = spacy.blank("en").add_pipe("risk_infer").from_bytes(infer.to_bytes())
    assert len(copy.attackers) == 3
    # an ensemble saved by the trainer loads through attacker_path
    infer.to_disk(tmp_path / "component")
    other = spacy.blank("en").add_pipe("risk_infer")
    other.initialize(attacker_path=tmp_path / "component" / "attacker")
    assert len(other.attackers) == 1  # the attacker dir alone: one attacker
    (tmp_path / "component" / "attacker" / "ensemble").symlink_to(tmp_path / "component" / "ensemble")
    other.initialize(attacker_path=tmp_path / "component" / "attacker")
    assert len(other.attackers) == 3


# --- linearity ---------------------------------------------------------------------------

def synthetic_doc(nlp, n_entities: int) -> Doc:
    """n entities (masked PII spans), each followed by a clue word of the attacker."""
    words = []
    for i in range(n_entities):
        words += [f"Person{i}", "met", "tokyo" if i % 2 else "temple", "people", "."]
    doc = Doc(nlp.vocab, words=words)
    doc.spans["pii"] = [Span(doc, 5 * i, 5 * i + 1, label="PERSON") for i in range(n_entities)]
    for i, span in enumerate(doc.spans["pii"]):
        span._.entity_id = f"e{i}"
    return doc


def test_cost_grows_linearly_with_the_entities(ensemble_nlp):
    infer = ensemble_nlp.get_pipe("risk_infer")
    infer.score_existing = True
    costs = {}
    for n in (25, 100):
        best = float("inf")
        for _ in range(3):
            doc = synthetic_doc(ensemble_nlp, n)
            started = time.perf_counter()
            infer(doc)
            best = min(best, time.perf_counter() - started)
        costs[n] = (best, doc._.risk_infer["evaluations"])
        assert doc._.risk_infer["success"]
    # the clues are two word forms however many entities there are: the search's
    # evaluations do not grow, and the time grows with the document (4x), not its square (16x)
    assert costs[100][1] == costs[25][1]
    assert costs[100][0] < 10 * costs[25][0]


# --- adversarial rounds --------------------------------------------------------------------

class RecordingFactory(AttackerFactory):
    """Remembers the texts and the kinds (None: the factory's) of every training, in order."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls = []
        self.kinds_trained = []

    def train(self, texts, labels, kinds=None):
        self.calls.append(list(texts))
        self.kinds_trained.append(None if kinds is None else [f"{a}:{b}" for a, b in kinds])
        return super().train(texts, labels, kinds)


def test_adversarial_rounds_never_train_on_the_fold_they_sanitize():
    rows = toy_corpus()
    nlp = toy_nlp(criterion="prior", tv_bound=0.1)
    docs = [nlp.get_pipe("masker")(nlp.get_pipe("span_ruler")(nlp.make_doc(r["text"]))) for r in rows]
    labels = [r["meta"]["city"] for r in rows]
    factory = RecordingFactory(["word:LOWER", "char:LOWER"], min_df=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = adversarial_rounds(docs, labels, nlp.get_pipe("risk_infer"), nlp.get_pipe("masker"), factory, folds=3, rounds=2)
    fold_of = {int(i): k for k, part in enumerate(result.folds) for i in part}
    # defenders, then one adversary per fold and round (its scoring kind; the other kinds
    # of the rounds that go on are trained apart, on the same texts)
    scoring = [texts for texts, kinds in zip(factory.calls, factory.kinds_trained) if kinds in (None, ["word:LOWER"])]
    assert len(result.trace) == len(scoring) == 3 + 3 * 3
    for row, texts in zip(result.trace, scoring):
        k = row["sanitizes_fold"]
        assert k not in row["trained_on_folds"] and sorted(row["trained_on_folds"] + [k]) == [0, 1, 2]
        # and by content: neither the raw nor any sanitized text of fold k was trained on
        own = {docs[i].text for i in result.folds[k]} | {s.texts[i] for s in result.sanitized for i in result.folds[k]}
        assert not own & set(texts)
    # the ensembles grow by one adversary per round, and each fold's text was sanitized
    assert [len(e[0]) for e in result.ensembles] == [2, 4, 6]
    assert [a.analyzer for a in result.ensembles[2][0]] == ["word", "char"] * 3  # the members keep the kinds' order
    assert all(text for s in result.sanitized for text in s.texts)
    assert all(fold_of[i] in range(3) for i in range(len(rows)))


def test_rounds_train_only_the_scoring_kind_once_they_stop():
    """Only the first adapted kind scores a round: the others are trained for the rounds
    whose adversaries join the ensembles, never for the last (old code trained every kind
    for every fold of every round and threw the last round's away)."""
    rows = toy_corpus()
    nlp = toy_nlp(criterion="prior", tv_bound=0.1)
    docs = [nlp.get_pipe("span_ruler")(nlp.make_doc(r["text"])) for r in rows]
    factory = RecordingFactory(["word:LOWER", "char:LOWER"], min_df=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        adversarial_rounds(docs, [r["meta"]["city"] for r in rows], nlp.get_pipe("risk_infer"), nlp.get_pipe("masker"), factory, folds=3, rounds=1)
    assert factory.kinds_trained == [None] * 3 + [["word:LOWER"]] * 3 + [["char:LOWER"]] * 3 + [["word:LOWER"]] * 3


def test_rounds_stop_at_the_target():
    rows = toy_corpus()
    nlp = toy_nlp(criterion="prior", tv_bound=0.1)
    docs = [nlp.get_pipe("span_ruler")(nlp.make_doc(r["text"])) for r in rows]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = adversarial_rounds(docs, [r["meta"]["city"] for r in rows], nlp.get_pipe("risk_infer"), nlp.get_pipe("masker"),
                                    AttackerFactory(["word:LOWER"], min_df=1), folds=3, rounds=3, target=1.0, train_final=True)
    assert result.stopped == "target" and len(result.sanitized) == 1
    assert len(result.final_attackers) == 1  # no adversary joined before the target was met


def test_the_trained_ensemble_is_written_where_attacker_path_loads_it(tmp_path):
    from spacy_sanitize.training.attacker_cli import train_adversarial_ensemble

    rows = toy_corpus()
    nlp = toy_nlp(criterion="guess", tv_bound=0.1)
    summary = train_adversarial_ensemble(nlp, [r["text"] for r in rows], [r["meta"]["city"] for r in rows], tmp_path / "ens",
                                         kinds=["word:LOWER", "char:LOWER"], rounds=1, folds=3, min_df=1)
    # the raw kinds on all documents, then one adapted set per round that joined the ensembles
    assert summary["n_attackers"] == 2 + 2 * (summary["rounds_played"] - 1)
    other = spacy.blank("en").add_pipe("risk_infer")
    other.initialize(attacker_path=tmp_path / "ens")
    assert len(other.attackers) == summary["n_attackers"] and other.attackers[1].analyzer == "char"

    # the same folder as a shipped artefact under a data folder (initialize's shipped/data)
    shipped = spacy.blank("en").add_pipe("risk_infer")
    shipped.initialize(shipped="ens", data=str(tmp_path))
    assert len(shipped.attackers) == summary["n_attackers"]
    with pytest.raises(ValueError, match="one source"):
        spacy.blank("en").add_pipe("risk_infer").initialize(shipped="ens", data=str(tmp_path), attacker_path=tmp_path / "ens")
    with pytest.raises(OSError):
        spacy.blank("en").add_pipe("risk_infer").initialize(shipped="missing", data=str(tmp_path))


def test_the_shipped_country_ensemble_loads_and_reads_court_text():
    """spacy_sanitize/data/risk_infer_country: the respondent state of ECHR judgments."""
    infer = spacy.blank("en").add_pipe("risk_infer")
    infer.initialize(shipped="risk_infer_country")
    first = infer.attackers[0]
    assert "TUR" in first.classes and "GBR" in first.classes and len(infer.attackers) >= 2
    text = "The applicant was detained by the gendarmerie in Diyarbakır and tried by the State Security Court."
    proba = dict(zip(first.classes, first.proba_texts([text], spacy.blank("en"))[0]))
    assert max(proba, key=proba.get) == "TUR"


# --- generalization: the attacker reads what the masker writes ---------------------------------

def test_places_generalize_to_their_kind_only():
    assert [place_kind(x) for x in ("Istanbul", "Turkey", "Europe", "Nowhere")] == ["a city", "a country", "a region", "a place"]
    from spacy_sanitize.masker.strategies.generalize import make_generalize

    assert make_generalize().geography == "region"  # the default keeps v1's output
    with pytest.raises(ValueError, match="geography"):
        make_generalize(geography="planet")


def test_the_attacker_reads_the_generalized_text_the_masker_writes():
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("span_ruler", config={"spans_key": "pii"})
    ruler.add_patterns([{"label": "LOC", "pattern": "Istanbul"}])
    infer = nlp.add_pipe("risk_infer", config={"placeholder": "masker", "criterion": "prior", "tv_bound": 0.05})
    nlp.add_pipe("masker", config={"strategy": {"@strategies": "spacy_sanitize.generalize.v1", "geography": "kind"}})
    # "a city" is no clue, "turkey" is: the generalization v1 writes ("[Turkey]") would be
    infer.set_attackers([word_attacker({"city": 0, "turkey": 1, "lawyer": 2}, [[0.0, -3.0, 0.0], [0.0, 3.0, 2.0], [0.0, 0.0, 0.0]])])
    doc = nlp("A lawyer in Istanbul spoke.")
    assert doc._.sanitized == "A [PERSON 1] in [a city] spoke." or "[a city]" in doc._.sanitized
    forms = infer.view(doc)[0]
    assert ["a", "city"] == forms[3:5]  # the masker's text, not "[LOC]"
    assert "lawyer" in doc._.risk_infer["removed_words"] and doc._.risk_infer["success"]
    nlp.remove_pipe("masker")
    with pytest.raises(ValueError, match="E715"):
        nlp("A lawyer in Istanbul spoke.")


# --- the report per level ---------------------------------------------------------------------

def test_the_attack_report_has_every_level_and_field(tmp_path):
    rows = toy_corpus()
    gold = [
        {"doc_id": r["doc_id"], "text": r["text"], "annotations": {"a1": {"entity_mentions": [
            {"entity_mention_id": "m1", "entity_id": "e1", "entity_type": "LOC", "identifier_type": "QUASI",
             "start_offset": r["text"].index("the ") + 4, "end_offset": r["text"].index(" and")}]}}}
        for r in rows
    ]
    (tmp_path / "gold.json").write_text(json.dumps(gold))
    nlp = toy_nlp()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_rounds_benchmark(
            [r["text"] for r in rows], [r["meta"]["city"] for r in rows], nlp, doc_ids=[r["doc_id"] for r in rows],
            kinds=["word:LOWER", "char:LOWER"], folds=3, rounds=1, tv_bounds=[0.1], attacker_params={"min_df": 1},
            tab_gold_path=str(tmp_path / "gold.json"),
        )
    names = [row["level"] for row in result["levels"]]
    assert names == ["raw", "masking", "risk_infer guess tv<=0.1 round 0", "risk_infer guess tv<=0.1 round 1"]
    for row in result["levels"]:
        assert 0.0 <= row["fixed_accuracy"] <= row["fixed_top3"] <= 1.0
        assert 0.0 <= row["adaptive_accuracy"] <= row["adaptive_top3"] <= 1.0
        assert 0.0 <= row["masked_token_fraction"] < 1.0
        assert set(row["fixed_accuracy_by_attacker"]) == {"word:LOWER", "char:LOWER"}
    raw, masking, *inferred = result["levels"]
    assert raw["masked_token_fraction"] == 0.0 and "tab_P" not in raw
    assert all(0.0 <= row["tab_P"] <= 1.0 and 0.0 <= row["tab_R_all"] <= 1.0 for row in [masking, *inferred])
    assert masking["masked_token_fraction"] <= inferred[0]["masked_token_fraction"]
    assert inferred[0]["fixed_accuracy"] < raw["fixed_accuracy"]
    assert [row["n_attackers"] for row in inferred] == [2, 4]
    assert 0.0 < result["majority_class_rate"] < 0.5  # balanced classes: a training fold's majority is rarer in the held-out one
    pytest.importorskip("matplotlib")
    plot_levels(result, str(tmp_path / "curve.png"))
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"
    assert softmax(np.zeros(2)).tolist() == [0.5, 0.5]


def test_the_attack_cli_takes_the_rounds_options():
    import argparse

    from spacy_sanitize.cli.attack import add_attack_subparser

    parser = argparse.ArgumentParser()
    add_attack_subparser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["attack", "d.jsonl", "--criterion", "guess", "--tv-bound", "0.1", "--tv-bound", "0.05", "--rounds", "3", "--plot", "x.png", "--remove-stop-words"])
    assert (args.criterion, args.tv_bound, args.rounds, args.plot, args.remove_stop_words) == ("guess", [0.1, 0.05], 3, "x.png", True)
    assert parser.parse_args(["attack", "d.jsonl"]).criterion == "maxprob"  # the seed's report stays the default


# --- the masker's view (placeholder = "masker") ---------------------------------------------

def numbered_nlp(patterns, with_infer: bool) -> spacy.language.Language:
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("span_ruler", config={"spans_key": "pii"})
    ruler.add_patterns([{"label": "LOC", "pattern": [{"LOWER": w}]} for w in patterns])
    if with_infer:
        infer = nlp.add_pipe("risk_infer", config={"placeholder": "masker", "label": "LOC", "threshold": 0.7, "score_existing": False})
        infer.set_attackers([kyoto_attacker()])
    nlp.add_pipe("masker", config={"strategy": {"@strategies": "spacy_sanitize.numbered.v1", "across_docs": True}})
    return nlp


def test_the_masker_view_does_not_advance_numbered_across_docs():
    """risk_infer renders each doc with the pipeline's masker on a copy; the copy must not
    number entities the real masker numbers after risk_infer added its spans (old code:
    the copy gave "osaka" LOC 1 first, so "tokyo", found by risk_infer, became LOC 2)."""
    texts = ["I love tokyo and osaka.", "Then osaka and gion again."]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with_infer = [d._.sanitized for d in numbered_nlp(["osaka", "gion"], True).pipe(texts)]
    alone = [d._.sanitized for d in numbered_nlp(["tokyo", "osaka", "gion"], False).pipe(texts)]
    assert with_infer == alone == ["I love [LOC 1] and [LOC 2].", "Then [LOC 2] and [LOC 3] again."]


def test_the_masker_view_keeps_the_one_time_secret_warning(monkeypatch):
    """The trial rendering draws the surrogates' one-time secret (the view must read the
    surrogates the masker writes): its warning still reaches the user, once."""
    from spacy_sanitize.masker.strategies.keyed import DEFAULT_SECRET_ENV

    monkeypatch.delenv(DEFAULT_SECRET_ENV, raising=False)
    nlp = numbered_nlp(["osaka"], True)
    nlp.replace_pipe("masker", "masker", config={"strategy": {"@strategies": "spacy_sanitize.surrogate.v1"}})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        docs = list(nlp.pipe(["I love tokyo and osaka.", "Then osaka again."]))
    assert [str(w.message)[:6] for w in caught].count("[W100]") == 1
    assert "osaka" not in docs[1]._.sanitized.lower()
