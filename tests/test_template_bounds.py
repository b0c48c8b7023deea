"""A placeholder template cannot amplify its input (issue #36, Medium): "{label:>5000000}"
turned a 106-byte service request into a 20 MB answer and width 10^9 exhausted memory."""
import pytest

from spacy_sanitize.registry import strategies

# each with a plain "{label}" too: a template without one is refused already ("needs '{label}'")
AMPLIFYING = ["{label}{label:>5000000}", "[{label}{label:^100}]", "[{label}{label:.1000}]", "[{label}{label:{label}}]"]


@pytest.mark.parametrize("template", AMPLIFYING)
@pytest.mark.parametrize("strategy,extra", [("spacy_sanitize.typed.v1", ""), ("spacy_sanitize.numbered.v1", "{n}")])
def test_wide_or_nested_formats_are_refused_at_construction(strategy, extra, template):
    with pytest.raises(ValueError, match=r"E101.*(widths and precisions above 64|nested)"):
        strategies.get(strategy)(template=template + extra)


def test_bounded_templates_and_unknown_fields():
    typed = strategies.get("spacy_sanitize.typed.v1")
    assert typed(template="<{label}|{label:>10}>").template == "<{label}|{label:>10}>"  # a small width is fine
    with pytest.raises(ValueError, match=r"E101.*field '\{secret\}' is not one of \{label\}"):
        typed(template="[{label}{secret}]")
    with pytest.raises(ValueError, match="E101.*longer than 256"):
        typed(template="[{label}]" + "x" * 300)
    with pytest.raises(ValueError, match="E101.*person_template format"):
        strategies.get("spacy_sanitize.generalize.v1")(person_template="[{label} {n} {n:>99999}]")


def test_the_service_refuses_an_amplifying_template():
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from spacy_sanitize.serve import ServeSettings, create_app

    client = TestClient(create_app(ServeSettings()))
    answer = client.post("/sanitize", json={"text": "Anna Berg lives in Oslo.", "strategy": {"name": "typed", "template": "{label}{label:>5000000}"}})
    assert 400 <= answer.status_code < 500 and len(answer.content) < 2000
    assert "E101" in answer.text
