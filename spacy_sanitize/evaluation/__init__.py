from .scorer import predicted_mask_offsets, score_tab  # noqa: F401
from .tab_metrics import (  # noqa: F401
    DetectionScores,
    TabScores,
    Tokens,
    detection_scores,
    tab_scores,
    uniform_weighting,
)
