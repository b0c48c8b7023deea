"""Long texts cut into pieces: masked strings carried forward, safe cuts, a valid piece size."""

import spacy

from spacy_sanitize.pipeline import merged_output, sanitize_texts

FILLER = " It was long." * 80


def kodnani_nlp(**masker_cfg):
    """The ruler knows only the full name: a later "Kodnani" alone is found by no detector."""
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns([{"label": "PERSON", "pattern": "Maya Kodnani"}])
    nlp.add_pipe("pii_ent_mapper")
    nlp.add_pipe("pii_coref")
    nlp.add_pipe("masker", config={"strategy": {"@strategies": "spacy_sanitize.numbered.v1"}, **masker_cfg})
    return nlp


FIRST = "Maya Kodnani was born in a city." + FILLER + "\n\n"
LATER = "Later, Kodnani denied it." + FILLER + "\n\n"


def test_a_name_masked_in_an_earlier_piece_is_masked_where_it_recurs():
    """Each piece was masked on its own: the surname alone, in the second piece, stayed."""
    (_, docs, offsets), = sanitize_texts(kodnani_nlp(), [FIRST + LATER + LATER], max_chars=len(FIRST) + 5)
    assert len(docs) == 3
    sanitized, rows = merged_output(docs, offsets)
    assert "Kodnani" not in sanitized and "Maya" not in sanitized
    assert sanitized.count("[PERSON 1]") == 3  # the record's entity, its number
    assert {row[3] for row in rows} == {"e1"}


def test_nothing_is_carried_when_the_masker_does_not_propagate():
    (_, docs, offsets), = sanitize_texts(kodnani_nlp(propagate=False), [FIRST + LATER], max_chars=len(FIRST) + 5)
    assert len(docs) == 2
    assert merged_output(docs, offsets)[0].count("Kodnani") == 1
