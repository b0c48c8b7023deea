"""pii_patterns (your own recognizers merged by the longest-span rule) and the warning for a
component that replaces the pii span group (W010, #19 item 2)."""
import re
import warnings
from pathlib import Path

import pytest
import spacy
from spacy.language import Language

import spacy_sanitize  # noqa: F401
from spacy_sanitize.decide.check import group_replacers

EMPLOYEE = {"label": "CODE", "pattern": [{"TEXT": {"REGEX": r"^EMP-\d{4}$"}}], "id": "employee", "score": 0.4, "context": ["employee", "staff"]}
TEXT = "Employee EMP-1234 of Acme Corp wrote to anna@example.org about ticket EMP-9999, cc Mr Per Aasen."


def detector_nlp(*extra: str) -> Language:
    nlp = spacy.blank("en")
    for name in ("pii_codes", "pii_titles", *extra):
        nlp.add_pipe(name)
    return nlp


def test_patterns_merge_into_the_group_and_explain_their_score():
    nlp = detector_nlp()
    ruler = nlp.add_pipe("pii_patterns", config={"phrase_matcher_attr": "LOWER"})
    ruler.add_patterns([EMPLOYEE, {"label": "ORG", "pattern": "acme corp", "id": "acme"}])
    nlp.add_pipe("masker")
    doc = nlp(TEXT)
    assert doc._.sanitized == "Employee [CODE] of [ORG] wrote to [CODE] about ticket [CODE], cc Mr [PERSON]."
    spans = {span.text: span for span in doc.spans["pii"]}
    assert set(spans) == {"EMP-1234", "Acme Corp", "anna@example.org", "Per Aasen", "EMP-9999"}
    assert spans["Acme Corp"]._.risk_explain == {"detector": "pii_patterns:acme", "pii_patterns": {"pattern": "acme", "score": 0.85, "context": []}}
    # context words raise the score; a match without them keeps the pattern's own score
    assert spans["EMP-1234"]._.risk_explain["pii_patterns"] == {"pattern": "employee", "score": 0.75, "context": ["employee"]}
    assert spans["EMP-9999"]._.risk_explain["pii_patterns"]["score"] == 0.4
    assert spans["anna@example.org"]._.risk_explain == {"detector": "pii_codes:email_address", "validated": "CODE"}


def test_the_longest_span_wins_either_way():
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_titles")  # "Per Aasen" (2 tokens)
    ruler = nlp.add_pipe("pii_patterns")
    ruler.add_patterns([{"label": "PERSON", "pattern": "Aasen"}, {"label": "ORG", "pattern": "Aasen Shipping Group"}])
    doc = nlp("Mr Per Aasen met Aasen Shipping Group.")
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [("Per Aasen", "PERSON"), ("Aasen Shipping Group", "ORG")]


def test_threshold_keeps_only_matches_with_context():
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("pii_patterns", config={"threshold": 0.5, "context_words": ["badge"], "context_window": 2})
    ruler.add_patterns([{"label": "CODE", "pattern": [{"SHAPE": "dddd"}], "score": 0.3}])
    doc = nlp("Badge 4711 was used in 2019.")
    assert [s.text for s in doc.spans["pii"]] == ["4711"]
    assert doc.spans["pii"][0]._.risk_explain["pii_patterns"]["context"] == ["badge"]


def test_initialize_from_config_and_disk_round_trip(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_patterns", config={"context_boost": 0.2})
    nlp.initialize()
    assert len(nlp.get_pipe("pii_patterns")) == 0
    nlp.get_pipe("pii_patterns").initialize(patterns=[EMPLOYEE, {"label": "ORG", "pattern": "Acme Corp"}])
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    ruler = loaded.get_pipe("pii_patterns")
    assert ruler.patterns == nlp.get_pipe("pii_patterns").patterns and len(ruler) == 2
    assert ruler.context_boost == 0.2  # a setting comes from the config
    doc = loaded(TEXT)
    assert [s.text for s in doc.spans["pii"]] == ["EMP-1234", "Acme Corp", "EMP-9999"]
    # exclude is honoured: the patterns are not read
    fresh = spacy.blank("en")
    fresh.add_pipe("pii_patterns").from_disk(tmp_path / "p" / "pii_patterns", exclude=["patterns"])
    assert len(fresh.get_pipe("pii_patterns")) == 0
    again = spacy.blank("en").add_pipe("pii_patterns").from_bytes(ruler.to_bytes())
    assert again.patterns == ruler.patterns


def test_initialize_patterns_from_the_config_section():
    config = {"initialize": {"components": {"pii_patterns": {"patterns": [{"label": "ORG", "pattern": "Acme Corp"}]}}}}
    nlp = spacy.blank("en", config=config)
    nlp.add_pipe("pii_patterns")
    nlp.initialize()
    doc = nlp("Acme Corp")
    assert [s.label_ for s in doc.spans["pii"]] == ["ORG"]


@pytest.mark.parametrize(
    "patterns,config",
    [
        ([{"label": "NAME", "pattern": "x"}], {}),
        ([{"pattern": "x"}], {}),
        ([{"label": "ORG", "pattern": ""}], {}),
        ([{"label": "ORG", "pattern": "x", "score": 2}], {}),
        ([{"label": "ORG", "pattern": "x", "context": "word"}], {}),
        ([], {"phrase_matcher_attr": "LEMMA"}),
        ([], {"threshold": -1}),
    ],
)
def test_bad_patterns_and_settings_are_errors(patterns, config):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match=r"\[E0(01|3\d)\]"):
        nlp.add_pipe("pii_patterns", config=config).add_patterns(patterns)


def test_span_ruler_replacing_the_group_is_warned_and_named():
    """spaCy's span_ruler overwrites doc.spans['pii'] by default: the names and e-mails the
    detectors found leak. Before W010 nothing said so."""
    nlp = detector_nlp()
    nlp.add_pipe("span_ruler", config={"spans_key": "pii"}).add_patterns([{"label": "ORG", "pattern": "Acme Corp"}])
    nlp.add_pipe("masker")
    with pytest.warns(UserWarning, match=r"\[W010\] component 'span_ruler'.*with 1 span\(s\) where the detectors before it wrote 2.*'overwrite': False"):
        doc = nlp(TEXT)
    assert "anna@example.org" in doc._.sanitized  # the leak the warning is about
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nlp(TEXT)  # checked once: the second document costs nothing and warns nothing


@pytest.mark.parametrize("config", [{"spans_key": "pii", "overwrite": False}, {"spans_key": "other"}])
def test_a_span_ruler_that_adds_is_not_warned(config):
    nlp = detector_nlp()
    nlp.add_pipe("span_ruler", config=config).add_patterns([{"label": "ORG", "pattern": "Acme Corp"}])
    nlp.add_pipe("masker")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        doc = nlp(TEXT)
    assert "anna@example.org" not in doc._.sanitized


def test_group_check_runs_nothing_when_every_component_is_ours():
    calls = []

    @Language.component("test_patterns_counter")
    def counter(doc):
        calls.append(doc.text)
        return doc

    nlp = detector_nlp("pii_patterns")
    assert group_replacers(nlp, TEXT) == []
    # a generic model's components come first (the shipped pipelines): nothing to re-run
    nlp.add_pipe("test_patterns_counter", first=True)
    assert group_replacers(nlp, TEXT) == [] and calls == []
    nlp.add_pipe("test_patterns_counter", name="counter_after")
    assert group_replacers(nlp, TEXT) == [] and calls == [TEXT, TEXT]  # ran once up to it, shrank nothing


def test_the_guide_example_runs_as_shown(capsys):
    """docs/patterns.md's example prints what the guide shows (the commented lines)."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "patterns.md").read_text(encoding="utf8")
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    exec(compile(code, "docs/patterns.md", "exec"), {})
    shown = [line[2:] for line in code.splitlines() if line.startswith("# ")]
    assert capsys.readouterr().out.splitlines() == shown
