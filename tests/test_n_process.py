"""nlp.pipe(n_process=2) after the parent has processed text, under a timeout: a hang fails."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = """
import json, sys
sys.path.insert(0, {root!r}); sys.path.insert(0, {tests!r})
import spacy
from spacy.language import Language
import spacy_sanitize
from spacy_sanitize.pipeline import sanitize_pieces

ENCODER = {encoder!r}


@Language.component("tiny_context_encoder")
def tiny_context_encoder(doc):
    # pii_relabel's encoder on a tiny BERT: a torch forward pass per doc
    from spacy_sanitize.lm.context import ContextEncoder

    vectors = ContextEncoder(ENCODER).span_vectors(doc.text, [(0, min(len(doc.text), 10))])
    doc.user_data["encoded"] = int(vectors.shape[0])
    return doc


if __name__ == "__main__":
    if ENCODER:
        nlp = spacy.blank("en")
        nlp.add_pipe("tiny_context_encoder")
        nlp.add_pipe("pii_codes")
        nlp.add_pipe("masker")
    else:
        nlp = spacy_sanitize.load_pipeline("default")
    texts = ["Mail anna%d@example.org about case %d/97 of john smith in paris. " % (i, i) * 3 for i in range(8)]
    warm = nlp(texts[0])  # the parent runs every component first (torch's thread pool starts)
    assert warm._.sanitized
    parallel = [doc._.sanitized for doc in nlp.pipe(texts, n_process=2, batch_size=1)]
    long_texts = [t * 6 for t in texts]  # longer than the smallest piece size (1,000)
    pieces = [p.doc._.sanitized for p in sanitize_pieces(nlp, long_texts, max_chars=1000, n_process=2)]
    serial = [p.doc._.sanitized for p in sanitize_pieces(nlp, long_texts, max_chars=1000)]
    print(json.dumps({{"parallel": parallel, "single": [nlp(t)._.sanitized for t in texts], "pieces": pieces, "serial": serial}}))
"""


@pytest.mark.parametrize("kind", ["default", "torch"])
def test_two_processes_after_the_parent_worked(kind, tmp_path):
    """With a torch model used in the parent first, the forked workers hung forever
    (torch's OpenMP pool does not survive fork)."""
    encoder = ""
    if kind == "torch":
        pytest.importorskip("torch")
        from .lm_fixtures import build_tiny_bert

        encoder = build_tiny_bert(tmp_path / "bert")
    script = tmp_path / "run.py"
    script.write_text(SCRIPT.format(root=str(ROOT), tests=str(ROOT / "tests"), encoder=encoder))
    try:
        out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=400, cwd=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail("nlp.pipe(n_process=2) hung")
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["parallel"] == result["single"]  # same output, same order
    assert result["pieces"] == result["serial"]
    assert all("@" not in text for text in result["parallel"])
