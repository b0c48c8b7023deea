"""The pipeline check of the decide stage: every risk indicator before the masker needs a
decider after it that reads its score. Without one its spans stay undecided, the masker
masks them all (fail closed) and the score is wasted, so the user is told (W700).

It also finds components from outside the package that shrink the ``pii`` span group
(spaCy's span_ruler replaces it by default), so the spans they drop would leak (W010).

The masker runs the checks once, on its first document: that covers pipelines from configs,
``spacy.load`` and ``nlp.add_pipe`` alike, at the cost of one pass over the pipe names.
"""
import warnings
from typing import List, Optional, Tuple

from spacy.language import Language

from ..errors import Warnings
from ..risk.base import is_decider, is_indicator, risk_key


def undecided_indicators(nlp: Language, until: Optional[str] = None) -> List[str]:
    """The indicators of ``nlp`` (before pipe ``until``, if given) whose score no later
    decider (before ``until``) reads, directly or through a later combiner (``risk_stack``)
    whose own score is decided."""
    names = nlp.pipe_names
    names = names[: names.index(until)] if until in names else names
    decided = set()  # indicators read by a decider, or by a decided combiner
    for i in range(len(names) - 1, -1, -1):
        name = names[i]
        if not is_indicator(nlp, name):
            continue
        key = risk_key(name)
        for later in names[i + 1 :]:
            reads = getattr(nlp.get_pipe(later), "reads", None)
            if is_decider(nlp, later) and (reads is None or reads(key)):
                decided.add(name)
            elif later in decided and is_indicator(nlp, later) and reads is not None and reads(key):
                decided.add(name)  # a combiner of it is decided
    return [name for name in names if is_indicator(nlp, name) and name not in decided]


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


def _is_ours(proc: object) -> bool:
    module = getattr(proc, "__module__", None) or type(proc).__module__
    return module.split(".")[0] == "spacy_sanitize"


def group_replacers(nlp: Language, text: str, until: Optional[str] = None, spans_key: str = "pii") -> List[Tuple[str, int, int]]:
    """Components from outside this package (before pipe ``until``) that leave
    ``doc.spans[spans_key]`` with fewer spans than it held before them, found by running
    the pipeline up to the last such component over ``text`` once: ``[(name, before,
    after)]``. spaCy's span_ruler, for one, replaces the group by default (overwrite=True),
    and the spans it drops are never masked. Components before the first of ours (a
    generic model's tok2vec, tagger, ner) find no spans of ours to drop, so nothing runs
    when every component after them is ours (the shipped pipelines)."""
    names = nlp.pipe_names
    names = names[: names.index(until)] if until in names else names
    ours = [_is_ours(nlp.get_pipe(name)) for name in names]
    first = ours.index(True) if True in ours else len(names)
    foreign = [i for i in range(first, len(names)) if not ours[i]]
    if not foreign:
        return []
    found = []
    doc = nlp.make_doc(text)
    for i, name in enumerate(names[: foreign[-1] + 1]):
        before = len(doc.spans[spans_key]) if spans_key in doc.spans else 0
        doc = nlp.get_pipe(name)(doc)
        after = len(doc.spans[spans_key]) if spans_key in doc.spans else 0
        if after < before and not ours[i]:  # only after one of ours
            found.append((name, before, after))
    return found


def warn_group_replaced(nlp: Language, text: str, until: Optional[str] = None, spans_key: str = "pii") -> List[Tuple[str, int, int]]:
    """Warn (W010) for each component ``group_replacers`` finds; returns them."""
    found = group_replacers(nlp, text, until, spans_key)
    for name, before, after in found:
        factory = nlp.get_pipe_meta(name).factory
        warnings.warn(Warnings.W010.format(name=name, factory=factory, key=spans_key, before=before, after=after), UserWarning, stacklevel=3)
    return found
