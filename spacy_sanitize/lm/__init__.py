"""Masked-LM span scoring (see :mod:`.base`)."""
from .base import AGGREGATES, SpanLogProbs, SpanQuery, SpanScorer  # noqa: F401
from .frequency import FrequencyScorer, make_frequency_scorer  # noqa: F401
from .hf import HFMaskedLMScorer, make_hf_scorer  # noqa: F401
from .weighting import lm_token_weighting  # noqa: F401
