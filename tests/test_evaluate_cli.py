"""`spacy-sanitize evaluate` cannot mislead: in-sample figures are flagged, scores without
support are not printed as 0.000, predictions for other documents are an error, and the
progress bar reaches its total."""
import json
import re
import warnings
from pathlib import Path

import pytest
from spacy.util import load_config

from spacy_sanitize.cli import main
from spacy_sanitize.corpus import load_tab, wiki_dev_path
from spacy_sanitize.evaluation.provenance import TRAINING_DATA, in_sample_artefacts, text_fingerprint, write_training_data
from spacy_sanitize.pipeline import config_path
from spacy_sanitize.shipped import data_path

TEXTS = ["Anna Berg met Jonas in Oslo.", "Mail anna@example.org today.", "Per Aasen lives in Bergen."]


def mention(mid, start, end, label, identifier="DIRECT"):
    return {"entity_mention_id": mid, "start_offset": start, "end_offset": end, "entity_type": label, "identifier_type": identifier, "entity_id": mid}


def write_gold(tmp_path: Path, texts=TEXTS) -> Path:
    gold = [
        {"doc_id": f"d{i}", "text": text, "annotations": {"A": {"entity_mentions": [mention("m1", 0, text.index(" ", text.index(" ") + 1), "PERSON")]}}}
        for i, text in enumerate(texts)
    ]
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(gold))
    return path


def write_pipeline(tmp_path: Path) -> Path:
    """A small real pipeline (the shipped pii_ner from a data folder of our own, the masker)
    with the shipped configs' [initialize] layout."""
    data = tmp_path / "data"
    (data / "pii_ner").mkdir(parents=True)
    for child in data_path("pii_ner").iterdir():  # links: the package's files stay untouched
        (data / "pii_ner" / child.name).symlink_to(child)
    ensemble = Path(config_path("ensemble")).read_text()  # its pii_ner is the one of data/pii_ner
    pii_ner = re.search(r"\[components\.pii_ner\].*?(?=\n\[components\.pii_refine\])", ensemble, re.S).group(0)
    cfg = tmp_path / "small.cfg"
    cfg.write_text(
        f'[paths]\nsanitize_data = "{data}"\n\n[nlp]\nlang = "en"\npipeline = ["pii_ner", "masker"]\n\n[components]\n\n{pii_ner}\n\n'
        '[components.masker]\nfactory = "masker"\nspans_key = "pii"\n\n[initialize]\n\n[initialize.components]\n\n'
        '[initialize.components.pii_ner]\ndata = ${paths.sanitize_data}\nshipped = "pii_ner"\n'
    )
    return cfg


def test_progress_bar_reaches_its_total(tmp_path, capsys):
    gold, cfg = write_gold(tmp_path), write_pipeline(tmp_path)
    assert main(["evaluate", str(gold), "--pipeline", str(cfg)]) == 0
    bars = re.findall(r"evaluating: .*?(\d+)/(\d+)", capsys.readouterr().err)
    assert bars and bars[-1] == ("3", "3")  # was 2/3: the last update never ran


def test_in_sample_pipeline_warns_and_names_the_benchmark(tmp_path, capsys):
    gold, cfg = write_gold(tmp_path), write_pipeline(tmp_path)
    args = ["evaluate", str(gold), "--pipeline", str(cfg), "-q"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(args) == 0  # not trained on these documents: no warning
    staged = tmp_path / "data" / "pii_ner"
    write_training_data(staged, [("x", "Another text."), ("d1", TEXTS[1] + "\n")], source="gold.json", benchmark="benchmarks/quality/ner_eval.py")
    with pytest.warns(UserWarning, match=r"W099.*IN-SAMPLE.*pii_ner.*1 of the 3.*benchmarks/quality/ner_eval\.py"):
        assert main(args) == 0


def test_training_data_fingerprints_texts_not_ids(tmp_path):
    path = write_training_data(tmp_path / "model", [("a", "Anna  Berg\nmet Jonas.")], source="s.json", benchmark="b")
    record = json.loads(path.read_text())
    assert path.name == TRAINING_DATA and record["doc_ids"] == ["a"] and record["labels"] == "gold"
    assert record["text_sha256_16"] == [text_fingerprint("Anna Berg met Jonas.")] != [text_fingerprint("Anna Berg met Jonas!")]


@pytest.mark.skipif(not wiki_dev_path().exists(), reason="needs wiki_dev.json")
@pytest.mark.parametrize(
    "pipeline,components",
    [("strict", set()), ("default", {"risk_seq", "risk_stack"}), ("accurate", {"pii_relabel", "risk_seq", "risk_stack"}), ("risk_seq", {"pii_relabel", "risk_seq"}), ("risk_llm_prob", {"pii_relabel", "risk_llm_prob"})],
)
def test_shipped_models_record_their_training_documents(pipeline, components):
    texts = [document.text for document in load_tab(wiki_dev_path())]
    hits = in_sample_artefacts(load_config(config_path(pipeline)), texts)
    assert {hit.component for hit in hits} == components
    assert all(hit.n_docs == len(texts) == 70 and "wiki_dev.json" in hit.source.split() and "benchmarks/" in hit.benchmark for hit in hits)


def test_types_without_support_print_a_dash_and_null(tmp_path, capsys):
    gold, cfg = write_gold(tmp_path), write_pipeline(tmp_path)
    out = tmp_path / "scores.json"
    assert main(["evaluate", str(gold), "--pipeline", str(cfg), "-q", "-o", str(out)]) == 0
    detection = json.loads(out.read_text())["detection"]
    printed = capsys.readouterr().out
    person = detection["per_type"]["PERSON"]
    assert person["support"] > 0 and isinstance(person["R"], float)
    unsupported = {label: row for label, row in detection["per_type"].items() if not row["support"]}
    assert unsupported, detection  # the e-mail (CODE) has no gold mention here
    for label, row in unsupported.items():
        assert row["R"] is None and row["F1"] is None  # was 0.0
        assert re.search(rf"\| {label} \| [-0-9.]+ \| - \| - \| 0 \|", printed), printed


def write_predictions(tmp_path: Path, predictions) -> Path:
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(predictions))
    return path


def test_predictions_for_no_gold_document_are_an_error(tmp_path, capsys):
    gold = write_gold(tmp_path)
    pred = write_predictions(tmp_path, {"doc-1": [[0, 9]], "doc-2": []})
    assert main(["evaluate", str(gold), "--predictions", str(pred)]) == 2  # was 0, with zeros
    err = capsys.readouterr().err
    assert "E099" in err and "none of the 2 doc id(s)" in err and "'d0'" in err


def test_predictions_for_some_gold_documents_warn(tmp_path):
    gold = write_gold(tmp_path)
    pred = write_predictions(tmp_path, {"d0": [[0, 9]], "D1": [[0, 4]]})
    with pytest.warns(UserWarning, match=r"W098.*1 of the 2 doc id\(s\).*'D1'.*2 of the 3 gold"):
        assert main(["evaluate", str(gold), "--predictions", str(pred)]) == 0
