"""The weights only spacy-sanitize's torch pipelines use, kept out of the plain install
(``pip install .`` carries what ``default`` and ``strict`` need): the domain MiniLM masked LM
(``minilm_mlm``) and the MiniLM taggers (``risk_seq_trf``, ``risk_seq_court_trf``).
``spacy_sanitize.shipped.data_path`` finds them here. Install with the ``[torch]`` extra, from
the repository root::

    pip install ".[torch]" ./packages/torch-data
"""
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
