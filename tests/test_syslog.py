"""detect/syslog.py: a syslog line's header and program words are no mention; its logins and
addresses stay with the code rules."""
import time

import pytest
import spacy
from spacy.tokens import Span

import spacy_sanitize  # noqa: F401 - registers the extensions
from spacy_sanitize.detect.refine import RULE_DETECTORS
from spacy_sanitize.detect.syslog import log_noise, syslog_lines

LINE = "Sep 12 07:30:02 web01 sshd[2290]: Accepted publickey for mkowalski from 198.51.100.7 port 40022 ssh2"


def _span(doc, text, n=0):
    start = -1
    for _ in range(n + 1):
        start = doc.text.index(text, start + 1)
    return doc.char_span(start, start + len(text), alignment_mode="expand")


@pytest.fixture
def doc():
    return spacy.blank("en")(LINE + "\nNotes: Anna Berg called about ssh2 at port 22.")


def test_headers_and_messages_are_found_once_per_doc(doc):
    lines = syslog_lines(doc)
    assert lines.headers == [(0, 34, 16, 21)] and lines.messages == [(34, len(LINE))]
    assert syslog_lines(doc) is lines  # kept while the doc lives
    assert syslog_lines(spacy.blank("en")("Accepted publickey for mkowalski")).headers == []


@pytest.mark.parametrize("text, detector, noise", [
    ("Sep 12", "pii_ner", True),                       # the time stamp
    ("web01", "pii_codes:id_token", True),             # the host, as a code rule read it
    ("web01", "pii_ner", True),
    ("sshd", "pii_ner", True),                         # the program
    ("publickey", "pii_ner", True),                    # a lower-case program word in the message
    ("ssh2", "pii_ner", True),
    ("40022", "pii_ner", True),                        # a port
    ("mkowalski", "pii_codes:sshd_user", False),       # the login: a code rule's
    ("mkowalski", "pii_ner", True),                    # a recognizer's lower-case MISC word
    ("198.51.100.7", "pii_ner", False),                # an address in digits is no program word
    ("Accepted", "pii_ner", False),                    # the message's first word: the plain word rule's
])
def test_what_of_a_syslog_line_is_noise(doc, text, detector, noise):
    span = _span(doc, text)
    span.label_ = "MISC"
    assert log_noise(span, detector, RULE_DETECTORS) is noise


def test_a_recognizers_code_or_person_in_a_message_stays(doc):
    """A recognizer that finds a code rule's login again takes over the span's detector name
    (the explanation is keyed by its characters): such a span is never the program's word."""
    for label in ("CODE", "PERSON"):
        span = _span(doc, "mkowalski")
        span.label_ = label
        assert not log_noise(span, "pii_ner", RULE_DETECTORS)


def test_outside_a_syslog_line_nothing_is_noise(doc):
    for text, n in (("ssh2", 1), ("port 22", 0), ("Anna Berg", 0)):
        assert not log_noise(_span(doc, text, n), "pii_ner", RULE_DETECTORS)


def test_a_listed_name_in_the_host_stays():
    doc = spacy.blank("en")("Mar  3 10:00:00 anna-laptop sudo[311]: session opened")
    assert not log_noise(_span(doc, "anna-laptop"), "pii_ner", RULE_DETECTORS)
    assert log_noise(_span(doc, "Mar  3"), "pii_ner", RULE_DETECTORS)  # "Mar" is no name here


def test_a_log_of_many_lines_is_read_in_linear_time():
    nlp = spacy.blank("en")
    nlp.max_length = 3_000_000
    doc = nlp("\n".join(LINE.replace("2290", str(i)) for i in range(20000)))
    start = time.perf_counter()
    spans = [Span(doc, t.i, t.i + 1) for t in doc if t.text == "ssh2"]
    assert all(log_noise(s, "pii_ner", RULE_DETECTORS) for s in spans) and len(spans) == 20000
    assert time.perf_counter() - start < 5


def test_default_keeps_a_syslog_line_readable_and_its_login_masked(default_nlp):
    out = default_nlp(LINE + "\nMar  3 10:20:41 ws14 su[902]: pam_unix(su:session): session closed for user anna")._.sanitized
    assert out.startswith("Sep 12 07:30:02 web01 sshd[2290]: Accepted publickey for [CODE] from [CODE] port 40022 ssh2")
    assert "anna" not in out and "mkowalski" not in out and "198.51.100.7" not in out
