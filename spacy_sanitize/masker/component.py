"""masker: turns masking decisions into the sanitized text.

Regions to replace come from ``masking_plan.masking_plan`` (detected spans, fail closed,
entity-level masking, allow/deny lists, propagation, overlap policy). Each region is
replaced by the strategy configured for its type (``operators`` with ``DEFAULT``, else
``strategy``); the same mention of the same entity always gets the same replacement.
Writes ``Doc._.sanitized``, ``Doc._.replacements`` (rows ``[start, end, label,
entity_id, replacement, out_start, out_end]``) and ``Doc._.privacy``.
"""
import bisect
import warnings
from dataclasses import replace as replace_region
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example

from ..doc_reads import doc_text
from ..markup import hidden_ranges, may_have_markup, visible_parts
from ..language import foreign_language
from ..learned import LearnedState
from ..decide.check import warn_group_replaced, warn_undecided
from ..decide.confidence import kept_in_clear
from ..extensions import register_extensions
from ..errors import Errors, Warnings
from .options import build_strategy, check_label, check_strategy_config
from .privacy import P_ASSUMED, P_DETECTED, check_p, coverage, estimate_p, kept_spans, privacy_report
from .plan import (
    OVERLAP_POLICIES, PlanSettings, Region, masking_plan, one_label_per_mention, resolve_overlaps, row_entity_id,
)
from .strategies import Mention, Strategy
from .record import RecordState, piece_entities
from .strategies.base import DocState, doc_key_for

Row = List[Any]
StrategyArg = Union[Strategy, Dict[str, Any]]


def apply_regions(text: str, regions: List[Region], replace: Callable[[Region], str]) -> Tuple[str, List[Row]]:
    """Replace each (sorted, non-overlapping) region; returns the new text and the rows."""
    pieces: List[str] = []
    rows: List[Row] = []
    cursor = out = 0
    aliases: Dict[str, str] = {}
    for region in regions:
        pieces.append(text[cursor : region.start])
        out += region.start - cursor
        replacement = replace(region)
        pieces.append(replacement)
        rows.append([region.start, region.end, region.label, row_entity_id(region, aliases), replacement, out, out + len(replacement)])
        out += len(replacement)
        cursor = region.end
    pieces.append(text[cursor:])
    return "".join(pieces), rows


def split_at_markup(regions: List[Region], text: str) -> List[Region]:
    """Each region cut into its parts outside markup (tags, ANSI escapes: ``markup``),
    so a name split by tags ("<b>John</b> <i>Smith</i>") has each text part replaced and the
    tags kept, balanced; a region inside markup only is dropped (markup is no text)."""
    hidden = hidden_ranges(text) if regions and may_have_markup(text) else []
    if not hidden:
        return regions
    ends = [e for _, e in hidden]  # sorted and disjoint: bisection finds a region's first overlap
    out: List[Region] = []
    for region in regions:
        first = bisect.bisect_right(ends, region.start)
        if first == len(hidden) or hidden[first][0] >= region.end:
            out.append(region)
            continue
        parts = visible_parts(text, region.start, region.end, hidden, lo=first)
        out.extend(replace_region(region, start=s, end=e) for s, e in parts)
    return out


def _as_strategy(value: StrategyArg, where: str) -> Strategy:
    """A resolved strategy as it is; a config block (the Python API) is built here."""
    if isinstance(value, Strategy):
        return value
    return build_strategy(check_strategy_config(value, where))


class Masker(LearnedState):
    def __init__(
        self,
        name: str,
        strategy: StrategyArg,
        operators: Dict[str, StrategyArg],
        spans_key: str = "pii",
        overlap: str = "union",
        allow_list: Iterable[str] = (),
        deny_list: Iterable[Any] = (),
        deny_label: str = "MISC",
        propagate: bool = True,
        propagate_person_parts: bool = True,
        min_propagate_chars: int = 3,
        p: Optional[float] = None,
        gold_key: Optional[str] = None,
        scorer: Optional[Callable[..., Dict[str, Any]]] = None,
        nlp: Optional[Language] = None,
        min_confidence: float = 0.0,
        confidence_protect: Iterable[str] = ("CODE", "PERSON"),
        mask_titles: bool = False,
    ) -> None:
        """strategy (Strategy): the default strategy (built from its config block
        ``{"@strategies": "spacy_sanitize.typed.v1", **params}``, or such a block).
        operators (dict): per-type strategies and an optional ``DEFAULT``. overlap (str): ``union`` or ``separate``. allow_list
        (list): strings never masked. deny_list (list): strings, or [text, label] pairs,
        masked wherever they occur (label ``deny_label`` for bare strings). propagate
        (bool): mask every whole-word occurrence of a masked string;
        propagate_person_parts (bool): also of PERSON name parts of at least
        ``min_propagate_chars`` characters. p (float): replacement probability for the
        privacy report. gold_key (str): spans key of gold masked spans; when a doc carries
        them, its p is estimated from them. scorer (Callable): scores examples for
        ``nlp.evaluate`` (the TAB metrics by default). nlp (Language): the pipeline, checked
        on the first document for risk scores that no decider reads (W700).
        min_confidence, confidence_protect: moved to the ``decide_confidence`` component (the
        decide stage); accepted so older configs load, min_confidence above 0 is an error (E056).
        mask_titles (bool): a PERSON region takes in the title right before it ("Mr Galip
        Yalman", as TAB annotates names; the court pipeline sets it).

        Which p the report uses: the doc's gold spans (``gold_key``), else ``p`` from the
        config when it is set, else the p learned by ``initialize`` (saved with the
        component), else 1 (assumed). A configured p always wins over a learned one.
        Only the learned p is serialized: every other setting comes from the config."""
        if overlap not in OVERLAP_POLICIES:
            raise ValueError(Errors.E104.format(policy=overlap))
        if min_confidence != 0.0:
            raise ValueError(Errors.E056.format(name=name, value=min_confidence))
        self.name = name
        self.scorer = scorer
        self._nlp = nlp
        self._decisions_checked = nlp is None
        # English-only models: the first document that looks like another language is
        # warned about (W011), once; later documents are not checked.
        self._language_checked = 0
        self._language_warned = False
        self._set_strategies(strategy, operators)
        # Strategies live in the pipeline config (nlp.config), not in the component's files.
        self.cfg: Dict[str, Any] = {
            "spans_key": spans_key, "overlap": overlap, "allow_list": list(allow_list),
            "deny_list": [list(d) if isinstance(d, (list, tuple)) else d for d in deny_list],
            "deny_label": deny_label, "propagate": propagate,
            "propagate_person_parts": propagate_person_parts,
            "min_propagate_chars": min_propagate_chars, "p": p, "gold_key": gold_key,
            "mask_titles": mask_titles,
        }
        # Learned by ``initialize``; used only where the config leaves p unset.
        self.learned_p: Optional[float] = None
        self.learned_p_source: Optional[str] = None
        self._build()

    def _build(self) -> None:
        cfg = self.cfg
        check_label(cfg["deny_label"])
        # what gets replaced: the same settings object risk_infer and the evaluation build
        self.plan_settings = PlanSettings.from_config(cfg)
        for text, _ in self.plan_settings.deny:
            if text.strip() in self.plan_settings.allow:
                raise ValueError(Errors.E105.format(text=text))
        if cfg["p"] is not None:
            check_p(cfg["p"])
        self._secret: Optional[str] = None

    def _set_strategies(self, strategy: StrategyArg, operators: Dict[str, StrategyArg]) -> None:
        self.default: Strategy = _as_strategy(strategy, "strategy")
        self.strategy_for: Dict[str, Strategy] = {}
        for label, value in operators.items():
            built = _as_strategy(value, f"operators.{check_label(label)}")
            if label == "DEFAULT":
                self.default = built
            else:
                self.strategy_for[label] = built

    def strategy(self, label: str) -> Tuple[str, Strategy]:
        """The strategy for ``label`` and its registry name (for the privacy report)."""
        strategy = self.strategy_for.get(label, self.default)
        return str(getattr(strategy, "name", type(strategy).__name__)), strategy

    def strategies(self) -> List[Strategy]:
        return [self.default, *self.strategy_for.values()]

    def set_secret(self, secret: Optional[str]) -> None:
        """The HMAC secret of keyed strategies (surrogate, pseudonym). Never serialized; set
        before ``nlp.pipe(n_process>1)``, the workers get it."""
        self._secret = secret
        for strategy in self.strategies():
            strategy.set_secret(secret)

    def with_strategies(self, strategy: Optional[StrategyArg] = None, operators: Optional[Dict[str, StrategyArg]] = None) -> "Masker":
        """A masker like this one (its settings, learned p and secret) with another default
        strategy and/or per-type operators (None: this one's): a run's or a request's choice
        of replacement, the pipeline left as it is."""
        config = self._nlp.config["components"][self.name] if self._nlp is not None and self.name in self._nlp.config["components"] else {}
        other = Masker(
            self.name,
            strategy if strategy is not None else config.get("strategy", self.default),
            operators if operators is not None else config.get("operators", dict(self.strategy_for)),
            **self.cfg,
        )
        other.learned_p, other.learned_p_source = self.learned_p, self.learned_p_source
        if self._secret is not None:
            other.set_secret(self._secret)
        return other

    def regions(self, doc: Doc, text: Optional[str] = None) -> List[Region]:
        return masking_plan(doc, self.plan_settings, text)

    def __call__(self, doc: Doc) -> Doc:
        return self.mask(doc)

    def mask(self, doc: Doc, record: Optional[RecordState] = None) -> Doc:
        """Mask ``doc``; ``record``: the state shared by the pieces of one long record, given
        for each piece in order (entity ids, numbering, surrogates and the date offset then
        hold across the pieces; see ``masker.record``)."""
        if not self._decisions_checked:
            self._decisions_checked = True
            # a sourced masker keeps the nlp it was built for: check only its own pipeline
            if self._nlp is not None and self.name in self._nlp.pipe_names and self._nlp.get_pipe(self.name) is self:
                warn_undecided(self._nlp, self.name)
                warn_group_replaced(self._nlp, doc_text(doc), self.name, self.cfg["spans_key"])
        if not self._language_warned:
            self._check_language(doc)
        text = doc_text(doc)
        regions = split_at_markup(self.regions(doc, text), text)
        canonical: Dict[str, str] = {}
        if record is None:
            canonical = {eid: longest for eid, (_, _, longest) in piece_entities(text, regions).items()}
            state = DocState(doc_key_for(text, doc._.doc_id), text)
        else:
            ids: Dict[str, str] = {}
            for piece_id, (label, mentions, longest) in piece_entities(text, regions).items():
                ids[piece_id], canonical_mention = record.link(label, mentions, longest)
                canonical[ids[piece_id]] = canonical_mention
            regions = [replace_region(r, entity_id=ids[r.entity_id]) for r in regions]
            carried = record.carried_regions(text)
            if carried:  # strings masked in earlier pieces of the record, recurring here
                for region in carried:
                    canonical.setdefault(region.entity_id, record.canonical(region.entity_id) or text[region.start : region.end])
                regions = one_label_per_mention(resolve_overlaps(regions + carried, self.cfg["overlap"]), text)
            record.carry(text, regions, self.plan_settings)
            state = DocState(record.key, text, record.memory)
        for strategy in self.strategies():
            strategy.begin_doc(state)
        cache: Dict[Tuple[int, str, str], str] = {}

        def replace(region: Region) -> str:
            _, strategy = self.strategy(region.label)
            original = text[region.start : region.end]
            key = (id(strategy), region.entity_id, original)
            if key not in cache:
                mention = Mention(original, region.label, region.entity_id, canonical[region.entity_id], region.start, region.end)
                replacement = strategy.replace(mention, state)
                if original.strip() and replacement.strip() == original.strip():
                    # Fail closed: a strategy that gives the text back (a surrogate or a
                    # generalization for the wrong type) must not leak it.
                    warnings.warn(Warnings.W102.format(label=region.label, strategy=type(strategy).__name__), stacklevel=2)
                    replacement = f"[{region.label}]"
                cache[key] = replacement
            return cache[key]

        doc._.sanitized, doc._.replacements = apply_regions(text, regions, replace)
        # decide_confidence's count, less what the plan masks anyway (0 without it)
        doc._.kept_below_confidence = kept_in_clear(doc, self.cfg["spans_key"], regions) if doc._.kept_below_confidence else 0
        doc._.privacy = self.privacy(doc, regions, text)
        return doc

    def _check_language(self, doc: Doc) -> None:
        self._language_checked += 1
        if doc.lang_ != "en":
            return
        found = foreign_language(doc)
        if found is not None:
            self._language_warned = True
            name = repr(doc._.doc_id) if doc._.doc_id else f"#{self._language_checked}"
            warnings.warn(Warnings.W011.format(doc=name, language=found[0], share=found[1]), UserWarning, stacklevel=3)

    def privacy(self, doc: Doc, regions: List[Region], text: str) -> Dict[str, object]:
        p, source = self.cfg["p"], "set in the config"
        if p is None:
            p, source = self.learned_p, self.learned_p_source
        gold_key = self.cfg["gold_key"]
        if gold_key and gold_key in doc.spans:
            hit, total = coverage(((r.start, r.end) for r in regions), ((s.start_char, s.end_char) for s in doc.spans[gold_key]))
            if total:
                p, source = hit / total, f"masked fraction of the {total} gold characters in doc.spans['{gold_key}']"
        spans = [(s.start_char, s.end_char, s.label_) for s in doc.spans.get(self.cfg["spans_key"], [])]
        kept, masked_chars, detected_chars = kept_spans(spans, ((r.start, r.end) for r in regions))
        if p is None:
            # "every detected span was masked" only when it is so: a decider that keeps
            # spans (risk_vote, risk_seq, risk_perturb) leaves their text in the output
            if kept and detected_chars:
                p, source = masked_chars / detected_chars, P_DETECTED.format(total=detected_chars, kept=sum(kept.values()))
            else:
                p, source = 1.0, P_ASSUMED
        policies: Dict[str, Tuple[str, Any, List[int]]] = {}
        for region in regions:
            name, strategy = self.strategy(region.label)
            if region.label not in policies:
                policies[region.label] = (name, strategy.policy(region.label), [])
            policies[region.label][2].append(strategy.support_for(region.label, text[region.start : region.end]))
        return privacy_report(policies, max(p, 1e-9), source, kept)

    def score(self, examples: Iterable[Example], **kwargs: Any) -> Dict[str, Any]:
        """The configured scorer on examples this pipeline processed (TAB's P, R_all, F1 and
        entity recalls against the reference's ``mask`` spans by default)."""
        if self.scorer is None:
            return {}
        return self.scorer(examples, **{"spans_key": self.cfg["spans_key"], **kwargs})

    def initialize(self, get_examples: Optional[Callable[[], Iterable[Example]]] = None, *, nlp: Optional[Language] = None, gold_key: Optional[str] = None) -> None:
        """With ``gold_key`` (e.g. ``"mask"``), estimate p from the examples: run the
        pipeline up to and including this component on each example's text and measure
        the fraction of the reference's gold masked characters that get replaced. The
        estimate is kept as ``learned_p``; a ``p`` set in the config still wins (W103)."""
        if not gold_key or get_examples is None:
            return
        pairs = []
        for eg in get_examples():
            doc = eg.predicted
            if nlp is not None:
                doc = nlp.make_doc(eg.reference.text)
                for _, proc in nlp.pipeline:
                    if proc is self:
                        break
                    doc = proc(doc)
            pairs.append((self(doc), eg.reference))
        p, total = estimate_p(pairs, gold_key)
        if p is not None:
            self.learned_p = max(p, 1e-6)
            self.learned_p_source = f"recall on {total} gold characters of {len(pairs)} documents (doc.spans['{gold_key}'])"
            if self.cfg["p"] is not None:
                warnings.warn(Warnings.W103.format(p=self.cfg["p"], learned=self.learned_p), stacklevel=2)

    # Serialization: only what initialize learned. Settings (strategies, lists, p) live in
    # config.cfg, so an override at load time wins; the secret is never written.
    def _learned(self) -> Dict[str, Any]:
        return {"p": self.learned_p, "p_source": self.learned_p_source}

    def _set_learned(self, learned: Dict[str, Any]) -> None:
        p = learned.get("p")
        self.learned_p = None if p is None else check_p(float(p))
        self.learned_p_source = learned.get("p_source")



@Language.factory(
    "masker",
    default_config={
        "strategy": {"@strategies": "spacy_sanitize.typed.v1"}, "operators": {}, "spans_key": "pii", "overlap": "union",
        "allow_list": [], "deny_list": [], "deny_label": "MISC", "propagate": True,
        "propagate_person_parts": True, "min_propagate_chars": 3, "p": None, "gold_key": None,
        "scorer": {"@scorers": "spacy_sanitize.tab_scorer.v1"}, "min_confidence": 0.0, "confidence_protect": ["CODE", "PERSON"],
        "mask_titles": False,
    },
    requires=["doc.spans"],
    assigns=["doc._.sanitized", "doc._.replacements", "doc._.privacy"],
    default_score_weights={
        "tab_f1": 1.0, "tab_p": 0.0, "tab_r_all": 0.0, "tab_r_ent": 0.0, "tab_r_direct": 0.0, "tab_r_quasi": 0.0,
    },
)
def make_masker(
    nlp: Language, name: str, strategy: StrategyArg, operators: Dict[str, StrategyArg], spans_key: str,
    overlap: str, allow_list: List[str], deny_list: List[Any], deny_label: str, propagate: bool,
    propagate_person_parts: bool, min_propagate_chars: int, p: Optional[float], gold_key: Optional[str],
    scorer: Optional[Callable[..., Dict[str, Any]]], min_confidence: float = 0.0, confidence_protect: Sequence[str] = ("CODE", "PERSON"),
    mask_titles: bool = False,
) -> Masker:
    """See ``Masker``. strategy and operators values are config blocks
    ``{"@strategies": "spacy_sanitize.<kind>.vN", **params}``, resolved by spaCy."""
    register_extensions()
    return Masker(
        name, strategy, operators, spans_key, overlap, allow_list, deny_list, deny_label, propagate,
        propagate_person_parts, min_propagate_chars, p, gold_key, scorer=scorer, nlp=nlp,
        min_confidence=min_confidence, confidence_protect=confidence_protect, mask_titles=mask_titles,
    )
