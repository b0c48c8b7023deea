"""RecordState: what the masker carries from one piece of a long record to the next.

A text longer than the pipeline's piece size is processed as several Docs, and the
detectors' entity ids (``e1, e2, ...`` from ``pii_coref``) and the strategies' per-document
memory (``numbered``'s counters, ``surrogate``'s date offset) start again with each Doc.
Given one ``RecordState`` for all the pieces of a record, in order (``Masker.mask(doc,
record)``), the masker maps each piece's entities to record-level ids, keeps one strategy
memory and one document key for the record: ``[PERSON 1]`` stays the same person, a
surrogate the same value and dates shift by one offset across the pieces.

An entity of a piece is the record's entity with the same type when one of its mentions
was a mention of it before (the same folded words), or, for PERSON, when every part of
its longest name is a part of one earlier PERSON entity (a surname alone after the full
name), as ``pii_coref`` links mentions within a Doc.

Masked strings are carried forward: the strings a piece masked (each region's text and,
for PERSON, its name parts, as propagation within a Doc takes them) are masked wherever
they recur in the later pieces of the record, through the same occurrence engine
(``masking_plan.occurrences``). Carrying backward (a name first detected in a later piece
that recurs in an earlier, already written piece) cannot be done while streaming: the
earlier output is gone. A two-pass run would have to read the record twice (or keep it),
detect on every piece first and mask on the second pass, doubling the detection-free
reading cost and holding the record's masked strings (not its text) in memory; it needs a
re-readable input (a file, not standard input).
"""
import re
from typing import Any, Dict, Iterable, List, Optional, Tuple

from ..text import COMMON_WORDS, fold, occurrences
from .plan import PlanSettings, Region, propagation_owners


def _words(text: str) -> Tuple[str, ...]:
    return tuple(re.findall(r"\w+", re.sub(r"['’]s$", "", fold(text))))


class RecordState:
    """key (str): the record's document key (its id): surrogates key the date offset on it.
    memory (dict): the strategies' scratch space (``DocState.memory``), kept across pieces."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.memory: Dict[int, Dict[str, Any]] = {}
        self._by_mention: Dict[Tuple[str, Tuple[str, ...]], str] = {}
        self._person_parts: Dict[str, str] = {}
        self._canonical: Dict[str, str] = {}
        self._count = 0
        # masked string -> (label, record-level entity id) of the first region that masked it
        self._carried: Dict[str, Tuple[str, str]] = {}

    def link(self, label: str, mentions: Iterable[str], canonical: str) -> Tuple[str, str]:
        """The record-level id of a piece's entity (``label``, the texts of its
        ``mentions``, its longest mention ``canonical``) and the record's canonical mention of
        it (the first piece's, so keyed strategies agree across pieces)."""
        keys = [(label, words) for words in {_words(m) for m in mentions} if words]
        entity_id: Optional[str] = next((self._by_mention[k] for k in keys if k in self._by_mention), None)
        parts = [w for w in _words(canonical) if len(w) > 1 and w not in COMMON_WORDS]
        if entity_id is None and label == "PERSON" and parts:
            owners = {self._person_parts.get(p) for p in parts}
            if len(owners) == 1 and None not in owners:
                entity_id = owners.pop()
        if entity_id is None:
            self._count += 1
            entity_id = f"e{self._count}"
        for k in keys:
            self._by_mention.setdefault(k, entity_id)
        if label == "PERSON":
            for part in parts:
                self._person_parts.setdefault(part, entity_id)
        return entity_id, self._canonical.setdefault(entity_id, canonical)


    def carried_regions(self, text: str) -> List[Region]:
        """Regions of a later piece where strings masked by earlier pieces recur (record-level
        entity ids)."""
        return [
            Region(start, end, *self._carried[string], source="carried")
            for start, end, string in occurrences(text, self._carried)
        ]

    def carry(self, text: str, regions: List[Region], settings: PlanSettings) -> None:
        """Remember the strings the piece's ``regions`` (record-level ids) masked, for the
        pieces that follow. Nothing is carried when the masker does not propagate: a setting
        the user gave holds across pieces as within one."""
        if not settings.propagate:
            return
        owners = propagation_owners(text, regions, settings.allow, settings.propagate_person_parts, settings.part_rule)
        for string, region in owners.items():
            self._carried.setdefault(string, (region.label, region.entity_id))

    def canonical(self, entity_id: str) -> Optional[str]:
        return self._canonical.get(entity_id)


def piece_entities(text: str, regions: List[Any]) -> Dict[str, Tuple[str, List[str], str]]:
    """Per piece-level entity id: (label of its longest mention, its mention texts, its
    longest mention)."""
    out: Dict[str, Tuple[str, List[str], str]] = {}
    for region in regions:
        mention = text[region.start : region.end].strip()
        label, mentions, canonical = out.get(region.entity_id, (region.label, [], mention))
        mentions.append(mention)
        if len(mention) > len(canonical):
            label, canonical = region.label, mention
        out[region.entity_id] = (label, mentions, canonical)
    return out
