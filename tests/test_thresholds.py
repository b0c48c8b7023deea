"""The one threshold chooser (evaluation.thresholds) that every fitting and the decision's CV use."""
import pytest

from spacy_sanitize.evaluation.thresholds import best_threshold, objective_value, recall_first_threshold


def row(p, f1, r_direct, r_quasi):
    return {"P": p, "F1": f1, "R_direct": r_direct, "R_quasi": r_quasi}


CURVE = {
    0.3: row(0.70, 0.80, 1.00, 0.93),
    0.4: row(0.80, 0.85, 0.99, 0.905),
    0.5: row(0.85, 0.85, 0.97, 0.88),
    0.6: row(0.90, 0.82, 0.90, 0.80),
}


def test_best_f1_ties_go_to_the_lower_threshold():
    assert best_threshold(CURVE, "F1") == 0.4  # 0.4 and 0.5 tie: the one that masks more


def test_paper_objective_is_precision_plus_both_recalls():
    assert objective_value(CURVE[0.5], "paper") == pytest.approx(0.85 + 0.97 + 0.88)
    assert best_threshold(CURVE, "paper") == 0.5  # 2.70 against 2.63, 2.695, 2.60
    assert best_threshold({t: r for t, r in CURVE.items() if t != 0.5}, "paper") == 0.4


def test_objective_can_be_a_function_of_a_row():
    assert best_threshold(CURVE, lambda r: r["P"]) == 0.6


def test_f1_setting_name_is_the_f1_column():
    assert objective_value(CURVE[0.3], "f1") == objective_value(CURVE[0.3], "F1") == 0.80


def test_recall_first_takes_the_highest_that_keeps_quasi_recall():
    assert recall_first_threshold(CURVE, 0.9) == 0.4
    assert recall_first_threshold(CURVE, 0.95) == 0.3  # none reaches it: the lowest (safest)


def test_an_empty_curve_is_an_error():
    with pytest.raises(ValueError, match="E098"):
        best_threshold({}, "F1")
    with pytest.raises(ValueError, match="E098"):
        recall_first_threshold({}, 0.9)
