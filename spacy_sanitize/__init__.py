"""spacy-sanitize: detect personal identifiers, estimate their risk, mask or replace them."""
import logging

from . import _startup

_startup.prepare()  # the CLI with a shipped pipeline: spaCy without torch (see _startup)

from .extensions import register_extensions  # noqa: E402

# Modules log progress to "spacy_sanitize.<module>"; the application decides whether to show it.
logging.getLogger("spacy_sanitize").addHandler(logging.NullHandler())

register_extensions()

from . import corpus, evaluation  # noqa: E402,F401
from .detect.gazetteer import component as _gazetteer  # noqa: E402,F401
from .masker import component as _masker  # noqa: E402,F401
# The rule and recognizer components register here; the model-backed ones that no
# torch-free pipeline uses (pii_relabel, risk_llm_prob, risk_perturb, risk_web, risk_infer)
# register when spaCy first looks them up, through the package's entry points (setup.cfg),
# so a start-up does not import them.
from .detect import (  # noqa: E402,F401
    codes as _codes,
    confidence as _confidence,
    coref as _coref,
    ent_mapper as _ent_mapper,
    patterns as _patterns,
    pii_ner as _pii_ner,
    refine as _refine,
    script as _script,
    text_view as _text_view,
    titles as _titles,
)
from .decide import confidence as _decide_confidence, threshold as _risk_threshold, vote as _risk_vote  # noqa: E402,F401
from .pipeline import load_pipeline  # noqa: E402,F401
from .risk import seq as _risk_seq  # noqa: E402,F401

__version__ = "0.1.0"

from .report import render  # noqa: E402,F401  (displaCy view of the PII spans)
