from pathlib import Path

import pytest
import spacy

import spacy_sanitize  # noqa: F401  (registers extensions and factories)
from spacy_sanitize.corpus import shared_data_dir

DATA = shared_data_dir()


def data_file(*parts: str) -> Path:
    path = DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data file {path} is absent (set SPACY_SANITIZE_DATA to the shared/data folder)")
    return path


@pytest.fixture
def wiki_path() -> Path:
    return data_file("wiki", "wiki_dev.json")


@pytest.fixture
def tab_dev_texts_path() -> Path:
    return data_file("tab", "tab_dev_texts.jsonl")


@pytest.fixture
def nlp_blank():
    return spacy.blank("en")


@pytest.fixture(scope="session")
def default_nlp():
    return spacy_sanitize.load_pipeline("default")


@pytest.fixture(scope="session")
def accurate_nlp():
    return spacy_sanitize.load_pipeline("accurate")
