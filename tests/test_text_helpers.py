"""The shared word helpers of text.py that the coreference linker and the person to protect use."""
from spacy_sanitize.text import mention_key, words


def test_words_are_casefolded_word_runs():
    assert words("Mr Galip YALMAN, (née Öz)") == ["mr", "galip", "yalman", "née", "öz"]
    assert words("— !") == []


def test_mention_key_folds_and_drops_a_final_possessive():
    assert mention_key("Gujarāt's") == "gujarat"
    assert mention_key("the  High-Court's") == "the high court"
    assert mention_key("St. James's Park") == "st james s park"  # only a final possessive goes
    assert mention_key("ÖZ") == mention_key("oz")
