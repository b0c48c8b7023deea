"""Syslog lines ("Sep 12 03:14:07 web01 sshd[2231]: Failed password for invalid user admin
from 203.0.113.54 port 51112 ssh2"): where their headers and messages lie, for pii_refine and
pii_propn.

A recognizer trained on prose reads a syslog line's parts as names, dates and codes: the time
stamp ("Sep 12"), the host ("web01"), the program ("CRON[4410]"), the program's verb that opens
the message ("Accepted", "Started", "Failed") and its lower-case words ("publickey", "ssh2",
"port 51112"). None of them is about a person. What is, the login and the address, is found by
the code rules (pii_codes: ``sshd_user``, ``ipv4``, ``log_user``), which this never drops.

- a header (time stamp, host, program) holds no mention: a recognizer's span inside one is
  dropped, and so is the code rules' ``id_token`` span that is exactly the host ("web01"); a
  span whose host part holds a word of the shipped name lists stays ("anna-laptop" names its owner);
- a message starts like a line: ``refine._line_or_sentence_start`` reads it so, and the plain
  word rule drops a recognizer's everyday verb there ("Accepted", "Started Daily");
- in a message, a recognizer's span written in lower case with letters ("publickey", "ssh2"),
  not typed CODE or PERSON and with no word of the name lists, and a port number after "port",
  are the program's words.
"""
import re
from bisect import bisect_right
from typing import FrozenSet, List, NamedTuple, Optional, Tuple

from spacy.tokens import Doc, Span

from ..doc_reads import doc_text, per_doc
from .names import name_lists

MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
# a BSD syslog header (RFC 3164 as rsyslog and journald write it): time stamp, host, program
# with its process id, a colon
SYSLOG_LINE = re.compile(
    rf"^(?:{MONTHS})[ \t]{{1,2}}\d{{1,2}}[ \t]\d\d:\d\d:\d\d[ \t]+(?P<host>[\w.-]{{1,64}})[ \t]+[\w./-]{{1,64}}(?:\[\d{{1,10}}\])?:[ \t]*",
    re.M,
)
PORT = re.compile(r"(?:port[ \t]+)?\d{1,5}")
PORT_BEFORE = re.compile(r"\bport[ \t]+$")
NAME_PARTS = re.compile(r"[^\W\d_]{2,}")


class SyslogLines(NamedTuple):
    text: str
    headers: List[Tuple[int, int, int, int]]  # (start, end, host start, host end) of each header, in order
    messages: List[Tuple[int, int]]  # (start, end) of each message: the header's end to the line's
    message_starts: FrozenSet[int]


NO_LINES = SyslogLines("", [], [], frozenset())


def _read_lines(doc: Doc) -> SyslogLines:
    text = doc_text(doc)
    headers, messages = [], []
    for match in SYSLOG_LINE.finditer(text):
        end = text.find("\n", match.end())
        headers.append((match.start(), match.end(), *match.span("host")))
        messages.append((match.end(), len(text) if end < 0 else end))
    return SyslogLines(text, headers, messages, frozenset(start for start, _end in messages)) if headers else NO_LINES


def syslog_lines(doc: Doc) -> SyslogLines:
    """The syslog lines of ``doc`` (one pass over its text, kept while the doc lives)."""
    return per_doc(doc, "syslog_lines", _read_lines)


def _within(ranges: List[Tuple[int, ...]], start: int, end: int) -> Optional[Tuple[int, ...]]:
    """The range of ``ranges`` (sorted, apart) that holds ``[start, end)``, by bisection."""
    k = bisect_right(ranges, (start, float("inf"))) - 1
    return ranges[k] if k >= 0 and ranges[k][0] <= start and end <= ranges[k][1] else None


def _names_someone(text: str) -> bool:
    given, family = name_lists()
    return any(w.lower() in given or w.lower() in family for w in NAME_PARTS.findall(text))


def log_noise(span: Span, detector: str, rule_detectors: Tuple[str, ...]) -> bool:
    """Whether ``span`` (found by ``detector``, its ``risk_explain["detector"]``) is a part of a
    syslog line that names no one (module docs); never a code rule's span but the host's."""
    lines = syslog_lines(span.doc)
    if not lines.headers:
        return False
    start, end, text = span.start_char, span.end_char, span.text
    family = detector.split(":", 1)[0]
    header = _within(lines.headers, start, end)
    if header is not None:  # a listed name in the host names its owner ("anna-laptop")
        if _names_someone(lines.text[max(start, header[2]) : min(end, header[3])]):
            return False
        return family not in rule_detectors or (detector == "pii_codes:id_token" and (start, end) == header[2:])
    if family in rule_detectors or _within(lines.messages, start, end) is None:
        return False
    if PORT.fullmatch(text):
        return text.startswith("port") or PORT_BEFORE.search(lines.text, max(0, start - 8), start) is not None
    # a recognizer's CODE or PERSON may be a code rule's login found twice (the span keeps the
    # recognizer's name then: "session opened for user kfischer"): never the program's words
    if span.label_ in ("CODE", "PERSON"):
        return False
    return any(c.isalpha() for c in text) and not any(c.isupper() for c in text) and not _names_someone(text)
