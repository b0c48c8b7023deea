"""The attacker's view of a document as the masker will output it: masked regions become
their placeholder (or a gap), removed words become gaps. A mixin of ``RiskInfer``: the
view reads the component's settings (placeholder, span group, stop words, attacker)."""
import bisect
import warnings
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc

from ...errors import Errors
from ...masker.plan import PlanSettings, Region, masking_plan
from .attacker import LinearAttacker, token_form

MASKER = "masker"  # placeholder setting: read each region as the pipeline's masker writes it


class Rendered(str):
    """A region label that already is the masker's text for the region."""


View = Tuple[List[Optional[str]], List[bool], List[int]]  # forms, removable, doc token index (-1: placeholder)


_CONTAINERS = (dict, list, set)


def _mutable_state(owner: Any) -> Dict[str, Any]:
    """A copy of an object's own flags, counters and containers (not of the objects it
    holds: a strategy's keyed chooser keeps its secret)."""
    return {
        name: type(value)(value) if isinstance(value, _CONTAINERS) else value
        for name, value in getattr(owner, "__dict__", {}).items()
        if value is None or isinstance(value, (bool, int, float, str, *_CONTAINERS))
    }


def _restore_state(owner: Any, state: Dict[str, Any]) -> None:
    for name, value in state.items():
        current = getattr(owner, name, None)
        if isinstance(value, _CONTAINERS) and type(current) is type(value):
            current.clear()  # in place: whoever else holds the container sees it restored
            if isinstance(current, list):
                current.extend(value)
            else:
                current.update(value)
        else:
            setattr(owner, name, value)


class AttackerView:
    """The view methods of ``RiskInfer`` (the attributes are set by its constructor)."""

    nlp: Language
    spans_key: str
    placeholder: str
    keep_stop_words: bool
    attacker: Optional[LinearAttacker]
    _placeholder_forms: Dict[Tuple[str, bool, str, str, bool], List[str]]
    _rendered_doc: Optional[Doc]
    _rendered: Tuple[Any, List[str]]

    def _placeholder(self, label: str, attacker: Optional[LinearAttacker] = None) -> List[str]:
        """The attacker's forms of the placeholder of ``label`` (cached per placeholder and
        attacker setting, so a new attacker or placeholder needs no reset)."""
        attacker = attacker or self.attacker
        assert attacker is not None
        rendered = isinstance(label, Rendered)
        key = (str(label), rendered, self.placeholder, attacker.attr, attacker.digits_to_zero)
        if key not in self._placeholder_forms:
            # placeholder = "masker": a region the masker did not render (an entity the
            # delta scoring masks on trial) reads as the typed placeholder
            template = "[{label}]" if self.placeholder == MASKER else self.placeholder
            text = str(label) if rendered else template.format(label=label) if template else ""
            forms = [token_form(t, attacker.attr, attacker.digits_to_zero) for t in self.nlp.make_doc(text)] if text else []
            self._placeholder_forms[key] = [f for f in forms if f is not None]
        return self._placeholder_forms[key]

    def plan_settings(self, spans_key: Optional[str] = None) -> PlanSettings:
        """What the masker will replace: the settings in the config of the pipeline's
        masker (its allow and deny lists, propagation, overlap policy) when it reads this
        component's span group; otherwise, or for another span group, the default ones."""
        if spans_key is None:
            for name in self.nlp.pipe_names:
                if self.nlp.get_pipe_meta(name).factory == "masker":
                    settings = PlanSettings.from_config(self.nlp.get_pipe_config(name))
                    if settings.spans_key == self.spans_key:
                        return settings
        return PlanSettings(spans_key=spans_key or self.spans_key)

    def _masker(self) -> Any:
        for name in self.nlp.pipe_names:
            if self.nlp.get_pipe_meta(name).factory == "masker":
                masker = self.nlp.get_pipe(name)
                if masker.plan_settings.spans_key == self.spans_key:
                    return masker
        raise ValueError(Errors.E715.format(name=getattr(self, "name", "risk_infer"), spans_key=self.spans_key))

    def region_labels(self, doc: Doc, regions: Sequence[Region]) -> List[str]:
        """What the attacker reads for each region: its label (rendered with
        ``placeholder``), or with ``placeholder = "masker"`` the text the pipeline's masker
        writes for it (a generalizing strategy's "[a city]" is what the attacker sees).
        The masker runs on a copy of the doc, once per document and plan, and leaves no
        trace (``_trial_replacements``)."""
        if self.placeholder != MASKER:
            return [r.label for r in regions]
        # keyed on the doc object itself: an id() can be reused once a doc is collected
        key = (len(doc), tuple((r.start, r.end, r.label, r.entity_id) for r in regions))
        if self._rendered_doc is not doc or self._rendered[0] != key:
            rows = sorted(self._trial_replacements(doc), key=lambda row: row[0])
            starts = [int(row[0]) for row in rows]
            labels = []
            for region in regions:
                first, last = bisect.bisect_left(starts, region.start), bisect.bisect_left(starts, region.end)
                labels.append(Rendered(" ".join(str(row[4]) for row in rows[first:last])))
            self._rendered_doc, self._rendered = doc, (key, labels)  # one document at a time
        return self._rendered[1]

    def _trial_replacements(self, doc: Doc) -> List[Any]:
        """The masker's replacements for a copy of ``doc``, as if it had not run: its
        warnings are the real call's to give (they would come twice, and once-only ones
        would fire here, before risk_infer's own spans), and the state it keeps between
        calls (numbered ``across_docs`` counters, its once-only checks) is put back, so
        the real call numbers this doc's entities, risk_infer's included, as without
        risk_infer in the pipeline."""
        masker = self._masker()
        for strategy in masker.strategies():
            chooser = getattr(strategy, "chooser", None)
            if chooser is not None:
                # the secret must be the real call's (the view reads the surrogates the
                # masker writes): drawn here, so its one-time warning (W100/W104) is given
                _ = chooser.key
        owners = [masker, *masker.strategies()]
        saved = [(owner, _mutable_state(owner)) for owner in owners]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rows = list(masker.mask(doc.copy())._.replacements or [])
        for owner, state in saved:
            _restore_state(owner, state)
        return rows

    def plan(self, doc: Doc, spans_key: Optional[str] = None) -> List[Region]:
        return masking_plan(doc, self.plan_settings(spans_key))

    def token_regions(self, doc: Doc, regions: Sequence[Region]) -> np.ndarray:
        """Per token, the number of the region that covers part of it (-1: none)."""
        region_of = np.full(len(doc.text) + 1, -1, dtype=np.int64)
        for number, region in enumerate(regions):
            region_of[region.start : region.end] = number
        out = np.full(len(doc), -1, dtype=np.int64)
        for token in doc:
            covered = region_of[token.idx : token.idx + len(token)]
            out[token.i] = int(covered.max()) if len(covered) else -1
        return out

    def sequence(
        self, doc: Doc, token_region: Sequence[int], labels: Sequence[str], removed_tokens: Set[int] = frozenset(),
        start: int = 0, end: Optional[int] = None, attacker: Optional[LinearAttacker] = None,
    ) -> View:
        """The attacker's view of tokens ``start:end`` given each token's region
        (``token_region``, numbers into ``labels``): a region becomes its placeholder (or a
        gap), ``removed_tokens`` become gaps. ``attacker``: whose token forms (default: the
        first attacker)."""
        attacker = attacker or self.attacker
        assert attacker is not None
        forms: List[Optional[str]] = []
        removable: List[bool] = []
        index: List[int] = []
        last_region = -1
        for i in range(start, len(doc) if end is None else end):
            region = int(token_region[i])
            if region >= 0:
                if region != last_region:
                    placeholder = self._placeholder(labels[region], attacker)
                    forms += placeholder or [None]
                    removable += [False] * max(1, len(placeholder))
                    index += [-1] * max(1, len(placeholder))
                last_region = region
                continue
            last_region = -1
            if i in removed_tokens:
                if not forms or forms[-1] is not None:
                    forms.append(None)
                    removable.append(False)
                    index.append(-1)
                continue
            token = doc[i]
            form = token_form(token, attacker.attr, attacker.digits_to_zero)
            if form is not None:
                forms.append(form)
                removable.append(not (self.keep_stop_words and token.is_stop))
                index.append(i)
        return forms, removable, index

    def view(
        self, doc: Doc, removed_tokens: Set[int] = frozenset(), spans_key: Optional[str] = None,  # type: ignore[assignment]
        regions: Optional[Sequence[Region]] = None,
    ) -> View:
        """The attacker's token sequence of ``doc`` as the masker would output it: masked
        regions become their placeholder (or a gap), ``removed_tokens`` become gaps.
        ``regions``: the masking plan when the caller has it."""
        assert self.attacker is not None
        regions = self.plan(doc, spans_key) if regions is None else regions
        return self.sequence(doc, self.token_regions(doc, regions), self.region_labels(doc, regions), removed_tokens)

    def _form(self, token: Any) -> str:
        assert self.attacker is not None
        return token_form(token, self.attacker.attr, self.attacker.digits_to_zero) or token.text

    def proba(self, doc: Doc, removed_tokens: Set[int] = frozenset(), regions: Optional[Sequence[Region]] = None) -> np.ndarray:  # type: ignore[assignment]
        assert self.attacker is not None
        return self.attacker.proba_seq(self.view(doc, removed_tokens, regions=regions)[0])
