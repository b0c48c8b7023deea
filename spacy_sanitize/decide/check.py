"""The pipeline check of the decide stage: every risk indicator before the masker needs a
decider after it that reads its score. Without one its spans stay undecided, the masker
masks them all (fail closed) and the score is wasted, so the user is told (W700).

The masker runs the check once, on its first document: that covers pipelines from configs,
``spacy.load`` and ``nlp.add_pipe`` alike, at the cost of one pass over the pipe names.
"""
import warnings
from typing import List, Optional

from spacy.language import Language

from ..errors import Warnings
from ..risk.base import is_decider, is_indicator, risk_key


def undecided_indicators(nlp: Language, until: Optional[str] = None) -> List[str]:
    """The indicators of ``nlp`` (before pipe ``until``, if given) whose score no later
    decider (before ``until``) reads."""
    names = nlp.pipe_names
    names = names[: names.index(until)] if until in names else names
    undecided = []
    for i, name in enumerate(names):
        if not is_indicator(nlp, name):
            continue
        key = risk_key(name)
        readers = [later for later in names[i + 1 :] if is_decider(nlp, later)]
        if not any(getattr(nlp.get_pipe(later), "reads", lambda _: True)(key) for later in readers):
            undecided.append(name)
    return undecided


def warn_undecided(nlp: Language, until: Optional[str] = None) -> List[str]:
    """Warn (W700) when ``undecided_indicators`` finds any; returns them."""
    undecided = undecided_indicators(nlp, until)
    if undecided:
        warnings.warn(
            Warnings.W700.format(names=undecided, until=until or "masker", key=risk_key(undecided[0])),
            UserWarning,
            stacklevel=3,
        )
    return undecided
