"""risk_infer: de-identification against an attribute-inference attacker (seed 001).

A linear bag-of-n-grams attacker (``attacker.py``) infers one sensitive attribute, e.g.
the country a court case comes from. The component reads the text the way the masker
would output it (spans of ``doc.spans[spans_key]`` whose ``Span._.mask`` is not False are
replaced by a placeholder), and while the attacker's maximum class probability is at or
above ``threshold`` it searches for words whose removal brings it below (``search``).

- Removed words become spans in ``doc.spans[spans_key]`` with label ``label`` (a word inside
  an existing, unmasked PII span masks that span instead, so the span keeps its type),
  ``Span._.risk["infer"]`` (the component's name without ``risk_``) and, with ``set_mask``, ``Span._.mask = True``.
- Every PII span that existed before gets ``Span._.risk["infer"]``: how much masking it
  (with the other mentions of its entity) lowers the attacker's confidence.
- ``Doc._.risk_infer`` reports the prediction, the confidence before and after, and
  whether the threshold was reached.

With ``criterion = "prior"`` or ``"guess"`` the component holds an ensemble of attackers
(word n-grams on lower case, norms or lemmas, character n-grams) and removes words until
every attacker's posterior is close to its prior, or its best guess is the prior's
(``search.ensemble_greedy_search``); ``training.adversarial`` retrains the ensemble on
sanitized text in cross-fitted rounds.

Place it after the components that decide (risk_vote) and before the masker. Without a
trained attacker it raises E601 instead of passing documents through.

The component is here; ``view`` builds the attacker's view of the text as the masker will
output it, ``search`` finds the words to remove, ``delta`` scores each entity by the features
its masking changes, ``fitting`` fits the threshold and ``attacker`` is the attacker itself;
the coded messages are in ``spacy_sanitize.errors``.
"""
import logging
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

import numpy as np
import srsly
from spacy import util
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import ensure_path

from ...errors import Errors, Warnings
from ...extensions import register_extensions
from ...shipped import artefact_path
from ...spans import add_pii_spans, check_label
from ...risk.base import FittedThreshold, risk_key
from .attacker import LinearAttacker, kind_sizes, read_labeled, sequences_of, softmax, train_attacker
from .delta import EntityDeltas
from .fitting import fit_threshold
from .search import SEARCHES, SearchResult, build_problem, ensemble_greedy_search, ensemble_problems, run_search, shortfall, total_variation
from .view import AttackerView, View

logger = logging.getLogger(__name__)
logger.addHandler(logging.NullHandler())

DEFAULT_THRESHOLD = 0.37  # seed 001
CRITERIA = ("maxprob", "prior", "guess")


class RiskInfer(AttackerView, FittedThreshold):

    """See the module docstring. Settings are the factory's arguments."""

    default_threshold = DEFAULT_THRESHOLD

    def __init__(
        self,
        nlp: Language,
        name: str = "risk_infer",
        *,
        spans_key: str = "pii",
        label: str = "MISC",
        threshold: Optional[float] = None,
        search: str = "greedy",
        greedy_criterion: str = "maxprob",
        beam_width: int = 5,
        max_removals: int = 100,
        exact_max_m: int = 4,
        exact_budget: int = 200_000,
        max_rounds: int = 3,
        placeholder: str = "[{label}]",
        set_mask: bool = True,
        score_existing: bool = True,
        keep_stop_words: bool = True,
        criterion: str = "maxprob",
        tv_bound: float = 0.05,
    ) -> None:
        if criterion not in CRITERIA:
            raise ValueError(Errors.E711.format(criterion=criterion))
        if not 0 <= tv_bound < 1:
            raise ValueError(Errors.E712.format(value=tv_bound))
        if search not in SEARCHES:
            raise ValueError(Errors.E609.format(search=search, searches=", ".join(SEARCHES)))
        if threshold is not None and not 0 < threshold <= 1:
            raise ValueError(Errors.E611.format(threshold=threshold))
        self.nlp = nlp
        self.name = name
        self.key = risk_key(name)
        self.spans_key = spans_key
        self.label = check_label(label)
        self.configured_threshold = None if threshold is None else float(threshold)
        self.fitted_threshold: Optional[float] = None  # learned by initialize, saved
        self.search = search
        self.greedy_criterion = greedy_criterion
        self.beam_width = beam_width
        self.max_removals = max_removals
        self.exact_max_m = exact_max_m
        self.exact_budget = exact_budget
        self.max_rounds = max_rounds
        self.placeholder = placeholder
        self.set_mask = set_mask
        self.score_existing = score_existing
        self.keep_stop_words = keep_stop_words
        self.criterion = criterion
        self.tv_bound = float(tv_bound)
        # the attacker ensemble (learned, saved); the first one is "the" attacker of the
        # maxprob criterion, the risk scores and the fitted threshold
        self.attackers: List[LinearAttacker] = []
        self._placeholder_forms: Dict[Tuple[str, bool, str, str, bool], List[str]] = {}
        self._rendered_doc: Optional[Doc] = None  # the masker's rendering of the last doc
        self._rendered: Tuple[Any, List[str]] = ((), [])


    @property
    def attacker(self) -> Optional[LinearAttacker]:
        return self.attackers[0] if self.attackers else None

    @attacker.setter
    def attacker(self, value: Optional[LinearAttacker]) -> None:
        self.attackers = [] if value is None else [value]

    def set_attackers(self, attackers: Sequence[LinearAttacker]) -> None:
        """Use an ensemble: with ``criterion = "prior"`` every attacker must end close to
        its own prior, so their classes may differ (one trained on 40 states, one on the 7
        of the sanitized court cases)."""
        self.attackers = list(attackers)

    # --- processing ----------------------------------------------------------------
    def _check(self) -> LinearAttacker:
        if self.attacker is None:
            raise ValueError(Errors.E601.format(name=self.name))
        return self.attacker

    def _search_kwargs(self) -> Dict[str, Any]:
        if self.search == "exact":
            return {"max_m": self.exact_max_m, "budget": self.exact_budget}
        if self.search == "beam":
            return {"beam_width": self.beam_width, "max_removals": self.max_removals}
        return {"max_removals": self.max_removals, "criterion": self.greedy_criterion}

    def find_removals(self, doc: Doc) -> Tuple[Set[int], List[SearchResult], np.ndarray, np.ndarray, Dict[str, Any]]:
        """Token indices to remove, the searches that chose them (one per round: a round
        re-checks the text with the chosen words masked), the attacker's probabilities
        before and after the removals, and how the call ended: ``success`` (the criterion
        is met) and, for the prior criteria, each attacker's ``tv_before``, ``tv_after``,
        ``shortfall`` and predicted ``label`` after."""
        attacker = self._check()
        if self.criterion != "maxprob":
            return self._find_removals_prior(doc)
        removed: Set[int] = set()
        results: List[SearchResult] = []
        p_before: Optional[np.ndarray] = None
        regions = self.plan(doc)  # removed words are not spans yet: the plan stays
        token_region, labels = self.token_regions(doc, regions), self.region_labels(doc, regions)
        for round_ in range(self.max_rounds + 1):
            forms, removable, index = self.sequence(doc, token_region, labels, removed)
            p_now = attacker.proba_seq(forms)
            p_before = p_now if p_before is None else p_before
            if p_now.max() < self.threshold or round_ == self.max_rounds:
                break
            result = run_search(build_problem(attacker, forms, removable), self.threshold, self.search, **self._search_kwargs())
            results.append(result)
            units = set(result.removed_units)
            new = {i for f, r, i in zip(forms, removable, index) if r and f in units}
            if not new:
                break
            removed |= new
        return removed, results, p_before, p_now, {"success": bool(p_now.max() < self.threshold)}

    def _find_removals_prior(self, doc: Doc) -> Tuple[Set[int], List[SearchResult], np.ndarray, np.ndarray, Dict[str, Any]]:
        """``criterion = "prior"``: remove words until every attacker's posterior is within
        total variation ``tv_bound`` of its prior (the text tells no attacker more than it
        knew without it); ``"guess"``: or until its best guess is its prior's (the text no
        longer tells it the top class). Units are the first attacker's word forms, shared by all (an
        attacker reading lemmas or characters kills its own features through the same
        words). Returns the first attacker's probabilities, like ``find_removals``."""
        removed: Set[int] = set()
        results: List[SearchResult] = []
        regions = self.plan(doc)
        token_region, labels = self.token_regions(doc, regions), self.region_labels(doc, regions)
        priors = [a.prior() for a in self.attackers]
        p_before: Optional[np.ndarray] = None
        tv_before: List[float] = []
        for round_ in range(self.max_rounds + 1):
            views = [self.sequence(doc, token_region, labels, removed, attacker=a) for a in self.attackers]
            p_all = [a.proba_seq(v[0]) for a, v in zip(self.attackers, views)]
            tv_now = [float(total_variation(p, prior)) for p, prior in zip(p_all, priors)]
            short_now = [float(shortfall(p, prior, self.tv_bound, self.criterion == "guess")) for p, prior in zip(p_all, priors)]
            p_now = p_all[0]
            if p_before is None:
                p_before, tv_before = p_now, list(tv_now)
            if max(short_now) <= 0 or round_ == self.max_rounds:
                break
            keyed = [(forms, rem, [self._form(doc[i]) if i >= 0 else None for i in index]) for forms, rem, index in views]
            result = ensemble_greedy_search(ensemble_problems(self.attackers, keyed), priors, self.tv_bound, self.max_removals, self.criterion == "guess")
            results.append(result)
            units = set(result.removed_units)
            new = {i for _, rem, index in views for r, i in zip(rem, index) if r and i >= 0 and i not in removed and self._form(doc[i]) in units}
            if not new:
                break
            removed |= new
        assert p_before is not None
        labels_now = [a.classes[int(p.argmax())] for a, p in zip(self.attackers, p_all)]
        state = {"success": bool(max(short_now) <= 0), "tv_before": tv_before, "tv_after": tv_now, "shortfall": short_now, "label": labels_now}
        return removed, results, p_before, p_now, state

    def __call__(self, doc: Doc) -> Doc:
        attacker = self._check()
        started = time.perf_counter()
        existing = list(doc.spans.get(self.spans_key, []))
        removed, results, p_before, p_after, state = self.find_removals(doc)
        success = state["success"]
        new_spans = self._write_removals(doc, removed, p_after)
        if not success:
            reason = results[-1].reason if results else "nothing_removable"
            if self.criterion != "maxprob":
                worst = int(np.argmax(state["shortfall"]))
                warnings.warn(Warnings.W710.format(bound=self.tv_bound, worst=state["shortfall"][worst], label=state["label"][worst], reason=reason), stacklevel=2)
            else:
                warnings.warn(Warnings.W601.format(label=attacker.classes[int(p_after.argmax())], threshold=self.threshold, reached=float(p_after.max()), reason=reason), stacklevel=2)
        if self.score_existing:
            self._score_existing(doc, existing)
        doc._.risk_infer = {
            "predicted_before": attacker.classes[int(p_before.argmax())],
            "p_max_before": float(p_before.max()),
            "predicted_after": attacker.classes[int(p_after.argmax())],
            "p_max_after": float(p_after.max()),
            "threshold": self.threshold,
            "criterion": self.criterion,
            "success": success,
            "search": self.search,
            "removed_words": sorted({doc[i].text for i in removed}),
            "n_removed_tokens": len(removed),
            "n_new_spans": new_spans,
            "evaluations": sum(r.evaluations for r in results),
            "seconds": time.perf_counter() - started,
        }
        if self.criterion != "maxprob":
            doc._.risk_infer.update({"tv_bound": self.tv_bound, "tv_before": state["tv_before"], "tv_after": state["tv_after"], "n_attackers": len(self.attackers)})
        return doc

    def _write_removals(self, doc: Doc, removed: Set[int], p_after: np.ndarray) -> int:
        """Turn the removed tokens into spans; returns how many new spans were added."""
        if not removed:
            return 0
        existing = [s for s in doc.spans.get(self.spans_key, [])]
        regions = self.plan(doc)  # before the new spans join: the plan find_removals read
        owner: Dict[int, Span] = {}
        for span in existing:
            for i in range(span.start, span.end):
                owner.setdefault(i, span)
        runs: List[List[int]] = []
        for i in sorted(removed):
            if runs and runs[-1][-1] == i - 1 and owner.get(i) is owner.get(i - 1):
                runs[-1].append(i)
            else:
                runs.append([i])
        new: List[Span] = []
        kept_p: Dict[Tuple[str, ...], float] = {}
        for run in runs:
            container = owner.get(run[0])
            span = container if container is not None else Span(doc, run[0], run[-1] + 1, label=self.label)
            # leave-one-out by word: put back every removed occurrence of the run's words
            words = tuple(sorted({self._form(doc[i]) for i in run}))
            if words not in kept_p:
                kept_p[words] = float(self.proba(doc, {i for i in removed if self._form(doc[i]) not in words}, regions).max())
            without = kept_p[words]
            span._.risk[self.key] = float(np.clip(without - p_after.max(), 0.0, 1.0))
            span._.risk_explain[self.key] = {"removed_by_search": True, "p_max_if_kept": float(without), "p_max": float(p_after.max()), "search": self.search}
            if self.set_mask:
                span._.mask = True
            if container is None:
                new.append(span)
        add_pii_spans(doc, new, key=self.spans_key)
        return len(new)

    def _score_existing(self, doc: Doc, spans: Sequence[Span]) -> None:
        """risk["infer"] of each pre-existing span: the drop in the attacker's confidence
        when its entity (all spans sharing its entity id) is masked. The view is built
        once; each entity is scored from the n-gram features that masking or unmasking
        it changes (``delta``), so the cost grows with the entities, not their square."""
        groups: Dict[str, List[Span]] = {}
        for span in spans:
            groups.setdefault(span._.entity_id or f"{span.start_char}:{span.end_char}", []).append(span)
        deltas = EntityDeltas(self, doc, self.plan_settings())
        p_now = float(deltas.p_max)
        for members in groups.values():
            masked_now = any(s._.mask is not False for s in members)
            p_other = float(deltas.p_max_flipped(members, masked_now))
            p_unmasked, p_masked = (p_other, p_now) if masked_now else (p_now, p_other)
            for s in members:
                s._.risk[self.key] = float(np.clip(p_unmasked - p_masked, 0.0, 1.0))
                s._.risk_explain[self.key] = {**s._.risk_explain.get(self.key, {}), "p_max_unmasked": p_unmasked, "p_max_masked": p_masked}

    # --- training ------------------------------------------------------------------
    def initialize(
        self,
        get_examples: Optional[Callable[[], Iterable[Example]]] = None,
        *,
        nlp: Optional[Language] = None,
        train_path: Optional[Union[str, Path]] = None,
        attacker_path: Optional[Union[str, Path]] = None,
        text_field: str = "text",
        label_field: str = "label",
        attr: str = "LOWER",
        ngram_max: int = 2,
        min_df: int = 2,
        max_features: int = 100_000,
        C: float = 1.0,
        max_chars: int = 0,
        threshold_path: Optional[Union[str, Path]] = None,
        attackers: Sequence[str] = (),
        shipped: Optional[str] = None,
        data: Optional[str] = None,
    ) -> None:
        """Load a trained attacker (``attacker_path``), or train one from ``train_path``
        (JSONL with ``text_field`` and ``label_field``, dotted paths allowed, e.g.
        ``meta.countries``), or from the examples' reference ``doc.cats`` (the label is the
        category with the highest value). ``threshold_path``: TAB JSON with documents
        masked by people; the threshold becomes the attacker's mean maximum probability
        on them (how seed 001 fitted 0.37), used (and saved) unless the config sets a
        threshold (W602). ``attackers``: the ensemble to train (default: one word n-gram
        attacker on ``attr``), ``ANALYZER:ATTR`` each
        (``word:LOWER``, ``word:NORM``, ``word:LEMMA``, ``char:LOWER``: character 3- to
        5-grams); ``attacker_path`` loads an ensemble saved as ``attacker`` + ``ensemble/N``
        (``spacy-sanitize attacker adversarial`` writes one). ``shipped``: the ensemble
        shipped in that folder under ``data`` (None: the package's data folder), e.g.
        ``risk_infer_country`` (the respondent state of ECHR judgments)."""
        tokenizer_nlp = nlp or self.nlp
        if shipped is not None:
            if attacker_path or train_path:
                raise ValueError(Errors.E716.format(shipped=shipped))
            attacker_path = artefact_path(shipped, data, component=self.name)
        if attacker_path:
            path = ensure_path(attacker_path)
            self.attacker = LinearAttacker.from_disk(path)
            self._read_ensemble(path / "ensemble")
        else:
            texts: List[str] = []
            labels: List[str] = []
            if train_path:
                _, texts, labels = read_labeled(ensure_path(train_path), label_field, text_field)
            elif get_examples is not None:
                for example in get_examples():
                    cats = example.reference.cats
                    if cats:
                        texts.append(example.reference.text)
                        labels.append(max(cats, key=cats.__getitem__))
            if not texts and self.attacker is not None:  # re-initialized without data: keep it
                return
            if not texts:
                raise ValueError(Errors.E602.format(text_field=text_field, label_field=label_field))
            if max_chars:
                texts = [t[:max_chars] for t in texts]
            # Lemmas need the pipeline, but only the components before this one (this one
            # has no attacker yet).
            names = tokenizer_nlp.pipe_names
            earlier = names[: names.index(self.name)] if self.name in names else names
            kinds = [parse_kind(kind, attr) for kind in attackers] or [("word", attr)]
            trained: List[LinearAttacker] = []
            seqs_of: Dict[str, List[List[str]]] = {}
            for analyzer, kind_attr in kinds:
                if kind_attr not in seqs_of:
                    with tokenizer_nlp.select_pipes(enable=earlier):
                        seqs_of[kind_attr] = sequences_of(texts, tokenizer_nlp, kind_attr)
                trained.append(train_attacker(seqs_of[kind_attr], labels, attr=kind_attr, analyzer=analyzer, min_df=min_df, max_features=max_features, C=C, **kind_sizes(analyzer, ngram_max)))
            self.set_attackers(trained)
        if threshold_path:
            self.fitted_threshold = fit_threshold(self, threshold_path)
            logger.info("fitted threshold %.4f on '%s'", self.fitted_threshold, threshold_path)
            if self.configured_threshold is not None:
                warnings.warn(Warnings.W602.format(threshold=self.configured_threshold, fitted=self.fitted_threshold), stacklevel=2)

    # --- serialization -------------------------------------------------------------
    # Only what initialize learned (the attacker, the fitted threshold): the settings live
    # in config.cfg, so an override at load time wins.
    def _learned(self) -> Dict[str, Any]:
        return {"fitted_threshold": self.fitted_threshold}

    def _set_learned(self, learned: Dict[str, Any]) -> None:
        fitted = learned.get("fitted_threshold")
        self.fitted_threshold = None if fitted is None else float(fitted)

    # The first attacker stays in "attacker" (the layout of one-attacker components); the
    # other members of an ensemble go to "ensemble/1", "ensemble/2", ...
    def _set_attacker_bytes(self, data: Optional[bytes]) -> None:
        self.attackers = [LinearAttacker.from_bytes(data)] + self.attackers[1:] if data else []

    def _set_ensemble_bytes(self, data: Optional[List[bytes]]) -> None:
        self.attackers = self.attackers[:1] + [LinearAttacker.from_bytes(b) for b in data or []]

    def _write_attacker(self, path: Path) -> None:
        if self.attacker is not None:
            self.attacker.to_disk(path)

    def _write_ensemble(self, path: Path) -> None:
        for number, member in enumerate(self.attackers[1:], start=1):
            member.to_disk(path / str(number))

    def _read_attacker(self, path: Path) -> None:
        self.attackers = [LinearAttacker.from_disk(path)] if path.exists() else []

    def _read_ensemble(self, path: Path) -> None:
        numbers = sorted(int(p.name) for p in path.iterdir() if p.name.isdigit()) if path.exists() else []
        self.attackers = self.attackers[:1] + [LinearAttacker.from_disk(path / str(n)) for n in numbers]

    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        return util.to_bytes(
            {
                "learned": self._learned,
                "attacker": lambda: self.attacker.to_bytes() if self.attacker else None,
                "ensemble": lambda: [a.to_bytes() for a in self.attackers[1:]],
            },
            exclude,
        )

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = ()) -> "RiskInfer":
        # "attacker" before "ensemble": the ensemble extends the first attacker
        util.from_bytes(data, {"learned": self._set_learned, "attacker": self._set_attacker_bytes, "ensemble": self._set_ensemble_bytes}, exclude)
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> None:
        writers = {"learned.json": lambda p: srsly.write_json(p, self._learned()), "attacker": self._write_attacker, "ensemble": self._write_ensemble}
        util.to_disk(path, writers, exclude)

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> "RiskInfer":
        def read_learned(p: Path) -> None:
            if p.exists():
                self._set_learned(srsly.read_json(p))

        util.from_disk(path, {"learned.json": read_learned, "attacker": self._read_attacker, "ensemble": self._read_ensemble}, exclude)
        return self


def parse_kind(kind: str, attr: str = "LOWER") -> Tuple[str, str]:
    """``"char:LOWER"`` -> ("char", "LOWER"); a bare ``"word"`` takes ``attr``."""
    analyzer, _, kind_attr = kind.partition(":")
    return analyzer, (kind_attr or attr).upper()


@Language.factory(
    "risk_infer",
    default_config={
        "spans_key": "pii",
        "label": "MISC",
        "threshold": None,
        "search": "greedy",
        "greedy_criterion": "maxprob",
        "beam_width": 5,
        "max_removals": 100,
        "exact_max_m": 4,
        "exact_budget": 200000,
        "max_rounds": 3,
        "placeholder": "[{label}]",
        "set_mask": True,
        "score_existing": True,
        "keep_stop_words": True,
        "criterion": "maxprob",
        "tv_bound": 0.05,
    },
    requires=["doc.spans"],
    assigns=["doc.spans", "span._.risk", "span._.risk_explain", "span._.mask", "doc._.risk_infer"],
)
def make_risk_infer(
    nlp: Language,
    name: str,
    spans_key: str,
    label: str,
    threshold: Optional[float],
    search: str,
    greedy_criterion: str,
    beam_width: int,
    max_removals: int,
    exact_max_m: int,
    exact_budget: int,
    max_rounds: int,
    placeholder: str,
    set_mask: bool,
    score_existing: bool,
    keep_stop_words: bool,
    criterion: str,
    tv_bound: float,
) -> RiskInfer:
    """threshold (Optional[float]): a text is de-identified when the attacker's maximum
    class probability is below it. None: the threshold fitted by ``initialize``
    (``threshold_path``, saved with the component), else 0.37 (seed 001); a value set here
    always wins over a fitted one. search (str): exact, greedy or beam.
    placeholder (str): how the masker renders a masked span for the attacker ("" = gap;
    "masker": the text the pipeline's masker writes, e.g. a generalization).
    keep_stop_words (bool): never remove stop words (removing "the" everywhere kills many
    bigrams at once and lowers the confidence at a large cost in readability).
    criterion (str): ``maxprob`` (seed 001: the first attacker's maximum probability below
    ``threshold``) or ``prior`` (every attacker of the ensemble within total variation
    ``tv_bound`` of its prior: the text no longer tells the attribute) or ``guess`` (the
    same, or every attacker's best guess is its prior's best guess). tv_bound (float):
    below half the gap between the two largest priors, the attackers' best guess is the
    prior's, i.e. no better than guessing the majority class."""
    register_extensions()
    return RiskInfer(
        nlp,
        name,
        spans_key=spans_key,
        label=label,
        threshold=threshold,
        search=search,
        greedy_criterion=greedy_criterion,
        beam_width=beam_width,
        max_removals=max_removals,
        exact_max_m=exact_max_m,
        exact_budget=exact_budget,
        max_rounds=max_rounds,
        placeholder=placeholder,
        set_mask=set_mask,
        score_existing=score_existing,
        keep_stop_words=keep_stop_words,
        criterion=criterion,
        tv_bound=tv_bound,
    )


__all__ = ["DEFAULT_THRESHOLD", "RiskInfer", "View", "make_risk_infer", "fit_threshold", "softmax"]
