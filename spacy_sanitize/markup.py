"""Markup in text: HTML/XML tags, character references and ANSI escapes, as a reader sees them.

A reader of ``<b>John</b> <i>Smith</i>`` or of ``\\x1b[31mJohn Smith\\x1b[0m`` sees "John
Smith"; a detector sees tag names, brackets and escape codes glued to the words and misses
the name. ``markup_pieces`` finds the pieces a reader does not see as text (tags, ANSI
escapes: *hidden*, with what stands for them in a view: nothing inside a line, a line break
for a block tag) and the character references (``&amp;``, ``&#233;``: shown decoded).
pii_text_view builds the view from them and the masker keeps the hidden pieces of a masked
span in place (``visible_parts``), so a masked name split by tags leaves the tags balanced.

Only what is surely markup is hidden (fails closed: what is hidden is never masked): a tag
is markup when its name is an HTML element or the text both opens and closes it (XML:
``<name>...</name>``), never ``<John Smith>``; attribute values (``title="John Smith"``,
``href="mailto:..."``) stay visible to the detectors (after the running text of the view),
and comments' text too.
"""
import html
import re
from typing import List, NamedTuple, Tuple

# HTML elements shown inside a line: their tags stand for nothing in the view
INLINE = frozenset(
    "a abbr b bdi bdo big cite code del dfn em font i ins kbd mark q s samp small span strike strong "
    "sub sup time tt u var wbr".split()
)
# other HTML elements: their tags end a line or a cell (as XML elements' tags do)
BLOCK = frozenset(
    "address article aside blockquote body br button caption center col colgroup dd details div dl dt "
    "fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hr html img input label "
    "legend li link main meta nav ol option p pre script section select style summary table tbody td "
    "textarea tfoot th thead title tr ul".split()
)
_ATTR = r"""\s+[^\s<>"'=/]+(?:\s*=\s*(?:"[^"<>]*"|'[^'<>]*'|[^\s"'=<>`]+))?"""
TAG = re.compile(rf"<(/?)([A-Za-z][\w:.-]*)((?:{_ATTR})*)\s*/?>")
ATTR_VALUE = re.compile(r"""=\s*(?:"([^"<>]*)"|'([^'<>]*)'|([^\s"'=<>`]+))""")
# the doctype, the XML declaration, comment delimiters (the comment's text stays visible, as
# does the code of other processing instructions: "<?php echo 'John Smith' ?>")
OTHER = re.compile(r"(?i)<!doctype[^<>]*>|<\?xml[^<>]*\?>|<!--|-->")
# CSI sequences (colours, cursor moves) only: an OSC sequence carries text (a window title,
# a hyperlink's address), and ESC and a letter is as likely a control character glued to a
# name ("John\x1bSmith"); both are read as text with the ESC as a space
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


class Piece(NamedTuple):
    start: int
    end: int
    view: str  # what stands for text[start:end] in the running text of the view
    kind: str  # "tag" or "escape" (hidden: kept when masking), "reference", or "value"

    @property
    def hidden(self) -> bool:
        return self.kind in ("tag", "escape")


def may_have_markup(text: str) -> bool:
    return "<" in text or "&" in text or "\x1b" in text


def _tag_pieces(text: str) -> List[Piece]:
    tags = list(TAG.finditer(text))
    opened = {m.group(2).lower() for m in tags if not m.group(1)}
    closed = {m.group(2).lower() for m in tags if m.group(1)}
    pieces: List[Piece] = []
    for m in tags:
        name = m.group(2).lower()
        if name not in INLINE and name not in BLOCK and not (name in opened and name in closed):
            continue
        gap = "" if name in INLINE else "\n"  # XML elements are mostly fields: one a line
        cursor = m.start()
        for value in ATTR_VALUE.finditer(text, m.start(3), m.end(3)):
            group = next(g for g in (1, 2, 3) if value.group(g) is not None)
            if value.start(group) == value.end(group):
                continue
            # a value is text of its own (a title, a mailto: address): shown after the
            # running text, not inside it, where it would split the name around the tag
            pieces.append(Piece(cursor, value.start(group), gap, "tag"))
            pieces.append(Piece(value.start(group), value.end(group), "", "value"))
            cursor, gap = value.end(group), ""
        pieces.append(Piece(cursor, m.end(), gap, "tag"))
    return pieces


def markup_pieces(text: str) -> List[Piece]:
    """The markup of ``text``, sorted and non-overlapping (empty for plain text)."""
    if not may_have_markup(text):
        return []
    pieces = _tag_pieces(text) if "<" in text else []
    if "<" in text:
        pieces += [Piece(m.start(), m.end(), " ", "tag") for m in OTHER.finditer(text)]
    if "\x1b" in text:
        pieces += [Piece(m.start(), m.end(), "", "escape") for m in ANSI.finditer(text)]
    if "&" in text:
        for m in ENTITY.finditer(text):
            decoded = html.unescape(m.group())
            if decoded != m.group():
                pieces.append(Piece(m.start(), m.end(), decoded, "reference"))
    pieces.sort()
    out: List[Piece] = []
    for piece in pieces:  # a reference inside a tag's syntax, say: the first piece wins
        if not out or piece.start >= out[-1].end:
            out.append(piece)
    return out


def visible_parts(text: str, start: int, end: int, hidden: List[Tuple[int, int]], lo: int = 0) -> List[Tuple[int, int]]:
    """The parts of ``text[start:end]`` outside the ``hidden`` ranges (sorted), without
    their surrounding whitespace (and none that is only whitespace). ``lo``: the first
    hidden range that may overlap (the ranges before it end before ``start``)."""
    parts: List[Tuple[int, int]] = []
    cursor = start
    for h_start, h_end in (hidden[k] for k in range(lo, len(hidden))):
        if h_end <= cursor:
            continue
        if h_start >= end:
            break
        if h_start > cursor:
            parts.append((cursor, h_start))
        cursor = max(cursor, h_end)
    if cursor < end:
        parts.append((cursor, end))
    stripped = []
    for s, e in parts:  # the spaces around a part are not part of the name
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            stripped.append((s, e))
    return stripped


def hidden_ranges(text: str) -> List[Tuple[int, int]]:
    return [(p.start, p.end) for p in markup_pieces(text) if p.hidden]
