"""``nlp.analyze_pipes()`` sees what each component reads and writes."""
import pytest
import spacy

import spacy_sanitize
from spacy_sanitize.pipeline import shipped_configs


@pytest.mark.parametrize("name", shipped_configs())
def test_shipped_pipelines_have_no_analysis_problems(name):
    nlp = spacy_sanitize.load_pipeline(name)
    analysis = nlp.analyze_pipes(pretty=False)
    assert {pipe: problems for pipe, problems in analysis["problems"].items() if problems} == {}


def test_relabel_declares_the_ents_it_reads():
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_codes")
    nlp.add_pipe("pii_relabel")
    problems = nlp.analyze_pipes(pretty=False)["problems"]
    assert sorted(problems["pii_relabel"]) == ["doc.ents"]  # no tags: no tagger needed


@pytest.mark.parametrize(
    "factory,expected",
    [
        ("pii_coref", {"doc.spans", "span._.entity_id"}),
        ("pii_codes", {"doc.spans", "span._.risk_explain"}),
        ("pii_ner", {"doc.spans", "span._.risk_explain"}),
        ("pii_refine", {"doc.spans", "span._.risk_explain"}),
    ],
)
def test_assigns_are_declared(factory, expected):
    nlp = spacy.blank("en")
    assert expected <= set(nlp.get_factory_meta(factory).assigns)


def test_refine_requires_spans():
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_refine")
    assert nlp.analyze_pipes(pretty=False)["problems"]["pii_refine"] == ["doc.spans"]
