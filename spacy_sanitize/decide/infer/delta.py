"""Scoring risk_infer's entities by deltas: the attacker's view is built once per document,
and masking (or unmasking) one entity changes only the tokens of its regions, so its
effect on the attacker is the change of the binary n-gram features around those tokens.

A change is read in windows that start and end on unchanged clear tokens, with
``ngram_max - 1`` of them on each side: n-grams that cross a window's edge are the same
before and after, and the view outside the window does not move. The feature set after
the change is the document's n-gram counts plus the window's difference, so the
probability equals a full recomputation on the same regions.

Which tokens change follows the masking plan: unmasking an entity clears the regions it
owns (not those its strings also get from another masked entity); masking it adds its
mentions and, with propagation, every whole-word occurrence of its strings, on tokens no
region covers yet; where its regions are cleared, the occurrences of strings that other
masked entities (or the deny-list) propagate stay masked. Overlaps with other regions are not re-merged (a full re-plan would
merge a partly overlapping new region into its neighbour)."""
import bisect
import re
from collections import Counter
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

import numpy as np
from spacy.tokens import Doc, Span

from ...spans import entity_key
from ...masker.plan import (
    PlanSettings,
    Region,
    masking_plan,
    one_label_per_mention,
    propagation_owners,
    propagation_strings,
    resolve_overlaps,
)
from .attacker import softmax, token_form

_WORD = re.compile(r"\w")
_HEAD = re.compile(r"\w+|.", re.DOTALL)


def _head(text: str, at: int) -> str:
    """The word (or the single non-word character) at ``text[at]``."""
    match = _HEAD.match(text, at)
    return match.group(0) if match else ""


if TYPE_CHECKING:
    from . import RiskInfer


class EntityDeltas:
    """The view of ``doc`` under the masking plan of ``settings``, and the attacker's
    maximum probability with one entity's masking flipped."""

    def __init__(self, component: "RiskInfer", doc: Doc, settings: PlanSettings) -> None:
        attacker = component.attacker
        assert attacker is not None
        self.component, self.attacker, self.doc, self.settings = component, attacker, doc, settings
        self.text = doc.text
        self.regions = masking_plan(doc, settings, self.text)
        self.token_region = component.token_regions(doc, self.regions)
        self.labels = component.region_labels(doc, self.regions)
        forms = component.sequence(doc, self.token_region, self.labels)[0]
        self.counts = self._feature_counts(forms)
        self.present = np.fromiter(sorted(self.counts), dtype=np.int64, count=len(self.counts))
        self.p_max = float(softmax(attacker.decision(self.present)).max())
        self.margin = max(1, attacker.context)
        self.anchor = [
            self.token_region[t.i] < 0 and token_form(t, attacker.attr, attacker.digits_to_zero) is not None for t in doc
        ]
        self.starts = [t.idx for t in doc]
        self.ends = [t.idx + len(t) for t in doc]
        self.region_tokens: Dict[int, List[int]] = {}
        for i, region in enumerate(self.token_region):
            if region >= 0:
                self.region_tokens.setdefault(int(region), []).append(i)
        self.by_entity: Dict[str, List[int]] = {}
        for number, region in enumerate(self.regions):
            self.by_entity.setdefault(region.entity_id, []).append(number)
        # which entities propagate each string (a region stays while one of them is masked)
        spans = list(doc.spans.get(settings.spans_key, []))
        self.masked_keys = Counter(entity_key(s) for s in spans if s._.mask is not False)
        # string -> {entity: label} of what masks every occurrence of the string
        self.sources: Dict[str, Dict[str, str]] = {}
        rule = settings.part_rule
        for span in spans if settings.propagate else []:
            if span.text.strip() and span.text.strip() not in settings.allow and entity_key(span) in self.masked_keys:
                region = Region(span.start_char, span.end_char, span.label_, entity_key(span))
                for string in propagation_strings(self.text, region, settings.allow, settings.propagate_person_parts, rule):
                    self.sources.setdefault(string, {}).setdefault(region.entity_id, region.label)
        for string, label in settings.deny:
            self.sources.setdefault(string, {})[f"deny:{string}"] = label
        # the strings by their first word, to find their occurrences near a cleared region
        self.by_head: Dict[str, List[str]] = {}
        for string in self.sources:
            self.by_head.setdefault(_head(string, 0), []).append(string)
        self.longest = max((len(x) for x in self.sources), default=0)
        # where each word (or non-word character) starts a possible whole-word occurrence
        self.heads: Dict[str, List[int]] = {}
        for match in _HEAD.finditer(self.text):
            p = match.start()
            if not (p and _WORD.match(self.text, p - 1)):
                self.heads.setdefault(match.group(0), []).append(p)

    def _near(self, start: int, end: int) -> List[Tuple[int, int, str]]:
        """Whole-word occurrences of the source strings that overlap ``[start, end)``
        (as ``occurrences(..., overlapping=True)`` finds them, without scanning the text)."""
        text = self.text
        found = []
        for p in range(max(0, start - self.longest), end):
            if p and _WORD.match(text, p - 1):
                continue  # after a word character: no whole-word occurrence starts here
            for string in self.by_head.get(_head(text, p), ()):
                stop = p + len(string)
                if stop > start and text.startswith(string, p) and not (stop < len(text) and _WORD.match(text, stop)):
                    found.append((p, stop, string))
        return found

    def _cover(self, strings: Sequence[str]) -> List[Tuple[int, int, str]]:
        """``occurrences(text, strings)`` (the longest string at each position, left to
        right, no overlaps) from the word index instead of a scan of the text."""
        text = self.text
        found = []
        for string in strings:
            for p in self.heads.get(_head(string, 0), ()):
                stop = p + len(string)
                if text.startswith(string, p) and not (stop < len(text) and _WORD.match(text, stop)):
                    found.append((p, stop, string))
        cover, position = [], 0
        for start, stop, string in sorted(found, key=lambda item: (item[0], -item[1])):
            if start >= position:
                cover.append((start, stop, string))
                position = stop
        return cover

    def _feature_counts(self, forms: Sequence[Optional[str]]) -> Counter:
        vocab = self.attacker.vocab
        return Counter(vocab[g] for g, _, _ in self.attacker.occurrences(forms) if g in vocab)

    # --- which tokens change ------------------------------------------------------------
    def _unmasked(self, members: Sequence[Span], labels: List[str]) -> Dict[int, int]:
        keys = {entity_key(s) for s in members}
        own = Counter(entity_key(s) for s in members if s._.mask is not False)
        cleared = {k for k in keys if self.masked_keys[k] - own[k] <= 0}
        changes: Dict[int, int] = {}
        for key in cleared:
            for number in self.by_entity.get(key, []):
                region = self.regions[number]
                for i in self.region_tokens.get(number, []):
                    changes[i] = -1
                # what another masked entity (or the deny-list) propagates stays masked
                for start, end, string in self._near(region.start, region.end):
                    others = [label for entity, label in self.sources[string].items() if entity not in cleared]
                    if end <= region.start or not others:
                        continue
                    number_kept = len(labels)
                    labels.append(others[0])
                    for i in range(bisect.bisect_right(self.ends, start), bisect.bisect_left(self.starts, end)):
                        if changes.get(i) == -1:
                            changes[i] = number_kept
        return {i: r for i, r in changes.items() if r != self.token_region[i]}

    def _masked(self, members: Sequence[Span], labels: List[str]) -> Dict[int, int]:
        settings = self.settings
        new = [
            Region(s.start_char, s.end_char, s.label_, entity_key(s))
            for s in members
            if s.text.strip() and s.text.strip() not in settings.allow
        ]
        if settings.propagate and new:
            owner = propagation_owners(self.text, new, settings.allow, settings.propagate_person_parts, settings.part_rule)
            new += [Region(a, b, owner[x].label, owner[x].entity_id, "propagated") for a, b, x in self._cover(owner)]
        changes: Dict[int, int] = {}
        for region in one_label_per_mention(resolve_overlaps(new, settings.overlap), self.text):
            number = len(labels)
            labels.append(region.label)
            first = bisect.bisect_right(self.ends, region.start)
            last = bisect.bisect_left(self.starts, region.end)
            for i in range(first, last):
                if self.token_region[i] < 0:
                    changes[i] = number
        return changes

    # --- windows and features -----------------------------------------------------------
    def _edge(self, i: int, step: int, changes: Dict[int, int]) -> int:
        """The window edge ``margin`` unchanged clear tokens away from token ``i``."""
        seen = 0
        j = i + step
        while 0 <= j < len(self.doc):
            if self.anchor[j] and j not in changes:
                seen += 1
                if seen == self.margin:
                    return j if step < 0 else j + 1
            j += step
        return 0 if step < 0 else len(self.doc)

    def p_max_flipped(self, members: Sequence[Span], masked_now: bool) -> float:
        """The attacker's maximum probability with ``members`` unmasked (``masked_now``)
        or masked, the rest of the plan as it is."""
        labels = list(self.labels)
        changes = self._unmasked(members, labels) if masked_now else self._masked(members, labels)
        if not changes:
            return self.p_max
        flipped = self.token_region.copy()
        for i, region in changes.items():
            flipped[i] = region
        delta: Counter = Counter()
        changed = sorted(changes)
        k = 0
        while k < len(changed):
            start, end = self._edge(changed[k], -1, changes), self._edge(changed[k], 1, changes)
            k += 1
            while k < len(changed) and changed[k] < end:
                end = max(end, self._edge(changed[k], 1, changes))
                k += 1
            delta.update(self._feature_counts(self.component.sequence(self.doc, flipped, labels, start=start, end=end)[0]))
            delta.subtract(self._feature_counts(self.component.sequence(self.doc, self.token_region, self.labels, start=start, end=end)[0]))
        gone = [f for f, d in delta.items() if d < 0 and self.counts.get(f, 0) + d <= 0]
        added = [f for f, d in delta.items() if d > 0 and self.counts.get(f, 0) == 0]
        if not gone and not added:
            return self.p_max
        ids = np.union1d(np.setdiff1d(self.present, np.asarray(gone, dtype=np.int64)), np.asarray(added, dtype=np.int64))
        return float(softmax(self.attacker.decision(ids.astype(np.int64))).max())
