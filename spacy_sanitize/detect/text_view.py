"""pii_text_view: detection on a normalised view of the text, mapped back exactly.

Decomposed Unicode (NFD, as macOS writes file names and some editors text: "Kierkega\\u030ard",
"He\\u0301nault") and control characters inside words ("John\\x00Smith") defeat detectors
trained on composed, clean text: the same name is found in one form and missed in the
other. A Doc's text cannot change (the output keeps the text outside masked spans byte for
byte), so this component, placed after the detectors (before pii_coref, which then links
all spans), builds a *view*: each character cluster (a starter and its combining marks)
composed to NFC, each control character other than tab and line breaks and each space of
another width (no-break, narrow) replaced by a space, invisible characters (zero-width space,
joiners, BOM, soft hyphen) left out, fullwidth and small forms of ASCII ("＠", "﹫", "．") read as
ASCII (NFKC), a word hyphenated across a line break joined ("Szcze-\npański"), a form's blank of underscores a line break ("Tel: ___07733 451 980___"), a number OCR read with
letters for digits in digits ("3O/O7/1988" -> "30/07/1988"), and markup shown as a reader sees it (``markup``: tags and ANSI escapes
hidden, character references such as ``&eacute;`` decoded; the masker keeps the hidden
pieces of a masked span in place). When the view differs from the text, the detector components named in
``components`` (default: every component before this one) run on a Doc of the view, and
the spans they put in ``doc.spans[spans_key]`` are mapped back to the original characters
(a span covers the whole clusters its view characters came from) and merged by the usual
rule (on a tie, the view's span wins). A text that is already NFC and clean costs one
check.
"""
import re
import unicodedata
from typing import Any, Iterator, List, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc

from ..doc_reads import doc_text
from ..errors import Errors
from ..extensions import register_extensions
from ..spans import longest_non_overlapping
from ..markup import markup_pieces
from ..types import DEFAULT_SPANS_KEY

# control characters (Cc) other than tab, line feed, vertical tab, form feed, return
CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
# spaces of other widths, which split a phone number like a space ("+47\u202f912\u202f34")
ODD_SPACE = re.compile(r"[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
# characters a reader does not see, which break an identifier for a detector
# ("john.smith\u200b@example.com", "4111\u200b1111..."): zero-width space, non-joiner,
# joiner, word joiner, BOM and soft hyphen. In the view they join the cluster before them
# and vanish, so a span over that cluster covers them.
INVISIBLE = re.compile(r"[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
# fullwidth forms and small form variants of ASCII ("＠", "﹫", "．", "Ｊ"): a reader sees "@", ".",
# "J"; in the view they are those (NFKC), so "zeb.quack＠example.org" is an e-mail address
COMPAT = re.compile(r"[\uff01-\uff5e\ufe50-\ufe6b]")
# a letter-spaced word, as OCR of a form reads block letters ("P e r e i r a", "G R Z E G O R Z"):
# four letters or more, each followed by one space; words are apart by two spaces or more. In
# the view its spaces vanish ("Pereira"), so the detectors read the word.
LETTER_SPACED = re.compile(r"(?<![^\W\d_])(?:[^\W\d_] ){3,}[^\W\d_](?![^\W\d_])")


# a number that OCR read with letters for digits ("D0B: 3O/O7/1988", "NHS N0: 72l 450 3318"): a word
# of digits and the letters O, o, l, I only, with a digit at least as often as such a letter; in
# the view each such letter is the digit it stands for ("30/07/1988"), so the code patterns read it
OCR_DIGITS = re.compile(r"(?<![^\W_])(?=[OolI]{0,15}\d)[0-9OolI]{2,16}(?![^\W_])")
OCR_NEAR = re.compile(r"\d[OolI]|[OolI]\d")
OCR_READS = str.maketrans("OolI", "0011")


def _ocr_words(text: str) -> Iterator["re.Match[str]"]:
    """The ``OCR_DIGITS`` words of ``text`` with as many digits as such letters at least, lazily
    (``needs_view`` stops at the first)."""
    if OCR_NEAR.search(text) is None:
        return
    for m in OCR_DIGITS.finditer(text):
        letters = sum(not c.isdigit() for c in m.group())
        if letters and letters <= len(m.group()) - letters:
            yield m


def _ocr_digits(text: str) -> dict:
    """Position -> the digit the view reads there, for the letters of ``OCR_DIGITS`` words."""
    return {m.start() + k: c.translate(OCR_READS) for m in _ocr_words(text) for k, c in enumerate(m.group()) if not c.isdigit()}


# a word hyphenated across a line break, its second part in lower case ("Szcze-\npański", OCR
# of a form or a letter): in the view the hyphen and the break vanish ("Szczepański")
LINE_HYPHEN = re.compile(r"(?<=[^\W\d_])-[ \t]{0,3}\r?\n[ \t]{0,3}(?=[^\W\d_])")


# a form's blank, filled in ("Tel: ___07733 451 980___"): underscores join the value to the
# line for a detector ("_" is a word character); in the view each run is a line break, which
# parts the values as the blank's lines do on paper ("Aisha Bello" is not "Bello   Class")
FORM_BLANK = re.compile(r"_{3,}")


def _left_out(text: str) -> set:
    """The positions the view leaves out: the spaces inside letter-spaced words
    (``LETTER_SPACED``), the hyphen and line break of a word broken across lines (``LINE_HYPHEN``)."""
    out = {m.start() + k for m in LETTER_SPACED.finditer(text) for k in range(1, m.end() - m.start(), 2)}
    for m in LINE_HYPHEN.finditer(text):
        if text[m.end()].islower():
            out.update(range(m.start(), m.end()))
    return out


def _clean(text: str) -> str:
    return ODD_SPACE.sub(" ", CONTROL.sub(" ", text))


def text_view(text: str, found: Optional[List[Any]] = None) -> Tuple[str, List[int], List[int]]:
    """The view of ``text`` and, for each view character, the start and end (exclusive) in
    ``text`` of the cluster it comes from. Clusters are a character with the combining
    marks after it, each composed on its own, or a piece of markup (``markup``: a
    tag or an ANSI escape stands for nothing or a line break, a character reference for
    its character), so view offsets map back to whole clusters. ``found``: the text's
    ``markup_pieces`` when the caller has them already."""
    pieces: List[str] = []
    starts: List[int] = []
    ends: List[int] = []
    if found is None:
        found = markup_pieces(text)
    markup = {p.start: p for p in found}
    left_out = _left_out(text)
    blanks = {m.start(): m.end() for m in FORM_BLANK.finditer(text)} if "___" in text else {}
    ocr = _ocr_digits(text)
    i, n = 0, len(text)
    while i < n:
        if i in left_out and i not in markup:  # a space inside a letter-spaced word, a line-end hyphen: left out
            i += 1
            continue
        if i in markup:
            piece = markup.pop(i)
            composed, j = piece.view, piece.end
        elif i in blanks:
            composed, j = "\n", blanks[i]
        else:
            j = i + 1
            while j < n and (unicodedata.combining(text[j]) or INVISIBLE.match(text[j])) and j not in markup:
                j += 1
            cluster = text[i:j]
            composed = unicodedata.normalize("NFC", cluster) if j - i > 1 else cluster
            if COMPAT.match(composed):
                composed = unicodedata.normalize("NFKC", composed)
            composed = _clean(INVISIBLE.sub("", composed))
            if i in ocr:
                composed = ocr[i]
        pieces.append(composed)
        starts.extend([i] * len(composed))
        ends.extend([j] * len(composed))
        i = j
    for value in (p for p in found if p.kind == "value"):
        pieces.append("\n\n" + _clean(text[value.start : value.end]))
        starts.extend([value.start] * 2 + list(range(value.start, value.end)))
        ends.extend([value.start + 1] * 2 + list(range(value.start + 1, value.end + 1)))
    return "".join(pieces), starts, ends


def needs_view(text: str, found: Optional[List[Any]] = None) -> bool:
    """``found``: the text's ``markup_pieces`` when the caller has them already."""
    return (
        not unicodedata.is_normalized("NFC", text)
        or CONTROL.search(text) is not None
        or ODD_SPACE.search(text) is not None
        or INVISIBLE.search(text) is not None
        or COMPAT.search(text) is not None
        or LETTER_SPACED.search(text) is not None
        or LINE_HYPHEN.search(text) is not None
        or "___" in text  # a form's blank (FORM_BLANK)
        or next(_ocr_words(text), None) is not None
        or bool(markup_pieces(text) if found is None else found)
    )


class TextView:
    def __init__(self, nlp: Language, name: str, spans_key: str, components: Optional[List[str]]) -> None:
        self.nlp = nlp
        self.name = name
        self.spans_key = spans_key
        self.components = None if components is None else list(components)

    def _detectors(self) -> List[Tuple[str, object]]:
        names = [n for n, _ in self.nlp.pipeline]
        if self.components is None:
            chosen = names[: names.index(self.name)] if self.name in names else []
        else:
            missing = [c for c in self.components if c not in names]
            if missing:
                raise ValueError(Errors.E041.format(name=self.name, missing=missing, names=names))
            chosen = self.components
        return [(n, self.nlp.get_pipe(n)) for n in chosen if n != self.name]

    def __call__(self, doc: Doc) -> Doc:
        text = doc_text(doc)
        found = markup_pieces(text)  # parsed once, for the test and the view
        if not needs_view(text, found):
            return doc
        view_text, starts, ends = text_view(text, found)
        view = self.nlp.make_doc(view_text)
        view._.doc_id = doc._.doc_id
        for _, component in self._detectors():
            view = component(view)  # type: ignore[operator]
        mapped = []
        for span in view.spans.get(self.spans_key, []):
            if span.start_char == span.end_char:
                continue
            # min/max: a span across the running text and an attribute value shown after it
            first, last = starts[span.start_char], ends[span.end_char - 1]
            start, end = min(first, starts[span.end_char - 1]), max(last, ends[span.start_char])
            new = doc.char_span(start, end, label=span.label_, alignment_mode="expand")
            if new is None:
                continue
            new._.risk_explain = {**span._.risk_explain, self.name: True}
            if new._.entity_id is None and span._.entity_id is not None:
                new._.entity_id = f"{self.name}:{span._.entity_id}"
            mapped.append(new)
        # the view's spans win ties: detectors were trained on composed, clean text
        existing = list(doc.spans.get(self.spans_key, []))
        doc.spans[self.spans_key] = longest_non_overlapping(mapped, existing)
        return doc


@Language.factory(
    "pii_text_view",
    default_config={"spans_key": DEFAULT_SPANS_KEY, "components": None},
    assigns=["doc.spans", "span._.risk_explain"],
)
def make_text_view(nlp: Language, name: str, spans_key: str, components: Optional[List[str]]) -> TextView:
    """spans_key (str): the span group to complete. components (Optional[List[str]]): the
    detector components to run on the view (null: every component before this one)."""
    register_extensions()
    return TextView(nlp, name, spans_key, components)
