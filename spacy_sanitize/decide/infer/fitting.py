"""Seed 001's threshold for risk_infer, fitted on texts people de-identified."""
from pathlib import Path
from typing import TYPE_CHECKING, Union

import numpy as np

from ...errors import Errors

if TYPE_CHECKING:
    from . import RiskInfer


def fit_threshold(component: "RiskInfer", tab_path: Union[str, Path], mask_key: str = "mask") -> float:
    """Seed 001's threshold: the attacker's mean maximum class probability over texts that
    people de-identified (TAB gold, the words of ``mask`` spans removed)."""
    from ...corpus.tab import load_tab, tab_to_docs

    attacker = component._check()
    saved = component.placeholder
    component.placeholder = ""
    try:
        values = [float(attacker.proba_seq(component.view(doc, spans_key=mask_key)[0]).max()) for doc in tab_to_docs(load_tab(tab_path), component.nlp) if doc._.annotator]
    finally:
        component.placeholder = saved
    if not values:
        raise ValueError(Errors.E612.format(path=tab_path))
    return float(np.mean(values))
