from .folds import document_folds  # noqa: F401
from .scorer import detect_docs, detected_triples, predicted_mask_offsets, score_tab  # noqa: F401
from .tab_metrics import (  # noqa: F401
    MASKING_KEYS,
    DetectionScores,
    TabScores,
    Tokens,
    detection_scores,
    pool_detection_counts,
    tab_scores,
    uniform_weighting,
)
