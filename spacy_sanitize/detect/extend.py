"""pii_extend: widens detected spans to the phrase court annotators mark as one mention.

The recognizers find the core of a phrase; the annotators of the Text Anonymization Benchmark
(TAB) mark the phrase, and an entity counts as protected only when every token of its
mentions is masked. What stays outside the span is often identifying too: the Swedish name
of a court after its translation, the euro amount after a kroner one. ``pii_extend`` runs
after the detector (``court`` places it before the risk indicators) and extends the spans of
``doc.spans[spans_key]``:

- **glosses**: a parenthesis right after a span, on its line and at most ``max_gloss_tokens``
  long, joins it: "Svea Court of Appeal (hovrätten)", "4,393 pounds sterling (GBP)", "DKK
  573,311 (approximately EUR 77,000)", "Royal Ulster Constabulary (“RUC”)". Not a defined
  term ("(“the applicant”)", "(hereafter ...)"), a reference ("(see ...)", "(no. ...)",
  "(§ 3)") or a parenthesis holding a name, code or date found by the detector; not after a
  PERSON, CODE or DATETIME span;
- **hedges**: the hedge before a QUANTITY or DATETIME ("approximately GBP 268,000", "early
  December 1996", "prior to August 1997"), which ``pii_refine`` trims for biographies;
- **counted nouns**: the plural noun (with one modifier) after a QUANTITY number or amount
  ("22,000 ecstasy tablets", "four children", "pounds sterling", "4,309 square metres");
- **nationals**: "national(s)" or "citizen(s)" after a nationality or country ("British
  national", "United Kingdom national"), typed DEM;
- **addresses**: a span whose last word is a street's ("Road", "Grove", "Mews", "Walk"...) after
  a house number ("42 Ash Grove", "8a", "3/14"; a free token or a span of that number only) is
  one place (LOC) with that number and a flat or unit number before it ("Flat 9, 23 Marlowe
  Walk"): recognizers type the parts apart (a QUANTITY, a PERSON) and a decision could keep one;
- **institutions**: "HMP", "HMYOI" or "HM Prison" before a name, and "prison", "police",
  "district", "garrison"... after a place, typed ORG ("HMP Verne", "Parkhurst prison",
  "Merseyside police"); "HMP" with a capitalised name no detector found is a new ORG span.

A span never grows over a token of another span, except spans lying wholly inside a gloss
(a gloss's own amount or acronym), which it absorbs. The new span keeps the label (unless a
rule retypes it), the entity id, the confidence and ``Span._.risk_explain`` of the span it
grew from, and records what it took in ``Span._.risk_explain["pii_extend"]``. Every rule is
a setting; the text outside masked spans is never changed.
"""
import re
from typing import Dict, List, Set, Tuple

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..extensions import register_extensions
from ..types import DEFAULT_SPANS_KEY

HEDGES = frozenset({"approximately", "about", "around", "nearly", "almost", "roughly", "circa", "some", "early", "mid", "late"})
HEDGE_PAIRS = frozenset({("more", "than"), ("less", "than"), ("fewer", "than"), ("at", "least"), ("up", "to"), ("prior", "to"), ("over", "the")})
# Words that open a parenthesis that is no gloss of the span before it.
NOT_GLOSS = frozenset({"the", "hereafter", "hereinafter", "see", "cf", "no", "nos", "application", "applications", "article", "articles",
                       "section", "paragraph", "paragraphs", "para", "§", "§§", "ibid", "i.e.", "e.g.", "also", "cited", "emphasis", "translation"})
GLOSS_FREE = frozenset({"PERSON", "CODE", "DATETIME"})  # spans whose parenthesis is a defined term or a reference
NOT_IN_GLOSS = frozenset({"PERSON", "CODE", "DATETIME"})  # a parenthesis holding these is separate information
IRREGULAR_PLURALS = frozenset({"children", "people", "men", "women", "persons", "feet", "police", "staff", "cattle", "sheep", "personnel"})
CURRENCY_WORDS = frozenset({"sterling", "kronor", "kroner", "krona", "krone", "lira", "lire", "liras", "francs", "euros", "euro", "dollars",
                            "pounds", "roubles", "rubles", "zlotys", "forints", "pence", "cents", "yen", "hryvnias", "lei", "levs", "kuna"})
NOT_NOUNS = frozenset({"is", "was", "has", "his", "this", "its", "as", "us", "yes", "thus", "less", "unless", "plus", "does", "goes",
                       "always", "sometimes", "perhaps", "besides", "whereas", "towards", "afterwards", "hers", "ours", "yours",
                       "theirs", "days", "years", "months", "weeks", "hours", "minutes", "seconds", "times", "decades", "centuries"})
MODIFIER_STOP = frozenset({"and", "or", "of", "in", "on", "at", "to", "for", "by", "with", "from", "the", "a", "an", "per", "which", "that",
                           "were", "was", "are", "is", "had", "have", "has", "been", "be", "who", "than", "as"})
NATIONALS = frozenset({"national", "nationals", "citizen", "citizens"})
PRISON_PREFIXES = frozenset({"hmp", "hmyoi"})
INSTITUTION_SUFFIXES = frozenset({"prison", "police", "constabulary", "district", "garrison", "barracks", "hospital", "gendarmerie",
                                  "prefecture", "province", "municipality"})
# the last word of a street's name (not "Court", "Hill", "Park": courts and places end so too)
STREET_WORDS = frozenset({"road", "rd", "street", "st", "lane", "ln", "avenue", "ave", "close", "grove", "walk", "crescent", "mews", "way",
                          "drive", "place", "terrace", "gardens", "row", "square", "boulevard", "blvd", "rise", "parade", "vale", "wynd"})
# the street words above written short: pii_codes' capitalised streets take the whole words only
# ("12 Main St" is the recognizer's; "in 1990 Pope St John" is no address)
STREET_ABBREVIATIONS = frozenset({"rd", "st", "ln", "ave", "blvd"})
HOUSE_NUMBER = re.compile(r"\d{1,4}[A-Za-z]?(?:/\d{1,4}[A-Za-z]?)?")
UNIT_WORDS = frozenset({"flat", "apt", "apartment", "unit", "suite"})
NUMBER_WORD = re.compile(r"^(?:\d[\d,.\u00a0]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|\w+ty(?:-\w+)?|hundred|thousand|million|billion)$", re.I)


def _plural_noun(word: str) -> bool:
    lower = word.lower()
    if lower in IRREGULAR_PLURALS or lower in CURRENCY_WORDS:
        return True
    return (word.isalpha() or "-" in word) and lower.endswith("s") and len(lower) > 3 and not lower.endswith(("ss", "us", "is")) \
        and lower not in NOT_NOUNS


class SpanExtender:
    """Extends the spans of ``doc.spans[spans_key]`` (see the module docs)."""

    def __init__(self, name: str, spans_key: str, glosses: bool, hedges: bool, counted_nouns: bool, nationals: bool,
                 institutions: bool, max_gloss_tokens: int, addresses: bool = True) -> None:
        if max_gloss_tokens < 1:
            raise ValueError(f"pii_extend: max_gloss_tokens must be at least 1, not {max_gloss_tokens}")
        self.name = name
        self.spans_key = spans_key
        self.glosses = glosses
        self.hedges = hedges
        self.counted_nouns = counted_nouns
        self.nationals = nationals
        self.institutions = institutions
        self.addresses = addresses
        self.max_gloss_tokens = max_gloss_tokens

    def __call__(self, doc: Doc) -> Doc:
        if self.spans_key not in doc.spans:
            return doc
        spans = sorted(doc.spans[self.spans_key], key=lambda s: (s.start, s.end))
        owner: Dict[int, int] = {i: k for k, span in enumerate(spans) for i in range(span.start, span.end)}
        absorbed: Set[int] = set()
        out: List[Span] = []
        for k, span in enumerate(spans):
            if k in absorbed:
                continue
            start, end, label, taken = span.start, span.end, span.label_, []
            if self.hedges and label in ("QUANTITY", "DATETIME"):
                start = self._hedge_start(doc, start, owner, k, taken)
            if self.addresses and label != "CODE" and doc[end - 1].lower_.rstrip(".") in STREET_WORDS and end - start <= 6:
                numbered = self._address_start(doc, start, spans, owner, k, out)
                # a house number before it or in it: an address ("Melrose Place" alone may be a show)
                if numbered < start or (end - start >= 2 and HOUSE_NUMBER.fullmatch(doc[start].text)):
                    start, label = numbered, "LOC"
                    taken.append("address")
            if self.institutions:
                start, end, label = self._institution(doc, start, end, label, owner, k, taken)
            if self.nationals and label in ("DEM", "LOC") and end < len(doc) and owner.get(end) is None and doc[end].lower_ in NATIONALS:
                end, label = end + 1, "DEM"
                taken.append("nationals")
            if self.counted_nouns and label == "QUANTITY":
                end = self._counted_noun_end(doc, end, owner, taken)
            if self.glosses and label not in GLOSS_FREE:
                end = self._gloss_end(doc, end, spans, owner, k, absorbed, taken)
            if not taken:
                out.append(span)
                continue
            owner.update((i, k) for i in range(start, end))
            new = Span(doc, start, end, label=label)
            new._.entity_id = span._.entity_id
            new._.confidence = span._.confidence
            new._.risk_explain = {**span._.risk_explain, self.name: {"took": taken, "from": [span.start_char, span.end_char, span.label_]}}
            out.append(new)
        out += self._prison_names(doc, owner)
        doc.spans[self.spans_key] = sorted(out, key=lambda s: (s.start, s.end))
        return doc

    @staticmethod
    def _free(owner: Dict[int, int], i: int, k: int) -> bool:
        return owner.get(i, k) == k

    @staticmethod
    def _address_start(doc: Doc, start: int, spans: List[Span], owner: Dict[int, int], k: int, out: List[Span]) -> int:
        """Where a street's address starts: its house number and a flat's before it ("Flat 9,
        23 Marlowe Walk"). Their tokens are free or make up whole spans of their own, unchanged
        so far: those are taken out of ``out`` (the address is one span)."""
        if start >= 1 and HOUSE_NUMBER.fullmatch(doc[start - 1].text):
            number = start - 1
        elif HOUSE_NUMBER.fullmatch(doc[start].text):
            number = start  # "Flat 3, 27 Birch Lane": the recognizer read the house number with the street
        else:
            return start
        first = number
        i = first - 1 if first >= 1 and doc[first - 1].text == "," else first
        if i >= 2 and HOUSE_NUMBER.fullmatch(doc[i - 1].text) and doc[i - 2].lower_ in UNIT_WORDS:
            first = i - 2
        others = {owner[j] for j in range(first, start) if owner.get(j, k) != k}
        if any(spans[o].start < first or spans[o].end > start or not any(span is spans[o] for span in out) for o in others):
            others, first = set(), number if owner.get(number, k) == k else start
        for o in others:
            out[:] = [span for span in out if span is not spans[o]]
        return first

    def _hedge_start(self, doc: Doc, start: int, owner: Dict[int, int], k: int, taken: List[str]) -> int:
        if start >= 2 and (doc[start - 2].lower_, doc[start - 1].lower_) in HEDGE_PAIRS and self._free(owner, start - 2, k) and self._free(owner, start - 1, k):
            taken.append("hedges")
            return start - 2
        if start >= 1 and doc[start - 1].lower_ in HEDGES and self._free(owner, start - 1, k):
            taken.append("hedges")
            return start - 1
        return start

    def _counted_noun_end(self, doc: Doc, end: int, owner: Dict[int, int], taken: List[str]) -> int:
        """The end after the counted noun of a number (or amount) ending at ``end``."""
        last = doc[end - 1]
        if not (NUMBER_WORD.match(last.text) or last.lower_ in CURRENCY_WORDS):
            return end
        words = []
        for i in range(end, min(end + 2, len(doc))):
            token = doc[i]
            # a line break is a token of its own, not a word: the noun never crosses it
            if owner.get(i) is not None or not (token.is_alpha or "-" in token.text) or token.lower_ in MODIFIER_STOP:
                break
            words.append(i)
        for n in range(len(words), 0, -1):
            if _plural_noun(doc[words[n - 1]].text):
                new_end = words[n - 1] + 1
                if new_end < len(doc) and doc[new_end].lower_ == "sterling" and owner.get(new_end) is None:
                    new_end += 1
                taken.append("counted_nouns")
                return new_end
        return end

    def _gloss_end(self, doc: Doc, end: int, spans: List[Span], owner: Dict[int, int], k: int, absorbed: Set[int], taken: List[str]) -> int:
        if end >= len(doc) or doc[end].text != "(":  # right after the span (a line break would be a token between)
            return end
        close = None
        for i in range(end + 1, min(end + 1 + self.max_gloss_tokens + 1, len(doc))):
            if doc[i].text == "(" or "\n" in doc[i].text:
                return end
            if doc[i].text == ")":
                close = i
                break
        if close is None or close == end + 1:
            return end
        first = next((t for t in doc[end + 1 : close] if not t.is_quote and not t.is_punct), None)
        if first is None or first.lower_ in NOT_GLOSS:
            return end
        inside = {owner[i] for i in range(end + 1, close) if i in owner}
        for j in inside:
            other = spans[j]
            if other.label_ in NOT_IN_GLOSS or other.start <= end or other.end > close:
                return end
        absorbed.update(inside)
        taken.append("glosses")
        return close + 1

    def _institution(self, doc: Doc, start: int, end: int, label: str, owner: Dict[int, int], k: int, taken: List[str]) -> Tuple[int, int, str]:
        if label not in ("LOC", "ORG", "PERSON"):
            return start, end, label
        if start >= 1 and doc[start - 1].lower_ in PRISON_PREFIXES and self._free(owner, start - 1, k):
            taken.append("institutions")
            return start - 1, end, "ORG"
        if start >= 2 and doc[start - 2].text == "HM" and doc[start - 1].lower_ == "prison" and self._free(owner, start - 2, k):
            taken.append("institutions")
            return start - 2, end, "ORG"
        if label != "PERSON" and end < len(doc) and owner.get(end) is None and doc[end].lower_ in INSTITUTION_SUFFIXES:
            taken.append("institutions")
            return start, end + 1, "ORG"
        return start, end, label

    def _prison_names(self, doc: Doc, owner: Dict[int, int]) -> List[Span]:
        """``HMP Name`` where no detector found the name: a new ORG span."""
        if not self.institutions:
            return []
        found = []
        for token in doc:
            if token.lower_ not in PRISON_PREFIXES or token.text != token.text.upper() or owner.get(token.i) is not None:
                continue
            end = token.i + 1
            while end < len(doc) and doc[end].is_title and owner.get(end) is None:
                end += 1
            if end > token.i + 1:
                span = Span(doc, token.i, end, label="ORG")
                span._.risk_explain = {"detector": self.name, self.name: {"took": ["institutions"], "from": None}}
                found.append(span)
        return found


@Language.factory(
    "pii_extend",
    default_config={"spans_key": DEFAULT_SPANS_KEY, "glosses": True, "hedges": True, "counted_nouns": True, "nationals": True,
                    "institutions": True, "max_gloss_tokens": 16, "addresses": True},
    requires=["doc.spans"],
    assigns=["doc.spans", "span._.risk_explain"],
)
def make_extender(nlp: Language, name: str, spans_key: str, glosses: bool, hedges: bool, counted_nouns: bool, nationals: bool,
                  institutions: bool, max_gloss_tokens: int, addresses: bool = True) -> SpanExtender:
    """glosses (bool): a parenthesis after a span joins it. hedges (bool): "approximately",
    "early", "prior to"... before a QUANTITY or DATETIME join it. counted_nouns (bool): the
    plural noun after a QUANTITY number joins it. nationals (bool): "national(s)",
    "citizen(s)" after a nationality or country. institutions (bool): "HMP"/"HM Prison" before a
    name, "prison"/"police"/"district"... after a place. max_gloss_tokens (int): the longest
    parenthesis taken in. addresses (bool): a span ending in a street's word is a LOC with its
    house and flat numbers."""
    register_extensions()
    return SpanExtender(name, spans_key, glosses, hedges, counted_nouns, nationals, institutions, max_gloss_tokens, addresses)
