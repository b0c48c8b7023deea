import json
import subprocess
import sys
from pathlib import Path

import pytest
import srsly

from spacy_sanitize.lm import HFMaskedLMScorer, SpanQuery

from .lm_fixtures import build_tiny_bert

pytest.importorskip("torch")
SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "pretrain_lm.py"


@pytest.mark.slow  # trains (3 steps of a tiny model, two runs: 13 s of the default suite's 10 minutes)
def test_pretrain_tiny_run(tmp_path):
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    mlm_dir = build_tiny_bert(tmp_path / "mlm_source")
    encoder = str(tmp_path / "encoder")  # an encoder without MLM head, like all-MiniLM-L6-v2
    AutoModelForMaskedLM.from_pretrained(mlm_dir).bert.save_pretrained(encoder)
    AutoTokenizer.from_pretrained(mlm_dir).save_pretrained(encoder)
    texts = ["John Smith was born in Paris in 1988 and studied law at the university."] * 20
    srsly.write_jsonl(tmp_path / "a.jsonl", [{"text": t} for t in texts])
    srsly.write_jsonl(tmp_path / "b.jsonl", [{"text": "The court held that the applicant was born in Oslo."}] * 20)
    out = tmp_path / "mlm"
    cmd = [sys.executable, str(SCRIPT), str(out), str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"),
           "--encoder", encoder, "--max-steps", "3", "--seq-len", "16", "--batch-size", "2", "--eval-batches", "1", "--threads", "1"]
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads((out / "pretrain_report.json").read_text())
    assert report["steps"] == 3 and report["train_tokens"] == 3 * 2 * 16
    assert report["bias_init_tokens"] > 0 and report["load"]["missing"] == []
    text = "Mary Jones was born in Oslo."
    result = HFMaskedLMScorer(str(out)).score([text], [[SpanQuery(0, 10)]])[0][0]
    assert result.error is None and result.n_subwords == 2 and all(lp < 0 for lp in result.logprobs)
    # a second run resumes from the first (MLM head kept, no new bias initialisation)
    proc = subprocess.run([*cmd[:2], str(tmp_path / "mlm2"), *cmd[3:5], "--encoder", str(out), *cmd[7:]], check=False, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    resumed = json.loads((tmp_path / "mlm2" / "pretrain_report.json").read_text())
    assert resumed["load"]["resumed"] is True and resumed["bias_init_tokens"] == 0
