"""No state crosses service requests, and a request runs only shipped strategies (issue #36):
`numbered` with `across_docs: true` numbered one client's names by what another client sent,
in a table that grew without bound; `custom` called any registry.misc function with the
client's arguments."""
import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from spacy_sanitize.serve import ServeSettings, create_app  # noqa: E402


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(ServeSettings()))


@pytest.mark.parametrize("body", [
    {"strategy": {"name": "numbered", "across_docs": True}},
    {"strategy": "numbered", "operators": {"PERSON": {"name": "numbered", "across_docs": True}}},
    {"strategy": {"name": "custom", "function": "spacy.LookupsDataLoader.v1"}},
    {"operators": {"PERSON": {"name": "custom", "function": "spacy.LookupsDataLoader.v1"}}},
    # a keyed strategy over another environment variable: its ids would confirm a guess of its value
    {"strategy": {"name": "pseudonym", "secret_env": "HOME", "id_length": 32}},
    {"operators": {"PERSON": {"name": "surrogate", "secret_env": "PATH"}}},
])
def test_cross_request_state_and_custom_strategies_are_refused(client, body):
    answer = client.post("/sanitize", json={"text": "probe: Carlos Mendes", **body})
    assert answer.status_code == 422, answer.text
    assert "E045" in answer.text


def test_numbering_restarts_with_every_request(client):
    first = client.post("/sanitize", json={"text": "Anna Berg wrote to Carlos Mendes.", "strategy": "numbered"}).json()
    second = client.post("/sanitize", json={"text": "Carlos Mendes wrote back.", "strategy": "numbered"}).json()
    assert first["sanitized"] == "[PERSON 1] wrote to [PERSON 2]."
    assert second["sanitized"] == "[PERSON 1] wrote back."
