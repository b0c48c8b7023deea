"""The shipped domain MiniLM MLM is referenced like every other shipped artefact: its folder
(``minilm_mlm``) under ``[paths] sanitize_data``; the old name stored in shipped artefacts
still resolves to it."""
import shutil
import warnings

import pytest
import spacy
import srsly

import spacy_sanitize  # noqa: F401 (registers the factories)
from spacy_sanitize.lm.hf import HFMaskedLMScorer, make_hf_scorer, resolve_model
from spacy_sanitize.lm.base import SpanQuery
from spacy_sanitize.shipped import SHIPPED_MLM, current_name, data_path

from .lm_fixtures import build_tiny_bert, direct_logprobs

pytest.importorskip("torch")
pytest.importorskip("transformers")

TEXT = "john smith was born in oslo in 1988 ."


def test_model_null_is_the_shipped_mlm_under_data(tmp_path):
    """model None reads ``minilm_mlm`` under ``data`` (here a tiny BERT standing in for it):
    the same log-probs as that model read directly, under the stable name hf:minilm_mlm."""
    tiny = build_tiny_bert(tmp_path / "data" / SHIPPED_MLM)
    scorer = make_hf_scorer(data=str(tmp_path / "data"))
    assert scorer.name == "hf:minilm_mlm"
    result = scorer.score([TEXT], [[SpanQuery(0, 10)]])[0][0]
    assert result.logprobs == pytest.approx(direct_logprobs(tiny, TEXT, (0, 10)), abs=1e-4)


def test_a_data_folder_without_the_shipped_mlm_fails_when_the_scorer_is_built(tmp_path):
    with pytest.raises(OSError, match="E018"):
        make_hf_scorer(data=str(tmp_path))
    with pytest.raises(OSError, match="E018"):
        HFMaskedLMScorer(SHIPPED_MLM, data=str(tmp_path))
    HFMaskedLMScorer(str(tmp_path / "elsewhere"), data=str(tmp_path))  # any other model loads lazily


def test_the_old_stored_name_reads_as_the_shipped_mlm(tmp_path):
    build_tiny_bert(tmp_path / SHIPPED_MLM)
    assert current_name("spacy_sanitize:minilm-mlm") == SHIPPED_MLM
    assert current_name("hf:spacy_sanitize:minilm-mlm") == "hf:minilm_mlm"
    assert current_name("minilm") == "minilm"
    assert HFMaskedLMScorer("spacy_sanitize:minilm-mlm", data=str(tmp_path)).name == "hf:minilm_mlm"


def test_the_shipped_artefacts_name_the_shipped_mlm():
    """The two artefacts that store the MLM's (old) name load as trained for it: the
    risk_llm_prob classifier without W430 (trained for another scorer), pii_relabel with the
    shipped MLM as its context encoder."""
    assert srsly.read_json(data_path("risk_llm_prob", "minilm_mlm", "meta.json"))["scorer"] == "hf:spacy_sanitize:minilm-mlm"
    nlp = spacy.blank("en")
    llm = nlp.add_pipe("risk_llm_prob", config={"scorer": {"@misc": "spacy_sanitize.lm.hf.v1"}})
    relabel = nlp.add_pipe("pii_relabel")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        llm.initialize(lambda: [], shipped="risk_llm_prob")
    assert llm.meta["scorer"] == llm.scorer.name == "hf:minilm_mlm"
    relabel.initialize(lambda: [], shipped="pii_relabel")
    assert relabel.encoder_name == SHIPPED_MLM
    assert relabel.context_encoder().model_name == SHIPPED_MLM


def test_relabel_reads_its_encoder_from_its_data_folder(tmp_path):
    """pii_relabel's shipped model needs the shipped MLM: it is read under initialize's data,
    and a data folder without it fails at initialize (E018), not at the first document."""
    shutil.copytree(data_path("pii_relabel"), tmp_path / "pii_relabel")
    nlp = spacy.blank("en")
    relabel = nlp.add_pipe("pii_relabel")
    with pytest.raises(OSError, match="E018"):
        relabel.initialize(lambda: [], shipped="pii_relabel", data=str(tmp_path))
    build_tiny_bert(tmp_path / SHIPPED_MLM)
    relabel.initialize(lambda: [], shipped="pii_relabel", data=str(tmp_path))
    encoder = relabel.context_encoder()
    assert resolve_model(encoder.model_name, encoder.data) == str(tmp_path / SHIPPED_MLM)
    # It reads the tiny stand-in (2 layers), not the package's MLM (6): layer 3 is not there.
    with pytest.raises(OSError, match="cannot read layer 3"):
        encoder.load()
