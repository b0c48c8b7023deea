import importlib.util
import json
from pathlib import Path
from typing import List

import pytest
import spacy

import spacy_sanitize  # noqa: F401  (registers extensions and factories)
from spacy_sanitize.corpus import shared_data_dir

DATA = shared_data_dir()


def rules_config(strategy: str, names: List[str]) -> str:
    """A small pipeline config for CLI tests: an entity ruler finding ``names`` as PERSON,
    the NER mapping, coreference and the masker with ``strategy`` (a registered name)."""
    patterns = ", ".join(json.dumps({"label": "PERSON", "pattern": name}) for name in names)
    return f"""
[nlp]
lang = "en"
pipeline = ["entity_ruler", "pii_ent_mapper", "pii_coref", "masker"]

[components]

[components.entity_ruler]
factory = "entity_ruler"

[components.pii_ent_mapper]
factory = "pii_ent_mapper"

[components.pii_coref]
factory = "pii_coref"

[components.masker]
factory = "masker"

[components.masker.strategy]
@strategies = "{strategy}"

[initialize]

[initialize.components]

[initialize.components.entity_ruler]
patterns = [{patterns}]
"""


def data_file(*parts: str) -> Path:
    path = DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data file {path} is absent (set SPACY_SANITIZE_DATA to the shared/data folder)")
    return path


@pytest.fixture
def wiki_path() -> Path:
    return data_file("wiki", "wiki_dev.json")


def court_threshold() -> float:
    """The risk_stack threshold the shipped court config decides with (a refit may move it)."""
    from thinc.api import Config

    from spacy_sanitize.pipeline import config_path

    return float(Config().from_disk(config_path("court"), interpolate=False)["components"]["risk_threshold"]["threshold"])


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
def ensemble_nlp():
    return spacy_sanitize.load_pipeline("ensemble")


@pytest.fixture(scope="session")
def accurate_nlp():
    return spacy_sanitize.load_pipeline("accurate")


# the smallest pipeline with a masker: the code rules (tests of the front doors, batch and Ray)
CODES_CONFIG = """
[nlp]
lang = "en"
pipeline = ["pii_codes", "masker"]

[components]

[components.pii_codes]
factory = "pii_codes"

[components.masker]
factory = "masker"
"""


def load_script(*parts: str):
    """A script of the repository (``benchmarks/everyday/leaks.py``, ``scripts/compose_configs.py``)
    loaded as a module by its path: the scripts are no package."""
    path = Path(__file__).resolve().parents[1].joinpath(*parts)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
