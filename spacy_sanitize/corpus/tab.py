"""TAB JSON format <-> spaCy Docs.

A TAB file is a JSON list of documents (the Wikipedia biographies) or a dict of them,
each with ``doc_id``, ``text`` and ``annotations: {annotator: {"entity_mentions": [...]}}``.
Reading gives one reference Doc per (document, annotator), with ``doc.spans["pii"]``
(label = entity_type, ``Span._.entity_id``) and ``doc.spans["mask"]`` (label = DIRECT or
QUASI, for mentions the annotator masked).
"""
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Union

import srsly
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import registry

from ..errors import Errors, Warnings
from ..extensions import register_extensions
from ..types import DEFAULT_SPANS_KEY, GOLD_MASK_KEY, IDENTIFIER_TYPES, MASK_LABELS, PII_TYPES


@dataclass
class Mention:
    start: int
    end: int
    entity_type: str
    identifier_type: str
    entity_id: str
    mention_id: str = ""
    span_text: str = ""

    @property
    def needs_masking(self) -> bool:
        return self.identifier_type in MASK_LABELS


@dataclass
class TabDocument:
    doc_id: str
    text: str
    annotations: Dict[str, List[Mention]] = field(default_factory=dict)
    meta: Dict[str, Any] = field(default_factory=dict)


class TabFormatError(ValueError):
    """A TAB file or mention that cannot be used."""


def _check_mention(doc_id: str, text: str, raw: Dict[str, Any]) -> Mention:
    mention_id = str(raw.get("entity_mention_id", "?"))

    def fail(problem: str) -> TabFormatError:
        return TabFormatError(Errors.E003.format(doc_id=doc_id, mention_id=mention_id, problem=problem))

    try:
        start, end = int(raw["start_offset"]), int(raw["end_offset"])
    except (KeyError, TypeError, ValueError):
        raise fail("missing or non-integer start_offset/end_offset") from None
    if not 0 <= start < end <= len(text):
        raise fail(f"offsets [{start}, {end}) are outside the text (length {len(text)})")
    entity_type = raw.get("entity_type")
    if entity_type not in PII_TYPES:
        raise fail(f"unknown entity_type {entity_type!r}; expected one of {', '.join(PII_TYPES)}")
    identifier_type = raw.get("identifier_type")
    if identifier_type not in IDENTIFIER_TYPES:
        raise fail(f"unknown identifier_type {identifier_type!r}; expected one of {', '.join(IDENTIFIER_TYPES)}")
    span_text = raw.get("span_text")
    if span_text is not None and span_text != text[start:end]:
        # the message names offsets, not the (private) text at them
        raise fail(f"span_text ({len(str(span_text))} characters) does not match the text at the offsets [{start}, {end})")
    entity_id = str(raw.get("entity_id") or f"{doc_id}:{mention_id}")
    return Mention(start, end, entity_type, identifier_type, entity_id, mention_id, text[start:end])


def parse_tab(data: Any, source: str = "<data>", lenient: bool = False) -> List[TabDocument]:
    """Validate TAB JSON data (already parsed) into TabDocuments."""
    if isinstance(data, dict):
        data = [dict(value, doc_id=value.get("doc_id", key)) for key, value in data.items()]
    if not isinstance(data, list):
        raise TabFormatError(Errors.E002.format(path=source, err="top level is not a list or dict"))
    documents: List[TabDocument] = []
    skipped: List[str] = []
    for index, raw_doc in enumerate(data):
        if not isinstance(raw_doc, dict) or not isinstance(raw_doc.get("text"), str):
            raise TabFormatError(Errors.E004.format(index=index, path=source, field="text"))
        doc_id = str(raw_doc.get("doc_id", index))
        text = raw_doc["text"]
        annotations: Dict[str, List[Mention]] = {}
        for annotator, annotation in (raw_doc.get("annotations") or {}).items():
            mentions = annotation.get("entity_mentions", []) if isinstance(annotation, dict) else annotation
            checked: List[Mention] = []
            for raw in mentions or []:
                try:
                    checked.append(_check_mention(doc_id, text, raw if isinstance(raw, dict) else {}))
                except TabFormatError as err:
                    if not lenient:
                        raise
                    skipped.append(str(err))
            annotations[str(annotator)] = checked
        meta = {k: v for k, v in raw_doc.items() if k not in ("text", "annotations", "doc_id")}
        documents.append(TabDocument(doc_id, text, annotations, meta))
    if skipped:
        warnings.warn(Warnings.W001.format(n=len(skipped), path=source, first=skipped[0]), stacklevel=2)
    return documents


def load_tab(path: Union[str, Path, Sequence[Union[str, Path]]], lenient: bool = False) -> List[TabDocument]:
    """Read and validate a TAB JSON file, or several (their documents in order: one
    corpus of biographies and court cases together)."""
    if isinstance(path, (list, tuple)):
        return [document for one in path for document in load_tab(one, lenient=lenient)]
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(Errors.E006.format(path=path))
    try:
        data = srsly.read_json(path)
    except ValueError as err:
        raise TabFormatError(Errors.E002.format(path=path, err=err)) from None
    return parse_tab(data, str(path), lenient=lenient)


def tab_to_docs(
    documents: Iterable[TabDocument],
    nlp: Language,
    spans_key: str = DEFAULT_SPANS_KEY,
    mask_key: str = GOLD_MASK_KEY,
) -> Iterator[Doc]:
    """One reference Doc per (document, annotator); a document without annotators gives
    one Doc with no spans."""
    register_extensions()
    for document in documents:
        annotators = list(document.annotations) or [None]
        base = nlp.make_doc(document.text)
        for annotator in annotators:
            doc = base.copy()
            doc._.doc_id = document.doc_id
            doc._.annotator = annotator
            pii, mask = [], []
            for mention in document.annotations.get(annotator, []) if annotator else []:
                span = doc.char_span(mention.start, mention.end, label=mention.entity_type, alignment_mode="expand")
                if span is None:
                    continue
                span._.entity_id = mention.entity_id
                pii.append(span)
                if mention.needs_masking:
                    mask.append(doc.char_span(mention.start, mention.end, label=mention.identifier_type, alignment_mode="expand"))
            doc.spans[spans_key] = pii
            doc.spans[mask_key] = mask
            yield doc


def read_tab(path: Union[str, Path, Sequence[Union[str, Path]]], nlp: Language, lenient: bool = False, **kwargs: Any) -> List[Doc]:
    """Read a TAB JSON file (or several, ``load_tab``) into reference Docs (one per annotator)."""
    return list(tab_to_docs(load_tab(path, lenient=lenient), nlp, **kwargs))


VIEW_SIZES = "view_sizes"  # SpanGroup.attrs key of merged views: each annotator's number of mask spans, in order


def merge_views(docs: Iterable[Doc], mask_key: str = GOLD_MASK_KEY) -> List[Doc]:
    """One reference Doc per document from its annotator views (as ``tab_to_docs`` reads them):
    the ``mask_key`` group holds every view's spans in turn, and ``attrs["view_sizes"]`` how many
    each view has, so a token's label can be the share of annotators who mask it (risk_seq trains
    once per document on it instead of once per view, ~4x less work on the court cases)."""
    groups: Dict[str, List[Doc]] = {}
    for doc in docs:
        groups.setdefault(doc._.doc_id, []).append(doc)
    merged = []
    for views in groups.values():
        doc = views[0].copy()
        # the views are copies of one tokenization (tab_to_docs), so token offsets carry over
        spans = [Span(doc, s.start, s.end, label=s.label_) for view in views for s in view.spans.get(mask_key, [])]
        doc.spans[mask_key] = spans
        doc.spans[mask_key].attrs[VIEW_SIZES] = [len(view.spans.get(mask_key, [])) for view in views]
        doc._.annotator = None
        merged.append(doc)
    return merged


def docs_to_tab(docs: Iterable[Doc], spans_key: str = DEFAULT_SPANS_KEY, mask_key: str = GOLD_MASK_KEY) -> List[TabDocument]:
    """Reference Docs (one per annotator) back to TabDocuments; the inverse of tab_to_docs."""
    by_id: Dict[str, TabDocument] = {}
    for doc in docs:
        doc_id = doc._.doc_id or str(len(by_id))
        document = by_id.setdefault(doc_id, TabDocument(doc_id, doc.text))
        masked = {(s.start_char, s.end_char): s.label_ for s in doc.spans.get(mask_key, [])}
        mentions = [
            Mention(
                span.start_char,
                span.end_char,
                span.label_,
                masked.get((span.start_char, span.end_char), "NO_MASK"),
                span._.entity_id or f"{doc_id}:{i}",
                f"{doc_id}_m{i}",
                span.text,
            )
            for i, span in enumerate(doc.spans.get(spans_key, []))
        ]
        document.annotations[doc._.annotator or f"annotator{len(document.annotations)}"] = mentions
    return list(by_id.values())


def write_tab(documents: Iterable[TabDocument], path: Union[str, Path]) -> None:
    """Write TabDocuments as TAB JSON (a list of documents)."""
    out = []
    for document in documents:
        annotations = {
            annotator: {
                "entity_mentions": [
                    {
                        "entity_type": m.entity_type,
                        "entity_mention_id": m.mention_id,
                        "start_offset": m.start,
                        "end_offset": m.end,
                        "span_text": document.text[m.start : m.end],
                        "identifier_type": m.identifier_type,
                        "entity_id": m.entity_id,
                    }
                    for m in mentions
                ]
            }
            for annotator, mentions in document.annotations.items()
        }
        out.append(dict(document.meta, doc_id=document.doc_id, text=document.text, annotations=annotations))
    srsly.write_json(path, out)


def masked_offsets(doc: Doc) -> List[List[int]]:
    """The character spans a sanitized Doc replaced, merged, as TAB submission pairs."""
    return [[row[0], row[1]] for row in (doc._.replacements or [])]


def write_submission(predictions: Dict[str, List[List[int]]], path: Union[str, Path]) -> None:
    """Write TAB's submission format: ``{doc_id: [[start, end], ...]}``."""
    srsly.write_json(path, {doc_id: [[int(s), int(e)] for s, e in spans] for doc_id, spans in predictions.items()})


def read_submission(path: Union[str, Path]) -> Dict[str, List[List[int]]]:
    """Read TAB's submission format, validating its shape."""
    try:
        data = srsly.read_json(path)
        if not isinstance(data, dict):
            raise ValueError("top level is not an object")
        return {str(k): [[int(s), int(e)] for s, e in v] for k, v in data.items()}
    except (ValueError, TypeError) as err:
        raise TabFormatError(Errors.E008.format(path=path, err=err)) from None


@registry.readers("spacy_sanitize.TabCorpus.v1")
def create_tab_corpus_reader(
    path: Optional[Path], lenient: bool = False, limit: int = 0, max_length: int = 0
) -> Callable[[Language], Iterator[Example]]:
    """A spaCy corpus reader for TAB JSON: ``[corpora.dev] @readers = "spacy_sanitize.TabCorpus.v1"``.
    Yields Examples (one per annotator) whose reference carries the gold ``pii`` and ``mask`` spans.

    limit (int): read only the first ``limit`` documents (0: all), as ``spacy.Corpus.v1``.
    max_length (int): skip documents of more than ``max_length`` tokens (0: no limit), with a
        warning that counts them. Unlike ``spacy.Corpus.v1`` they are not split into
        sentences: TAB's entity-level metrics need whole documents.
    """

    def read(nlp: Language) -> Iterator[Example]:
        if path is None:
            return
        documents = load_tab(path, lenient=lenient)
        if limit >= 1:
            documents = documents[:limit]
        skipped = set()
        for reference in tab_to_docs(documents, nlp):
            if max_length >= 1 and len(reference) > max_length:
                skipped.add(reference._.doc_id)
                continue
            predicted = nlp.make_doc(reference.text)
            predicted._.doc_id = reference._.doc_id
            predicted._.annotator = reference._.annotator
            yield Example(predicted, reference)
        if skipped:
            warnings.warn(Warnings.W003.format(n=len(skipped), path=path, max_length=max_length), stacklevel=2)

    return read
