"""The features of pii_relabel: cheap indicators of each span of ``doc.spans[spans_key]``
(its labels and sources, words, head words, shapes, context, lists) plus, with a context
encoder, its contextual vector; and the gold type of each detected span for training."""
import re
from collections import Counter, defaultdict
from functools import lru_cache
from typing import Dict, List, Optional, Sequence, Tuple

from spacy.tokens import Doc, Span

from ...lm.context import ContextEncoder
from ...spans import char_after, char_before
from ...text import zipf
from ...types import DEFAULT_SPANS_KEY

ROMAN = re.compile(r"^(?=[MDCLXVI])M*(?:C[MD]|D?C{0,3})(?:X[CL]|L?X{0,3})(?:I[XV]|V?I{0,3})$")
YEAR = re.compile(r"^(?:1[0-9]|20)\d\d$")
# Head words that say what kind of thing a name is (a name's type is usually set by its last
# words: "Madras Law College", "Edward R. Murrow Award"); the classifier weighs them.
HEAD_WORDS: Dict[str, Tuple[str, ...]] = {
    "org": ("school", "college", "university", "academy", "institute", "club", "fc", "rfc", "afc", "team", "party", "company", "corporation", "inc", "ltd", "records", "band", "orchestra", "society", "association", "council", "committee", "ministry", "department", "church", "bank", "group", "union", "army", "navy", "force", "press", "times", "news", "network", "studios", "theatre", "museum", "hospital", "board", "agency", "foundation", "federation", "conference", "parliament", "senate", "assembly", "court", "office", "police", "airlines", "gryphons", "seminary", "conservatory"),
    "misc": ("award", "awards", "prize", "medal", "trophy", "cup", "championship", "championships", "games", "olympics", "bowl", "fame", "tournament", "festival", "series", "show", "film", "album", "song", "novel", "book", "act", "war", "election", "order", "cross", "league", "district", "season", "tour", "open", "grand", "prix", "honours", "scholarship", "fellowship", "degree"),
    "loc": ("street", "road", "avenue", "river", "lake", "mountain", "island", "islands", "county", "province", "state", "city", "town", "village", "park", "square", "bridge", "port", "harbour", "bay", "valley", "region", "coast", "hall", "stadium", "arena", "centre", "center", "building", "tower", "castle", "palace", "cemetery", "station", "airport"),
}
HEAD_CLASS = {word: cls for cls, words in HEAD_WORDS.items() for word in words}
LIST_SEPARATORS = frozenset({",", "and", "&", "or", ";", "/"})
LEFT_WINDOW = 4
QUOTES = frozenset("\"'“”‘’«»")


def _shape(text: str) -> str:
    shape = re.sub(r"[A-Z]+", "X", text)
    shape = re.sub(r"[a-z]+", "x", shape)
    return re.sub(r"\d+", "d", shape)


@lru_cache(maxsize=200_000)
def _zipf_bucket(word: str) -> int:
    """Word frequency bucket (Zipf scale, English; 0 = unknown word)."""
    return int(zipf(word))


def _word(doc: Doc, i: int) -> str:
    if i < 0:
        return "<s>"
    if i >= len(doc):
        return "</s>"
    return doc[i].lower_


def _doc_head(doc: Doc) -> frozenset:
    """The title-case words of the first tokens: the biography's subject is named there."""
    return frozenset(t.lower_ for t in doc[:12] if t.is_title and len(t) > 2)


def _ent_labels(doc: Doc) -> Dict[int, Tuple[str, int, int]]:
    by_token: Dict[int, Tuple[str, int, int]] = {}
    for ent in doc.ents:
        for i in range(ent.start, ent.end):
            by_token[i] = (ent.label_, ent.start, ent.end)
    return by_token


def span_features(span: Span, ents: Optional[Dict[int, Tuple[str, int, int]]] = None, doc_head: Optional[frozenset] = None) -> Dict[str, float]:
    """The features of one span (binary indicators, as a name -> 1.0 dict).

    span (Span): a span of the detector's span group.
    ents (Dict[int, Tuple[str, int, int]]): token index -> (label, start, end) of ``doc.ents``
        (computed from ``span.doc`` when None).
    doc_head (frozenset): the document's ``_doc_head`` (computed when None).
    RETURNS (Dict[str, float]): the feature dict.
    """
    doc = span.doc
    ents = _ent_labels(doc) if ents is None else ents
    doc_head = _doc_head(doc) if doc_head is None else doc_head
    explain = span._.risk_explain
    detector = str(explain.get("detector", "none"))
    label = span.label_
    words = [t for t in span if not t.is_punct] or list(span)
    lowers = [t.lower_ for t in words]
    f: Dict[str, float] = {}

    def add(name: str) -> None:
        f[name] = 1.0

    add(f"label={label}")
    add(f"det={detector}")
    add(f"det_src={detector.split(':')[0]}")
    add(f"label+det={label}|{detector.split(':')[0]}")
    for key, value in explain.items():
        if isinstance(value, dict) and value.get("property"):
            add(f"gaz_prop={value['property']}")
    ent_hits = [ents[i] for i in range(span.start, span.end) if i in ents]
    if ent_hits:
        ent_label, e_start, e_end = Counter(ent_hits).most_common(1)[0][0]
        add(f"ent={ent_label}")
        add(f"ent_fit={'same' if (e_start, e_end) == (span.start, span.end) else 'wider' if e_start <= span.start and e_end >= span.end else 'part'}")
        add(f"label+ent={label}|{ent_label}")
    else:
        add("ent=none")
    for w in lowers:
        add(f"w={w}")
    add(f"first={lowers[0]}")
    add(f"last={lowers[-1]}")
    add(f"label+last={label}|{lowers[-1]}")
    if len(lowers) > 1:
        add(f"last2={lowers[-2]} {lowers[-1]}")
        add(f"first2={lowers[0]} {lowers[1]}")
    add(f"suffix3={lowers[-1][-3:]}")
    if lowers[-1] in HEAD_CLASS:
        add(f"head_last={HEAD_CLASS[lowers[-1]]}")
        add(f"label+head_last={label}|{HEAD_CLASS[lowers[-1]]}")
    for word in lowers:
        if word in HEAD_CLASS:
            add(f"head_any={HEAD_CLASS[word]}")
    add(f"zipf_first={_zipf_bucket(lowers[0])}")
    add(f"zipf_last={_zipf_bucket(lowers[-1])}")
    add(f"zipf_min={min(map(_zipf_bucket, lowers))}")
    before = char_before(doc, span.start)
    after = char_after(doc, span.end - 1) if len(span) else ""
    if before and before in QUOTES or after and after in QUOTES:
        add("quoted")
    add(f"shape={' '.join(_shape(t.text) for t in words[:5])}")
    for t in words:
        add(f"wshape={_shape(t.text)}")
        if ROMAN.match(t.text):
            add("roman")
        if YEAR.match(t.text):
            add("year")
        if t.is_stop:
            add(f"stop={t.lower_}")
    n = len(words)
    add(f"n_words={min(n, 6)}")
    if any(c.isdigit() for c in span.text):
        add("has_digit")
    if all(t.is_upper for t in words if t.is_alpha) and any(t.is_alpha for t in words):
        add("all_caps")
    if all(t.is_title or not t.is_alpha or t.is_stop for t in words):
        add("title_case")
    if n > 1 and any(t.is_stop for t in words[1:-1]):
        add("inner_stop")
    for k, name in ((1, "prev1"), (2, "prev2")):
        add(f"{name}={_word(doc, span.start - k)}")
    for k, name in ((0, "next1"), (1, "next2")):
        add(f"{name}={_word(doc, span.end + k)}")
    for i in range(max(0, span.start - LEFT_WINDOW), span.start):
        if not doc[i].is_punct:
            add(f"lw={doc[i].lower_}")
    for i in range(span.end, min(len(doc), span.end + 3)):
        if not doc[i].is_punct:
            add(f"rw={doc[i].lower_}")
    add(f"prev_bigram={_word(doc, span.start - 2)} {_word(doc, span.start - 1)}")
    add(f"next_bigram={_word(doc, span.end)} {_word(doc, span.end + 1)}")
    add(f"label+prev1={label}|{_word(doc, span.start - 1)}")
    if span.start > 0 and doc[span.start - 1].text == "(":
        add("in_parens")
    if span.start == 0 or doc[span.start].is_sent_start:
        add("sent_start")
    # The biography's subject is named in its first tokens: parts of that name are PERSON.
    if any(w in doc_head for w in lowers):
        add("in_doc_head")
    return f


def doc_features(doc: Doc, spans_key: str = DEFAULT_SPANS_KEY, encoder: Optional[ContextEncoder] = None, encoder_scale: float = 1.0) -> List[Dict[str, float]]:
    """The feature dicts of the spans of ``doc.spans[spans_key]``, in order, with the labels
    other mentions of the same text got in the document; with an ``encoder``, each span's
    contextual vector too (features ``enc0``, ``enc1``, ..., times ``encoder_scale``)."""
    return docs_features([doc], spans_key, encoder, encoder_scale)[0]


def docs_features(docs: Sequence[Doc], spans_key: str = DEFAULT_SPANS_KEY, encoder: Optional[ContextEncoder] = None, encoder_scale: float = 1.0) -> List[List[Dict[str, float]]]:
    """``doc_features`` of each doc; the encoder reads the windows of all docs together."""
    rows = [_symbolic_features(doc, spans_key) for doc in docs]
    if encoder is not None:
        spans = [[(s.start_char, s.end_char) for s in doc.spans.get(spans_key, [])] for doc in docs]
        for doc_rows, vectors in zip(rows, encoder.span_vectors_batch([doc.text for doc in docs], spans)):
            for row, vector in zip(doc_rows, (vectors * encoder_scale).tolist()):
                row.update(zip(_dense_names(len(vector)), vector))
    return rows


def _symbolic_features(doc: Doc, spans_key: str) -> List[Dict[str, float]]:
    ents = _ent_labels(doc)
    doc_head = _doc_head(doc)
    spans = list(doc.spans.get(spans_key, []))
    by_text: Dict[str, Counter] = defaultdict(Counter)
    for span in spans:
        by_text[span.text.lower()][span.label_] += 1
    rows = []
    list_start = 0
    for k, span in enumerate(spans):
        row = span_features(span, ents, doc_head)
        for label in by_text[span.text.lower()]:
            row[f"same_text_label={label}"] = 1.0
        # Lists ("the films A, B and C"): items share the words before the list.
        if k > 0 and _in_list(doc, spans[k - 1], span):
            row["in_list"] = 1.0
            row[f"list_prev_label={spans[k - 1].label_}"] = 1.0
        else:
            list_start = span.start
        if k + 1 < len(spans) and _in_list(doc, span, spans[k + 1]):
            row["in_list"] = 1.0
            row[f"list_next_label={spans[k + 1].label_}"] = 1.0
        for i in range(max(0, list_start - LEFT_WINDOW), list_start):
            if not doc[i].is_punct:
                row[f"list_lw={doc[i].lower_}"] = 1.0
        rows.append(row)
    return rows


@lru_cache(maxsize=8)
def _dense_names(dim: int) -> Tuple[str, ...]:
    return tuple(f"enc{i}" for i in range(dim))


def _in_list(doc: Doc, left: Span, right: Span) -> bool:
    between = doc[left.end : right.start]
    return 0 < len(between) <= 2 and all(t.lower_ in LIST_SEPARATORS for t in between)


def gold_span_labels(predicted: Doc, reference: Doc, spans_key: str = DEFAULT_SPANS_KEY) -> List[Optional[str]]:
    """For each span of ``predicted.spans[spans_key]``, the gold type of the majority of its
    tokens that overlap a reference span (by characters), or None when none overlaps."""
    gold = [(s.start_char, s.end_char, s.label_) for s in reference.spans.get(spans_key, [])]
    out: List[Optional[str]] = []
    for span in predicted.spans.get(spans_key, []):
        votes: Counter = Counter()
        for token in span:
            t_start, t_end = token.idx, token.idx + len(token)
            for g_start, g_end, g_label in gold:
                if g_start < t_end and g_end > t_start:
                    votes[g_label] += 1
                    break
        out.append(votes.most_common(1)[0][0] if votes else None)
    return out

