"""The court benchmarks' own logic on tiny data: tab_eval's decision with the person to protect
and with the protection rules, ner_eval's boundary counts and title variant."""
import sys
from pathlib import Path

import pytest

from spacy_sanitize.corpus import Mention, TabDocument

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks" / "quality"))
ner_eval = pytest.importorskip("ner_eval")
tab_eval = pytest.importorskip("tab_eval")

TEXT = "Mr Galip Yalman sued Turkey before Judge Smith."
ROWS = [[3, 15, "PERSON", "e1", 0.1], [21, 27, "LOC", "e2", 0.1], [41, 46, "PERSON", "e3", 0.1]]


def test_tab_eval_decision_with_the_applicant():
    masked = tab_eval.Masker({"d": TEXT}, {"d": ROWS}, persons={"d": "Galip Yalman"})
    none, person = tab_eval.NO_RULES, tab_eval.policy_rules({"protect": ["PERSON"]})
    decide = [masked.decision("d", r, 0.5, none, True) for r in ROWS]
    assert decide == [True, False, False]  # only the applicant's name stays masked
    assert [masked.decision("d", r, 0.5, none, False) for r in ROWS] == [False, False, False]
    assert [masked.decision("d", r, 0.5, person, False) for r in ROWS] == [True, False, True]
    plan = masked({"d": ROWS}, 0.5, none, True)["d"]
    assert [3, 15] in [list(p) for p in plan] and not any(p[0] == 21 for p in plan)


def test_ner_eval_titles_and_boundaries():
    spans = [[3, 15, "PERSON"], [21, 27, "LOC"], [41, 46, "PERSON"]]
    assert ner_eval.with_titles(TEXT, spans) == [[0, 15, "PERSON"], [21, 27, "LOC"], [35, 46, "PERSON"]]
    gold = [TabDocument("d", TEXT, {"a1": [Mention(0, 15, "PERSON", "DIRECT", "e1", "m1", TEXT[0:15]),
                                           Mention(21, 27, "LOC", "NO_MASK", "e2", "m2", "Turkey")]})]
    counts = ner_eval.boundary_counts(gold, {"d": spans})
    assert counts == {"overlapped": 2, "exact": 1, "other_boundaries": 1, "title_left_out": 1}
    assert ner_eval.boundary_counts(gold, {"d": ner_eval.with_titles(TEXT, spans)})["exact"] == 2


def test_tab_eval_masks_titles_with_names_when_asked():
    from spacy_sanitize.masker.plan import PlanSettings

    rows = {"d": ROWS}
    plain = tab_eval.Masker({"d": TEXT}, rows)(rows, 0.0, tab_eval.NO_RULES)["d"]
    titled = tab_eval.Masker({"d": TEXT}, rows, plan=PlanSettings(mask_titles=True))(rows, 0.0, tab_eval.NO_RULES)["d"]
    assert [3, 15] in [list(p) for p in plain] and [0, 15] in [list(p) for p in titled] and [35, 46] in [list(p) for p in titled]


def test_tab_eval_decision_replays_the_protection_rules():
    """tab_eval decides cached rows with risk_threshold's rules (decide/rules.py): detected rows
    carry the detector and the validated flag, out-of-fold rows only the risk."""
    text = "Yilmaz v. Turkey, born 3 May 1950, at LS21 3HJ; THORNBURY LIMITED."
    at = text.index
    detected = [[at("Yilmaz"), at("Yilmaz") + 6, "LOC", "e1", None, "pii_ner", False],
                [at("Turkey"), at("Turkey") + 6, "LOC", "e2", None, "pii_ner", False],
                [at("3 May"), at("3 May") + 10, "DATETIME", "e3", None, "pii_ner", False],
                [at("LS21"), at("LS21") + 8, "LOC", "e4", None, "pii_ner", True],
                [at("THORN"), at("THORN") + 17, "ORG", "e5", None, "pii_titles:company", False]]
    oof = [row[:4] + [0.1] for row in detected]
    masked = tab_eval.Masker({"d": text}, {"d": detected})
    shipped = tab_eval.policy_rules(tab_eval.POLICIES["protect CODE, PERSON, listed names, name rules, validated codes, dates after cues"])
    assert [masked.decision("d", r, 0.5, shipped, False) for r in oof] == [True, False, True, True, True]
    labels_only = tab_eval.policy_rules(tab_eval.POLICIES["protect CODE, PERSON"])
    assert [masked.decision("d", r, 0.5, labels_only, False) for r in oof] == [False] * 5


def test_tab_eval_measures_the_protection_court_ships():
    """The policy tab_eval reports as `court`'s has parts/court.cfg's protection settings."""
    from spacy_sanitize.pipeline import config_path
    from thinc.api import Config

    decider = Config().from_disk(config_path("court"), interpolate=False)["components"]["risk_threshold"]
    policy = tab_eval.POLICIES[tab_eval.COURT_POLICY]
    keys = ("protect", "protect_names", "protect_detectors", "protect_validated", "protect_date_cues")
    assert {k: decider.get(k) for k in keys} == {k: policy.get(k) for k in keys}
    assert decider.get("date_cue_window", 5) == policy.get("date_cue_window", 5)


def test_detection_stage_is_what_comes_before_the_risk_stage():
    """tab_eval and train-stack detect with a pipeline's own detector: court's ends with pii_extend."""
    import spacy

    from spacy_sanitize.evaluation.scorer import detect_docs, detection_stage

    nlp = spacy.blank("en")
    nlp.add_pipe("pii_codes")
    nlp.add_pipe("pii_extend")
    nlp.add_pipe("risk_threshold", config={"indicator": "seq"})
    nlp.add_pipe("masker")
    assert detection_stage(nlp) == ["pii_codes", "pii_extend"]
    (doc,) = detect_docs(nlp, ["Call 555-123-4567 now."], ["d"])
    assert doc._.doc_id == "d" and [s.text for s in doc.spans["pii"]] == ["555-123-4567"]
    assert doc.spans["pii"][0]._.mask is None and not doc._.sanitized  # neither the decider nor the masker ran


def test_load_detector_cuts_a_shipped_config_before_its_risk_stage():
    """court's detector loads without its risk models (train-stack refits them)."""
    from spacy_sanitize.pipeline import is_risk_stage, load_detector

    nlp = load_detector("court")
    assert nlp.pipe_names[-1] == "pii_extend" and "pii_coref" in nlp.pipe_names
    assert not any(is_risk_stage(nlp.get_pipe_meta(n).factory) for n in nlp.pipe_names)
    doc = nlp("He was held at HMP Verne and paid approximately GBP 268,000 (EUR 310,000) to a British national.")
    found = {s.text for s in doc.spans["pii"]}
    assert "HMP Verne" in found and "approximately GBP 268,000 (EUR 310,000)" in found


def test_detected_cache_is_used_only_when_it_has_every_document(tmp_path):
    import json

    cache = tmp_path / "detected.json"
    row = [3, 15, "PERSON", "e1", None, "rule", False]
    cache.write_text(json.dumps({"d": [row]}))
    assert tab_eval.detected_rows([TEXT], ["d"], cache, "default") == {"d": [row]}
    # A document the cache lacks (it was written for a subsample): detected again, cache rewritten.
    rows = tab_eval.detected_rows([TEXT, "Ms Ada Lovelace lives in Paris."], ["d", "e"], cache, "default")
    assert set(rows) == {"d", "e"} and rows["d"] != [row]
    assert all(len(r) == tab_eval.DETECTED_ROW_LEN for r in rows["e"])
    assert set(json.loads(cache.read_text())) == {"d", "e"}


def test_seq_eval_pools_the_annotator_views_of_a_document():
    seq_eval = pytest.importorskip("seq_eval")
    from spacy_sanitize.evaluation import Tokens

    gold = [TabDocument("d", TEXT, {"a1": [Mention(3, 15, "PERSON", "DIRECT", "e1", "m1", TEXT[3:15])],
                                    "a2": [Mention(21, 27, "LOC", "QUASI", "e2", "m2", "Turkey")]})]
    # Two views of "d": each masks one of the two spans; pooled, both are masked.
    views = [[[3, 15, [0.9]], [21, 27, [0.1]]], [[3, 15, [0.1]], [21, 27, [0.9]]]]
    pooled = seq_eval.score(gold, ["d", "d"], views, "partial", 0.5, Tokens())
    assert pooled["R_all"] == 1.0
    assert seq_eval.score(gold, ["d"], views[1:], "partial", 0.5, Tokens())["R_all"] < 1.0


def test_seed000_tables_put_our_rows_next_to_the_published_ones():
    tables = pytest.importorskip("seed000_tables")
    row = {"P": 0.8, "P_w": 0.81, "R_all": 0.9, "F1": 0.85, "R_ent": 0.9, "R_direct": 1.0, "R_quasi": 0.9}
    llm = {"rows": {"gold/mask_all": row, "gold/frequency/logreg": row, "gold/frequency/text_hgb": row, "detected/mask_all": row}}
    perturb = {"documents": 92, "rows": {"gold/perturb-person/paper": dict(row, fold_thresholds=[-7.4, -2.3])}}
    seq = {"families": {"cnn": {"scores": {"annotated": {"full": {"0.5": row}, "partial": {"0.5": row}}}}}}
    mine = tables.ours("gold", llm, perturb, seq)
    assert list(mine) == ["Majority rule (mask everything)", "LLM probabilities, word frequencies (logistic regression)",
                          "Span classification, frequency + span text (boosted trees)",
                          "Perturbations (thresholds by CV: -7.4, -2.3; 92 documents)",
                          "Sequence labelling (cnn, strict match)", "Sequence labelling (cnn, partial match)"]
    assert "P_w" not in mine["Perturbations (thresholds by CV: -7.4, -2.3; 92 documents)"]  # not weighted there
    lines = tables.table("tab", "gold", mine)
    published = [line for line in lines if "(published)" in line]
    assert len(published) == len(tables.PUBLISHED[("tab", "gold")]) == 9
    assert "| 0.800 | 0.810 | 0.900 | 0.850 |" in lines[len(published) + 2]
    assert " | - | " in next(line for line in lines if line.startswith("| Perturbations (thresholds"))


def test_kofn_counts_votes_and_an_undecided_indicator_votes_mask():
    kofn = pytest.importorskip("kofn_eval")
    spans = {"d": [(0, 2), (3, 5), (6, 8)]}
    # member a decided on every span and masks the first; member b saw only the first two
    a = {"seen": {"d": [[0, 2], [3, 5], [6, 8]]}, "masked": {"d": [[0, 2]]}}
    b = {"seen": {"d": [[0, 2], [3, 5]]}, "masked": {"d": [[3, 5]]}}
    va, vb = kofn.votes(spans, a), kofn.votes(spans, b)
    assert va == {"d": [1, 0, 0]} and vb == {"d": [0, 1, 1]}  # (6, 8) unseen by b: MASK
    assert kofn.at_least(spans, [va, vb], 1) == {"d": [[0, 2], [3, 5], [6, 8]]}
    assert kofn.at_least(spans, [va, vb], 2) == {"d": []}


def test_tab_eval_replays_the_taggers_own_spans():
    """Rows of risk_seq's own spans (propose_threshold) at one threshold replace the spans they
    widened and add the new ones; a widened span keeps its detector for the protection rules."""
    text = "Mr Galip Yalman sued Turkey over the Gujarat riots in 1999."
    at = text.index
    detected = [[3, 15, "PERSON", "e1", None, "pii_titles", False], [at("Gujarat"), at("Gujarat") + 7, "LOC", "e2", None, "pii_ner", False]]
    tagged = {"d": [[3, 15, "PERSON", "e1", 0.1], [at("Gujarat"), at("Gujarat") + 7, "LOC", "e2", 0.1],
                    [at("Gujarat"), at("riots") + 5, "LOC", "e2", 0.9, tab_eval.WIDENED, 0.8, at("Gujarat"), at("Gujarat") + 7],
                    [at("1999"), at("1999") + 4, "MISC", None, 0.85, tab_eval.PROPOSED, 0.8],
                    [at("1999"), at("1999") + 4, "MISC", None, 0.85, tab_eval.PROPOSED, 0.5]]}
    plain = tab_eval.with_proposals(tagged, None)["d"]
    assert [r[:2] for r in plain] == [[3, 15], [at("Gujarat"), at("Gujarat") + 7]]
    own = tab_eval.with_proposals(tagged, 0.8)["d"]
    assert [r[:2] for r in own] == [[3, 15], [at("Gujarat"), at("riots") + 5], [at("1999"), at("1999") + 4]]
    masked = tab_eval.Masker({"d": text}, {"d": detected})
    rules = tab_eval.policy_rules({"protect_detectors": ["pii_titles"]})
    assert [list(p) for p in masked({"d": plain}, 0.5, rules)["d"]] == [[3, 15]]
    assert [list(p) for p in masked({"d": own}, 0.5, rules)["d"]] == [[3, 15], [at("Gujarat"), at("riots") + 5], [at("1999"), at("1999") + 4]]
    # the widened row is found by its old offsets: the detector's rule still holds it
    widened = tab_eval.with_proposals({"d": [[3, 15, "PERSON", "e1", 0.1], [0, 15, "PERSON", "e1", 0.2, tab_eval.WIDENED, 0.8, 3, 15]]}, 0.8)["d"]
    assert masked.decision("d", widened[0], 0.5, rules, False) is True
