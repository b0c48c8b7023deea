"""The protection rules of the deciders (``risk_vote``, ``risk_threshold``): what keeps a
detected span masked whatever the risk indicators say. One code path for both deciders (and for
``benchmarks/quality/tab_eval.py``, which replays them on cached detections).

An indicator trained on court decisions learns "ORG and LOC spans stay in clear" and "dates of
procedure stay in clear"; it then also un-masks a surname the recognizer typed ORG, a date of
birth or a postcode. The rules name what no score may un-mask:

- ``labels`` (setting ``protect``): spans of these PII labels (names and codes by default);
- ``names`` (``protect_names``): a span of any label with a word of two or more letters in the
  shipped given or family name lists (``detect/names.py``: names that are not also common
  words), e.g. "Yilmaz" typed LOC, "HOLLOWAY" typed ORG; a listed word that is also a word of a
  country or region name (pycountry: "London", "Ireland", "York") or of a nationality,
  religion, ethnic group or language of the shipped gazetteer ("Irish", "English",
  "Christian") is no evidence of a
  person (by grouped CV on TAB, keeping them cost 1.7 points of precision: docs/court.md); so
  are a letter-spaced word (OCR of a form's block letters: "G R Z E G O R Z") and a capitalised
  word right after a greeting or signature ("thanks Rose", "sent by Hamish", "hi Will");
- ``detectors`` (``protect_detectors``): spans a rule of these detectors found, whatever the
  label they gave (prefixes of ``Span._.risk_explain["detector"]``: ``pii_titles`` for names
  after titles, in fields, captions and company names; ``pii_script`` for names in other scripts);
- ``validated`` (``protect_validated``): identifiers whose format or check digits were verified
  (``spans.is_validated``: postcodes typed LOC, phone numbers, IBANs, national ids);
- ``code_shaped`` (``protect_code_shaped``): a span of any label but DATETIME with 4 digits in
  a row or a word of letters and digits ("69003", "19b", "ST-40917"): a house, staff or card
  number a recognizer typed QUANTITY, LOC or ORG is still someone's number, and so is a house
  number with its street ("42 Ash Grove": ``STREET_ADDRESS``); a DATETIME span
  too when a block of capitals that names no month sits between its numbers ("24/HR/0931": a
  case reference, not a date);
- ``numeric_dates`` (``protect_numeric_dates``): a DATETIME span written in digits with a day, a
  month and a year ("1990-06-11", "11/06/1990", "11.06.90"): records, forms and logs write dates
  so, judgments and biographies in words; none of the 6,665 full dates the court annotators
  marked is written so (the learned decision has never seen one: fail closed), and all three of
  the biographies' are masked;
- ``special`` (``protect_special``): in a text that names a person (a PERSON span) or holds a
  code (a CODE span: a card or patient number names its holder), a span that is or holds a
  term of the shipped gazetteer's special categories of personal data (GDPR art. 9: health
  conditions and states, sexual orientation, religion, ethnic group; ``SPECIAL_PROPERTIES``;
  "epilepsy", "14 weeks pregnant", "allergic to penicillin"): some annotator masks 42 of the 44
  occurrences of such terms in the 127 court cases (one is unannotated) and 19 of the 22 in
  the 70 biographies; a text that names no one and holds no code keeps them ("Asthma is common
  in children");
- ``ages`` (``protect_ages``): in a text that names a person or holds a code, a span that holds
  an age read as one ("age 52", "aged 17", "Age: 47", "11 years old", "23 years of age",
  "a 75 year old woman", "29-year-old"), or a number up to 120 between commas right after a
  word of the text's names ("Tomasz Wojcik, 67,"): all annotators mask the ages of the 70 biographies and
  127 court cases that are a person's (4 of 4; two statutory pension ages, "at age 60", are left),
  and a learned decision that never saw a record's "Age: 52" must not keep it;
- ``date_cues`` (``protect_date_cues``): a DATETIME span with one of these cues among the
  ``date_window`` words before it ("born", "date of birth", "DOB", "d.", "né le"): a date of
  birth or death, a quasi-identifier a court keeps as much as a medical record does.

Reasons never quote the span's text (explanations reach review reports).
"""
import gzip
import json
import re
from functools import lru_cache
from typing import FrozenSet, Iterable, Optional, Sequence, Tuple

import pycountry

from ..detect.codes import NUMERIC_DATE_IN_TEXT
from ..detect.extend import HOUSE_NUMBER, STREET_WORDS
from ..detect.gazetteer.loading import shipped_gazetteer_path
from ..detect.gazetteer.filters import cached_term_key
from ..detect.gazetteer.normalize import term_key
from ..detect.names import name_lists, word_names
from ..detect.refine import MONTHS
from ..detect.text_view import LETTER_SPACED
from ..text import is_common_word
from ..errors import Errors

WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
# The words of the context before a date, with a trailing period kept ("d.", "b.", "d.o.b.").
CONTEXT_WORD = re.compile(r"[^\W_]+(?:\.[^\W_]+)*\.?", re.UNICODE)
MIN_NAME_CHARS = 2
# How far back (characters) the context of a date is read: more than date_window words need.
CONTEXT_CHARS = 200
# The end of a sentence before a date: its cue is in the date's sentence ("He was born in 1965.
# On 3 May 2001 he..." does not make the second date one of birth). A period after one letter
# ("d. 03/01/2020", an initial) ends no sentence.
SENTENCE_END = re.compile(r"(?<![^\W_])(?:[^\W_]{2,}|\d)[.!?][\"')\]]*\s+(?=[A-ZÀ-ÖØ-Þ])")
DATE_LABEL = "DATETIME"
# Gazetteer properties whose terms are groups, not people: nationality, religion, ethnic group,
# language (not occupations: "Smith" is a surname before it is a trade).
GROUP_PROPERTIES = ("P1549", "P140", "P172", "P1412")
# Gazetteer properties of the special categories of personal data (GDPR art. 9): medical
# condition, sexual orientation, religion, ethnic group.
SPECIAL_PROPERTIES = ("P1050", "P91", "P140", "P172")


@lru_cache(maxsize=1)
def _gazetteer_records() -> Tuple[Tuple[str, str], ...]:
    """(property, term) of every record of the shipped gazetteer, read once for both term sets below."""
    with gzip.open(shipped_gazetteer_path(), "rt", encoding="utf8") as stream:
        records = (json.loads(line) for line in stream if line.strip())
        return tuple((str(r.get("property", "")), r["term"]) for r in records)


def _gazetteer_terms(properties: Sequence[str]) -> list:
    return [term for prop, term in _gazetteer_records() if prop in properties]


@lru_cache(maxsize=1)
def special_terms() -> FrozenSet[str]:
    """The gazetteer keys (``term_key``: case, diacritics and plurals folded) of the shipped
    gazetteer's special-category terms ("breast cancer", "epilepsy", "lesbian", "Catholic")."""
    return frozenset(term_key(t) for t in _gazetteer_terms(SPECIAL_PROPERTIES))


@lru_cache(maxsize=1)
def _longest_special_term() -> int:
    """The words of the longest special-category term ("chronic obstructive pulmonary disease")."""
    return max((len(WORD.findall(term)) for term in special_terms()), default=1)


@lru_cache(maxsize=65536)  # the same span texts recur in a document and across documents
def special_term_in(span_text: str) -> bool:
    """Whether ``span_text`` is or holds a special-category term of the shipped gazetteer as
    whole words ("epilepsy", "14 weeks pregnant", "allergic to penicillin"); a span of more than
    twice the longest term's words (a title, a body's name) only as a whole."""
    terms, longest = special_terms(), _longest_special_term()
    if cached_term_key(span_text) in terms:
        return True
    words = WORD.findall(span_text)
    if len(words) > 2 * longest:
        return False
    # A window's key is its words' keys joined (no word's normalized pieces cross a space):
    # each word is keyed once, not once per window holding it.
    keys = [cached_term_key(word) for word in words]
    return any(" ".join(filter(None, keys[i:j])) in terms
               for i in range(len(keys)) for j in range(i + 1, min(len(keys), i + longest) + 1))


# an age, with its digits in group "n", "m" or "k": "age 52", "aged 17", "Age: 47", "11 years old",
# "23 years of age", "75 year old", "29-year-old"; after "is", "was", "turned" before the end of a
# clause or "at", "when" ("He is 44.", "who was 15 at the time", "was 52 when dismissed")
AGE = re.compile(r"(?i)\b(?:age|aged)[ \t]*[:=]?[ \t]*(?P<n>\d{1,3})\b(?![.,:/]\d)"
                 r"|\b(?P<m>\d{1,3})(?:[ \t]*-[ \t]*|[ \t]+)(?:years?|yrs?)(?:[ \t]*-[ \t]*|[ \t]+)(?:old\b|of[ \t]+age\b)"
                 r"|\b(?:is|was|turned|turns)[ \t]+(?:(?:then|now|only|just|nearly|almost|still)[ \t]+)?(?P<k>\d{1,3})"
                 r"(?=[ \t]*(?:[,;]|\.(?!\d)|$)|[ \t]+(?:at|when|on|and)\b)")
AGE_REACH = 16  # characters read on each side of a span for its age's words


# an age in apposition after a name ("Tomasz Wojcik, 67, NHS no", "Derek Hollins, 54, of Leeds",
# "Edna Fairbairn (94)"): the word before the comma or parenthesis, and what may follow the number
APPOSITION_BEFORE = re.compile(r"([^\W\d_][\w'’-]{0,39})[ \t]{0,3}[,(][ \t]{0,3}$")
APPOSITION_AFTER = re.compile(r"[ \t]{0,3}(?:[,;.)]|of\b|from\b)")


# a capitalised word and a number up to 120 in parentheses, one span ("Justice (9)" typed DEM in
# "children Serenity (12), Justice (9) and Royal (3)"): a person and their age
NAMED_AGE = re.compile(r"[ \t]{0,2}[A-Z][^\W\d_]{1,30}[ \t]{0,2}\((\d{1,3})\)[ \t]{0,2}")


def named_age(span_text: str) -> bool:
    """Whether the span is a capitalised word with an age in parentheses after it."""
    match = NAMED_AGE.fullmatch(span_text)
    return bool(match) and 0 < int(match.group(1)) <= 120


def apposition_age(text: str, start: int, end: int, name_words: FrozenSet[str]) -> bool:
    """Whether the span ``text[start:end]`` is a number up to 120 between commas or in
    parentheses right after a word of the text's names (``name_words``)."""
    number = text[start:end].strip()
    if not number.isdigit() or not 0 < int(number) <= 120:
        return False
    before = APPOSITION_BEFORE.search(text, max(0, start - 40), start)
    return bool(before and before.group(1).casefold() in name_words and APPOSITION_AFTER.match(text, end))


def age_in(text: str, start: int, end: int) -> bool:
    """Whether the span ``text[start:end]`` holds the number of an age (its words may lie
    around the span: "age [52]", "[11] years old")."""
    for match in AGE.finditer(text, max(0, start - AGE_REACH), min(len(text), end + AGE_REACH)):
        group = next(g for g in ("n", "m", "k") if match.group(g) is not None)
        if start <= match.start(group) and match.end(group) <= end:
            return True
    return False


@lru_cache(maxsize=1)
def place_words() -> FrozenSet[str]:
    """The casefolded words of country and region names (pycountry) and of the shipped
    gazetteer's nationalities, religions, ethnic groups and languages: listed names that name
    no person."""
    names = [c.name for c in pycountry.countries]
    names += [getattr(c, key) for c in pycountry.countries for key in ("official_name", "common_name") if hasattr(c, key)]
    names += [s.name for s in pycountry.subdivisions]
    names += _gazetteer_terms(GROUP_PROPERTIES)
    return frozenset(w.casefold() for name in names for w in WORD.findall(name))


@lru_cache(maxsize=65536)  # the same span texts recur in a document and across documents
def _name_word(span_text: str) -> bool:
    """``ProtectRules.name_word``: the shipped name lists are the same for every rule set."""
    lists = name_lists()
    words = (w.casefold() for w in WORD.findall(span_text))
    return any(len(w) >= MIN_NAME_CHARS and (w in lists.given or w in lists.family) and w not in place_words() for w in words)


def _check_strings(name: str, value: Optional[Sequence[str]]) -> Tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(Errors.E530.format(name=name, value=value))
    return tuple(v.strip() for v in value)


def _cue_pattern(cue: str) -> "re.Pattern[str]":
    """A cue as whole words, case-insensitive, any whitespace between its words ("date of
    birth", "d.o.b", "né le"); a cue ending in a period ends there ("d.": not "dr")."""
    parts = [re.escape(part) for part in cue.casefold().split()]
    end = "" if not cue[-1].isalnum() else r"(?![^\W_])"
    return re.compile(r"(?<![^\W_])" + r"\s+".join(parts) + end)


# what an identifier looks like whatever its label: 4 digits in a row ("69003", "2110") or a word
# of letters and digits ("19b", "ST-40917", "72.8777E"); amounts keep their separators ("15,000"),
# years and ordinals are left out
CODE_WORD = re.compile(r"(?<![\w-])[\w-]+")
FOUR_DIGITS = re.compile(r"\d{4}")
# no identifiers: "2nd", "1990s", "9am", a year ("the Theft Act 1968"), "16-day", "48-b"
ORDINAL = re.compile(r"(?<!\d)(?:\d+(?:st|nd|rd|th|s|am|pm)|(?:1[5-9]|20)\d\d|\d+-[a-z]+)", re.IGNORECASE)


# numbers and blocks of capitals joined by slashes or hyphens (a digit and a block of capitals among them)
DATE_LIKE_CODE = re.compile(r"[A-Z0-9]{1,12}(?:[/-][A-Z0-9]{1,12}){1,5}")
CAPITALS = re.compile(r"[A-Z]{2,}")
# in a span typed DATETIME, what no date is: 9 digits in a row ("10000000146", a national id) or,
# the whole span, a house number with its letter ("19b"; not "5d", "3pm", "Rule 54A § 3")
NO_DATE = re.compile(r"(?<!\d)\d{9}|^[ \t]{0,3}\d{1,4}[a-ce-gA-CE-G][ \t]{0,3}$")


# the words of a letter-spaced run, spaced wider between them ("G R Z E G O R Z  L E S N I A K")
SPACED_WORDS = re.compile(r"[ \t]{2,6}")
SPACED_WORD = re.compile(r"(?:[^\W\d_] )+[^\W\d_]")


# a word spelled out letter by letter with hyphens ("G-R-A-I-N-N-E": a name read out on the phone)
SPELLED = re.compile(r"(?:[^\W\d_]-){3,20}[^\W\d_]")


def letter_spaced(text: str) -> bool:
    """Whether ``text`` is block letters spaced out (OCR of a form's field), one word of 4 letters
    or more or several of them."""
    words = SPACED_WORDS.split(text.strip())
    return (all(SPACED_WORD.fullmatch(w) for w in words)
            and any(LETTER_SPACED.fullmatch(w) for w in words))


def date_like_code(text: str) -> bool:
    """Whether a span typed DATETIME is a reference shaped like a date ("24/HR/0931") or no
    date at all ("10000000146", "19b"), not "12-MAR-2019", "20200101" or "mid-1960s"."""
    if NO_DATE.search(text):
        return True
    return (bool(DATE_LIKE_CODE.fullmatch(text)) and any(c.isdigit() for c in text)
            and any(w.lower() not in MONTHS for w in CAPITALS.findall(text)))


# a house number and a street ("42 Ash Grove", "3/14 Harbour View Road"): pii_extend's addresses
STREET_ADDRESS = re.compile(rf"(?<![\w/]){HOUSE_NUMBER.pattern}[ \t]{{1,3}}(?:[^\W\d_][\w'’-]{{0,30}}[ \t]{{1,3}}){{1,3}}"
                            rf"(?i:{'|'.join(sorted(STREET_WORDS))})\.?(?!\w)")


def code_shaped(text: str) -> bool:
    """Whether ``text`` holds 4 digits in a row, a word of letters and digits or a street address."""
    if STREET_ADDRESS.search(text):
        return True
    for word in CODE_WORD.findall(text):
        if ORDINAL.fullmatch(word):
            continue
        digits = sum(c.isdigit() for c in word)
        if digits >= 4 and FOUR_DIGITS.search(word) or digits and any(c.isalpha() for c in word):
            return True
    return False


SOVEREIGN = re.compile(r"(?:King|Queen|Emperor|Empress|Prince|Princess|Duke|Duchess|Tsar|Tsarina|Sultan|Shah)[ \t]+of[ \t]+[A-Z]")
# "Name (24 April 1919 – 3 May 2000)", "(8 May 1952)": a life date right after the parenthesis
# (bounded runs of spaces: linear when searched too)
LIFE_DATE_BEFORE = re.compile(r"\([ \t]{0,4}$")
LIFE_DATE_AFTER = re.compile(r"[ \t]{0,4}[–—-]|[ \t]{0,4}\)")
DASH_AFTER = re.compile(r"[ \t]{0,4}[–—-]")
# the date of death of a lifespan: "(1520 – February 20, 1567)"
LIFE_DEATH_BEFORE = re.compile(r"\([^()\n]{1,40}[–—-][ \t]{0,4}$")
# a name's word, then a quote opening right before the span: 'Scott "Buster'
# Words that address or sign a message, or a form's name field: the capitalised word right after
# them is the person addressed, writing, named or to be reached ("thanks Rose", "sent by Hamish", "hi Will", "ring Hamish",
# "dont give it to Declan", "don't mention it to Chase",
# "Last name  KING"), whatever a recognizer typed it. Not "from" or "love": places and titles
# follow them in biographies and judgments.
ADDRESS_CUE = re.compile(r"(?<![^\W\d_])(?:thanks|thank[ \t]+you|thx|cheers|hi|hey|hiya|hello|dear|ask|tell|ping|cc|"
                         r"ring|call|phone|text|txt|contact|message|msg|e-?mail|(?:give|gave|send|sent|show|pass|forward|hand|mention|explain|read)[ \t]+(?:it|them|this|that)[ \t]+to|"
                         r"(?:sent|signed|written|posted|reported)[ \t]+by|signed|"
                         r"(?:first|last|given|family|middle|full)[ \t]?names?|surname|forenames?)[,:]?[ \t]{1,3}$", re.IGNORECASE)
# a person's initials written for the name, as courts write a child's or a party's ("K.L.M.",
# "A.B.-C.", "P.O'D."); not the abbreviations written so (NOT_INITIALS)
INITIALS = re.compile(r"[A-Z]\.(?:[ \t]?[A-Z]\.){1,3}(?:-[A-Z]\.)?|[A-Z]\.[A-Z]['’][A-Z][a-z]?\.")
NOT_INITIALS = frozenset("U.S. U.K. U.N. E.U. U.S.A. U.S.S.R. D.C. A.D. B.C. A.M. P.M. N.B. P.S. I.E. E.G. U.A.E. N.Z. S.A. B.V. "
                         "N.V. P.C. Q.C. K.C. M.P. R.I.P. A.S.A.P. B.A. M.A. B.SC. M.D. PH.D. L.L.B. E.C. E.E.C.".split())


# a capitalised word and what a person has ("Princess's shift", "Jo's number"): an owner, a person
OWNER = re.compile(r"([A-Z][^\W\d_]{1,30})['’]s[ \t]+(?:shift|number|address|house|home|flat|phone|mobile|car|birthday|party|"
                   r"wedding|funeral|mum|dad|mother|father|husband|wife|son|daughter|boyfriend|girlfriend|partner|job)\b")
# a home address after its cue, up to a number at its end ("live at 55 Ninth Ave, Alexandra, 2090"):
# the postal code of four digits a recognizer reads as a year
HOME_BEFORE = re.compile(r"(?i)\b(?:live[sd]?|living|resid(?:e[sd]?|ing)|address(?:[ \t]is)?:?)[ \t]+(?:at[ \t]+)?[^.!?\n]{3,80},[ \t]*$")
HOME_CODE = re.compile(r"\d{4}")


def owner_of(text: str, start: int, end: int) -> bool:
    """Whether the span ``text[start:end]`` is a capitalised word before "'s" and what a person has."""
    match = OWNER.match(text, start, end + 24)
    return match is not None and match.end(1) == end


def mid_sentence_word_name(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is one capitalised word of ``names.word_names`` ("Hope",
    "Will") inside a sentence: a recognizer found it, and only a name is written so there."""
    word = text[start:end]
    if not word.isalpha() or not word[:1].isupper() or word.isupper() or word.lower() not in word_names():
        return False
    before = text[max(0, start - 3) : start].rstrip(" \t")
    return bool(before) and before[-1] not in ".!?:\n\"“'‘(-–—*#>|"


def initials(span_text: str) -> bool:
    """Whether the span is a person's initials (``INITIALS``), not an abbreviation written so."""
    stripped = span_text.strip()
    return bool(INITIALS.fullmatch(stripped)) and stripped.upper() not in NOT_INITIALS


# a span that is a numeric date and nothing else, whatever its label ("5/5/1991" typed MISC)
NUMERIC_DATE_ONLY = re.compile(r"[ \t]{0,3}\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}[ \t.,]{0,3}")
NICKNAME_BEFORE = re.compile(r"([^\W\d_]{2,30})[ \t]{1,3}[\"“'‘]$")
YEARS = re.compile(r"(?<!\d)(?:1\d|20)\d\d(?!\d)")


def life_date(date: str, text: str, end: int) -> bool:
    """A date of birth or death as a biography writes it after a name: a day or month with a
    year ("24 April 1919", "October 21, 1908"), or a year followed by a dash ("1858 –"); not
    "(Article 29 § 1)" typed DATETIME, nor the year of a work ("Blade (1998)")."""
    words = WORD.findall(date.casefold())
    years = YEARS.findall(date)
    if not years:
        return False
    if any(w in MONTHS for w in words):
        return True
    return date.strip() == years[0] and bool(DASH_AFTER.match(text, end))


def person_words(texts: Iterable[str]) -> FrozenSet[str]:
    """The lower-cased capitalised words of 2 letters or more, no common word, of ``texts``
    (a document's PERSON spans: "Tom Moseley" gives "moseley", "Estácio de Sá" "estácio", "sá")."""
    return frozenset(w.casefold() for t in texts for w in WORD.findall(t) if len(w) >= 2 and w[0].isupper() and not is_common_word(w))


class ProtectRules:
    """The protection rules of one decider; ``reason`` says which one keeps a span masked."""

    def __init__(
        self,
        labels: Iterable[str],
        names: bool = False,
        detectors: Optional[Sequence[str]] = None,
        validated: bool = False,
        date_cues: Optional[Sequence[str]] = None,
        date_window: int = 5,
        code_shaped: bool = False,
        numeric_dates: bool = False,
        special: bool = False,
        ages: bool = False,
    ) -> None:
        for name, value in (("protect_names", names), ("protect_validated", validated), ("protect_code_shaped", code_shaped),
                            ("protect_numeric_dates", numeric_dates), ("protect_special", special), ("protect_ages", ages)):
            if not isinstance(value, bool):
                raise ValueError(Errors.E531.format(name=name, value=value))
        if isinstance(date_window, bool) or not isinstance(date_window, int) or date_window < 1:
            raise ValueError(Errors.E532.format(value=date_window))
        self.labels = sorted(set(labels))
        self.names = names
        self.detectors = _check_strings("protect_detectors", detectors)
        self.validated = validated
        self.date_cues = _check_strings("protect_date_cues", date_cues)
        self.date_window = date_window
        self.code_shaped = code_shaped
        self.numeric_dates = numeric_dates
        self.special = special
        self.ages = ages
        self._cues = [(cue, _cue_pattern(cue)) for cue in self.date_cues]
        if names:
            name_lists()  # read when the rules are built, not at the first document

    @property
    def reads_names(self) -> bool:
        """Whether a rule reads the text's name words (``names``; ``ages``: an age after a name)."""
        return self.names or self.ages

    @property
    def reads_identity(self) -> bool:
        """Whether a rule asks if the text names a person or holds a code (``special``, ``ages``)."""
        return self.special or self.ages

    def name_word(self, span_text: str) -> bool:
        """Whether a word of ``span_text`` is a given or family name of the shipped lists and
        no word of a place or nationality (``place_words``, read at the first listed word: the
        country and region names take a one-line file's start-up 0.05 s)."""
        return _name_word(span_text)

    @staticmethod
    def nickname(text: str, start: int, name_words: FrozenSet[str]) -> bool:
        """Whether the span at ``start`` opens a quote right after a word of the text's names
        ('Byron Scott "Buster" Brannon')."""
        before = NICKNAME_BEFORE.search(text, max(0, start - 40), start)
        return before is not None and before.group(1).casefold() in name_words

    def date_cue(self, text: str, start: int) -> Optional[str]:
        """The first configured cue among the ``date_window`` words before ``text[start]`` in
        its sentence."""
        context = text[max(0, start - CONTEXT_CHARS) : start]
        ends = [m.end() for m in SENTENCE_END.finditer(context)]
        words = CONTEXT_WORD.findall(context[ends[-1] if ends else 0 :])[-self.date_window :]
        joined = " ".join(words).casefold()
        return next((cue for cue, pattern in self._cues if pattern.search(joined)), None)

    def reason(self, label: str, text: str, start: int, end: int, detector: str = "", validated: bool = False,
               name_words: FrozenSet[str] = frozenset(), identified: bool = False) -> Optional[str]:
        """Why the span ``text[start:end]`` of ``label`` stays masked whatever the risk (None: no
        rule applies). ``detector``: its ``risk_explain["detector"]``; ``validated``: whether its
        format or check digits were verified; ``name_words``: ``person_words`` of the text's
        PERSON spans (``protect_names``: a span typed otherwise with one of them is a name);
        ``identified``: whether the text holds a PERSON or CODE span (``protect_special``,
        ``protect_ages``: a name, a card or patient number identifies the person a health fact
        or an age is about)."""
        if label in self.labels:
            return (
                f"label {label} is protected (protect, or types_always_mask in older configs): "
                "masked whatever the votes; protect = [] opts out"
            )
        if self.validated and validated:
            return "a validated identifier (format or check digits verified) is protected (protect_validated): masked whatever the votes"
        if self.detectors and detector:
            found = next((d for d in self.detectors if detector == d or detector.startswith(d + ":")), None)
            if found:
                return f"found by a rule of {found}, which is protected (protect_detectors): masked whatever the votes"
        if self.code_shaped and (code_shaped(text[start:end]) if label != DATE_LABEL else date_like_code(text[start:end])):
            return ("shaped like an identifier (a run of 4 digits, or letters and digits in one word: a house or staff "
                    "number, a postcode) is protected (protect_code_shaped): masked whatever the votes")
        if self.numeric_dates and (label == DATE_LABEL or NUMERIC_DATE_ONLY.fullmatch(text[start:end])) and NUMERIC_DATE_IN_TEXT.search(text[start:end]):
            return "a date in digits with its day, month and year is protected (protect_numeric_dates): masked whatever the votes"
        if self.special and identified and special_term_in(text[start:end]):
            return ("a health condition, sexual orientation, religion or ethnic group (special categories of personal data) "
                    "in a text that names a person or holds a code (protect_special): masked whatever the votes")
        if self.ages and identified and (age_in(text, start, end) or apposition_age(text, start, end, name_words) or named_age(text[start:end])):
            return "an age in a text that names a person or holds a code (protect_ages): masked whatever the votes"
        if self.names and self.name_word(text[start:end]):
            return "a word of the span is in the shipped name lists (protect_names): masked whatever the votes"
        if self.names and label not in (DATE_LABEL, "QUANTITY") and owner_of(text, start, end):
            return ("a capitalised word with what a person has after it ('cover Princess's shift', 'Jo's number'; "
                    "protect_names): masked whatever the votes")
        if self.names and HOME_CODE.fullmatch(text, start, end) and HOME_BEFORE.search(text, max(0, start - 100), start):
            return "a number ending a home address after 'live at' ('55 Ninth Ave, Alexandra, 2090'; protect_names): masked whatever the votes"
        if self.names and label not in (DATE_LABEL, "QUANTITY") and mid_sentence_word_name(text, start, end):
            return ("a name that is also a word, capitalised inside a sentence ('and Hope's off next week'; protect_names): "
                    "masked whatever the votes")
        if self.names and name_words and label not in (DATE_LABEL, "QUANTITY") and person_words([text[start:end]]) & name_words:
            return "a word of the span is part of a name elsewhere in the text (protect_names): masked whatever the votes"
        if self.names and name_words and self.nickname(text, start, name_words):
            return "a nickname in quotes right after a name of the text (protect_names): masked whatever the votes"
        if self.names and (letter_spaced(text[start:end]) or SPELLED.fullmatch(text[start:end].strip())):
            return ("letter-spaced block letters or a word spelled out (OCR of a form's field: 'G R Z E G O R Z', a "
                    "voicemail's 'G-R-A-I-N-N-E'; protect_names): masked whatever the votes")
        if (self.names and label not in (DATE_LABEL, "QUANTITY") and text[start:start + 1].isupper()
                and ADDRESS_CUE.search(text, max(0, start - 24), start)):
            return ("a capitalised word right after a greeting, a signature or a name field's label ('thanks', 'sent by', "
                    "'Last name'; protect_names): masked whatever the votes")
        if self.names and label not in (DATE_LABEL, "QUANTITY") and initials(text[start:end]):
            return ("a person's initials standing for the name ('K.L.M.', \"P.O'D.\", 'A.B.-C.', as courts write a child's or "
                    "a party's name; protect_names): masked whatever the votes")
        if self.names and SOVEREIGN.match(text, start, end):
            return "a sovereign's title with its realm names one person ('Empress of Haiti'; protect_names): masked whatever the votes"
        if self._cues and label == DATE_LABEL:
            cue = self.date_cue(text, start)
            if cue:
                return f"a date after the cue {cue!r} (protect_date_cues): masked whatever the votes"
            born = LIFE_DATE_BEFORE.search(text, max(0, start - 12), start) and life_date(text[start:end], text, end)
            died = LIFE_DEATH_BEFORE.search(text, max(0, start - 45), start) and YEARS.search(text, start, end)
            if (born or died) and LIFE_DATE_AFTER.match(text, end):
                return "a date of birth or death in parentheses, '(date –' or '(date)' (protect_date_cues): masked whatever the votes"
        return None

