"""pii_gazetteer: DEM and MISC spans from gazetteers of person attributes.

Terms (occupations, positions, nationalities, religions, degrees, ranks, health
conditions, causes of death, offences, sports, awards...) are matched on the tokens,
case-insensitively, across diacritics, regular plurals and hyphen/space variants (see
``normalize``). Among overlapping matches the longest wins; the winners join
``doc.spans[spans_key]`` by the project's longest-span rule (``add_pii_spans``), so an
existing longer span is never split. Each span written records its source in
``Span._.risk_explain`` (``detector`` and ``pii_gazetteer``: term, property, qid, count).

Noise control, per scope (``"all"``, a label, or a Wikidata property id; the most specific
scope wins, setting by setting):

- ``min_chars``: shortest matched text;
- ``max_zipf``: terms more frequent than this in general English (``wordfreq`` Zipf
  scale: 7 = "the", 5 = "head", 4 = "politician") are dropped...
- ``max_zipf_capitalized``: ...unless the text is capitalized away from a sentence start
  ("American", "Catholic") and the term is at most this frequent;
- ``min_count``: fewest humans using the value (Wikidata-built gazetteers);
- a stop list (shipped, plus ``stop_terms``), an ``allow_list`` of terms never tagged and a
  ``deny_list`` of terms always tagged, whatever the filters (Presidio's meaning).

The gazetteer loads on first use (or in ``initialize``; sources in ``loading``): ``gazetteer =
null`` is the one shipped in the ``gazetteer`` folder of ``initialize``'s ``data`` (``[paths]
sanitize_data``), anything else a JSONL(.gz) file or a saved matcher directory. ``nlp.to_disk`` saves the
compiled gazetteer with the pipeline, so ``spacy.load`` needs nothing else; settings come
from the config, and a config naming another ``gazetteer`` than the one saved wins.
"""

import threading
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Union

import srsly
from spacy import util
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import ensure_path, minibatch

from ...extensions import register_extensions
from ...spans import check_label, longest_non_overlapping
from ...errors import Errors, Warnings
from .loading import SHIPPED, data_dir, load_gazetteer, shipped_gazetteer_path, shipped_stop_terms  # noqa: F401 (re-exported)
from .matcher import GazetteerMatcher, Match
from .filters import DEFAULT_FILTERS, SENTENCE_BREAKS, SETTINGS, cached_term_key, term_zipf
from .normalize import normalize_set


class Gazetteer:
    """The pii_gazetteer component; see the module docstring."""

    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        gazetteer: Optional[str],
        spans_key: str,
        labels: Optional[List[str]],
        filters: Dict[str, Dict[str, float]],
        use_default_stop_list: bool,
        stop_terms: List[str],
        allow_list: List[str],
        deny_list: Dict[str, str],
        relabel: List[str],
        overwrite: bool,
    ) -> None:
        self.name = name
        self.gazetteer = gazetteer
        self._configured_gazetteer = gazetteer  # initialize(gazetteer=...) may change the other
        self.spans_key = spans_key
        self.labels = None if labels is None else [check_label(label) for label in labels]
        self._settings_cache: Dict[Tuple[str, str], Dict[str, float]] = {}
        self.set_filters(filters)
        self.use_default_stop_list = use_default_stop_list
        self.stop_terms = list(stop_terms)
        self.allow_list = list(allow_list)
        self.deny_list = {term: check_label(label) for term, label in deny_list.items()}
        self.relabel = [check_label(label) for label in relabel]
        self.overwrite = overwrite
        self._data: Optional[str] = None  # initialize(data=...): the shipped artefacts' folder
        self._matcher: Optional[GazetteerMatcher] = None
        self._deny_matcher: Optional[GazetteerMatcher] = None
        self._stop: Optional[frozenset] = None
        self._setup_lock = threading.RLock()
        self._allow: frozenset = frozenset()

    # ------------------------------------------------------------------ setup
    def set_filters(self, filters: Dict[str, Dict[str, float]]) -> None:
        """Replace the noise-control settings (``filters``: scope -> setting -> value; E204 on
        an unknown setting)."""
        for scope, settings in filters.items():
            for setting in settings:
                if setting not in SETTINGS:
                    raise ValueError(
                        Errors.E204.format(setting=setting, scope=scope, known=", ".join(SETTINGS))
                    )
        self.filters = {scope: dict(settings) for scope, settings in filters.items()}
        self._settings_cache = {}

    @property
    def matcher(self) -> GazetteerMatcher:
        if self._matcher is None:
            with self._setup_lock:
                if self._matcher is None:
                    self._matcher = load_gazetteer(self.gazetteer, data=self._data)
        return self._matcher

    def _prepare(self) -> None:
        # Several threads may call a fresh component at once: build everything into locals
        # and publish ``_stop`` (the "ready" flag) last, under a lock with a second check.
        if self._stop is not None:
            return
        with self._setup_lock:
            if self._stop is not None:
                return
            stop = (shipped_stop_terms(self._data) if self.use_default_stop_list else []) + self.stop_terms
            records = [
                {"term": term, "label": label, "property": "deny_list"}
                for term, label in self.deny_list.items()
            ]
            self._allow = normalize_set(self.allow_list)
            self._deny_matcher = GazetteerMatcher.build(records)
            self._settings_cache = {}
            self._stop = normalize_set(stop)

    def initialize(
        self,
        get_examples: Optional[Callable[[], Iterable[Any]]] = None,
        *,
        nlp: Optional[Language] = None,
        gazetteer: Optional[str] = None,
        data: Optional[str] = None,
    ) -> None:
        """Load the gazetteer now. gazetteer (Optional[str]): replace the configured one.
        data (Optional[str]): the folder of the shipped gazetteer and stop list (``[paths]
        sanitize_data``; None: the package's data folder)."""
        if data != self._data:
            self._data = data
            self._matcher = None
            self._stop = None
        if gazetteer is not None:
            self.gazetteer = gazetteer
            self._matcher = None
        _ = self.matcher
        self._prepare()

    def settings(self, label: str, prop: str) -> Dict[str, float]:
        key = (label, prop)
        if key not in self._settings_cache:
            merged = dict(DEFAULT_FILTERS["all"])
            for scope in ("all", label, prop):
                merged.update(self.filters.get(scope, {}))
            self._settings_cache[key] = merged
        return self._settings_cache[key]

    # ------------------------------------------------------------------ matching
    def _keep(self, doc: Doc, start: int, end: int, entry: int) -> bool:
        matcher = self.matcher
        term = matcher.term(entry)
        key = cached_term_key(term)
        span = doc[start:end]
        span_key = cached_term_key(span.text)
        if key in self._allow or span_key in self._allow:
            return False
        if key in self._stop or span_key in self._stop:  # type: ignore[operator]
            return False
        settings = self.settings(matcher.label(entry), matcher.property(entry))
        if span.end_char - span.start_char < settings["min_chars"]:
            return False
        if settings["min_count"] and matcher.count(entry) < settings["min_count"]:
            return False
        zipf = term_zipf(term)
        if zipf <= settings["max_zipf"]:
            return True
        return zipf <= settings["max_zipf_capitalized"] and self._capitalized(doc, start)

    @staticmethod
    def _capitalized(doc: Doc, start: int) -> bool:
        """The match starts with a capital letter that is not a sentence's."""
        if not doc[start].text[:1].isupper() or start == 0:
            return False
        previous = doc[start - 1]
        return not (
            previous.is_space or previous.text in SENTENCE_BREAKS or "\n" in previous.whitespace_
        )

    def candidates(self, doc: Doc) -> List[Span]:
        """The gazetteer's spans for ``doc``, after noise control, without overlaps."""
        return self._match(doc)[0]

    def _find(self, docs: List[Doc]) -> List[Tuple[List[Match], List[Match]]]:
        """Raw matches of the gazetteer and of the deny list, per Doc of a batch."""
        self._prepare()
        found = self.matcher.find_in_docs(docs)
        denied = self._deny_matcher.find_in_docs(docs)  # type: ignore[union-attr]
        return list(zip(found, denied))

    def _match(
        self, doc: Doc, found: Optional[Tuple[List[Match], List[Match]]] = None
    ) -> Tuple[List[Span], Dict[Tuple[int, int, str], Tuple[GazetteerMatcher, int]]]:
        if found is None:
            found = self._find([doc])[0]
        sources: Dict[Tuple[int, int, str], Tuple[GazetteerMatcher, int]] = {}
        matcher = self.matcher
        spans: List[Span] = []
        # Deny-list matches come first: on equal spans they win (label and explanation).
        for source, matches in ((self._deny_matcher, found[1]), (matcher, found[0])):
            for start, end, entry in matches:
                label = source.label(entry)  # type: ignore[union-attr]
                if self.labels is not None and label not in self.labels:
                    continue
                if source is matcher and not self._keep(doc, start, end, entry):
                    continue
                if source is not matcher and cached_term_key(doc[start:end].text) in self._allow:
                    continue
                span = Span(doc, start, end, label=label)
                spans.append(span)
                sources.setdefault((start, end, label), (source, entry))  # type: ignore[arg-type]
        return longest_non_overlapping([], spans), sources

    def __call__(self, doc: Doc) -> Doc:
        return self._apply(doc, self._match(doc))

    def _apply(
        self,
        doc: Doc,
        matched: Tuple[List[Span], Dict[Tuple[int, int, str], Tuple[GazetteerMatcher, int]]],
    ) -> Doc:
        spans, sources = matched
        existing = (
            []
            if self.overwrite or self.spans_key not in doc.spans
            else list(doc.spans[self.spans_key])
        )
        if self.relabel:
            ours = {(s.start, s.end): s.label_ for s in spans}
            relabelled = []
            for span in existing:
                label = ours.get((span.start, span.end))
                if label and span.label_ in self.relabel and label != span.label_:
                    new = Span(doc, span.start, span.end, label=label)
                    new._.entity_id = span._.entity_id
                    relabelled.append(new)
                else:
                    relabelled.append(span)
            existing = relabelled
        doc.spans[self.spans_key] = longest_non_overlapping(existing, spans)
        # On equal spans the existing one wins: only explain the spans that are ours.
        theirs = {(span.start, span.end, span.label_) for span in existing}
        for span in doc.spans[self.spans_key]:
            key = (span.start, span.end, span.label_)
            source_entry = None if key in theirs else sources.get(key)
            if source_entry is None:
                continue
            source, entry = source_entry
            record = source.record(entry)
            explain = span._.risk_explain
            explain.setdefault("detector", f"{self.name}:{record['property'] or 'term'}")
            explain[self.name] = {
                "term": record["term"],
                "property": record["property"],
                "qid": record["qid"],
                "count": record["count"],
            }
        return doc

    def pipe(self, stream: Iterable[Doc], batch_size: int = 128) -> Iterable[Doc]:
        """Match batches of ``batch_size`` Docs at once (one vectorized pass each)."""
        for batch in minibatch(stream, size=batch_size):
            yield from self._apply_batch(list(batch))

    def _apply_batch(self, docs: List[Doc]) -> Iterator[Doc]:
        for doc, found in zip(docs, self._find(docs)):
            yield self._apply(doc, self._match(doc, found))

    # ------------------------------------------------------------------ serialization
    # Only the compiled matcher, with the ``gazetteer`` setting it was compiled under; every
    # other setting (filters, lists, labels) lives in config.cfg, so a load-time override
    # applies. A config naming another gazetteer wins over the saved matcher (W202).
    def _source(self) -> Dict[str, Any]:
        return {"configured": self._configured_gazetteer, "gazetteer": self.gazetteer}

    def _take_source(self, source: Dict[str, Any]) -> bool:
        """Whether the saved matcher may be used with this component's config."""
        if source.get("configured", self._configured_gazetteer) != self._configured_gazetteer:
            warnings.warn(
                Warnings.W202.format(saved=source.get("configured"), configured=self._configured_gazetteer), stacklevel=2
            )
            return False
        self.gazetteer = source.get("gazetteer", self.gazetteer)
        return True

    def _set_matcher(self, matcher: GazetteerMatcher) -> None:
        with self._setup_lock:
            self._matcher = matcher

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> None:
        writers = {
            "source.json": lambda p: srsly.write_json(p, self._source()),
            "matcher": lambda p: self.matcher.to_disk(p),
        }
        util.to_disk(path, writers, exclude)

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> "Gazetteer":
        path = ensure_path(path)
        source_path = path / "source.json"
        if "matcher" in exclude or not self._take_source(srsly.read_json(source_path) if source_path.exists() else {}):
            return self
        util.from_disk(path, {"matcher": lambda p: self._set_matcher(GazetteerMatcher.from_disk(p))}, exclude)
        return self

    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        return util.to_bytes({"source": self._source, "matcher": lambda: self.matcher.to_bytes()}, exclude)

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = ()) -> "Gazetteer":
        msg = srsly.msgpack_loads(data)
        if "matcher" in exclude or "matcher" not in msg or not self._take_source(msg.get("source") or {}):
            return self
        self._set_matcher(GazetteerMatcher.from_bytes(msg["matcher"]))
        return self


@Language.factory(
    "pii_gazetteer",
    default_config={
        "gazetteer": None,
        "spans_key": "pii",
        "labels": ["DEM", "MISC"],
        "filters": DEFAULT_FILTERS,
        "use_default_stop_list": True,
        "stop_terms": [],
        "allow_list": [],
        "deny_list": {},
        "relabel": [],
        "overwrite": False,
    },
    assigns=["doc.spans", "span._.risk_explain"],
)
def make_gazetteer(
    nlp: Language,
    name: str,
    gazetteer: Optional[str],
    spans_key: str,
    labels: Optional[List[str]],
    filters: Dict[str, Dict[str, float]],
    use_default_stop_list: bool,
    stop_terms: List[str],
    allow_list: List[str],
    deny_list: Dict[str, str],
    relabel: List[str],
    overwrite: bool,
) -> Gazetteer:
    """Build the component (cheap: the gazetteer loads on first use).

    gazetteer (Optional[str]): None (the shipped one, from initialize's ``data``), "" (none), a
        JSONL(.gz) file of terms, or a saved matcher directory.
    spans_key (str): the span group to write.
    labels (Optional[List[str]]): the labels to emit; None for all in the gazetteer.
    filters (Dict[str, Dict[str, float]]): noise-control settings per scope ("all", label, property id).
    use_default_stop_list (bool): use the shipped stop list of generic words.
    stop_terms (List[str]): more terms never tagged by the noise filters.
    allow_list (List[str]): terms never tagged.
    deny_list (Dict[str, str]): terms always tagged, with their label.
    relabel (List[str]): labels of existing spans the gazetteer may relabel when it matches exactly their tokens.
    overwrite (bool): replace the span group instead of merging into it.
    """
    register_extensions()
    return Gazetteer(
        nlp,
        name,
        gazetteer=gazetteer,
        spans_key=spans_key,
        labels=labels,
        filters=filters,
        use_default_stop_list=use_default_stop_list,
        stop_terms=stop_terms,
        allow_list=allow_list,
        deny_list=deny_list,
        relabel=relabel,
        overwrite=overwrite,
    )
