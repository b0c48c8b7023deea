import os
from pathlib import Path

import pytest
import spacy

import spacy_sanitize  # noqa: F401  (registers extensions and factories)

DATA = Path(os.environ.get("SPACY_SANITIZE_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def data_file(*parts: str) -> Path:
    path = DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data file {path} is absent (set SPACY_SANITIZE_DATA to the shared/data folder)")
    return path


@pytest.fixture
def wiki_path() -> Path:
    return data_file("wiki", "wiki_dev.json")


@pytest.fixture
def nlp_blank():
    return spacy.blank("en")


@pytest.fixture(scope="session")
def default_nlp():
    return spacy_sanitize.load_pipeline("default")
