"""The influence of each entity on the masked LM's predictions of the other PII spans: the
perturbed queries of a document, one scorer call for a batch of documents, and the
logistic squashing of an influence into a risk (see the package docstring)."""
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple, Union

from spacy.tokens import Doc, Span

from ...errors import Errors
from ...lm.base import SpanLogProbs, SpanQuery, SpanScorer
from ...types import DEFAULT_SPANS_KEY
from ..base import isolate_failures

TARGET_MODES = ("all", "person")
AGGREGATES = ("sum", "mean")
CharRange = Tuple[int, int]


@dataclass
class DocInfluence:
    """The perturbation results of one document.

    entity_of (List[str]): the entity key of each span (``Span._.entity_id`` with coreference
        masking, else one entity per span).
    targets (List[int]): indices of the target spans.
    base (Dict[int, float]): target index -> aggregated log-prob with nothing perturbed.
    perturbed (Dict[Tuple[int, str], float]): (target index, entity) -> aggregated log-prob
        with every mention of the entity hidden.
    errors (Dict[int, str]): target index -> why it could not be scored.
    person (Optional[str]): with ``targets = "person"``, the entity of the person (the target
        itself: always masked, not measured).
    """

    entity_of: List[str]
    targets: List[int]
    person: Optional[str] = None
    base: Dict[int, float] = field(default_factory=dict)
    perturbed: Dict[Tuple[int, str], float] = field(default_factory=dict)
    errors: Dict[int, str] = field(default_factory=dict)

    def delta(self, target: int, entity: str) -> float:
        """lp(target) - lp(target | entity hidden), in nats."""
        return self.base[target] - self.perturbed[(target, entity)]

    def influence(self, entity: str) -> Tuple[Optional[float], List[Tuple[int, float]]]:
        """The influence of ``entity`` (None when no target could measure it) and the
        (target index, delta) pairs, largest delta first."""
        moved = [
            (t, self.delta(t, entity))
            for t in self.targets
            if t not in self.errors
            and self.entity_of[t] != entity
            and (t, entity) in self.perturbed
        ]
        moved.sort(key=lambda item: -item[1])
        return (moved[0][1] if moved else None), moved

    def span_influences(self) -> List[Optional[float]]:
        """The influence of each span (that of its entity)."""
        cache: Dict[str, Optional[float]] = {}
        out = []
        for entity in self.entity_of:
            if entity not in cache:
                cache[entity] = self.influence(entity)[0]
            out.append(cache[entity])
        return out


def entity_keys(spans: Sequence[Span], coref_masking: bool) -> List[str]:
    """One entity key per span: its ``entity_id`` (with ``coref_masking``), else its own."""
    return [
        f"id:{s._.entity_id}" if coref_masking and s._.entity_id else f"span:{i}"
        for i, s in enumerate(spans)
    ]


def person_entity(spans: Sequence[Span], keys: Sequence[str]) -> Optional[str]:
    """The entity the text is about: the PERSON entity with the most mentions (first
    mentioned on ties); None when there is no PERSON span."""
    counts = Counter(k for s, k in zip(spans, keys) if s.label_ == "PERSON")
    if not counts:
        return None
    first = {}
    for i, k in enumerate(keys):
        first.setdefault(k, i)
    return max(counts, key=lambda k: (counts[k], -first[k]))


def select_targets(
    spans: Sequence[Span], keys: Sequence[str], mode: str, max_target_entities: int, person: Optional[str] = None
) -> List[int]:
    """Indices of the target spans: all spans, or the mentions of the person entity
    (``mode="person"``; ``person``, else ``person_entity``; all spans when there is no PERSON
    span); with ``max_target_entities`` > 0 only the mentions of that many entities (most
    mentioned first)."""
    if mode == "person":
        person = person if person is not None else person_entity(spans, keys)
        if person is not None:
            return [i for i, k in enumerate(keys) if k == person]
    entities = list(dict.fromkeys(keys))
    if max_target_entities and len(entities) > max_target_entities:
        counts = Counter(keys)
        order = sorted(entities, key=lambda k: (-counts[k], entities.index(k)))
        keep = set(order[:max_target_entities])
        return [i for i, k in enumerate(keys) if k in keep]
    return list(range(len(spans)))


def plan_queries(
    spans: Sequence[Span], keys: Sequence[str], targets: Sequence[int]
) -> Tuple[List[SpanQuery], List[Tuple[int, Optional[str]]]]:
    """All perturbed variants of a document: per target, one query with nothing perturbed
    and one per other entity with all that entity's mentions hidden. The other mentions of
    the target's own entity are hidden in every variant. Returns the queries and, per query,
    (target index, perturbed entity or None)."""
    mentions: Dict[str, List[CharRange]] = {}
    for s, k in zip(spans, keys):
        mentions.setdefault(k, []).append((s.start_char, s.end_char))
    entities = list(mentions)
    queries: List[SpanQuery] = []
    index: List[Tuple[int, Optional[str]]] = []
    for t in targets:
        span, own = spans[t], keys[t]
        coref = tuple(r for r in mentions[own] if r != (span.start_char, span.end_char))
        queries.append(SpanQuery(span.start_char, span.end_char, coref))
        index.append((t, None))
        for entity in entities:
            if entity != own:
                queries.append(
                    SpanQuery(span.start_char, span.end_char, coref + tuple(mentions[entity]))
                )
                index.append((t, entity))
    return queries, index


def aggregate(result: SpanLogProbs, how: str) -> float:
    lps = result.logprobs
    return float(sum(lps)) if how == "sum" else float(sum(lps) / len(lps))


def compute_influences(
    docs: Sequence[Doc],
    scorer: SpanScorer,
    spans_key: str = DEFAULT_SPANS_KEY,
    coref_masking: bool = True,
    targets: str = "all",
    target_aggregate: str = "sum",
    max_target_entities: int = 0,
) -> List[Union[DocInfluence, str]]:
    """Per doc, its :class:`DocInfluence`, or the error message when the scorer failed on it.
    One scorer call serves all perturbed variants of all documents (a failing call is
    retried doc by doc to isolate the culprit)."""
    infos: List[DocInfluence] = []
    batch: List[Tuple[str, List[SpanQuery]]] = []
    indexes: List[List[Tuple[int, Optional[str]]]] = []
    for doc in docs:
        spans = list(doc.spans.get(spans_key, []))
        keys = entity_keys(spans, coref_masking)
        person = person_entity(spans, keys) if targets == "person" else None
        chosen = select_targets(spans, keys, targets, max_target_entities, person)
        qs, index = plan_queries(spans, keys, chosen)
        infos.append(DocInfluence(entity_of=keys, targets=chosen, person=person))
        batch.append((doc.text, qs))
        indexes.append(index)
    scored = isolate_failures(
        lambda items: scorer.score([text for text, _ in items], [qs for _, qs in items]),
        batch,
        lambda err: Errors.E450.format(err=err),
    )
    out: List[Union[DocInfluence, str]] = []
    for info, results, index in zip(infos, scored, indexes):
        if isinstance(results, str):
            out.append(results)
            continue
        for (t, entity), result in zip(index, results):
            if result.error is not None:
                info.errors[t] = result.error
            elif entity is None:
                info.base[t] = aggregate(result, target_aggregate)
            else:
                info.perturbed[(t, entity)] = aggregate(result, target_aggregate)
        out.append(info)
    return out


def squash(influence: float, threshold: float, scale: float) -> float:
    """Logistic squashing of an influence into [0, 1]; 0.5 at ``threshold``."""
    z = (influence - threshold) / scale
    return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0

