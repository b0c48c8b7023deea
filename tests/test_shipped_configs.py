"""Shipped configs: composed from one detector, loadable by spaCy's own tools, artefacts
loaded at initialize from [paths] sanitize_data."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
import srsly
from spacy.tokens import DocBin
from thinc.api import Config

import spacy_sanitize
from spacy_sanitize.corpus.tab import load_tab, tab_to_docs
from spacy_sanitize.pipeline import _with_installed_english, config_path, initialize_pipeline, shipped_configs

from .conftest import data_file, load_script

TORCH = importlib.util.find_spec("torch") is not None and importlib.util.find_spec("transformers") is not None
NEEDS_TORCH = {"accurate", "biography", "court_accurate", "risk_llm_prob", "risk_perturb", "risk_seq", "vote", "risk_llm_prob_frequency"}
SAMPLE = "Anna Berg, born 3 May 1970 in Oslo, works for Statoil; mail anna@example.org."


def composer():
    """scripts/compose_configs.py, the offline tool that writes the shipped configs."""
    return load_script("scripts", "compose_configs.py")


def test_configs_match_their_parts():
    """The committed .cfg files are what `spacy project run configs` writes from configs/parts/."""
    assert composer().write_configs(check=True) == []


@pytest.mark.parametrize("name", shipped_configs())
def test_shipped_config_loads_with_spacy_and_initialize_loads_the_artefacts(name):
    if name in NEEDS_TORCH and not TORCH:
        pytest.skip("needs torch")
    config = _with_installed_english(Config().from_disk(config_path(name)))
    nlp = spacy.util.load_model_from_config(config, auto_fill=True, validate=True)
    initialize_pipeline(nlp, config)
    assert nlp.get_pipe("pii_ner").moves.n_moves > 0
    if "pii_relabel" in nlp.pipe_names:
        assert nlp.get_pipe("pii_relabel").model is not None
    if "risk_seq" in nlp.pipe_names:
        assert nlp.get_pipe("risk_seq").tagger.initialized
    if "risk_llm_prob" in nlp.pipe_names:
        assert nlp.get_pipe("risk_llm_prob").classifier is not None


def test_missing_artefact_fails_at_load_time(tmp_path):
    # The first component to initialize (the gazetteer) names its missing artefact.
    with pytest.raises(OSError, match=r"\[E018\] shipped artefact 'gazetteer/default.jsonl.gz'"):
        spacy_sanitize.load_pipeline("default", overrides={"paths.sanitize_data": str(tmp_path)})


def test_sanitize_data_points_at_a_folder_with_the_same_layout(tmp_path):
    import shutil

    from spacy_sanitize.shipped import data_path

    shutil.copytree(data_path("gazetteer"), tmp_path / "gazetteer")
    shutil.copytree(data_path("pii_confidence_fast"), tmp_path / "pii_confidence_fast")
    with pytest.raises(OSError, match=r"\[E018\] shipped artefact 'pii_ner_distil'"):
        spacy_sanitize.load_pipeline("default", overrides={"paths.sanitize_data": str(tmp_path)})
    shutil.copytree(data_path("pii_ner_distil"), tmp_path / "pii_ner_distil")
    with pytest.raises(OSError, match=r"risk_seq_default"):
        spacy_sanitize.load_pipeline("default", overrides={"paths.sanitize_data": str(tmp_path)})
    for folder in ("risk_seq_default", "risk_stack_default"):
        shutil.copytree(data_path(folder), tmp_path / folder)
    nlp = spacy_sanitize.load_pipeline("default", overrides={"paths.sanitize_data": str(tmp_path)})
    assert nlp(SAMPLE)._.sanitized == spacy_sanitize.load_pipeline("default")(SAMPLE)._.sanitized


def _spacy_cli(*args):
    out = subprocess.run([sys.executable, "-m", "spacy", *args], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    return out.stdout


def test_spacy_assemble_evaluate_and_debug_config_on_the_default_config(tmp_path):
    cfg = str(config_path("default"))
    dev = str(tmp_path / "dev.spacy")
    gold = str(tmp_path / "gold.json")
    srsly.write_json(gold, srsly.read_json(data_file("tab", "tab_dev.json"))[:2])
    from spacy_sanitize.cli import main

    assert main(["tab-to-spacy", gold, dev]) == 0
    assert len(list(DocBin().from_disk(dev).get_docs(spacy.blank("en").vocab))) == len(list(tab_to_docs(load_tab(gold), spacy.blank("en"))))
    # the shipped config as it is, with the TAB JSON or the .spacy file as corpora
    _spacy_cli("debug", "config", cfg, "--paths.train", gold, "--paths.dev", gold)
    _spacy_cli("assemble", cfg, str(tmp_path / "out"))
    assembled = spacy.load(tmp_path / "out")
    assert assembled(SAMPLE)._.sanitized == spacy_sanitize.load_pipeline("default")(SAMPLE)._.sanitized
    printed = _spacy_cli("evaluate", str(tmp_path / "out"), dev, "--spans-key", "pii", "--output", str(tmp_path / "m.json"))
    metrics = srsly.read_json(tmp_path / "m.json")
    # The masker's TAB scorer and pii_ner's span scorer report through spaCy's evaluate; the
    # table shows the TAB precision, recall and F1 as SPAN P/R/F
    for key in ("tab_p", "tab_r_all", "tab_f1", "pii_f"):
        assert 0.0 < metrics[key] <= 1.0, (key, metrics[key])
    assert f"SPAN F   {metrics['tab_f1'] * 100:.2f}" in printed


@pytest.mark.parametrize("name", shipped_configs())
def test_spacy_debug_config_accepts_every_shipped_config(name, capsys):
    """`spacy debug config` validates a config as it is, unfilled: every shipped config has
    spaCy's [nlp], [initialize], [training] and [corpora] settings."""
    from spacy.cli.debug_config import debug_config

    try:
        debug_config(config_path(name))
    except SystemExit:  # spaCy's validation error exits
        pytest.fail(capsys.readouterr().out[-2000:])
    assert "Config is valid" in capsys.readouterr().out


@pytest.mark.skipif(not TORCH, reason="needs torch")
def test_saved_risk_seq_pipeline_reloads_without_initialize(tmp_path):
    """initialize loads the shipped artefacts once; nlp.to_disk keeps them with the components,
    so spacy.load needs neither [paths] sanitize_data nor the package's data folder."""
    nlp = spacy_sanitize.load_pipeline("risk_seq")
    nlp.to_disk(tmp_path / "pipe")
    reloaded = spacy.load(tmp_path / "pipe", config={"paths": {"sanitize_data": str(tmp_path / "nowhere")}})
    ours, theirs = nlp(SAMPLE), reloaded(SAMPLE)
    assert theirs._.sanitized == ours._.sanitized
    assert [s._.risk for s in theirs.spans["pii"]] == [s._.risk for s in ours.spans["pii"]]


def test_frequency_scorer_reads_the_shipped_counts_from_the_data_folder(tmp_path):
    """counts null: the counts under ``data`` ([paths] sanitize_data); missing ones fail when
    the scorer is built, not as risk 1.0 on every span at the first document."""
    import shutil

    from spacy_sanitize.lm.frequency import FrequencyScorer
    from spacy_sanitize.shipped import data_path

    with pytest.raises(OSError, match="E018.*lm_counts"):
        FrequencyScorer(data=str(tmp_path))
    FrequencyScorer(1.0, 0.0, 0.0, data=str(tmp_path))  # no domain weight: no counts needed
    shutil.copytree(data_path("lm_counts"), tmp_path / "lm_counts")
    scorer = FrequencyScorer(data=str(tmp_path))
    assert scorer.counts_path == str(tmp_path / "lm_counts" / "counts.msgpack")
    assert FrequencyScorer().counts_path == str(data_path("lm_counts", "counts.msgpack"))


@pytest.mark.parametrize("config_name,shipped", [("ensemble", "pii_ner"), ("default", "pii_ner_distil")])
def test_pii_ner_initialize_loads_the_shipped_weights_or_says_why_not(nlp_blank, config_name, shipped):
    model = Config().from_disk(config_path(config_name))["components"]["pii_ner"]["model"]
    ner = nlp_blank.add_pipe("pii_ner", config={"model": model})
    ner.initialize(shipped=shipped)
    assert "PERSON" in ner.labels and "CODE" in ner.labels
    doc = nlp_blank("Maya Kodnani was born in Mumbai.")
    assert [s.label_ for s in doc.spans["pii"]]
    other = spacy.blank("en").add_pipe("pii_ner")  # spaCy's default architecture: other shapes
    with pytest.raises(ValueError, match="E020"):
        other.initialize(shipped=shipped)


def test_gazetteer_reads_the_shipped_gazetteer_from_the_data_folder(tmp_path):
    """gazetteer null: the shipped gazetteer and stop list of initialize's ``data``; a folder
    without them fails at initialize (the gazetteer = "default" spelling is gone)."""
    import shutil

    from spacy_sanitize.shipped import data_path

    def gazetteer_nlp(data):
        nlp = spacy.blank("en")
        nlp.add_pipe("pii_gazetteer").initialize(data=data)
        return nlp

    with pytest.raises(OSError, match="E018.*gazetteer"):
        gazetteer_nlp(str(tmp_path))
    shutil.copytree(data_path("gazetteer"), tmp_path / "gazetteer")
    shutil.copytree(data_path("pii_confidence"), tmp_path / "pii_confidence")
    text = "She is a Norwegian Catholic surgeon."
    ours, shipped = gazetteer_nlp(str(tmp_path))(text), gazetteer_nlp(None)(text)
    spans = [(s.text, s.label_) for s in ours.spans["pii"]]
    assert spans and spans == [(s.text, s.label_) for s in shipped.spans["pii"]]


def test_a_later_part_replaces_only_the_settings_it_names():
    """compose: an including pipeline states what it changes; the rest of the block, comments
    included, stays the included part's."""
    _merge_block = composer()._merge_block
    earlier = ("# above\n[components.risk_threshold]\n# intro\nfactory = \"risk_threshold\"\nthreshold = 0.4\n"
               "# names stay masked\nprotect = [\n    \"CODE\",\n    \"PERSON\"]\nmissing = \"mask\"")
    later = "[components.risk_threshold]\n# new intro\nthreshold = 0.475\n# new\ndate_cue_window = 5"
    assert _merge_block(earlier, later).splitlines() == [
        "# above", "[components.risk_threshold]", "# new intro", "factory = \"risk_threshold\"", "threshold = 0.475",
        "# names stay masked", "protect = [", "    \"CODE\",", "    \"PERSON\"]", "missing = \"mask\"", "# new", "date_cue_window = 5"]
    assert Config().from_str("[components]\n" + _merge_block(earlier, later))["components"]["risk_threshold"]["protect"] == ["CODE", "PERSON"]


def test_a_block_several_parts_share_is_written_once_and_included_in_place():
    """[include.propn] puts parts/propn.cfg's block where the section stands: the fast detector's
    pii_propn sits before pii_text_view, and no other part writes the block again."""
    compose = composer()
    parts = compose.parts_path("propn").parent
    writers = [p.stem for p in sorted(parts.glob("*.cfg")) if "[components.pii_propn]" in p.read_text(encoding="utf-8")]
    assert writers == ["propn"]
    sections = [section for section, _ in compose._with_includes(compose._part_blocks(compose.parts_path("fast_detector").read_text(encoding="utf-8"))[1])]
    assert sections.index("components.pii_refine") < sections.index("components.pii_propn") < sections.index("components.pii_text_view")
    for name in ("default", "strict", "accurate"):
        pipe = Config().from_disk(config_path(name), interpolate=False)["nlp"]["pipeline"]
        assert pipe.index("pii_propn") == pipe.index("pii_text_view") - 1, name


def test_the_configs_command_lists_every_shipped_config():
    """`spacy project run configs` knows every file it writes (three were missing)."""
    commands = {c["name"]: c for c in srsly.read_yaml(Path(__file__).resolve().parents[1] / "project.yml")["commands"]}
    assert sorted(commands["configs"]["outputs"]) == [f"spacy_sanitize/configs/{name}.cfg" for name in shipped_configs()]


def test_the_torch_weights_ship_apart_and_are_found_there(monkeypatch):
    """The plain install's data folder holds no torch-only weights; data_path finds them in
    spacy-sanitize-torch-data, and without it a torch artefact fails with E057, which names the
    install command."""
    from spacy_sanitize import shipped

    package_data = Path(shipped.__file__).parent / "data"
    assert not [name for name in shipped.TORCH_ARTEFACTS if (package_data / name).exists()]
    if shipped.torch_data_dir() is not None:
        assert shipped.artefact_path("minilm_mlm").parent == shipped.torch_data_dir()
    monkeypatch.setattr(shipped, "torch_data_dir", lambda: None)
    with pytest.raises(OSError, match=r"E057.*packages/torch-data"):
        shipped.artefact_path("risk_seq_trf", component="risk_seq_trf")
    with pytest.raises(OSError, match="E018"):
        shipped.artefact_path("no_such_artefact")
