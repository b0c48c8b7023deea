"""masker: turns masking decisions into the sanitized text.

Regions to replace come from ``regions.regions_to_mask`` (detected spans, fail closed,
entity-level masking, allow/deny lists, propagation, overlap policy). Each region is
replaced by the strategy configured for its type (``operators`` with ``DEFAULT``, else
``strategy``); the same mention of the same entity always gets the same replacement.
Writes ``Doc._.sanitized``, ``Doc._.replacements`` (rows ``[start, end, label,
entity_id, replacement, out_start, out_end]``) and ``Doc._.privacy``.
"""
import copy
import logging
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple, Union

import srsly
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example

from ..decide.check import warn_undecided
from ..extensions import register_extensions
from .errors import Errors, Warnings
from .options import build_strategy, check_label
from .privacy import P_ASSUMED, check_p, coverage, estimate_p, privacy_report
from .regions import OVERLAP_POLICIES, Region, parse_deny_list, regions_to_mask
from .strategies import Mention, Strategy
from .strategies.base import DocState, doc_key_for

Row = List[Any]

logger = logging.getLogger("spacy_sanitize.masker")


def apply_regions(text: str, regions: List[Region], replace: Callable[[Region], str]) -> Tuple[str, List[Row]]:
    """Replace each (sorted, non-overlapping) region; returns the new text and the rows."""
    pieces: List[str] = []
    rows: List[Row] = []
    cursor = out = 0
    for region in regions:
        pieces.append(text[cursor : region.start])
        out += region.start - cursor
        replacement = replace(region)
        pieces.append(replacement)
        rows.append([region.start, region.end, region.label, region.entity_id, replacement, out, out + len(replacement)])
        out += len(replacement)
        cursor = region.end
    pieces.append(text[cursor:])
    return "".join(pieces), rows


class Masker:
    def __init__(
        self,
        name: str,
        strategy: Dict[str, Any],
        operators: Dict[str, Dict[str, Any]],
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
        nlp: Optional[Language] = None,
    ) -> None:
        """strategy (dict): default strategy config. operators (dict): per-type configs and
        an optional ``DEFAULT``. overlap (str): ``union`` or ``separate``. allow_list
        (list): strings never masked. deny_list (list): strings, or [text, label] pairs,
        masked wherever they occur (label ``deny_label`` for bare strings). propagate
        (bool): mask every whole-word occurrence of a masked string;
        propagate_person_parts (bool): also of PERSON name parts of at least
        ``min_propagate_chars`` characters. p (float): replacement probability for the
        privacy report (None: 1, assumed). gold_key (str): spans key of gold masked spans;
        when a doc carries them, its p is estimated from them. nlp (Language): the pipeline,
        checked on the first document for risk scores that no decider reads (W700)."""
        if overlap not in OVERLAP_POLICIES:
            raise ValueError(Errors.E104.format(policy=overlap))
        self.name = name
        self._nlp = nlp
        self._decisions_checked = nlp is None
        self.cfg: Dict[str, Any] = {
            "strategy": dict(strategy), "operators": {k: dict(v) for k, v in operators.items()},
            "spans_key": spans_key, "overlap": overlap, "allow_list": list(allow_list),
            "deny_list": [list(d) if isinstance(d, (list, tuple)) else d for d in deny_list],
            "deny_label": deny_label, "propagate": propagate,
            "propagate_person_parts": propagate_person_parts,
            "min_propagate_chars": min_propagate_chars, "p": p, "gold_key": gold_key,
            "p_source": None,
        }
        self._build()

    def _build(self) -> None:
        cfg = self.cfg
        self.allow = frozenset(s.strip() for s in cfg["allow_list"])
        self.deny = parse_deny_list(cfg["deny_list"], check_label(cfg["deny_label"]))
        for text, _ in self.deny:
            if text.strip() in self.allow:
                raise ValueError(Errors.E105.format(text=text))
        if cfg["p"] is not None:
            check_p(cfg["p"])
        self.default: Strategy = build_strategy(copy.deepcopy(cfg["strategy"]))
        self.default_name = str(cfg["strategy"].get("name", "typed.v1"))
        self.strategy_for: Dict[str, Strategy] = {}
        self.names: Dict[str, str] = {}
        for label, op_cfg in cfg["operators"].items():
            check_label(label)
            built = build_strategy(copy.deepcopy(op_cfg))
            if label == "DEFAULT":
                self.default, self.default_name = built, str(op_cfg.get("name"))
            else:
                self.strategy_for[label], self.names[label] = built, str(op_cfg.get("name"))
        self._secret: Optional[str] = None

    def strategy(self, label: str) -> Tuple[str, Strategy]:
        if label in self.strategy_for:
            return self.names[label], self.strategy_for[label]
        return self.default_name, self.default

    def strategies(self) -> List[Strategy]:
        return [self.default, *self.strategy_for.values()]

    def set_secret(self, secret: Optional[str]) -> None:
        """The HMAC secret of keyed strategies (surrogate). Never serialized."""
        self._secret = secret
        for strategy in self.strategies():
            strategy.set_secret(secret)

    def regions(self, doc: Doc) -> List[Region]:
        cfg = self.cfg
        return regions_to_mask(
            doc, cfg["spans_key"], self.allow, self.deny, cfg["propagate"],
            cfg["propagate_person_parts"], cfg["min_propagate_chars"], cfg["overlap"],
        )

    def __call__(self, doc: Doc) -> Doc:
        if not self._decisions_checked:
            self._decisions_checked = True
            # a sourced masker keeps the nlp it was built for: check only its own pipeline
            if self._nlp is not None and self.name in self._nlp.pipe_names and self._nlp.get_pipe(self.name) is self:
                warn_undecided(self._nlp, self.name)
        text = doc.text  # Doc.text joins all tokens: read it once
        regions = self.regions(doc)
        canonical: Dict[str, str] = {}
        for region in regions:
            mention = text[region.start : region.end].strip()
            if region.entity_id not in canonical or len(mention) > len(canonical[region.entity_id]):
                canonical[region.entity_id] = mention
        state = DocState(doc_key_for(text, doc._.doc_id), text)
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
                    logger.warning(Warnings.W102.format(label=region.label, strategy=type(strategy).__name__))
                    replacement = f"[{region.label}]"
                cache[key] = replacement
            return cache[key]

        doc._.sanitized, doc._.replacements = apply_regions(text, regions, replace)
        doc._.privacy = self.privacy(doc, regions, text)
        return doc

    def privacy(self, doc: Doc, regions: List[Region], text: str) -> Dict[str, object]:
        p, source = self.cfg["p"], self.cfg["p_source"]
        gold_key = self.cfg["gold_key"]
        if gold_key and gold_key in doc.spans:
            hit, total = coverage(((r.start, r.end) for r in regions), ((s.start_char, s.end_char) for s in doc.spans[gold_key]))
            if total:
                p, source = hit / total, f"masked fraction of the {total} gold characters in doc.spans['{gold_key}']"
        if p is None:
            p, source = 1.0, P_ASSUMED
        elif source is None:
            source = "set in the config"
        policies: Dict[str, Tuple[str, Any, List[int]]] = {}
        for region in regions:
            name, strategy = self.strategy(region.label)
            if region.label not in policies:
                policies[region.label] = (name, strategy.policy(region.label), [])
            policies[region.label][2].append(strategy.support_for(region.label, text[region.start : region.end]))
        return privacy_report(policies, max(p, 1e-9), source)

    def initialize(self, get_examples: Optional[Callable[[], Iterable[Example]]] = None, *, nlp: Optional[Language] = None, gold_key: Optional[str] = None) -> None:
        """With ``gold_key`` (e.g. ``"mask"``), estimate p from the examples: run the
        pipeline up to and including this component on each example's text and measure
        the fraction of the reference's gold masked characters that get replaced."""
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
            self.cfg["p"] = max(p, 1e-6)
            self.cfg["p_source"] = f"recall on {total} gold characters of {len(pairs)} documents (doc.spans['{gold_key}'])"

    # serialization: the config only; the secret is never written
    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        return srsly.json_dumps(self.cfg).encode("utf-8")

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = ()) -> "Masker":
        self.cfg.update(srsly.json_loads(data))
        secret = self._secret
        self._build()
        self.set_secret(secret)
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        srsly.write_json(path / "cfg.json", self.cfg)

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> "Masker":
        return self.from_bytes(srsly.json_dumps(srsly.read_json(Path(path) / "cfg.json")).encode("utf-8"))


@Language.factory(
    "masker",
    default_config={
        "strategy": {"name": "typed.v1"}, "operators": {}, "spans_key": "pii", "overlap": "union",
        "allow_list": [], "deny_list": [], "deny_label": "MISC", "propagate": True,
        "propagate_person_parts": True, "min_propagate_chars": 3, "p": None, "gold_key": None,
    },
    requires=["doc.spans"],
    assigns=["doc._.sanitized", "doc._.replacements", "doc._.privacy"],
)
def make_masker(
    nlp: Language, name: str, strategy: Dict[str, Any], operators: Dict[str, Dict[str, Any]], spans_key: str,
    overlap: str, allow_list: List[str], deny_list: List[Any], deny_label: str, propagate: bool,
    propagate_person_parts: bool, min_propagate_chars: int, p: Optional[float], gold_key: Optional[str],
) -> Masker:
    """See ``Masker``. strategy/operators values: ``{"name": "<registered>", **params}``."""
    register_extensions()
    return Masker(
        name, strategy, operators, spans_key, overlap, allow_list, deny_list, deny_label, propagate,
        propagate_person_parts, min_propagate_chars, p, gold_key, nlp=nlp,
    )
