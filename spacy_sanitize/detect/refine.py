"""pii_refine: cleans the edges of detected date and number spans.

Generic NER models (and a recognizer trained on their output) tag whole phrases where the
identifying part is smaller: "between 2012 and 2018", "from April 1993 to March 1996",
"more than 90", "the late 19th and". Annotators of the TAB corpora mark the dates and
numbers only ("2012", "2018", "April 1993", "90"), and masking the whole phrase hides words
that identify no one ("between ... and"). ``pii_refine`` rewrites the spans of
``doc.spans[spans_key]``:

- **ranges** of DATETIME spans are split at their connectors ("to", "and", "through",
  "until", a dash), when every part holds a date (a digit, a month or weekday name, a
  number word); a QUANTITY made of years only ("1804 - 1806", "1991–2000") becomes DATETIME;
- **a day number** just before a DATETIME span that starts with a month name joins it
  ("15 November 2013" tagged "November 2013" leaves the day, which with the month and year
  still pins the date down);
- **a sovereign's title** (a DEM span "Empress", "King", "Duke") takes in the "of" and the
  capitalised words after it: "Empress of Hayti" names one person;
- **edge words** are trimmed: leading prepositions, articles, possessives and hedges of
  DATETIME and QUANTITY spans ("between", "from", "the", "his", "early", "more than",
  "about"), leading contact-field words of PERSON spans ("Call", "Tel", "Ring": a PERSON
  span of these only is dropped), and trailing connectors and punctuation of every span
  ("and", "of", ",");
- **vague dates** ("summer", "next year", "the end of the season") are dropped when
  ``drop_vague_dates`` is on: a DATETIME span with no digit, month or weekday name or number
  word pins down no date;
- **bare number words** ("one", "first", "second", "once") are dropped when
  ``drop_number_words`` is on: a QUANTITY span that is just one of these words;
- **field labels** ("DOB:", "SSN:", "MRN#", "Tel", "Account no."), which generic NER reads
  as an ORG (or a PERSON, a LOC), are trimmed from the start of a span and a span of a label
  only is dropped (with ``trim_edges``): a word of ``FIELD_LABELS`` before ":", "#", "no",
  "number" or a number, or an ORG of one short all-caps word before ":" or "#" and a
  number ("FBI: agents met" keeps its ORG); a number after a code label ("ID: 4471",
  "sort code 20-00-00", "Tel 555-1234") is a CODE, not a DATETIME, QUANTITY or PERSON; so is
  a PERSON span of one word with a digit ("EMP-1234", "jsmith42": a name has no digits), and a
  DATETIME or QUANTITY span of digits only, one word of 4 or more and no year ("69003", "7731"). A PERSON
  span that refers to a provision ("Articles 44", "Rule 47(19)": a word of
  ``LEGAL_REFERENCE_WORDS``, then a number) is MISC. A number before a plural everyday noun
  is a count, not a code ("4821 records"); a recognizer's CODE of a clock time ("9:30") and
  MISC of a weekday ("by Friday") are DATETIME; a recognizer's ORG of a listed given name and a
  listed family name, neither a common word, is a PERSON ("intern is Lucía Cabrera").

- **line breaks**: a span across a line break (generic NER reads "Bartosz Nowak\nSent:" as one
  name) is cut there into one span a line (with ``trim_edges``); a line's part that is a
  field label (right before ":") or only common words (not in the name lists: "Sent") is
  dropped, unless every part would be: a span never takes in the next field of a header.

- **plain words** (with ``drop_plain_words``): a recognizer's PERSON or MISC span (ORG, LOC and
  DEM: of one word; "High Street" names a place, "retired teacher" describes someone) made only
  of ordinary words (written in lower case at least 60% of the time in the unlabeled biographies
  and judgments: ``data/names/plain_words.txt``; everyday words a spell-checker's lists write
  only in lower case and no name list holds: ``dictionary_words.txt``; greetings and log levels;
  connectors, ``/``) that starts a sentence or a line, maybe after a log level ("Please find
  attached", "Insert the batteries", "Whisk the eggs", "INFO Reloading settings", "Kind
  regards", "DISCHARGE SUMMARY", "Dear Colleague", "Analysts warned"), or lies on a heading line
  of at most ``HEADING_WORDS`` capitalised words ("Current Medications") is dropped: generic NER,
  trained on news, biographies and judgments, reads an imperative or a heading as a name. Kept when a word is
  a listed name or a name that is also a word ("Grace called", "Will", "Baker denied"), or
  when the word is capitalised inside a sentence elsewhere in the text (a proper noun there).
  A PERSON span of titles only ("Madam", "Sir") is dropped too, and so is a span of app,
  platform and device names only wherever it stands (``PRODUCT_NAMES``: "on Zoom or Microsoft
  Teams", "works on Android"; not "Drive" or "Teams" alone). On a heading line a name that is
  also a word is plain beside a word that is no name at all ("Key Findings"), plurals of
  everyday words are everyday ("Mitigations"), and the options of a form between slashes are
  plain wherever they stand ("Single / Married / Other", "Email / Phone / Post").

- **syslog lines** (with ``drop_plain_words``): a recognizer's span in a syslog line's header
  (time stamp, host, program) and its program's words in the message (lower case: "publickey",
  "ssh2"; a port number) are dropped, and a message starts like a line ("Accepted", "Started":
  plain words); the code rules' logins and addresses stay (``detect/syslog.py``).

- **measures** (with ``drop_measures``): a QUANTITY or DATETIME span of a number (at most 4
  digits) and an everyday unit, in the span or right after it ("5 min", "120 ms", "30 s",
  "2 GB", "37 °C"); the units court annotators mask stay (injuries in cm, hours of detention,
  percentages of disability, weights) unless the text names no one (no PERSON or CODE span, no
  "he" or "she"):
  there a number with a unit of time, share or size (``PERSON_FREE_UNITS``: "repeat in 4 hours",
  "85%", "a two-year renovation", "20 cm") describes no one and is dropped too, and so does a
  time, count or score that names no calendar date and no age ("between 8 and 10", "at 7:45",
  "by Friday", "the next three months", "14 tables", "3-2"; not "14 March 1987", "in 2019",
  "Age: 52", a house number "19b" or a number beside another, "900 261").

- **occupations in capitals** (with ``trim_edges``): a recognizer's span of a role abbreviation
  (``ROLE_ABBREVIATIONS``: "GP") and everyday words ("Your GP", "Ask the GP", typed a name, a body
  or a place) becomes a DEM span of the abbreviation; in a text that names no one it is dropped
  (with ``drop_plain_words``). A span with a name in it stays whole ("GP Dr A. Okonkwo").

Spans found by rules (``pii_codes``, ``pii_script``, ``pii_titles``, ``pii_propn``) are kept as they are.
A rewritten span keeps its label and ``Span._.risk_explain`` (copied to the new offsets)
and records what changed in ``Span._.risk_explain["pii_refine"]``; the number of dropped
spans is in ``doc.user_data["pii_refine"]``. Both drop rules can be switched off; neither
ever drops a span of another type.
"""
import re
from functools import lru_cache, partial
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from ..extensions import register_extensions
from ..text import is_common_word
from ..types import DEFAULT_SPANS_KEY, PERSON_TITLES, RULE_DETECTORS  # noqa: F401 (RULE_DETECTORS: re-exported)
from .codes import NUMERIC_DATE_IN_TEXT
from .names import GREETING_WORDS, PRODUCT_NAMES, PRODUCT_ONLY_WITH, everyday_word, greeted_name, name_lists, word_names
from .syslog import log_noise, syslog_lines

# Words that open a reference to a provision of law, which NER models read as a PERSON
LEGAL_REFERENCE_WORDS = frozenset({"article", "articles", "art", "rule", "rules", "section", "sections", "§", "§§", "paragraph",
                                   "paragraphs", "chapter", "protocol", "regulation", "regulations"})
WORD_CONNECTORS = frozenset({"to", "and", "through", "thru", "until", "till", "&"})
DASHES = frozenset({"-", "–", "—", "−"})
LEADING_DATE_WORDS = frozenset(
    {
        "between", "from", "since", "during", "until", "till", "through", "in", "on", "at", "by",
        "of", "for", "the", "a", "an", "only", "about", "around", "approximately", "circa", "c.",
        "ca", "ca.", "some", "nearly", "almost", "over", "under", "more", "less", "than", "least",
        "early", "late", "mid", "his", "her", "their", "its", "my", "our", "your", "before", "after",
    }
)
LEADING_NUMBER_WORDS = frozenset(
    {
        "over", "more", "less", "fewer", "than", "about", "around", "approximately", "nearly",
        "almost", "some", "only", "just", "roughly", "up", "to", "at", "least", "most", "under",
        "a", "an", "the", "his", "her", "their", "its", "estimated",
    }
)
# Words of a contact field that generic NER reads into a PERSON span ("Call John Smith",
# "Tel" before a number): trimmed from the start of a PERSON span, and a PERSON span of
# such words only is dropped.
FIELD_WORDS = frozenset({"tel", "tlf", "phone", "ring", "call", "fax", "mob", "mobile", "cell", "contact", "email", "e-mail", "mail"})
# the marks around an address that spaCy counts no punctuation ("Rebecca Lindqvist <" once the
# address inside is a span of its own): trimmed off a span's edges like punctuation
EDGE_MARKS = frozenset({"<", ">", "|"})
# Labels of form fields and records: never an entity themselves. CODE_LABELS: the value after
# them is an identifier ("ID: 4471" is no date, "Tel 555-1234" no place).
CODE_LABELS = frozenset(
    "iban ssn ip api mrn nhs id tel tlf fax phone mob mobile cell ref nr no no. dni nie nif vat tin "
    "pin sin bic swift passport acct account policy claim code ppsn bsn cpr pesel nino "
    # accounts of a service: "user 48213" is a user id, not a date
    "user userid uid login username member customer handle".split()
)
FIELD_LABELS = CODE_LABELS | frozenset("dob d.o.b. d.o.b email e-mail url".split())
# what may follow a label: a colon, a number sign, "no", "number"
LABEL_MARKS = frozenset({":", "#", "no", "no.", "nr", "nr.", "number", "num", "n°", "nº"})
# (a subject pronoun starts the next clause: "Kemi Adeyemi - she is"; no span ends with one)
TRAILING_WORDS = frozenset({"and", "or", "to", "through", "until", "till", "of", "the", "'s", "’s", "'", "he", "she", "they"})
MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
# Month names that are also common words: a date only when capitalised.
AMBIGUOUS_MONTHS = frozenset({"may", "march", "august", "mar", "jan", "dec"})
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten first second third fourth fifth sixth "
    "seventh eighth ninth tenth once twice zero".split()
)
# Bare number words that annotators of the Wikipedia biographies left unmarked in four cases
# out of five ("his first album", "one of the founders"); other counts ("three titles") are
# marked more often than not, so they stay.
BARE_NUMBER_WORDS = frozenset({"one", "first", "second", "once"})
YEAR = re.compile(r"^(?:1\d|20)\d\d$")
# Titles held by one person at a time: with their realm they name that person.
SOVEREIGN_TITLES = frozenset(
    "emperor empress king queen prince princess duke duchess archduke archduchess grand-duke tsar tsarina czar "
    "sultan sultana shah emir khan pharaoh maharaja maharani rajah dauphin earl countess marquess marquis "
    "viscount baron baroness".split()
)
DAY = re.compile(r"^(?:[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?$")
YEAR_RANGE = re.compile(r"^(?:1\d|20)\d\d[-–—](?:(?:1\d|20)\d\d|\d\d)$")


PLAIN_LABELS = frozenset({"PERSON", "ORG", "LOC", "MISC", "DEM"})
PLAIN_CONNECTORS = frozenset({"and", "or", "of", "the", "&", "/", "-"})
# what may stand between a line start and a heading or a sentence's first word: markers,
# greetings and the level of a log line ("INFO Reloading settings")
LINE_OPENERS = frozenset({"#", "##", "###", "*", "**", "-", "•", ">", "|", "(", "[", '"', "“", "'", "dear", "hi", "hello", "hey",
                          "info", "debug", "warn", "warning", "error", "trace", "fatal", "critical", "notice"})
# markers and greetings stand a few at most before a line's first word ("> - Hi")
MAX_OPENERS = 4
# a line of at most this many words, each capitalised and ordinary, is a heading or a form
# label ("Current Medications", "Allergies and Intolerances"), not a name
HEADING_WORDS = 6


def is_product_span(span: Span) -> bool:
    """A span of product and platform names only (``PRODUCT_NAMES``: "Zoom", "Microsoft Teams",
    "Android"), of a name label; "Drive" or "Docs" alone is not one."""
    words = [t.lower_ for t in span if not t.is_space and t.lower_ not in PLAIN_CONNECTORS]
    if not words or span.label_ not in PLAIN_LABELS or not all(w in PRODUCT_NAMES for w in words):
        return False
    return not all(w in PRODUCT_ONLY_WITH for w in words)


# a number with one of these after it (written so: "Ms" is a title) measures something and
# identifies no one in everyday text: "5 min", "120 ms", "30 s", "2 GB", "37 °C". Not the units
# court annotators mask (injuries in cm, hours of detention, percentages of disability, weights)
MEASURE_UNITS = frozenset({"ms", "s", "sec", "secs", "min", "mins", "kb", "mb", "gb", "KB", "MB", "GB", "°C", "°F", "°c", "°f"})


# words between the two numbers of a range ("25 to 30 minutes", "4-6")
RANGE_WORDS = frozenset({"to", "-", "–", "or", "and"})


def _is_number(token: Token) -> bool:
    """A number as written in a measure: "200", "two", "37.5"."""
    return token.like_num or token.text.replace(".", "", 1).isdigit()


def _measure(doc: Doc, start: int, end: int, label: str, units: FrozenSet[str] = MEASURE_UNITS, cased: bool = True) -> bool:
    """A QUANTITY or DATETIME span of numbers (at most 4 digits, no year) and units of ``units``
    (in the span or right after it; ``cased``: compared as written, "Ms" is a title): "5 min",
    and with ``PERSON_FREE_UNITS`` "4 hours", "two-year", "85%". A recognizer's CODE of digits
    is one too when its unit follows ("took 2300 ms"); the code rules' spans never get here."""
    if label not in ("QUANTITY", "DATETIME", "CODE"):
        return False

    def is_unit(token: Token) -> bool:
        return (token.text if cased else token.lower_) in units

    words = [t for t in doc[start:end] if not t.is_space and t.text not in ("-", "'", "’")]
    numbers = [t for t in words if _is_number(t)]
    found = [t for t in words if is_unit(t)]
    if not numbers or len(numbers) + len(found) != len(words):
        return False
    # a year-shaped number is a year, unless one of the everyday units follows it ("warmed in 1250 ms")
    timed = units is MEASURE_UNITS and (bool(found) or (end < len(doc) and is_unit(doc[end])))
    if any((YEAR.match(t.text) and not timed) or len(t.text) > 4 for t in numbers if t.text.isdigit()):
        return False
    if found or (end < len(doc) and is_unit(doc[end])):
        return True
    # the first number of a range whose unit comes after the second ("25 to 30 minutes")
    return (end + 2 < len(doc) and doc[end].lower_ in RANGE_WORDS and _is_number(doc[end + 1])
            and is_unit(doc[end + 2]))


AGE_WORDS = frozenset({"age", "aged", "ages"})


# units of a duration, a share or a size ("4 hours", "14 days", "85%", "20 cm", "a two-year
# renovation"): in a text that names no one such a measure describes no one; court annotators
# mask them where a person is named (hours of detention, years of a sentence), so they stay there
PERSON_FREE_UNITS = frozenset(
    "second seconds minute minutes hour hours hr hrs day days week weeks month months year years % percent per cent "
    "mm cm m km g kg mg ml l litre litres liter liters".split()
)


# the units a dose is written in ("500 mg", "2.5mg", "1 g", "10 ml", "2 puffs")
DOSE_UNITS = frozenset("mg mcg ug µg g ml iu units unit mmol micrograms milligrams grams tablet tablets capsule capsules puffs drops".split())
GLUED_DOSE = re.compile(r"(?<![\d.])\d{1,5}(?:\.\d{1,3})?(?:mg|mcg|ug|µg|g|ml|iu)", re.IGNORECASE)


def _dose_end(doc: Doc, i: int) -> Optional[int]:
    """The end of a dose that starts at token ``i`` ("500 mg", "2.5 mg", "500mg"); None: none."""
    if i >= len(doc):
        return None
    if GLUED_DOSE.fullmatch(doc[i].text):
        return i + 1
    if _is_number(doc[i]) and i + 1 < len(doc) and doc[i + 1].lower_ in DOSE_UNITS:
        return i + 2
    return None


# An allergy is a health fact with what it is to: "allergic to penicillin", "a peanut allergy"
ALLERGY = frozenset({"allergy", "allergies"})
MAX_ALLERGEN_WORDS = 3


def _allergen_word(token: Token) -> bool:
    return token.is_alpha and not token.is_stop


def allergy_bounds(doc: Doc, start: int, end: int, covered: FrozenSet[int]) -> Tuple[int, int]:
    """A one-word allergy span with its allergen: "allergic" with the words after "to" (up to 3
    words that are no stop words: "allergic to penicillin", "allergic to tree nuts"), "allergy"
    with the word before it ("peanut allergy"); tokens of other spans are not taken."""
    if end - start != 1:
        return start, end
    word = doc[start].lower_
    if word == "allergic" and end + 1 < len(doc) and doc[end].lower_ == "to":
        stop = end + 1
        while stop < len(doc) and stop - end - 1 < MAX_ALLERGEN_WORDS and stop not in covered and _allergen_word(doc[stop]):
            stop += 1
        return (start, stop) if stop > end + 1 else (start, end)
    if word in ALLERGY and start > 0 and start - 1 not in covered and _allergen_word(doc[start - 1]):
        return start - 1, end
    return start, end


def medication(doc: Doc, start: int, end: int) -> Optional[Tuple[int, int]]:
    """A drug and its dose in or right after the span ``doc[start:end]``: the word before a dose
    ("Amoxicillin 500" before "mg", "Take Paracetamol 1 g", "Metformin" before "500mg") when it
    is no common word ("Take", "Add"). Gives the drug's token and the end of the dose inside
    the span (the drug's end when the dose follows the span)."""
    for k in range(start + 1, end + 1):
        dose = _dose_end(doc, k)
        drug = doc[k - 1]
        if dose is not None and drug.is_alpha and len(drug) >= 4 and not is_common_word(drug.text):
            return k - 1, dose if k < end else k
    return None


# the labels a recognizer gives a drug before its dose ("Amoxicillin 500" PERSON, "Omeprazole 20" DATETIME)
MEDICATION_LABELS = frozenset({"PERSON", "DATETIME", "QUANTITY", "MISC", "ORG", "LOC", "DEM"})
# a clock time ("9:30", "17:05"): a recognizer's CODE of one is a time of day
CLOCK_TIME = re.compile(r"(?:[01]?\d|2[0-3]):[0-5]\d")
# a number as counts, scores, decimals and times of day are written ("14", "37.5", "3-2", "7:45", "3pm")
PLAIN_NUMBER = re.compile(r"\d{1,4}(?:[.,:-]\d{1,2})?(?:am|pm)?", re.IGNORECASE)


def _calendar_date(tokens: Iterable[Token]) -> bool:
    """Whether these tokens name a day, month or year of the calendar: a month name, a year
    (not a count: "Indexed 1532 documents"), a date in digits ("03/07/1991")."""
    for t in tokens:
        if _is_month(t.text) or NUMERIC_DATE_IN_TEXT.search(t.text) or YEAR_RANGE.match(t.text):
            return True
        if YEAR.match(t.text.rstrip("s")) and not _counted(t.doc, t.i + 1):
            return True
    return False


def _counted(doc: Doc, i: int) -> bool:
    """Whether token ``i`` is a plural everyday noun a number counts ("1532 documents", "4821
    records", "14 tables"): the number is a count, not a year or an identifier."""
    if i >= len(doc):
        return False
    word = doc[i]
    return word.is_alpha and word.is_lower and len(word) > 3 and word.text.endswith("s") and everyday_word(word.text)


def _undated_time_or_count(doc: Doc, start: int, end: int, label: str) -> bool:
    """A DATETIME or QUANTITY span that names no calendar date and no age: a time of day
    ("between 8 and 10", "at 7:45"), a weekday, a duration ("the next three months"), a count,
    a range or a score ("14 tables", "steps 4 to 6", "Section 3 of 5", "3-2", "37.5"): in a text
    that names no one it describes no one.
    A date ("14 March 1987", "03/07/1991", "in 2019") or an age stays."""
    if label not in ("DATETIME", "QUANTITY"):
        return False
    if any(t.lower_ in AGE_WORDS or t.lower_ == "old" for t in doc[max(0, start - 3) : min(len(doc), end + 2)]):
        return False
    # plain numbers and words only: "19b" is a house number, "oh-seven-seven" a phone number spelt out
    if not all(t.is_space or t.is_punct or PLAIN_NUMBER.fullmatch(t.text) or (t.is_alpha and (t.is_lower or t.lower_ in WEEKDAYS))
               for t in doc[start:end]):
        return False
    # a number beside another is a piece of a longer one ("double-oh 900 261")
    if (start > 0 and doc[start - 1].is_digit) or (end < len(doc) and doc[end].is_digit):
        return False
    return not _calendar_date(doc[start:end])


# a text about "him" or "her" is about a person even where no name is written
PERSON_PRONOUNS = frozenset("he him his himself she her hers herself".split())

# Occupations written as capitals: recognizers trained on news read "GP" as a name, a body or a
# place ("Your GP will", "Ask the GP"). Matched as written (a "gp" in a handle is not one).
ROLE_ABBREVIATIONS = frozenset({"GP", "GPs"})


def _role_abbreviation(doc: Doc, start: int, end: int) -> Optional[int]:
    """The token of a role abbreviation that a span of it and everyday words only holds
    ("Your GP", "Ask the GP", "GP surgery"), or None; a span with a name in it is a name
    ("GP Dr A. Okonkwo")."""
    given, family = name_lists()
    role = None
    for token in doc[start:end]:
        if token.text in ROLE_ABBREVIATIONS:
            if role is not None:
                return None  # two of them: a list of roles, not one
            role = token.i
        elif not token.is_punct and (not token.is_alpha or token.lower_ in given or token.lower_ in family or not _everyday(token.lower_)):
            return None
    return role


def names_no_one(doc: Doc, spans: Iterable[Span]) -> bool:
    """Whether a text names no one: no PERSON span (a name has no digits: "Add 200" of "Add 200 g
    of flour" is a number; "Your GP" is an occupation) and no CODE span among ``spans``, and no
    "he" or "she"."""
    labels = {span.label_ for span in spans
              if not (span.label_ == "PERSON" and (any(t.like_num for t in span) or _role_abbreviation(span.doc, span.start, span.end) is not None))}
    return not labels & {"PERSON", "CODE"} and not any(t.lower_ in PERSON_PRONOUNS for t in doc)


def _number_after_opener(doc: Doc, start: int, end: int) -> Optional[int]:
    """Where the numbers of a span begin when it is a sentence's first word, an English verb or
    noun, glued to them ("Add 200" of "Add 200 g of flour", "Running 10" of "Running 10 mins
    late"): a recognizer read the capital as a name's or a date's; None: no such opener."""
    first = doc[start]
    if end - start < 2 or not first.is_alpha or first.like_num or not is_common_word(first.text) or not _line_or_sentence_start(doc, start):
        return None
    if all(_is_number(t) for t in doc[start + 1 : end]):
        return start + 1
    return None


HANDLE_JOINERS = ("-", "_", ".")
MAX_HANDLE_PIECES = 4


def _handle_end(doc: Doc, start: int) -> Optional[int]:
    """The end of a handle that starts with ``doc[start]`` ("anhtran-vn", "kobrien_99"): a lower-case
    word that is no English word, glued to a joiner and more letters or digits; None: no handle."""
    first = doc[start]
    if not (first.is_alpha and first.is_lower and len(first) >= 3) or first.whitespace_ or is_common_word(first.text) or everyday_word(first.text):
        return None
    end = start + 1
    while (end + 1 < len(doc) and end - start < 2 * MAX_HANDLE_PIECES and doc[end].text in HANDLE_JOINERS and not doc[end].whitespace_
           and doc[end + 1].text.isalnum() and not doc[end - 1].whitespace_):
        end += 2
    return end if end > start + 1 else None


def _digits_no_date(tokens: Span) -> bool:
    """Digits only, 4 or more in one word, and no year: a postcode, a card or account number
    a recognizer read as a date or an amount."""
    words = [t.text for t in tokens if not t.is_space]
    return (bool(words) and all(w.isdigit() for w in words) and any(len(w) >= 4 for w in words)
            and not any(YEAR.match(w) for w in words))


# "Law no. 3713", "Decree 4616", "Section 1469": the number of a law, not of a person
LAW_NUMBER_CUES = LEGAL_REFERENCE_WORDS | frozenset({"law", "laws", "act", "acts", "decree", "decrees", "order", "regulation",
                                                     "code", "no", "no.", "nos", "nos.", "n°", "nº", "page", "pages", "p.", "pp."})


def _listed_full_name(tokens: Span) -> bool:
    """Two capitalised words, a listed given name then a listed family name, neither a common
    English word: a person a recognizer typed ORG from its context ("intern is Lucía Cabrera";
    not "Morgan Stanley": both are common words)."""
    if len(tokens) != 2 or not all(t.is_alpha and t.is_title for t in tokens):
        return False
    lists = name_lists()
    given, family = tokens[0].lower_, tokens[1].lower_
    return given in lists.given and family in lists.family and not is_common_word(given) and not is_common_word(family)


def _law_number(doc: Doc, start: int) -> bool:
    return start > 0 and doc[start - 1].lower_ in LAW_NUMBER_CUES


def _is_month(text: str) -> bool:
    lower = text.lower().rstrip(".")
    if lower not in MONTHS:
        return False
    return lower not in AMBIGUOUS_MONTHS or text[:1].isupper()


def _dated(tokens: Iterable) -> bool:
    """Whether these tokens pin down a date: a digit, a month or weekday name, a number word."""
    for t in tokens:
        if any(c.isdigit() for c in t.text) or t.like_num or _is_month(t.text):
            return True
        if t.lower_ in WEEKDAYS and t.text[:1].isupper():
            return True
        if t.lower_ in NUMBER_WORDS:
            return True
    return False


def _standalone_date(tokens: List) -> bool:
    """A part that is a date on its own (a year or a month name): what a dash may separate."""
    return any(YEAR.match(t.text.rstrip("s")) or _is_month(t.text) for t in tokens)


def _legal_reference(tokens: Span) -> bool:
    """A reference to a provision ("Articles 44", "Rule 47(19)", "§ 3"): a word of
    ``LEGAL_REFERENCE_WORDS`` first, a number after it."""
    return len(tokens) > 1 and tokens[0].lower_ in LEGAL_REFERENCE_WORDS and any(c.isdigit() for t in tokens[1:] for c in t.text)


def _is_label(doc: Doc, i: int, label: str) -> bool:
    """Whether token ``i`` is a field label: a word of FIELD_LABELS before a label mark or a
    number, or (an ORG only) one short all-caps word before ":" or "#" and a number."""
    token = doc[i]
    after = doc[i + 1] if i + 1 < len(doc) else None
    if after is None:
        return False
    if token.lower_.rstrip(":#") in FIELD_LABELS and (after.lower_ in LABEL_MARKS or any(c.isdigit() for c in after.text) or token.text[-1] in ":#"):
        return True
    if label != "ORG" or not (token.is_upper and token.is_alpha and 2 <= len(token) <= 5) or after.text not in (":", "#"):
        return False
    value = doc[i + 2] if i + 2 < len(doc) else None
    return value is not None and any(c.isdigit() for c in value.text)


def _after_code_label(doc: Doc, start: int) -> bool:
    """Whether a code label (and its marks) comes right before ``start``: "ID:", "NHS No:", "Tel"."""
    i = start - 1
    while i >= 0 and (doc[i].lower_ in LABEL_MARKS or doc[i].is_punct):
        i -= 1
    return i >= 0 and doc[i].lower_.rstrip(":#") in CODE_LABELS


def _without_field_label(span: Span, name: str) -> Optional[Span]:
    """``span`` without the field label it starts with (None: it was a label only), and
    typed CODE when it is a number after a code label. The span itself when neither."""
    doc, label = span.doc, span.label_
    start = span.start
    while start < span.end and _is_label(doc, start, label):
        start += 1
        while start < span.end and (doc[start].lower_ in LABEL_MARKS or doc[start].is_punct):
            start += 1
    if start >= span.end:
        return None
    if label != "CODE" and _after_code_label(doc, start):  # digits only (below): no name, place or date
        value = doc[start : span.end].text
        if sum(c.isdigit() for c in value) >= 2 and not re.search(r"[^\d\s\-+()./#]", value):
            label = "CODE"
    if start == span.start and label == span.label_:
        return span
    new = Span(doc, start, span.end, label=label)
    new._.risk_explain = {**span._.risk_explain, name: {"action": "field label", "from": [span.start_char, span.end_char, span.label_]}}
    return new


def greets_name(span: Span) -> bool:
    """A span that opens a line with a greeting and the one name it addresses, before a comma,
    "!", ":" or the line's end ("Hi Precious,"): a name that is a word, kept (the trim drops the
    greeting) where its plain word alone would be dropped."""
    doc = span.doc
    if len(span) != 2 or span[0].lower_ not in GREETING_WORDS or not span[1].text[:1].isupper() or not greeted_name(span[1].text):
        return False
    if span.start > 0 and "\n" not in doc[span.start - 1].text + doc[span.start - 1].whitespace_:
        return False
    return span.end == len(doc) or doc[span.end].text in (",", "!", ":") or "\n" in doc[span.end - 1].whitespace_ + doc[span.end].text


def _line_or_sentence_start(doc: Doc, i: int) -> bool:
    j = i - 1
    # at most MAX_OPENERS openers: the walk is short for every word, so a run of them ("Hi Hi
    # Hi ...", each word capitalised and checked) stays linear
    while j >= 0 and i - j <= MAX_OPENERS and doc[j].lower_ in LINE_OPENERS and "\n" not in doc[j].whitespace_:
        j -= 1
    if j >= 0 and i - j > MAX_OPENERS:
        return False
    if j < 0 or doc[j + 1].idx in syslog_lines(doc).message_starts:
        return True  # a text's or a syslog message's first word (after its openers)
    token = doc[j]
    before = j - 1 if token.is_space else j
    if before >= 0 and doc[before].text == ",":
        return False  # the line after a sign-off or salutation ("Kind regards,\nHope")
    if token.text == ":" and j >= 1 and "\n" not in token.whitespace_ and (j == 1 or "\n" in doc[j - 2].whitespace_ or "\n" in doc[j - 2].text):
        return True  # a turn after a one-word speaker's label ("INTERVIEWER: Can you state...")
    return "\n" in token.text or "\n" in token.whitespace_ or token.text in (".", "!", "?", "…")


def _heading_line(span: Span) -> bool:
    """Whether ``span`` lies on a line of at most ``HEADING_WORDS`` capitalised words and
    connectors and nothing else ("Current Medications", "Background and Context"); whether
    those words are plain is ``is_plain_span``'s test."""
    doc = span.doc
    # a heading is short: the scan stops after a few tokens either way (linear on long lines)
    reach = 2 * HEADING_WORDS + 4
    start, end = span.start, span.end
    while start > 0 and not _line_break(doc[start - 1]):
        start -= 1
        if span.start - start > reach:
            return False
    while end < len(doc) and not doc[end].is_space and "\n" not in doc[end - 1].whitespace_:
        end += 1
        if end - span.end > reach:
            return False
    words = [t for t in doc[start:end] if not t.is_space and t.lower_ not in PLAIN_CONNECTORS and t.lower_ not in LINE_OPENERS]
    return 0 < len(words) <= HEADING_WORDS and all(t.is_alpha and t.text[:1].isupper() for t in words)


def _line_break(token) -> bool:
    return "\n" in token.text or "\n" in token.whitespace_


def lazy_capitalised(doc: Doc) -> Callable[[], Dict[str, List[int]]]:
    """``capitalised_inside(doc)`` on the first call, the same dict after (one pass per doc)."""
    return lru_cache(maxsize=1)(partial(capitalised_inside, doc))


def capitalised_inside(doc: Doc) -> Dict[str, List[int]]:
    """Where each lower-cased word is written capitalised inside a sentence of ``doc`` (a
    proper noun there, "Mr Grant"), by token index."""
    found: Dict[str, List[int]] = {}
    for t in doc:
        if t.is_alpha and t.text[:1].isupper() and not _line_or_sentence_start(doc, t.i):
            found.setdefault(t.lower_, []).append(t.i)
    return found


def is_plain_span(span: Span, proper: Callable[[], Dict[str, List[int]]]) -> bool:
    """A recognizer's (or pii_propn's) span that is a plain word at a sentence or line start,
    a title alone or no word at all (an emoji: module docs, ``drop_plain_words``);
    ``proper``: gives ``capitalised_inside(doc)``, computed once and only when a span needs it."""
    words = [t for t in span if not t.is_space and t.lower_ not in PLAIN_CONNECTORS]
    if not words or span.label_ not in PLAIN_LABELS:
        return False
    options = _in_option_list(span)
    if span.label_ in ("ORG", "LOC", "DEM") and len(words) > 1 and not options:
        return False  # "High Street", "General Services": common words name places and bodies; "retired teacher" describes one
    if not any(c.isalnum() for c in span.text):
        return True
    if span.label_ == "PERSON" and all(t.lower_.rstrip(".") in PERSON_TITLES for t in words):
        return True
    heading: Optional[bool] = None  # computed when needed: most spans start a sentence or are no plain words
    if not options and not _line_or_sentence_start(span.doc, span.start):
        heading = _heading_line(span)
        if not heading:
            return False
    given, family = name_lists()
    also_names = word_names()
    named = plain = False  # a name that is also a word (Grace, Will, Key); a word that is no name at all
    for token in words:
        lowered = token.lower_
        where = proper().get(lowered, ())  # token indices in order: one outside the span is first or last
        elsewhere = bool(where) and (where[0] < span.start or where[-1] >= span.end)
        if not token.is_alpha or lowered in given or lowered in family or elsewhere:
            return False
        if not _everyday(lowered) and lowered not in PRODUCT_NAMES:  # "Search Google"
            return False
        named, plain = named or lowered in also_names, plain or lowered not in also_names
    # a name that is also a word stays a name, unless a heading's or a list's other word is plain ("Key Findings")
    if not named:
        return True
    return plain and (options or (heading if heading is not None else _heading_line(span)))


# what an imperative or a question's verb takes right after it ("Bill me", "Can you", "Hope
# you're well"); not "the": "Frank the plumber called" names Frank
VERB_OBJECTS = frozenset("me you us them it your my our their this these those a an".split())
# what a plural noun's sentence goes on with ("Faith groups are invited", "Young carers can")
PLURAL_VERBS = frozenset("are were can will must should may need have do".split())
# a past tense no name's verb ("Grace walks", "-s") goes on with: after it the "-s" word is a plural
# noun ("Faith communities met on Sunday"); not "-ed" forms, adjectives too ("Grace looks tired")
PAST_VERBS = frozenset("met said had made came went took gave held began ran saw told kept found got won lost".split())


def _adjective_use(nxt: Token, third: Token) -> bool:
    """Whether the two words after a sentence's first word make it a noun's modifier or one of
    two nouns: a plural noun and its verb ("Sunny spells are", "Faith communities met"), "and" and an everyday word ("Joy
    and laughter"); a name goes on with a verb or another name ("Joy and tom", "Grace walks")."""
    if nxt.lower_ == "and":
        given, family = name_lists()
        # a noun after "and", not a pronoun or a determiner: "Faith and her brother Bill" names Faith
        return third.is_alpha and not third.is_stop and everyday_word(third.text) and third.lower_ not in given and third.lower_ not in family
    word = nxt.lower_
    plural = word.endswith("s") and (everyday_word(word[:-1]) or (word.endswith("ies") and everyday_word(word[:-3] + "y"))
                                     or (word.endswith("es") and everyday_word(word[:-2])))
    return nxt.is_alpha and len(nxt) > 3 and plural and (third.lower_ in PLURAL_VERBS or third.lower_ in PAST_VERBS)


# a modal verb that is also a name ("Will", "May") opens a question before its subject and a verb
MODAL_VERBS = frozenset({"will", "may", "can", "shall", "must", "could", "would", "should", "might"})
SUBJECT_PRONOUNS = frozenset({"i", "you", "we", "they", "he", "she", "it", "u"})


def is_verb_at_start(span: Span) -> bool:
    """A recognizer's one-word PERSON span at a sentence or line start that is a common English
    word followed right away by an object ("Mark these boxes", "Can you state your name",
    "Bill me for it"), or a modal before its subject and a verb ("Will you send it", "May I ask"):
    the sentence's verb, not a name (a name goes on with a verb: "Mark said");
    or before a plural noun and its verb or "and" and an everyday word ("Young carers can",
    "Joy and laughter"): a modifier or a noun (``_adjective_use``)."""
    if span.label_ != "PERSON" or len(span) != 1 or span.end >= len(span.doc):
        return False
    doc = span.doc
    word, nxt = span[0], doc[span.end]
    third = doc[span.end + 1] if span.end + 1 < len(doc) else None
    if not (word.is_alpha and word.is_title and word.whitespace_ and nxt.is_lower):
        return False
    if nxt.lower_ not in VERB_OBJECTS and not (third is not None and third.is_lower and _adjective_use(nxt, third)):
        return False
    if word.lower_ in MODAL_VERBS and nxt.lower_ in SUBJECT_PRONOUNS and third is not None and third.is_lower and third.is_alpha:
        return _line_or_sentence_start(doc, span.start)  # a question's modal before its subject: "Will you send it"
    if nxt.lower_ in ("you", "your") and word.lower_ in word_names():
        return False  # a name that is a word, addressed: "Grace you are a star"
    given, family = name_lists()
    return is_common_word(word.lower_) and word.lower_ not in given and word.lower_ not in family and _line_or_sentence_start(span.doc, span.start)


def _everyday(word: str) -> bool:
    """``everyday_word``, also in the plural ("Mitigations", "Intolerances")."""
    return everyday_word(word) or (len(word) > 4 and word.endswith("s") and everyday_word(word[:-1]))


def _in_option_list(span: Span) -> bool:
    """Whether ``span`` stands in a form's list of options, three or more capitalised words
    between slashes ("Single / Married / Other", "Email / Phone / Post"); whether those words
    are plain is ``is_plain_span``'s test."""
    doc = span.doc
    start, end = span.start, span.end
    if not any(t.text == "/" for t in doc[max(0, start - 1) : end + 1]):
        return False  # an option stands beside a slash, or the span holds them
    reach = 4 * HEADING_WORDS
    while start > 0 and doc[start - 1].text not in (":", "?") and not _line_break(doc[start - 1]):
        start -= 1
        if span.start - start > reach:
            return False
    while end < len(doc) and not _line_break(doc[end - 1]) and doc[end].text not in (".", ";"):
        end += 1
        if end - span.end > reach:
            return False
    items = [t for t in doc[start:end] if not t.is_space]
    words, slashes = items[0::2], items[1::2]
    return (len(words) >= 3 and len(slashes) == len(words) - 1 and all(t.text == "/" for t in slashes)
            and all(t.is_alpha and t.text[:1].isupper() for t in words))


class SpanRefiner:
    """Splits, trims and drops the spans of ``doc.spans[spans_key]`` (see the module docs)."""

    def __init__(self, name: str, spans_key: str, split_ranges: bool, trim_edges: bool, drop_vague_dates: bool, drop_number_words: bool,
                 drop_plain_words: bool = True, drop_measures: bool = True) -> None:
        self.name = name
        self.spans_key = spans_key
        self.split_ranges = split_ranges
        self.trim_edges = trim_edges
        self.drop_vague_dates = drop_vague_dates
        self.drop_number_words = drop_number_words
        self.drop_plain_words = drop_plain_words
        self.drop_measures = drop_measures

    def __call__(self, doc: Doc) -> Doc:
        if self.spans_key not in doc.spans:
            return doc
        kept: List[Span] = []
        dropped = 0
        covered = frozenset(i for span in doc.spans[self.spans_key] for i in range(span.start, span.end))
        spans: List[Span] = []
        proper = lazy_capitalised(doc)
        for span in doc.spans[self.spans_key]:
            full_detector = str(span._.risk_explain.get("detector", ""))
            detector = full_detector.split(":")[0]
            if self.drop_plain_words and log_noise(span, full_detector, RULE_DETECTORS):
                dropped += 1  # a syslog line's header or program words (detect/syslog.py)
                continue
            if detector in RULE_DETECTORS:
                kept.append(span)
            else:
                parts = self._line_parts(span) if self.trim_edges else [span]
                # a gazetteer's span keeps its words (a listed place or body of several words, an office
                # on a short line: "the President of Cyprus"), but a one-word DEM that starts a
                # sentence or a line is as plain as any ("Firefighters brought", "Executive Summary")
                gazetteer_word = span.label_ == "DEM" and len(span) == 1 and _line_or_sentence_start(doc, span.start)
                if self.drop_plain_words and (detector != "pii_gazetteer" or gazetteer_word):
                    parts = [part for part in parts if greets_name(part) or (not is_plain_span(part, proper) and not is_product_span(part) and not is_verb_at_start(part))]
                dropped += len(parts) == 0
                spans += parts
        # judged on the spans left once plain words are out ("Knead for 10 minutes": "Knead" is no
        # name), a name has no digits ("Add 200" of "Add 200 g of flour" is a number, below)
        nameless = names_no_one(doc, kept + spans)
        for span in spans:
            if self.trim_edges:
                field = _without_field_label(span, self.name)
                if field is None:
                    dropped += 1
                    continue
                span = field
            parts, action = self.refine(span, covered, nameless)
            if not parts:
                dropped += 1
                continue
            if action is None:
                kept.append(span)
                continue
            explain = dict(span._.risk_explain)
            for start, end, label in parts:
                new = Span(doc, start, end, label=label)
                new._.risk_explain = {**explain, self.name: {"action": action, "from": [span.start_char, span.end_char, span.label_]}}
                kept.append(new)
        doc.spans[self.spans_key] = sorted(kept, key=lambda s: (s.start, s.end))
        if dropped:
            doc.user_data[self.name] = {"dropped": dropped}
        return doc

    def _line_parts(self, span: Span) -> List[Span]:
        """``span`` cut at its line breaks, without the parts that are a field label or (in a
        PERSON span) only common words ("Bartosz Nowak\nSent:" -> "Bartosz Nowak"); all parts when every part
        is such (the span is never lost); the span itself when it holds no line break."""
        doc = span.doc
        breaks = [t.i for t in span if t.is_space and "\n" in t.text]
        if not breaks:
            return [span]
        bounds, parts = [span.start, *breaks, span.end], []
        for k in range(len(bounds) - 1):
            start, end = bounds[k] + (k > 0), bounds[k + 1]
            while start < end and doc[start].is_space:
                start += 1
            while end > start and doc[end - 1].is_space:
                end -= 1
            if start < end:
                parts.append((start, end))
        given, family = name_lists()

        def is_name_part(start: int, end: int) -> bool:
            if end < len(doc) and doc[end].text in (":", "："):
                return False  # a field label: "Sent:", "To:"
            words = [t for t in doc[start:end] if t.is_alpha]
            # common words are no name, but are a place or an organisation ("High Street")
            if span.label_ != "PERSON" or not words:
                return True
            return any(t.lower_ in given or t.lower_ in family or not is_common_word(t.text) for t in words)

        chosen = [p for p in parts if is_name_part(*p)] or parts
        out = []
        for start, end in chosen:
            new = Span(doc, start, end, label=span.label_)
            new._.risk_explain = {**span._.risk_explain, self.name: {"action": "line", "from": [span.start_char, span.end_char, span.label_]}}
            out.append(new)
        return out

    def refine(self, span: Span, covered: FrozenSet[int] = frozenset(), nameless: bool = False) -> Tuple[List[Tuple[int, int, str]], Optional[str]]:
        """The token ranges ``(start, end, label)`` that replace ``span`` (empty: drop it) and
        the action taken (None: keep the span unchanged); ``covered``: the tokens of the
        other spans, which the span does not grow over; ``nameless``: the text has no PERSON
        or CODE span and no "he" or "she" (its durations and measures describe no one)."""
        doc, label = span.doc, span.label_
        start, end = span.start, span.end
        if self.trim_edges and not any(c.isalnum() for c in span.text):
            return [], "drop"  # a recognizer's span over emoji or marks ("☕😩" typed CODE): nothing of anyone
        if self.trim_edges and self._day_before(span, covered):
            start -= 1
        if self.trim_edges:
            end = self._realm_after(span, covered)
        if self.trim_edges:
            start, end = self._trim(doc, start, end, label)
        if self.trim_edges and start < end:
            start, end = allergy_bounds(doc, start, end, covered)
        if start >= end:
            dropped = label in ("DATETIME", "QUANTITY") or (label == "PERSON" and self._field_words_only(span))
            return ([], "drop") if dropped else ([(span.start, span.end, label)], None)
        role = _role_abbreviation(doc, start, end) if self.trim_edges and label in PLAIN_LABELS else None
        if role is not None:
            # an occupation (DEM); in a text that names no one it describes no one ("See your GP")
            if nameless and self.drop_plain_words:
                return [], "drop"
            out = [(role, role + 1, "DEM")]
            return (out, None) if out == [(span.start, span.end, label)] else (out, "relabel" if label != "DEM" else "trim")
        dosed = medication(doc, start, end) if self.trim_edges and label in MEDICATION_LABELS else None
        if dosed is not None:
            # a drug and its dose: a health fact (MISC) and a QUANTITY; in a text that names no one,
            # a prescription's line describes no one ("Amoxicillin 500 mg three times daily")
            drug, dose_end = dosed
            if nameless and self.drop_measures:
                return [], "drop"
            out = [(drug, drug + 1, "MISC")] + ([(drug + 1, dose_end, "QUANTITY")] if dose_end > drug + 1 else [])
            if out == [(span.start, span.end, label)]:
                return out, None
            return out, "split" if len(out) > 1 else "relabel" if label != "MISC" else "trim"
        number_label = label
        if self.trim_edges and label in ("DATETIME", "QUANTITY", "PERSON"):
            numbers = _number_after_opener(doc, start, end)
            if numbers is not None:  # "Add 200" -> "200", a quantity (then a measure, below, where it is one)
                start, number_label = numbers, "QUANTITY" if label == "PERSON" else label
        parts = [(start, end)]
        if self.split_ranges and number_label in ("DATETIME", "QUANTITY"):
            parts = self._split(doc, start, end, number_label)
        out: List[Tuple[int, int, str]] = []
        for s, e in parts:
            part_label = number_label
            if number_label == "QUANTITY" and self._years_only(doc[s:e]):
                part_label = "DATETIME"
            elif number_label == "PERSON" and self.trim_edges and _legal_reference(doc[s:e]):
                part_label = "MISC"  # "Articles 44", "Rule 47(19)": a provision of law, not a person
            elif number_label == "PERSON" and self.trim_edges and e - s == 1 and any(c.isdigit() for c in doc[s].text):
                part_label = "CODE"  # "EMP-1234", "jsmith42": a name has no digits
            elif (number_label in ("DATETIME", "QUANTITY") and self.trim_edges and _digits_no_date(doc[s:e]) and not _law_number(doc, s)
                  and not _counted(doc, e)):
                part_label = "CODE"  # "69003", "7731", "3782 822463 10005": no year, day or time
            elif number_label == "CODE" and self.trim_edges and e - s == 1 and CLOCK_TIME.fullmatch(doc[s].text):
                part_label = "DATETIME"  # "at 9:30": a time of day, not a code
            elif number_label == "MISC" and self.trim_edges and e - s == 1 and doc[s].lower_ in WEEKDAYS:
                part_label = "DATETIME"  # "by Friday"
            elif number_label == "ORG" and self.trim_edges and _listed_full_name(doc[s:e]):
                part_label = "PERSON"  # a given and a family name of the lists: a person
            elif number_label in ("DEM", "MISC") and self.trim_edges and e - s == 1 and (handle_end := _handle_end(doc, s)) is not None:
                part_label, e = "CODE", handle_end  # "anhtran" of "anhtran-vn": a handle, not a group or a thing
            out.append((s, e, part_label))
        if self.drop_vague_dates:
            out = [(s, e, lab) for s, e, lab in out if lab != "DATETIME" or _dated(doc[s:e])]
        if self.drop_number_words:
            out = [(s, e, lab) for s, e, lab in out if not (lab == "QUANTITY" and e - s == 1 and doc[s].lower_ in BARE_NUMBER_WORDS)]
        if self.drop_measures:
            out = [(s, e, lab) for s, e, lab in out if not _measure(doc, s, e, lab)
                   and not (nameless and (_measure(doc, s, e, lab, PERSON_FREE_UNITS, cased=False) or _undated_time_or_count(doc, s, e, lab)))]
        if not out:
            return [], "drop"
        if out == [(span.start, span.end, label)]:
            return out, None
        # What exactly changed is in the record's "from": the span before.
        if len(parts) > 1:
            return out, "split"
        return out, "relabel" if out[0][2] != label else "extend" if out[0][0] < span.start or out[0][1] > span.end else "trim"

    @staticmethod
    def _realm_after(span: Span, covered: FrozenSet[int]) -> int:
        """The end of a sovereign's title with its realm ("Empress" + "of Hayti")."""
        doc, end = span.doc, span.end
        if span.label_ != "DEM" or span[-1].lower_ not in SOVEREIGN_TITLES or end + 1 >= len(doc) or doc[end].lower_ != "of":
            return end
        realm = end + 1
        while realm < len(doc) and realm not in covered and doc[realm].is_title and doc[realm].is_alpha and doc[realm - 1].whitespace_:
            realm += 1
        return realm if realm > end + 1 and end not in covered else end

    @staticmethod
    def _day_before(span: Span, covered: FrozenSet[int]) -> bool:
        """A day number just before a DATETIME span that starts with a month ("15" of
        "15 November 2013"), in no other span."""
        doc, i = span.doc, span.start - 1
        if span.label_ != "DATETIME" or i < 0 or i in covered or not doc[i].whitespace_:
            return False
        return bool(DAY.match(doc[i].text)) and _is_month(doc[span.start].text)

    def _trim(self, doc: Doc, start: int, end: int, label: str) -> Tuple[int, int]:
        leading = LEADING_DATE_WORDS if label == "DATETIME" else LEADING_NUMBER_WORDS if label == "QUANTITY" else FIELD_WORDS if label == "PERSON" else frozenset()
        # a greeting a recognizer read with the name it opens ("Dear Will" typed MISC) is trimmed off
        # any span: the name stands right after its greeting (the decision's ADDRESS_CUE)
        while start < end and (doc[start].lower_ in leading or doc[start].lower_ in GREETING_WORDS or doc[start].is_punct or doc[start].lower_ in DASHES
                               or doc[start].text in EDGE_MARKS):
            start += 1
        while end > start and (doc[end - 1].lower_ in TRAILING_WORDS or doc[end - 1].is_punct or doc[end - 1].text in EDGE_MARKS):
            end -= 1
        return start, end

    def _split(self, doc: Doc, start: int, end: int, label: str) -> List[Tuple[int, int]]:
        cuts = [i for i in range(start + 1, end - 1) if doc[i].lower_ in WORD_CONNECTORS or doc[i].text in DASHES]
        if not cuts:
            return [(start, end)]
        bounds = [start] + cuts + [end]
        pieces = []
        for k in range(len(bounds) - 1):
            s = bounds[k] + (1 if k > 0 else 0)
            s, e = self._trim(doc, s, bounds[k + 1], label)
            if s >= e:
                return [(start, end)]
            pieces.append((s, e))
        for k, cut in enumerate(cuts):
            left, right = list(doc[pieces[k][0] : pieces[k][1]]), list(doc[pieces[k + 1][0] : pieces[k + 1][1]])
            if doc[cut].text in DASHES:
                ok = _standalone_date(left) and _standalone_date(right)
            elif label == "QUANTITY":
                ok = self._years_only(left) and self._years_only(right)
            else:
                ok = _dated(left) and _dated(right)
            if not ok:
                return [(start, end)]
        return pieces

    @staticmethod
    def _field_words_only(span: Span) -> bool:
        words = [t for t in span if not t.is_punct]
        return bool(words) and all(t.lower_ in FIELD_WORDS for t in words)

    @staticmethod
    def _years_only(tokens: Iterable) -> bool:
        words = [t for t in tokens if not t.is_punct and t.text not in DASHES]
        return bool(words) and all(YEAR.match(t.text) or YEAR_RANGE.match(t.text) for t in words)


@Language.factory(
    "pii_refine",
    default_config={"spans_key": DEFAULT_SPANS_KEY, "split_ranges": True, "trim_edges": True, "drop_vague_dates": True, "drop_number_words": True,
                    "drop_plain_words": True, "drop_measures": True},
    requires=["doc.spans"],
    assigns=["doc.spans", "span._.risk_explain"],
)
def make_refiner(nlp: Language, name: str, spans_key: str, split_ranges: bool, trim_edges: bool, drop_vague_dates: bool, drop_number_words: bool,
                 drop_plain_words: bool, drop_measures: bool) -> SpanRefiner:
    """split_ranges (bool): split date ranges at their connectors. trim_edges (bool): trim
    leading prepositions, articles and hedges of dates and numbers and trailing connectors
    of every span. drop_vague_dates (bool): drop DATETIME spans without a digit, month,
    weekday or number word. drop_number_words (bool): drop QUANTITY spans that are just
    "one", "first", "second" or "once". drop_plain_words (bool): drop a recognizer's name,
    place, organisation or MISC span of ordinary words at a sentence or line start ("Please",
    "Insert", "DISCHARGE SUMMARY") and a PERSON span of titles only ("Madam"). drop_measures
    (bool): drop a QUANTITY or DATETIME span of a number and an everyday unit ("5 min",
    "120 ms", "2 GB")."""
    register_extensions()
    return SpanRefiner(name, spans_key, split_ranges, trim_edges, drop_vague_dates, drop_number_words, drop_plain_words, drop_measures)


def refine_summary(doc: Doc, name: str = "pii_refine") -> Dict[str, int]:
    """What ``pii_refine`` did to a document: ``{"dropped": n}`` (empty when nothing)."""
    return dict(doc.user_data.get(name, {}))
