"""The court benchmarks' own logic on tiny data: tab_eval's decision with the person to protect,
ner_eval's boundary counts and title variant."""
import sys
from pathlib import Path

import pytest

from spacy_sanitize.corpus import Mention, TabDocument

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
ner_eval = pytest.importorskip("ner_eval")
tab_eval = pytest.importorskip("tab_eval")

TEXT = "Mr Galip Yalman sued Turkey before Judge Smith."
ROWS = [[3, 15, "PERSON", "e1", 0.1], [21, 27, "LOC", "e2", 0.1], [41, 46, "PERSON", "e3", 0.1]]


def test_tab_eval_decision_with_the_applicant():
    masked = tab_eval.Masker({"d": TEXT}, {"d": ROWS}, persons={"d": "Galip Yalman"})
    decide = [masked.decision("d", r, 0.5, [], True) for r in ROWS]
    assert decide == [True, False, False]  # only the applicant's name stays masked
    assert [masked.decision("d", r, 0.5, [], False) for r in ROWS] == [False, False, False]
    assert [masked.decision("d", r, 0.5, ["PERSON"], False) for r in ROWS] == [True, False, True]
    plan = masked({"d": ROWS}, 0.5, [], True)["d"]
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
    from spacy_sanitize.masking_plan import PlanSettings

    rows = {"d": ROWS}
    plain = tab_eval.Masker({"d": TEXT}, rows)(rows, 0.0, [])["d"]
    titled = tab_eval.Masker({"d": TEXT}, rows, plan=PlanSettings(mask_titles=True))(rows, 0.0, [])["d"]
    assert [3, 15] in [list(p) for p in plain] and [0, 15] in [list(p) for p in titled] and [35, 46] in [list(p) for p in titled]
