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
``Span._.risk_explain[<name>]["error"]`` and a warning is issued (W452, W453).

The component is here; ``influence`` computes the influences, ``fitting`` fits the threshold
on gold documents; the coded messages are in ``spacy_sanitize.errors``.
"""
import logging
import warnings
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import minibatch

from ...learned import LearnedState
from ...errors import Errors, Warnings
from ...extensions import register_extensions
from ...lm.base import SpanScorer
from ...types import DEFAULT_SPANS_KEY, GOLD_MASK_KEY
from ..base import FAIL_CLOSED_RISK, FittedThreshold, failure, risk_key, write_risk
from .fitting import (
    OBJECTIVES,
    SpanTable,
    candidate_thresholds,
    fit_threshold,
    predictions_at,
    span_table,
)
from .influence import (
    AGGREGATES,
    TARGET_MODES,
    CharRange,
    DocInfluence,
    aggregate,
    compute_influences,
    entity_keys,
    person_entity,
    plan_queries,
    select_targets,
    squash,
)

logger = logging.getLogger("spacy_sanitize.risk.perturb")
logger.addHandler(logging.NullHandler())

PERSON_NOTE = "the person the text is about: the perturbation target, always masked"
DEFAULT_THRESHOLD = 3.5  # seed 000, RoBERTa-large on the Wikipedia biographies


class RiskPerturb(FittedThreshold, LearnedState):
    """See the module docstring; the factory arguments are documented in ``make_risk_perturb``."""

    default_threshold = DEFAULT_THRESHOLD

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
            warnings.warn(Warnings.W450.format(scorer=scorer.name), stacklevel=2)


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
        return next(self.pipe([doc]))

    def pipe(self, docs: Iterable[Doc], batch_size: Optional[int] = None) -> Iterator[Doc]:
        for batch in minibatch(docs, size=batch_size or self.batch_size):
            self.set_annotations(batch, self.influences(batch))
            yield from batch

    def set_annotations(self, docs: Sequence[Doc], infos: Sequence[Union[DocInfluence, str]]) -> None:
        for doc, info in zip(docs, infos):
            spans = list(doc.spans.get(self.spans_key, []))
            if isinstance(info, str):
                warnings.warn(Warnings.W452.format(doc_id=doc._.doc_id, n=len(spans), err=info), stacklevel=2)
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
                warnings.warn(Warnings.W453.format(n=failed, doc_id=doc._.doc_id), stacklevel=2)

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
        from ...corpus.tab import docs_to_tab

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
        logger.info("fitted threshold %.4f nats on %d docs (%s)", best, len(by_id), self.objective)
        if self.configured_threshold is not None:
            warnings.warn(Warnings.W451.format(threshold=self.configured_threshold, fitted=best), stacklevel=2)
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
        ``minilm_mlm``, offline). The frequency scorer ignores context: useless here.
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


__all__ = [
    "AGGREGATES",
    "DEFAULT_THRESHOLD",
    "OBJECTIVES",
    "TARGET_MODES",
    "CharRange",
    "DocInfluence",
    "Errors",
    "RiskPerturb",
    "SpanTable",
    "aggregate",
    "candidate_thresholds",
    "compute_influences",
    "entity_keys",
    "fit_threshold",
    "make_risk_perturb",
    "person_entity",
    "plan_queries",
    "predictions_at",
    "select_targets",
    "span_table",
    "squash",
]
