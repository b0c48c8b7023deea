import pytest

from spacy_sanitize.corpus.tab import Mention, TabDocument, load_tab
from spacy_sanitize.evaluation import detection_scores, tab_scores

TEXT = "Anna Berg met Jonas in Oslo."


def two_annotators():
    return [
        TabDocument(
            "d1",
            TEXT,
            {
                "A": [
                    Mention(0, 9, "PERSON", "DIRECT", "A1"),
                    Mention(23, 27, "LOC", "QUASI", "A2"),
                    Mention(14, 19, "PERSON", "NO_MASK", "A3"),
                ],
                "B": [Mention(0, 9, "PERSON", "DIRECT", "B1"), Mention(14, 19, "PERSON", "QUASI", "B3")],
            },
        )
    ]


def test_hand_computed_two_annotators():
    scores = tab_scores(two_annotators(), {"d1": [[0, 9], [23, 27]]})
    # Masked words: Anna, Berg, Oslo. A agrees on 3, B on 2 -> 5 / 6.
    assert scores.precision == pytest.approx(5 / 6)
    # Words to mask: A: Anna Berg Oslo (3 masked), B: Anna Berg Jonas (2 masked) -> 5 / 6.
    assert scores.recall == pytest.approx(5 / 6)
    assert scores.f1 == pytest.approx(5 / 6)
    # Entities: A1 A2 B1 protected, B3 not.
    assert scores.entity_recall == pytest.approx(3 / 4)
    assert scores.direct_recall == 1.0
    assert scores.quasi_recall == pytest.approx(1 / 2)
    assert scores.recall_per_type == {"LOC": 1.0, "PERSON": pytest.approx(4 / 5)}


def test_entity_needs_all_mentions_masked():
    text = "Berg said Berg was Berg."
    doc = TabDocument("d", text, {"A": [Mention(s, s + 4, "PERSON", "DIRECT", "e") for s in (0, 10, 19)]})
    assert tab_scores([doc], {"d": [[0, 4], [10, 14]]}).direct_recall == 0.0
    assert tab_scores([doc], {"d": [[0, 4], [10, 14]]}).recall == pytest.approx(2 / 3)
    assert tab_scores([doc], {"d": [[0, 4], [10, 14], [19, 23]]}).direct_recall == 1.0


def test_function_words_are_not_counted_as_missed():
    text = "She studied at the University of Oslo."
    doc = TabDocument("d", text, {"A": [Mention(15, 37, "ORG", "QUASI", "e")]})
    # "the" (DET) and "of" (ADP) left in clear text do not count as missed.
    scores = tab_scores([doc], {"d": [[19, 29], [33, 37]]})
    assert scores.recall == 1.0 and scores.entity_recall == 1.0
    assert tab_scores([doc], {"d": [[19, 29]]}).entity_recall == 0.0


def test_partially_masked_word_is_not_masked():
    doc = TabDocument("d", TEXT, {"A": [Mention(0, 9, "PERSON", "DIRECT", "e")]})
    assert tab_scores([doc], {"d": [[0, 7]]}).recall == pytest.approx(1 / 2)


def test_weighted_precision_uses_weights():
    def weights(text, spans):
        return [10.0 if text[s:e] == "Oslo" else 1.0 for s, e in spans]

    scores = tab_scores(two_annotators(), {"d1": [[0, 9], [23, 27]]}, token_weighting=weights)
    # A: 1 + 1 + 10 of 12; B: 1 + 1 of 12.
    assert scores.weighted_precision == pytest.approx(14 / 24)


def test_detection_scores_with_and_without_labels():
    gold = [TabDocument("d", TEXT, {"A": [Mention(0, 9, "PERSON", "DIRECT", "e"), Mention(23, 27, "LOC", "QUASI", "l")]})]
    scores = detection_scores(gold, {"d": [[0, 9, "PERSON"], [23, 27, "ORG"], [14, 19, "PERSON"]]})
    assert scores.micro_unlabelled["P"] == pytest.approx(3 / 4)
    assert scores.micro_unlabelled["R"] == 1.0
    assert scores.micro_labelled["P"] == pytest.approx(2 / 4)
    assert scores.per_type["PERSON"]["P"] == pytest.approx(2 / 3)
    assert scores.per_type["LOC"]["R"] == 0.0


def test_wiki_mask_all_annotated_and_nothing(wiki_path):
    gold = load_tab(wiki_path)
    everything = {d.doc_id: [[m.start, m.end] for ms in d.annotations.values() for m in ms] for d in gold}
    scores = tab_scores(gold, everything)
    assert scores.recall == scores.entity_recall == scores.direct_recall == scores.quasi_recall == 1.0
    # Published value on the 100-document split these 70 come from: 0.80.
    assert 0.72 <= scores.precision <= 0.85
    nothing = tab_scores(gold, {})
    assert nothing.entity_recall == 0.0 and nothing.recall == 0.0
