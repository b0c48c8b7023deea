"""pii_coref: a simple, transparent coreference for ``Span._.entity_id``.

Mentions with the same normalized text share an id; a PERSON mention that is a part
(e.g. the surname) of an earlier full PERSON name joins that name's entity, and so does
an ORG acronym of an earlier ORG; a given name in a "SURNAME, GIVEN" field takes in the
surname ("Patient: SMITH, JOHN"), and a PERSON span cut after a given name of the shipped
lists or inside a hyphenated name grows over it ("Erica May-Lynn Jarder" tagged "Lynn
Jarder"). Ids are ``e1, e2, ...`` per document, in order of
first mention. Spans that already carry an id keep it.

With ``propagate`` (on by default) it also adds the mentions a detector missed: every
other whole-word occurrence (on token boundaries) of a detected mention's exact text, and
of the parts of a detected PERSON name (a surname alone, say, also one of two letters at
the end of the name: "Estácio de Sá" ... "Sá"), joins the entity (a
name also in other casing and plural, as the masker propagates it); the
occurrences come from the masking plan's propagation engine (``text.occurrences``). One clear mention left in
the text is enough to re-identify a person. So are the logins an organisation makes from a
detected name ("Hiroshi Takeda": "htakeda", "takedah", "h.takeda"; ``names.login_forms``, no
English word): their occurrences join the entity as CODE spans.

With ``lower_case_names`` (on by default) a person name typed in lower case that repeats
no detected one ("john smith called, and later jane doe arrived.") is added first: a
given name of the shipped name lists followed by a family name or another rare word, and in
a lower-case text (chat, SMS) the names ``names.chat_names`` finds ("j. abiodun said",
"txt from raj", "aoife mcgrath"), and the speakers of a chat log in any casing ("[14:03] anna:
running late", ``names.chat_speakers``) (``detect/names.py``).
"""
import re
from typing import Dict, FrozenSet, Optional

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.language import Language
from spacy.tokens import Doc, Span

from ..doc_reads import doc_text, token_texts
from ..extensions import register_extensions
from ..text import COMMON_WORDS, QUOTES, NamePartRule, is_common_word, mention_key, occurrences
from ..spans import add_pii_spans
from ..types import PERSON_TITLES
from .names import DEFAULT_KINSHIP, chat_given_names, chat_names, chat_speakers, login_forms, lower_case_names, may_be_given_name, name_handles, name_lists, word_names

# Linking compares folded words: any word but a title or a single character.
LINK_PARTS = NamePartRule(min_chars=2, skip=PERSON_TITLES, letters=False)
# the labels of names a text may spell out letter by letter (a recognizer types an unknown name MISC,
# ORG or LOC: "the surname's Vaipulu, V-A-I-P-U-L-U")
SPELLED_LABELS = frozenset({"PERSON", "MISC", "ORG", "LOC"})

# an item of a bulleted or numbered list and the head before its colon ("- Will Rose: great progress")
LIST_HEAD = re.compile(r"(?m)^[ \t]{0,8}(?:[-*•‣◦]|\d{1,3}[.)])[ \t]{1,4}([^\n:]{1,60}?)[ \t]{0,4}:")
HEAD_WORD = re.compile(r"[A-Z][a-z'’-]+|[A-Z]\.?")
# the types a recognizer gives a name it does not read as one (a head that is a day, a place
# or a language is no evidence)
NAME_EVIDENCE = frozenset({"PERSON", "MISC", "ORG"})


def _surname_first(doc: Doc, spans_key: str) -> None:
    """A PERSON span written "SURNAME, GIVEN" in a field ("Patient: SMITH, JOHN") often
    comes out as the given name only: the word and comma before it join the span when the
    word has the same casing (all caps or title case), is not a stop word or title (surnames
are often common words: "SMITH"), and opens a
    line or follows a colon (a form field, not a list of places: "Paris, John said"). A
    surname found alone there takes in the listed given name after its comma."""
    spans = list(doc.spans.get(spans_key, []))
    changed = False
    for k, span in enumerate(spans):
        i = span.start
        if span.label_ != "PERSON" or i < 2 or doc[i - 1].text != "," or doc[i - 2].whitespace_:
            continue
        word, first = doc[i - 2], doc[i]
        same_case = (word.is_upper and first.is_upper) or (word.is_title and first.is_title)
        before = doc[i - 3] if i >= 3 else None
        opens = before is None or before.text == ":" or "\n" in before.text
        if not (same_case and opens and word.is_alpha and len(word) > 1 and word.lower_ not in COMMON_WORDS):
            continue
        if any(other.start <= i - 2 < other.end for other in spans):
            continue
        wider = Span(doc, i - 2, span.end, label=span.label_)
        wider._.entity_id = span._.entity_id
        wider._.risk_explain = {**span._.risk_explain, "surname_first": True}
        spans[k] = wider
        changed = True
    for k, span in enumerate(spans):
        # the other way round: the surname found, the given name after the comma missed
        # ("Name: Solheim, Ingrid" tagged "Solheim"); the given name must be a listed one
        i, j = span.start, span.end
        if span.label_ != "PERSON" or len(span) != 1 or j + 1 >= len(doc) or doc[j].text != "," or span[0].whitespace_:
            continue
        word, given = span[0], doc[j + 1]
        same_case = (word.is_upper and given.is_upper) or (word.is_title and given.is_title)
        before = doc[i - 1] if i >= 1 else None
        opens = before is None or before.text == ":" or "\n" in before.text
        if not (same_case and opens and given.is_alpha and given.lower_ in name_lists().given):
            continue
        if any(other.start <= j + 1 < other.end for other in spans):
            continue
        wider = Span(doc, i, j + 2, label=span.label_)
        wider._.entity_id = span._.entity_id
        wider._.risk_explain = {**span._.risk_explain, "surname_first": True}
        spans[k] = wider
        changed = True
    if changed:
        doc.spans[spans_key] = spans


PARTICLES = frozenset({"de", "del", "della", "der", "den", "van", "von", "da", "di", "du", "dos", "la", "le", "bin", "ibn", "al"})


def _grow_left(doc: Doc, start: int, covered: set, given: FrozenSet[str]) -> int:
    while True:
        if start >= 2 and doc[start - 1].text == "-" and not doc[start - 1].whitespace_ and not doc[start - 2].whitespace_:
            word, size = doc[start - 2], 2
        elif start >= 1 and doc[start - 1].whitespace_ == " ":
            word, size = doc[start - 1], 1
            if word.lower_ not in given:
                return start
        else:
            return start
        if not (word.is_alpha and word.is_title) or any(i in covered for i in range(start - size, start)):
            return start
        start -= size


def _grow_after_nickname(doc: Doc, span: Span, covered: set) -> int:
    """The end of a name whose quoted nickname the span cuts ('Ernesto "El Pato' of
    'Ernesto "El Pato" de Lucas Hopkins'): the closing quote and the name words after it."""
    end = span.end
    if span.text.count('"') % 2 == 0 or end >= len(doc) or doc[end].text != '"' or end in covered:
        return end
    end += 1
    while end < len(doc) and end not in covered and doc[end - 1].whitespace_:
        word = doc[end]
        if word.is_alpha and word.is_title:
            end += 1
        elif word.lower_ in PARTICLES and end + 1 < len(doc) and doc[end + 1].is_title and word.whitespace_:
            end += 1
        else:
            break
    return end


def _extend_names(doc: Doc, spans_key: str) -> None:
    """A PERSON span that starts after the first part of a hyphenated name ("Erica May-Lynn
    Jarder" tagged "Lynn Jarder") or after a given name of the shipped lists ("Erica"), or
    that ends inside a quoted nickname, takes in the rest of the name: a recognizer often
    cuts a name with a rare or double given name or a nickname."""
    spans = list(doc.spans.get(spans_key, []))
    covered = {i for s in spans for i in range(s.start, s.end)}
    given = name_lists().given
    changed = False
    for k, span in enumerate(spans):
        if span.label_ != "PERSON":
            continue
        start, end = _grow_left(doc, span.start, covered, given), _grow_after_nickname(doc, span, covered)
        if (start, end) != (span.start, span.end):
            wider = Span(doc, start, end, label=span.label_)
            wider._.entity_id = span._.entity_id
            wider._.risk_explain = {**span._.risk_explain, "name_grown": True}
            spans[k] = wider
            covered.update(range(start, end))
            changed = True
    if changed:
        doc.spans[spans_key] = spans


def _nickname_in_parens(doc: Doc, spans_key: str, detector: str) -> None:
    """One word in parentheses right after a detected full name, no common word: the person's
    nickname ("welcome Dr Shashank Iyengar (shanky) to the team"), a PERSON span that
    propagation then finds again ("shanky's desk")."""
    if "(" not in doc_text(doc):
        return
    group = doc.spans.get(spans_key, [])
    covered = {i for s in group for i in range(s.start, s.end)}
    texts = token_texts(doc)[0]
    found = []
    for span in group:
        k = span.end
        if span.label_ != "PERSON" or len(span) < 2 or k + 2 >= len(doc) or texts[k] != "(" or texts[k + 2] != ")" or k + 1 in covered:
            continue
        word = texts[k + 1]
        if len(word) >= 3 and word.isalpha() and (word.islower() or word.istitle()) and not is_common_word(word.lower()):
            nickname = Span(doc, k + 1, k + 2, label="PERSON")
            nickname._.risk_explain["detector"] = f"{detector}:nickname"
            found.append(nickname)
    if found:
        add_pii_spans(doc, found, spans_key)


def _surname_after_nickname(doc: Doc, spans_key: str, detector: str) -> None:
    """A capitalised word, one or two capitalised words in quotes (a nickname) and capitalised
    words after them that no detector found, the first word or the nickname a detected span or
    a listed given name ("Markus 'Mark' Young"): those words are the surname, a PERSON span (a
    surname that is a word, "Young", is left by the recognizer)."""
    group = doc.spans.get(spans_key, [])
    covered = {i for s in group for i in range(s.start, s.end)}
    given = name_lists().given
    found = []
    texts = token_texts(doc)[0]
    for k in (k for k in range(1, len(doc) - 3) if texts[k] in QUOTES):
        if not doc[k - 1].is_title or not doc[k - 1].whitespace_:
            continue
        close = next((j for j in (k + 2, k + 3) if j < len(doc) and doc[j].text == doc[k].text), None)
        if close is None or not all(t.is_title for t in doc[k + 1 : close]) or not doc[close].whitespace_:
            continue
        stop = close + 1
        while stop < len(doc) and stop not in covered and stop - close <= 3 and doc[stop].is_alpha and doc[stop].is_title:
            stop += 1
            if not doc[stop - 1].whitespace_:
                break
        if stop > close + 1 and (k - 1 in covered or k + 1 in covered or doc[k - 1].lower_ in given):
            surname = Span(doc, close + 1, stop, label="PERSON")
            surname._.risk_explain["detector"] = f"{detector}:nickname"
            found.append(surname)
            covered.update(range(close + 1, stop))
    if found:
        add_pii_spans(doc, found, spans_key)


# what joins two people ("Dawn and Gary Pettigrew", "Grace & Bola")
COORDINATORS = frozenset({"and", "&"})
# a person's relative named after "and her ...", "& his ..." (pii_titles' kinship words)
KINSHIP_WORDS = frozenset(w.lower() for w in DEFAULT_KINSHIP)


def _coordinated_names(doc: Doc, spans_key: str, detector: str) -> None:
    """A capitalised word that no detector found joined by "and" or "&" to a PERSON span, when
    it may be a given name (a listed name, a name that is a word, or a word the corpora write
    capitalised as often as not): "Congratulations to Dawn and Gary Pettigrew" names Dawn too;
    "Law and Mr Smith" does not (an everyday word), nor does a word before another capital."""
    group = doc.spans.get(spans_key, [])
    persons = [s for s in group if s.label_ == "PERSON"]
    if not persons:
        return
    covered = {i for s in group for i in range(s.start, s.end)}
    lists = name_lists()
    found = []

    def age_after(i: int) -> int:
        """The token after a name's age in parentheses starting at ``i`` ("(7)"), or ``i``."""
        if i + 2 < len(doc) and doc[i].text == "(" and doc[i + 1].is_digit and doc[i + 2].text == ")":
            return i + 3
        return i

    for span in persons:
        before = span.start - 1  # the joint before the span; a sibling's age in parentheses may stand before it
        # "Precious & her bf Jerome": the person's partner or relative, named after "and her ..."
        related = (before >= 2 and doc[before].lower_ in KINSHIP_WORDS and doc[before - 1].lower_ in ("her", "his", "their")
                   and doc[before - 2].lower_ in COORDINATORS)
        if related:
            before -= 2
        left = before - 1
        if left >= 2 and age_after(left - 2) == left + 1:
            left -= 3  # "Blessing (7) and Marvellous (5)": the sibling's age before the joint
        right_joint = age_after(span.end)
        for k, joint in ((left, before), (right_joint + 1, right_joint)):
            if not (0 <= k < len(doc) and 0 <= joint < len(doc)) or k in covered or doc[joint].lower_ not in COORDINATORS:
                continue
            word = doc[k]
            lower = word.lower_
            if not (word.is_alpha and word.is_title and len(word) >= 3 and lower not in PERSON_TITLES):
                continue
            if k + 1 < len(doc) and k + 1 != joint and doc[k + 1].is_title and k > joint:
                continue  # "Marks and Spencer" reads on: one name of several words, the recognizer's
            aged = age_after(k + 1) > k + 1  # a capitalised word with an age beside a person: a sibling ("Blessing (7)")
            if aged or (related and k < span.start) or may_be_given_name(lower, lists):
                name = Span(doc, k, k + 1, label="PERSON")
                name._.risk_explain["detector"] = f"{detector}:coordinated"
                found.append(name)
                covered.add(k)
    if found:
        add_pii_spans(doc, found, spans_key)


def _ages_after_names(doc: Doc, spans_key: str, detector: str) -> None:
    """A number up to 120 in parentheses right after a PERSON span ("Mrs Edna Fairbairn (94)"):
    the person's age, a QUANTITY span where no detector found it."""
    group = doc.spans.get(spans_key, [])
    covered = {i for s in group for i in range(s.start, s.end)}
    found = []
    for span in group:
        k = span.end
        if (span.label_ == "PERSON" and k + 2 < len(doc) and doc[k].text == "(" and doc[k + 2].text == ")"
                and doc[k + 1].text.isdigit() and 0 < int(doc[k + 1].text) <= 120 and k + 1 not in covered):
            age = Span(doc, k + 1, k + 2, label="QUANTITY")
            age._.risk_explain["detector"] = f"{detector}:age"
            found.append(age)
            covered.add(k + 1)
    if found:
        add_pii_spans(doc, found, spans_key)


class Coref:
    def __init__(
        self, name: str, spans_key: str, person_parts: bool, propagate: bool, min_part_length: int,
        stop_words: Optional[FrozenSet[str]] = None, lower_case: bool = True, list_heads: bool = True,
    ) -> None:
        self.name = name
        self.spans_key = spans_key
        self.person_parts = person_parts
        self.propagate = propagate
        self.min_part_length = min_part_length
        # A name token propagates on its own when it is title case and neither a stop
        # word (the pipeline's language) nor a title.
        stops = frozenset(STOP_WORDS if stop_words is None else stop_words)
        self.part_rule = NamePartRule(min_part_length, stops | PERSON_TITLES, title_case=True)
        # A final name part of two letters ("Sá", "Wu") propagates too when it is title case
        # and not a stop word or title ("Jr", "St"): surnames this short are common.
        self.short_last = NamePartRule(2, stops | PERSON_TITLES, title_case=True)
        self.lower_case = lower_case
        self.list_heads = list_heads

    def __call__(self, doc: Doc) -> Doc:
        if self.lower_case:
            self._lower_case_names(doc)
        if self.list_heads:
            self._list_heads(doc)
        if self.person_parts:
            _surname_first(doc, self.spans_key)
            _extend_names(doc, self.spans_key)
            _surname_after_nickname(doc, self.spans_key, self.name)
            _nickname_in_parens(doc, self.spans_key, self.name)
            _coordinated_names(doc, self.spans_key, self.name)
            _ages_after_names(doc, self.spans_key, self.name)
        ids: Dict[str, str] = {}
        person_parts: Dict[str, str] = {}
        acronyms: Dict[str, str] = {}
        counter = 0
        for span in sorted(doc.spans.get(self.spans_key, []), key=lambda s: (s.start, -len(s))):
            # the label and normalized text read once (a Span's text and label_ are built per read)
            label, normalized = span.label_, mention_key(span.text)
            parts = [w for w in normalized.split() if LINK_PARTS.accepts(w)] if label == "PERSON" else []
            key = f"{label}:{normalized}"
            entity_id = span._.entity_id or ids.get(key)
            if entity_id is None and label == "PERSON" and self.person_parts:
                if parts and all(p in person_parts for p in parts) and len({person_parts[p] for p in parts}) == 1:
                    entity_id = person_parts[parts[0]]
            if entity_id is None and label == "ORG":
                entity_id = acronyms.get(normalized)
            if entity_id is None:
                counter += 1
                entity_id = f"e{counter}"
            span._.entity_id = entity_id
            ids.setdefault(key, entity_id)
            for part in parts:
                person_parts.setdefault(part, entity_id)
            if label == "ORG":
                words = [w for w in normalized.split() if w not in ("of", "the", "and", "for")]
                if len(words) > 1:
                    acronyms.setdefault("".join(w[0] for w in words), entity_id)
        if self.propagate:
            self._propagate(doc)
        return doc

    def _lower_case_names(self, doc: Doc) -> None:
        # over a shorter detected span the name wins ("sophie" typed DEM of "sophie larsen");
        # a login written from a name ("fatima.zahra") is a CODE
        detected = frozenset(i for s in doc.spans.get(self.spans_key, []) for i in range(s.start, s.end))
        found = [Span(doc, start, end, label="PERSON") for start, end in lower_case_names(doc) + chat_names(doc, detected=detected)]
        # a chat log's speakers ("[14:03] anna: late"), in any casing
        speakers = chat_speakers(doc_text(doc))
        for start, end in speakers:
            span = doc.char_span(start, end, label="PERSON", alignment_mode="expand")
            if span is not None:
                found.append(span)
        if speakers:  # a chat log: its lower-case given names are people too
            found += [Span(doc, i, i + 1, label="PERSON") for i in chat_given_names(doc)]
        found += [Span(doc, i, i + 1, label="CODE") for i in name_handles(doc)]
        for span in found:
            span._.risk_explain["detector"] = f"{self.name}:lower_case"
        if found:
            # the layout's evidence types the words: a recognizer's span of the same words and
            # another type gives way ("Raj:" read as MISC), a code stays a code
            same = {(s.start, s.end) for s in found}
            group = doc.spans.get(self.spans_key, [])
            kept = [s for s in group if (s.start, s.end) not in same or s.label_ == "CODE"]
            if len(kept) < len(group):
                doc.spans[self.spans_key] = kept
            add_pii_spans(doc, found, self.spans_key)

    def _list_heads(self, doc: Doc) -> None:
        """The heads of a list's items are people when most of their siblings' heads are
        detected names: in "- lily m: reading well / - Zainab H: glasses / - Will Rose: great
        progress" the last head is two ordinary words no recognizer takes for a name. A head
        becomes a PERSON span when it is one to three capitalised words (not a month, weekday or
        title alone) and at least two of the other heads, and at least half of them, are wholly
        covered by spans typed PERSON, MISC or ORG."""
        text = doc_text(doc)
        if ":" not in text:
            return
        heads = []
        for match in LIST_HEAD.finditer(text):
            span = doc.char_span(*match.span(1), alignment_mode="expand")
            if span is not None:
                heads.append(span)
        if len(heads) < 3:
            return
        covering = [s for s in doc.spans.get(self.spans_key, []) if s.label_ in NAME_EVIDENCE]
        covered = {i for s in covering for i in range(s.start, s.end)}
        named = [all(i in covered for i in range(h.start, h.end)) for h in heads]
        found = []
        for k, head in enumerate(heads):
            if named[k] or any(i in covered for i in range(head.start, head.end)):
                continue
            others = named[:k] + named[k + 1 :]
            if sum(others) < 2 or 2 * sum(others) < len(others):
                continue
            words = head.text.split()
            if not 1 <= len(words) <= 3 or not all(HEAD_WORD.fullmatch(w) for w in words) or not words[0][1:2].islower():
                continue
            if all(w.lower().rstrip(".") in COMMON_WORDS and w.lower() not in word_names() for w in words):
                continue  # "Notes", "March", "Mr": no name word in the head
            found.append(Span(doc, head.start, head.end, label="PERSON"))
        for span in found:
            span._.risk_explain["detector"] = f"{self.name}:list_head"
        if found:
            add_pii_spans(doc, found, self.spans_key)

    def _propagate(self, doc: Doc) -> None:
        spans = list(doc.spans.get(self.spans_key, []))
        if not spans:
            doc.spans[self.spans_key] = []
            return
        targets = {}
        spelled_pieces = set()
        families = {}  # a detected person's family name (lower case) -> the person's entity
        for span in spans:
            pieces = [span.text]
            if span.label_ == "PERSON" and self.person_parts and len(span) > 1:
                pieces += [t.text for t in span if self.part_rule.accepts(t.text)]
                last = span[-1].text
                if len(last) == 2 and last.isalpha() and self.short_last.accepts(last):
                    pieces.append(last)
            if span.label_ in SPELLED_LABELS and self.person_parts:
                # a name spelled out letter by letter ("Kirkpatrick, K-I-R-K-P-A-T-R-I-C-K", "my name's
                # Ngaire, that's N G A I R E": a recognizer may have typed the name MISC)
                words = [t.text for t in span if len(t.text) >= 3 and t.is_alpha and self.part_rule.accepts(t.text)]
                spelled_out = ["-".join(w) for w in words] + [" ".join(w.upper()) for w in words if len(w) >= 4]
                spelled_pieces.update(spelled_out)
                pieces += spelled_out
            for piece in pieces:
                targets.setdefault(piece, (span.label_, span._.entity_id))
            if span.label_ == "PERSON" and self.person_parts:
                # the person's logins ("Hiroshi Takeda (htakeda)", "grant it to mlopez"): codes
                parts = [t.text for t in span if t.is_alpha and self.part_rule.accepts(t.text)]
                if len(parts) >= 2:
                    for login in login_forms(parts[0], parts[-1]):
                        targets.setdefault(login, ("CODE", span._.entity_id))
                    if len(parts[-1]) >= 4:
                        families.setdefault(parts[-1].lower(), span._.entity_id)
        # a person's name that a recognizer read as a date or a number elsewhere is the person
        # ("just me n Sunday ... Sunday's bringing the wors"): retyped, one entity
        retyped = [s for s in spans if s.label_ in ("DATETIME", "QUANTITY") and targets.get(s.text, ("",))[0] == "PERSON"]
        if retyped:
            group = set(retyped)
            person = []
            for span in retyped:
                new_span = Span(doc, span.start, span.end, label="PERSON")
                new_span._.risk_explain = {**span._.risk_explain, "detector": f"{self.name}:propagated"}
                new_span._.entity_id = targets[span.text][1]
                person.append(new_span)
            spans = sorted([s for s in spans if s not in group] + person, key=lambda s: (s.start, s.end))
            doc.spans[self.spans_key] = spans
        found = []
        spelled = []
        # a repeat of a name in other casing is the name too ("INGRID SOLHEIM", "kodnani")
        names = [piece for piece, (label, _) in targets.items() if label == "PERSON" or piece in spelled_pieces]
        # the masker's engine, every occurrence (nested ones too), kept where they are tokens
        for start, end, piece in occurrences(doc_text(doc), targets, overlapping=True, any_case=names):
            label, entity_id = targets[piece]
            span = doc.char_span(start, end, label=label)
            if span is None and piece[1:2] == "-":  # a spelled name's last letter and a period read as an initial ("K.")
                span = doc.char_span(start, end, label=label, alignment_mode="expand")
            if span is not None:
                found.append((span, entity_id))
                if piece in spelled_pieces:
                    spelled.append(span)
        if spelled:
            # a spelled name is whole: a recognizer's span over some of its letters ("N G A") gives way
            inside = {i for s in spelled for i in range(s.start, s.end)}
            kept = [s for s in spans if not all(i in inside for i in range(s.start, s.end))]
            if len(kept) < len(spans):
                spans = kept
                doc.spans[self.spans_key] = spans
        if families:
            # an initial and the family name, whatever the initial: a relative's or a namesake's
            # login beside the person ("Oğuzhan Demir ... on_call_backup: kdemir")
            for i, word in enumerate(token_texts(doc)[0]):
                if len(word) >= 5 and word.islower() and word[1:] in families and word.isalpha() and not is_common_word(word):
                    found.append((Span(doc, i, i + 1, label="CODE"), families[word[1:]]))
        covered = {i for s in spans for i in range(s.start, s.end)}
        new = [(s, e) for s, e in found if not any(i in covered for i in range(s.start, s.end))]
        if not new:
            return
        for span, entity_id in new:
            span._.entity_id = entity_id
            span._.risk_explain["detector"] = f"{self.name}:propagated"
        add_pii_spans(doc, [s for s, _ in new], self.spans_key)


@Language.factory(
    "pii_coref",
    default_config={"spans_key": "pii", "person_parts": True, "propagate": True, "min_part_length": 3, "lower_case_names": True, "list_heads": True},
    requires=["doc.spans"],
    assigns=["doc.spans", "span._.entity_id", "span._.risk_explain"],
)
def make_coref(
    nlp: Language, name: str, spans_key: str, person_parts: bool, propagate: bool, min_part_length: int, lower_case_names: bool,
    list_heads: bool,
) -> Coref:
    """person_parts (bool): link a surname or given name to an earlier full name.
    propagate (bool): add undetected occurrences of detected mentions and name parts.
    min_part_length (int): shortest name part that is propagated on its own (a final part
    of two letters also is). lower_case_names (bool): add lower-case person names
    ("john smith") found with the shipped name lists. list_heads (bool): the heads of a list's
    items are people when most other heads are detected names ("- Will Rose: great progress")."""
    register_extensions()
    return Coref(name, spans_key, person_parts, propagate, min_part_length, frozenset(nlp.Defaults.stop_words), lower_case_names,
                 list_heads)
