"""The masking plan (one lower layer for the masker, risk_infer and the evaluation), its
propagation engine and name-part rule (pii_coref's too), and risk_infer's delta scoring."""
import ast
import pathlib
import random
import time

import numpy as np
import pytest
import spacy
from spacy.tokens import Span

import spacy_sanitize

from spacy_sanitize.evaluation import predicted_mask_offsets
from spacy_sanitize.masker.plan import PlanSettings, masking_plan
from spacy_sanitize.text import NamePartRule, fold, mention_key, name_parts, occurrences
from spacy_sanitize.decide.infer.attacker import LinearAttacker

MASKER_CONFIG = {
    "allow_list": ["Acme"], "deny_list": ["Zorg", ["Blue Lagoon", "LOC"]], "overlap": "separate",
    "min_propagate_chars": 4,
}
TEXT = "John Smith of Acme met Zorg at the Blue Lagoon. Smith left Acme; John stayed."


def random_attacker(words, seed=0):
    vocab = {w: i for i, w in enumerate(dict.fromkeys(words))}
    coef = np.random.default_rng(seed).normal(0, 1, size=(3, len(vocab))).astype(np.float32)
    return LinearAttacker(["A", "B", "C"], vocab, coef, np.zeros(3))


def infer_pipeline(words, masker_config=None, threshold=1.0):
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_infer", config={"threshold": threshold})
    nlp.get_pipe("risk_infer").attacker = random_attacker(words)
    if masker_config is not None:
        nlp.add_pipe("masker", config=masker_config)
    return nlp


def test_masker_risk_infer_and_evaluation_follow_one_plan():
    nlp = infer_pipeline(["john", "smith"], MASKER_CONFIG)
    doc = nlp.make_doc(TEXT)
    doc.spans["pii"] = [Span(doc, 0, 2, label="PERSON"), Span(doc, 3, 4, label="ORG")]
    expected = masking_plan(doc, PlanSettings.from_config(MASKER_CONFIG))
    masker = nlp.get_pipe("masker")
    assert masker.regions(doc) == expected
    assert nlp.get_pipe("risk_infer").plan(doc) == expected
    assert predicted_mask_offsets(doc, settings=masker.plan_settings) == [[r.start, r.end] for r in expected]
    masked = [doc.text[r.start : r.end] for r in expected]
    assert masked == ["John Smith", "Zorg", "Blue Lagoon", "Smith", "John"]  # Acme is allowed
    assert masker(doc)._.replacements == [[r.start, r.end] + row[2:] for r, row in zip(expected, doc._.replacements)]


def test_risk_infer_uses_default_rules_without_a_masker_on_its_span_group():
    nlp = infer_pipeline(["john"], {**MASKER_CONFIG, "spans_key": "other"})
    doc = nlp.make_doc(TEXT)
    doc.spans["pii"] = [Span(doc, 3, 4, label="ORG")]
    assert nlp.get_pipe("risk_infer").plan_settings() == PlanSettings()
    assert [doc.text[r.start : r.end] for r in nlp.get_pipe("risk_infer").plan(doc)] == ["Acme", "Acme"]


def test_no_risk_module_reaches_into_the_masker():
    root = pathlib.Path(spacy_sanitize.__file__).parent
    offenders = []
    for path in sorted((root / "risk").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names] if isinstance(node, ast.Import) else []
            offenders += [f"{path.name}: {n}" for n in names if n == "masker" or n.startswith("masker.") or ".masker" in n]
    assert offenders == []


def test_the_plan_is_a_lower_layer_of_the_masker():
    """masker/plan.py reads the text helpers, the doc's text read once (doc_reads) and the data
    contract, never the masker's component or strategies: risk_infer and the evaluation call it
    without them."""
    path = pathlib.Path(spacy_sanitize.__file__).parent / "masker" / "plan.py"
    modules = [node.module or "" for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.ImportFrom) and node.level]
    assert modules and all(m.split(".")[0] in ("doc_reads", "errors", "spans", "text", "types") for m in modules), modules


@pytest.mark.parametrize(
    "text,rule,parts",
    [
        ("Dr. Jean-Paul O'Brien's", NamePartRule(3), ["Jean-Paul", "O'Brien"]),  # titles, possessive
        ("Theresa May", NamePartRule(3), ["Theresa"]),  # month names are common words
        ("Li Wei 1990", NamePartRule(3), ["Wei"]),  # too short, no letter
        ("Ludwig van Beethoven", NamePartRule(3), ["Ludwig", "van", "Beethoven"]),
    ],
)
def test_masker_name_parts(text, rule, parts):
    assert name_parts(text, rule) == parts


@pytest.mark.parametrize(
    "word,accepted",
    [("Theresa", True), ("van", False), ("May", False), ("The", False), ("Judge", False), ("Al", False), ("Beethoven", True)],
)
def test_coref_name_part_rule_as_today(word, accepted):
    """pii_coref keeps its own settings of the rule: title-case tokens that are neither stop
    words nor titles (so, unlike the masker, not "van"; "may" is a stop word)."""
    coref = spacy.blank("en").add_pipe("pii_coref")
    assert coref.part_rule.accepts(word) is accepted


def test_coref_propagates_through_the_engine_on_token_boundaries():
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_coref")
    doc = nlp.make_doc("Anna Smith spoke. Smith agreed, Smithson said; Smith's dog. Ludwig van Beethoven met van Dyke.")
    doc.spans["pii"] = [Span(doc, 0, 2, label="PERSON"), Span(doc, 14, 17, label="PERSON")]
    doc = nlp.get_pipe("pii_coref")(doc)
    found = [(s.text, s._.entity_id) for s in doc.spans["pii"]]
    assert found == [("Anna Smith", "e1"), ("Smith", "e1"), ("Smith", "e1"), ("Ludwig van Beethoven", "e2")]


def test_one_text_folder():
    assert fold("Gujarāt") == "gujarat" and fold("MÜLLER") == "muller"
    assert mention_key("José Müller’s") == "jose muller"
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_coref", config={"propagate": False})
    doc = nlp.make_doc("José Müller came. Then JOSE MULLER left.")
    doc.spans["pii"] = [Span(doc, 0, 2, label="PERSON"), Span(doc, 5, 7, label="PERSON")]
    doc = nlp.get_pipe("pii_coref")(doc)
    assert [s._.entity_id for s in doc.spans["pii"]] == ["e1", "e1"]


def test_occurrences_cover_or_all():
    text = "John Smith met Smith; Smithson did not."
    assert occurrences(text, ["Smith", "John Smith"]) == [(0, 10, "John Smith"), (15, 20, "Smith")]
    assert occurrences(text, ["Smith", "John Smith"], overlapping=True) == [(0, 10, "John Smith"), (5, 10, "Smith"), (15, 20, "Smith")]


def test_names_also_match_without_their_diacritics():
    # chat and logins drop accents and letters like "ł" and "ø" (leak cases "lukasz", "soren", "renee")
    text = "Łukasz and Søren met Renée. lukasz, soren and renee left; Lukaszewski stayed."
    found = occurrences(text, ["Łukasz", "Søren", "Renée"], any_case=["Łukasz", "Søren", "Renée"])
    assert [text[a:b] for a, b, _ in found] == ["Łukasz", "Søren", "Renée", "lukasz", "soren", "renee"]
    # only the names given as any_case: other strings match as written
    assert [text[a:b] for a, b, _ in occurrences(text, ["Renée"])] == ["Renée"]


# --- risk_infer: entities scored by deltas --------------------------------------------

def full_recomputation(infer, doc, spans):
    """The old way: flip each entity's masks and rebuild the plan and the view."""
    groups = {}
    for span in spans:
        groups.setdefault(span._.entity_id or f"{span.start_char}:{span.end_char}", []).append(span)
    p_now = float(infer.proba(doc).max())
    scores = {}
    for members in groups.values():
        saved = [s._.mask for s in members]
        masked_now = any(s._.mask is not False for s in members)
        for s in members:
            s._.mask = not masked_now
        p_other = float(infer.proba(doc).max())
        for s, value in zip(members, saved):
            s._.mask = value
        p_unmasked, p_masked = (p_other, p_now) if masked_now else (p_now, p_other)
        scores.update({(s.start_char, s.end_char): float(np.clip(p_unmasked - p_masked, 0, 1)) for s in members})
    return scores


WORDS = ["john", "smith", "mary", "kyoto", "temple", "visited", "john smith", "in kyoto", "smith loved", "the temple", "zorg", "acme"]
DOC_TEXT = "John Smith visited Kyoto. Mary Smith stayed in Kyoto with Acme. Smith loved the temple near Zorg. Later John went home to Kyoto."


@pytest.mark.parametrize("masker_config", [None, {"allow_list": ["Acme"], "deny_list": ["Zorg"]}, {"propagate": False}, {"overlap": "separate"}])
def test_delta_scores_equal_a_full_recomputation(masker_config):
    nlp = infer_pipeline(WORDS, masker_config)
    infer = nlp.get_pipe("risk_infer")
    doc = nlp.make_doc(DOC_TEXT)
    spans = [Span(doc, 0, 2, label="PERSON"), Span(doc, 6, 8, label="PERSON"), Span(doc, 3, 4, label="LOC"), Span(doc, 12, 13, label="ORG")]
    for span, entity in zip(spans, ["e1", "e2", "e3", "e4"]):
        span._.entity_id = entity
    spans[2]._.mask = False  # Kyoto: scored by masking it (and its propagated mentions)
    spans[3]._.mask = False
    doc.spans["pii"] = spans
    expected = full_recomputation(infer, doc, spans)
    doc = infer(doc)
    got = {(s.start_char, s.end_char): s._.risk["infer"] for s in doc.spans["pii"]}
    assert got == pytest.approx(expected, abs=1e-12)
    assert any(v > 0.01 for v in got.values())  # not all trivially zero


def test_delta_scoring_keeps_a_shared_surname_masked():
    """Unmasking John Smith leaves "Smith" masked while Mary Smith is (the plan propagates
    her surname too)."""
    nlp = infer_pipeline(["smith", "loved", "smith loved"], {})
    infer = nlp.get_pipe("risk_infer")
    doc = nlp.make_doc("John Smith came. Mary Smith came. Smith loved it.")
    spans = [Span(doc, 0, 2, label="PERSON"), Span(doc, 4, 6, label="PERSON")]
    spans[0]._.entity_id, spans[1]._.entity_id = "e1", "e2"
    doc.spans["pii"] = spans
    expected = full_recomputation(infer, doc, spans)
    doc = infer(doc)
    assert {(s.start_char, s.end_char): s._.risk["infer"] for s in doc.spans["pii"]} == pytest.approx(expected, abs=1e-12)


def many_entities(n, seed=0):
    rng = random.Random(seed)
    names = [f"Name{chr(97 + i % 26)}{i}" for i in range(n)]
    words = ["the", "court", "held", "in", "kyoto", "tokyo", "ramen", "temple"]
    nlp = infer_pipeline(words + [nm.lower() for nm in names] + ["held in", "in kyoto"], {"deny_list": ["ramen"]})
    pieces = [f"{rng.choice(words)} {nm} Smith {rng.choice(words)} in {rng.choice(['kyoto', 'tokyo'])}." for nm in names]
    pieces += [f"Later {nm} left." for nm in names[::3]]
    doc = nlp.make_doc(" ".join(pieces))
    spans = []
    for i, nm in enumerate(names):
        start = doc.text.index(nm + " Smith")
        span = doc.char_span(start, start + len(nm) + 6, label="PERSON")
        span._.entity_id = f"e{i}"
        span._.mask = False if i % 4 == 1 else None
        spans.append(span)
    doc.spans["pii"] = spans
    return nlp.get_pipe("risk_infer"), doc


def test_entity_scoring_is_linear():
    """400 entities: the old per-entity rebuild of the plan and the view took 22 s; the
    delta scoring takes a fraction of a second (a generous bound for a shared machine)."""
    infer, doc = many_entities(400)
    started = time.perf_counter()
    infer(doc)
    assert time.perf_counter() - started < 3.0
    assert all("infer" in s._.risk for s in doc.spans["pii"])
    small_infer, small = many_entities(30)
    spans = list(small.spans["pii"])
    expected = full_recomputation(small_infer, small, spans)
    small_infer(small)
    assert {(s.start_char, s.end_char): s._.risk["infer"] for s in spans} == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    "strings",
    [["Smith", "John Smith"], ["(Zorg)", "Zorg", "Acme Inc."], ["Smith-Jones", "Jones", "Smith"], ["Kyoto"]],
)
def test_the_delta_index_finds_what_the_engine_finds(strings):
    from spacy_sanitize.decide.infer.delta import EntityDeltas

    nlp = infer_pipeline(["smith"], {"deny_list": strings})
    doc = nlp.make_doc("John Smith met Smith-Jones; Smithson (Zorg) of Acme Inc.. Jones, Zorg's and Kyoto_2 Kyoto.")
    deltas = EntityDeltas(nlp.get_pipe("risk_infer"), doc, nlp.get_pipe("masker").plan_settings)
    assert deltas._cover(strings) == occurrences(doc.text, strings)
    near = sorted(deltas._near(0, len(doc.text)))
    assert near == occurrences(doc.text, strings, overlapping=True)


def _person_doc(text, spans):
    doc = spacy.blank("en").make_doc(text)
    doc.spans["pii"] = [doc.char_span(s, e, label=label) for s, e, label in spans]
    for span in doc.spans["pii"]:
        span._.entity_id = span.text
    return doc


def test_mask_titles_takes_the_title_into_person_regions_and_their_repeats():
    """TAB marks "Mr Galip Yalman" whole: with mask_titles the title goes with the name (and
    with the repeats propagation finds), never across a line break, never into other labels."""
    text = "Mr Galip Yalman sued. Later Mr Yalman and Judge Ross spoke.\nDr\nGalip Yalman left Mr Smith Ltd today."
    spans = [(text.index(w), text.index(w) + len(w), label) for w, label in [("Galip Yalman", "PERSON"), ("Ross", "PERSON"), ("Smith Ltd", "ORG")]]
    doc = _person_doc(text, spans)

    def masked(settings):
        return [text[r.start : r.end] for r in masking_plan(doc, settings)]

    plain = masked(PlanSettings())
    assert "Galip Yalman" in plain and "Mr Galip Yalman" not in plain and "Yalman" in plain
    titled = masked(PlanSettings(mask_titles=True))
    assert titled[:3] == ["Mr Galip Yalman", "Mr Yalman", "Judge Ross"]
    assert "Galip Yalman" in titled[3:] and "Dr\nGalip Yalman" not in titled  # "Dr" is on the line before
    assert "Smith Ltd" in titled and "Mr Smith Ltd" not in titled  # an ORG keeps its own boundary
    assert PlanSettings.from_config({"mask_titles": True}).mask_titles


def test_masker_mask_titles_setting_reaches_the_plan():
    nlp = spacy.blank("en")
    nlp.add_pipe("masker", config={"mask_titles": True, "strategy": {"@strategies": "spacy_sanitize.redact.v1"}})
    doc = _person_doc("Mrs Ada Byron wrote.", [(4, 13, "PERSON")])
    doc = nlp.get_pipe("masker")(doc)
    assert doc._.replacements[0][0] == 0 and "Mrs" not in doc._.sanitized
