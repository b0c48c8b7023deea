"""spacy-sanitize: detect personal identifiers, estimate their risk, mask or replace them."""
from .extensions import register_extensions

register_extensions()

from . import corpus, evaluation  # noqa: E402,F401
from .masker import component as _masker  # noqa: E402,F401
from .ner import codes as _codes, coref as _coref, ent_mapper as _ent_mapper, pii_ner as _pii_ner, script as _script  # noqa: E402,F401
from .pipeline import load_pipeline  # noqa: E402,F401
from .risk import llm_prob as _llm_prob  # noqa: E402,F401

__version__ = "0.1.0"
from .risk import seq as _risk_seq  # noqa: E402,F401
