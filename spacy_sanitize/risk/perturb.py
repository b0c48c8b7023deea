"""risk_perturb: the re-identification risk of a PII span from its influence on the
masked LM's predictions of the other PII spans (seed 000, "Perturbations").

For every target mention ``t`` of a document (a PII span; all spans, or only the mentions of
the person the text is about with ``targets = "person"``) the scorer gives the log-probability
of ``t``'s (sub)words, all hidden, with the other mentions of ``t``'s entity hidden too:

    lp(t)           the rest of the document is visible,
    lp(t | -e)      every mention of the entity ``e`` is hidden as well (the perturbation).

The influence of entity ``e`` on target ``t`` is ``delta(t, e) = lp(t) - lp(t | -e)``, in nats:
how much harder ``t`` becomes to predict without ``e``. The influence of ``e`` is its largest
delta over the targets of the other entities, and every mention of ``e`` gets it. An entity
is masked when its influence reaches ``threshold`` (about 3.5 with RoBERTa-large on the
Wikipedia biographies in seed 000; fitted by cross-validation for the scorer used, see
docs/risk_perturb.md).

``Span._.risk[<name>]`` is the logistic squashing of the influence around the threshold,
``1 / (1 + exp(-(influence - threshold) / scale))``: 0.5 at the threshold, so the decision
``influence >= threshold`` is ``risk >= 0.5`` (a ``risk_threshold`` decider at 0.5 makes it).
``Span._.risk_explain[<name>]`` holds the raw influence and the target spans that moved most.

Batching: all perturbed variants of all targets of a batch of documents go to the scorer in
one call; the scorer deduplicates identical rows (mentions of one entity masked together)
and runs many rows per forward pass. A document with ``n`` entities costs about
``n * (n + 1)`` rows (``n + 1`` with ``targets = "person"``).

Fail closed: when the scorer fails, or a span's influence cannot be measured (no other
entity to predict, no scorable target), the span gets risk 1.0, the reason goes into
``Span._.risk_explain[<name>]["error"]`` and a warning is logged.
"""

import logging
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import srsly
from spacy import util
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import minibatch

from ..extensions import register_extensions
from ..lm.base import SpanLogProbs, SpanQuery, SpanScorer
from ..types import DEFAULT_SPANS_KEY, GOLD_MASK_KEY
from .base import FAIL_CLOSED_RISK, failure, isolate_failures, risk_key, write_risk

logger = logging.getLogger("spacy_sanitize.risk.perturb")
logger.addHandler(logging.NullHandler())

TARGET_MODES = ("all", "person")
AGGREGATES = ("sum", "mean")
OBJECTIVES = ("paper", "f1")
CharRange = Tuple[int, int]
PERSON_NOTE = "the person the text is about: the perturbation target, always masked"


class Errors:
    E450 = "E450: the span scorer failed on this document: {err}"
    E451 = (
        "E451: no influence can be measured: the document has no PII span of another entity "
        "to predict (or none could be scored); the span is masked (fail closed)."
    )
    E452 = "E452: unknown {what} '{value}'; use one of {options}."
    E453 = (
        "E453: no training spans to fit the threshold: the gold docs have no '{key}' spans with "
        "'mask' decisions (read them with spacy_sanitize.corpus.read_tab)."
    )
    E454 = "E454: `scale` must be > 0 (got {scale})."
    W450 = (
        "W450: the scorer '{scorer}' ignores the context (word frequencies), so every influence is 0 "
        "and risk_perturb masks nothing; use a masked LM scorer (spacy_sanitize.lm.hf.v1)."
    )
    W451 = (
        "W451: threshold = {threshold} is set in the config, so it stays in use; the fitted "
        "threshold ({fitted:.4f}) is saved but unused. Set threshold = null to use it."
    )


DEFAULT_THRESHOLD = 3.5  # seed 000, RoBERTa-large on the Wikipedia biographies


# --------------------------------------------------------------------------------------------
# influence computation
# --------------------------------------------------------------------------------------------
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


# --------------------------------------------------------------------------------------------
# the component
# --------------------------------------------------------------------------------------------
class RiskPerturb:
    """See the module docstring; the factory arguments are documented in ``make_risk_perturb``."""

    def __init__(
        self,
        nlp: Language,
        name: str,
        scorer: SpanScorer,
        spans_key: str,
        threshold: Optional[float],
        scale: float,
        coref_masking: bool,
        targets: str,
        target_aggregate: str,
        max_target_entities: int,
        objective: str,
        top_k: int,
        batch_size: int,
    ) -> None:
        for what, value, options in (
            ("targets", targets, TARGET_MODES),
            ("target_aggregate", target_aggregate, AGGREGATES),
            ("objective", objective, OBJECTIVES),
        ):
            if value not in options:
                raise ValueError(
                    Errors.E452.format(what=what, value=value, options=", ".join(options))
                )
        if scale <= 0:
            raise ValueError(Errors.E454.format(scale=scale))
        self.nlp = nlp
        self.name = name
        self.risk_key = risk_key(name)
        self.scorer = scorer
        self.spans_key = spans_key
        self.configured_threshold = None if threshold is None else float(threshold)
        self.fitted_threshold: Optional[float] = None  # learned by initialize, saved
        self.scale = float(scale)
        self.coref_masking = coref_masking
        self.targets = targets
        self.target_aggregate = target_aggregate
        self.max_target_entities = int(max_target_entities)
        self.objective = objective
        self.top_k = int(top_k)
        self.batch_size = int(batch_size)
        self.meta: Dict[str, Any] = {}
        if str(getattr(scorer, "name", "")).startswith("frequency"):
            logger.warning(Errors.W450.format(scorer=scorer.name))

    @property
    def threshold(self) -> float:
        """The configured threshold, else the fitted one, else ``DEFAULT_THRESHOLD``."""
        if self.configured_threshold is not None:
            return self.configured_threshold
        if self.fitted_threshold is not None:
            return self.fitted_threshold
        return DEFAULT_THRESHOLD

    @threshold.setter
    def threshold(self, value: Optional[float]) -> None:
        """Setting it is setting it in the config: it wins over a fitted one."""
        self.configured_threshold = None if value is None else float(value)

    def influences(self, docs: Sequence[Doc]) -> List[Union[DocInfluence, str]]:
        return compute_influences(
            docs,
            self.scorer,
            self.spans_key,
            self.coref_masking,
            self.targets,
            self.target_aggregate,
            self.max_target_entities,
        )

    @property
    def decision_threshold(self) -> float:
        """The risk at which ``influence >= threshold`` (nats, configured or fitted): the
        squashing puts the threshold at 0.5, so a decider needs no refit when it moves."""
        return 0.5

    def __call__(self, doc: Doc) -> Doc:
        for _ in self.pipe([doc]):
            pass
        return doc

    def pipe(self, docs: Iterable[Doc], batch_size: Optional[int] = None) -> Iterator[Doc]:
        for batch in minibatch(docs, size=batch_size or self.batch_size):
            self.set_annotations(batch, self.influences(batch))
            yield from batch

    def set_annotations(self, docs: Sequence[Doc], infos: Sequence[Union[DocInfluence, str]]) -> None:
        for doc, info in zip(docs, infos):
            spans = list(doc.spans.get(self.spans_key, []))
            if isinstance(info, str):
                logger.warning("%s (doc %r: %d spans get risk 1.0)", info, doc._.doc_id, len(spans))
                for span in spans:
                    self._write(span, FAIL_CLOSED_RISK, failure(info, scorer=self.scorer.name))
                continue
            failed = 0
            members_of: Dict[str, List[Span]] = {}
            for span, entity in zip(spans, info.entity_of):
                members_of.setdefault(entity, []).append(span)
            for entity, members in members_of.items():
                if entity == info.person:
                    for span in members:
                        self._write(
                            span,
                            1.0,
                            {"target": "person", "note": PERSON_NOTE, "scorer": self.scorer.name},
                        )
                    continue
                value, moved = info.influence(entity)
                if value is None:
                    failed += len(members)
                    reasons = sorted({info.errors[t] for t in info.targets if t in info.errors})
                    explain: Dict[str, Any] = failure(Errors.E451, scorer=self.scorer.name)
                    if reasons:
                        explain["target_errors"] = reasons[:3]
                    for span in members:
                        self._write(span, FAIL_CLOSED_RISK, explain)
                    continue
                explain = {
                    "influence": value,
                    "threshold": self.threshold,
                    "n_targets": len(moved),
                    "moved": [
                        {
                            "target": spans[t].text,
                            "start": spans[t].start_char,
                            "end": spans[t].end_char,
                            "delta": d,
                            "lp": info.base[t],
                            "lp_perturbed": info.perturbed[(t, entity)],
                        }
                        for t, d in moved[: self.top_k]
                    ],
                    "scorer": self.scorer.name,
                }
                risk = squash(value, self.threshold, self.scale)
                for span in members:
                    self._write(span, risk, explain)
            if failed:
                logger.warning(
                    "%s (doc %r: %d spans get risk 1.0)", Errors.E451, doc._.doc_id, failed
                )

    def _write(self, span: Span, risk: float, explain: Dict[str, Any]) -> None:
        write_risk(span, self.risk_key, risk, dict(explain))

    # fitting -----------------------------------------------------------------------------------
    def initialize(
        self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None
    ) -> None:
        """Fit the threshold on gold examples (reference docs with ``spans_key`` spans and
        ``mask`` decisions) with ``objective``; without mask decisions nothing is fitted.
        The fitted threshold is used (and saved) unless the config sets one (W451)."""
        register_extensions()
        docs = [eg.reference for eg in get_examples()]
        if any(
            doc.spans.get(GOLD_MASK_KEY) is not None and len(doc.spans.get(self.spans_key, []))
            for doc in docs
        ):
            self.fit(docs)

    def fit(self, docs: Sequence[Doc]) -> float:
        """Choose the threshold on gold docs (see :func:`fit_threshold`) and keep it as
        ``fitted_threshold``."""
        from ..corpus.tab import docs_to_tab

        gold = docs_to_tab(docs, self.spans_key, GOLD_MASK_KEY)
        if not any(m for g in gold for ms in g.annotations.values() for m in ms):
            raise ValueError(Errors.E453.format(key=self.spans_key))
        by_id: Dict[str, Tuple[Doc, Union[DocInfluence, str]]] = {}
        unique = {}
        for i, doc in enumerate(docs):
            unique.setdefault(doc._.doc_id or str(i), doc)
        infos = self.influences(list(unique.values()))
        for (doc_id, doc), info in zip(unique.items(), infos):
            by_id[doc_id] = (doc, info)
        scored = {
            doc_id: span_table(doc, info, self.spans_key) for doc_id, (doc, info) in by_id.items()
        }
        best, curve = fit_threshold(gold, scored, self.objective)
        self.fitted_threshold = best
        if self.configured_threshold is not None:
            logger.warning(Errors.W451.format(threshold=self.configured_threshold, fitted=best))
        self.meta = {
            "scorer": self.scorer.name,
            "objective": self.objective,
            "n_docs": len(by_id),
            "fitted_threshold": best,
            "curve_points": len(curve),
        }
        return best

    # serialization -----------------------------------------------------------------------------
    # Only what initialize learned: the settings (threshold, scale...) live in config.cfg, so
    # an override at load time wins.
    def _learned(self) -> Dict[str, Any]:
        return {"fitted_threshold": self.fitted_threshold, "meta": self.meta}

    def _set_learned(self, learned: Dict[str, Any]) -> None:
        fitted = learned.get("fitted_threshold")
        self.fitted_threshold = None if fitted is None else float(fitted)
        self.meta = dict(learned.get("meta") or {})

    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        return util.to_bytes({"learned": self._learned}, exclude)

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = ()) -> "RiskPerturb":
        util.from_bytes(data, {"learned": self._set_learned}, exclude)
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> None:
        util.to_disk(path, {"learned.json": lambda p: srsly.write_json(p, self._learned())}, exclude)

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> "RiskPerturb":
        def read(p: Path) -> None:
            if p.exists():
                self._set_learned(srsly.read_json(p))

        util.from_disk(path, {"learned.json": read}, exclude)
        return self


# --------------------------------------------------------------------------------------------
# threshold fitting (also used by benchmarks/perturb_eval.py)
# --------------------------------------------------------------------------------------------
SpanTable = List[Tuple[int, int, Optional[float]]]


def span_table(doc: Doc, info: Union[DocInfluence, str], spans_key: str = DEFAULT_SPANS_KEY) -> SpanTable:
    """(start, end, influence) per span; influence None when it could not be measured."""
    spans = list(doc.spans.get(spans_key, []))
    values: Sequence[Optional[float]] = (
        [None] * len(spans) if isinstance(info, str) else info.span_influences()
    )
    return [(s.start_char, s.end_char, v) for s, v in zip(spans, values)]


def predictions_at(table: Dict[str, SpanTable], threshold: float) -> Dict[str, List[List[int]]]:
    """The spans masked at ``threshold``: influence >= threshold, or not measurable (fail closed)."""
    return {
        doc_id: [[s, e] for s, e, v in rows if v is None or v >= threshold]
        for doc_id, rows in table.items()
    }


def candidate_thresholds(table: Dict[str, SpanTable], n: int = 80) -> List[float]:
    """Thresholds between the observed influences (quantiles), plus one below all of them
    (mask everything) and one above (mask only what cannot be measured)."""
    import numpy

    values = numpy.asarray(
        sorted(v for rows in table.values() for _, _, v in rows if v is not None)
    )
    if not len(values):
        return [0.0]
    qs = numpy.unique(numpy.quantile(values, numpy.linspace(0, 1, n + 1)))
    mids = [(a + b) / 2 for a, b in zip(qs[:-1], qs[1:])]
    return [float(values[0] - 1.0)] + [float(m) for m in mids] + [float(values[-1] + 1.0)]


def objective_value(scores: Any, objective: str) -> float:
    """``paper``: P + R_direct + R_quasi (seed 000, eq. "cost_function"); ``f1``: token F1."""
    if objective == "paper":
        return scores.precision + scores.direct_recall + scores.quasi_recall
    return scores.f1


def fit_threshold(
    gold: Sequence[Any],
    table: Dict[str, SpanTable],
    objective: str = "paper",
    tokens: Any = None,
    n_candidates: int = 80,
) -> Tuple[float, List[Dict[str, float]]]:
    """The threshold maximizing ``objective`` of the TAB scores on ``gold`` (TabDocuments);
    ties go to the lowest threshold (more masking). Returns it and the whole curve."""
    from ..evaluation import tab_scores

    gold = [g for g in gold if g.doc_id in table]
    curve = []
    best, best_value = None, -1.0
    for t in candidate_thresholds(table, n_candidates):
        scores = tab_scores(gold, predictions_at(table, t), tokens=tokens)
        value = objective_value(scores, objective)
        curve.append(
            {
                "threshold": t,
                "objective": value,
                "P": scores.precision,
                "R_all": scores.recall,
                "F1": scores.f1,
                "R_direct": scores.direct_recall,
                "R_quasi": scores.quasi_recall,
            }
        )
        if value > best_value + 1e-12:
            best, best_value = t, value
    return float(best if best is not None else 0.0), curve


@Language.factory(
    "risk_perturb",
    default_config={
        "scorer": {"@misc": "spacy_sanitize.lm.hf.v1"},
        "spans_key": DEFAULT_SPANS_KEY,
        "threshold": None,
        "scale": 1.0,
        "coref_masking": True,
        "targets": "all",
        "target_aggregate": "sum",
        "max_target_entities": 0,
        "objective": "paper",
        "top_k": 3,
        "batch_size": 8,
    },
    requires=["doc.spans"],
    assigns=["span._.risk", "span._.risk_explain"],
)
def make_risk_perturb(
    nlp: Language,
    name: str,
    scorer: SpanScorer,
    spans_key: str,
    threshold: Optional[float],
    scale: float,
    coref_masking: bool,
    targets: str,
    target_aggregate: str,
    max_target_entities: int,
    objective: str,
    top_k: int,
    batch_size: int,
) -> RiskPerturb:
    """scorer (SpanScorer): span log-prob backend; a masked LM (default: the shipped domain MLM
        ``spacy_sanitize:minilm-mlm``, offline). The frequency scorer ignores context: useless here.
    spans_key (str): the PII span group.
    threshold (Optional[float]): influence (nats) at or above which an entity counts as risky
        (risk >= 0.5, what ``risk_threshold`` masks by default). None: the threshold fitted by
        ``initialize`` on gold docs (saved with the component), else 3.5 (seed 000). A value set
        here always wins over a fitted one.
    scale (float): temperature (nats) of the logistic squashing of the influence into ``Span._.risk``.
    coref_masking (bool): perturb (hide) all mentions of an entity (``Span._.entity_id``)
        together and hide the target's own co-referent mentions; False: every span is its own entity.
    targets (str): "all" (every PII span is a target, seed 000) or "person" (only the mentions of
        the main PERSON entity; n + 1 rows per document instead of about n * (n + 1)).
    target_aggregate (str): "sum" (log-prob of the whole target span) or "mean" (per subword).
    max_target_entities (int): with > 0, only the mentions of that many entities (most mentioned
        first) are targets; bounds the cost on long documents.
    objective (str): threshold fitting in ``initialize``: "paper" (P + R_direct + R_quasi) or "f1".
    top_k (int): target spans listed in ``Span._.risk_explain`` (the ones that moved most).
    batch_size (int): docs per scorer call.
    """
    register_extensions()
    return RiskPerturb(
        nlp,
        name,
        scorer,
        spans_key,
        threshold,
        scale,
        coref_masking,
        targets,
        target_aggregate,
        max_target_entities,
        objective,
        top_k,
        batch_size,
    )
