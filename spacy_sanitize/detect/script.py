"""pii_script: text in a non-Latin script inside Latin-script text.

In English documents a run of Hebrew, Greek, Cyrillic, Arabic, Devanagari or CJK letters is
nearly always a name given in its native spelling ("Naftali Bennett (Hebrew: נַפְתָּלִי
בֶּנֶט)"), which a Latin-script NER misses. Each such run becomes a span (default label
PERSON). Documents mostly written in another script are left alone.

With ``marked_latin`` (on by default) the same holds for the Latin letters of Vietnamese
(ơ, ư and the letters with a dot below or hook above: "ễ", "ầ", "ị"), which English words
never carry: a run of capitalised words with one such word is a name in its native
spelling ("Nguyễn Văn An and Trần Thị Bình signed the lease."), the unmarked words next to
it included ("An"; a stop word or title does not start a run). Documents written in Vietnamese
(where more than a tenth of the lower-case words carry these letters) are left alone.

In any document, also one written in that script, names in scripts without letter case are
found by the words around them (``cues``, on by default; ``data/names/scripts.json``):
honorifics after a name (Chinese and Japanese "先生", "女士", "さん", "様", "氏", Korean
"씨", "님", Hindi "जी"), words before one (titles "श्री", "श्रीमती", "מר", "السيد" and
"my name is": "我叫", "제 이름은", "मेरा नाम", "קוראים לי", "اسمي"). Chinese and Japanese
write no spaces: the name is the run of ideographs and katakana before the honorific, cut
to start at a common surname when the run is longer than a name; Korean names (two to four
syllables) before an honorific must start with a common surname. In scripts written with
spaces the first word after a prefix is the name, the second too unless it ends the name
(a postposition, a verb, a word starting with the conjunction "ו"/"و"), and later words
while they are common surnames ("श्री राजेश कुमार शर्मा"). Chinese and Japanese text is
one token per character with the tokenizer of ``long_runs`` (else a span covers the
whole token, the sentence around the name too: masked, never shown).
"""
import json
import re
import unicodedata
from functools import lru_cache
from typing import Any, Dict, List, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc, Token

from ..doc_reads import doc_text
from ..extensions import register_extensions
from ..shipped import data_path
from ..spans import add_char_spans, add_pii_spans, check_label
from ..types import PERSON_TITLES
from ._regex import alternatives

WORD = re.compile(r"[^\W\d_]+")
JOINER = re.compile(r"[\s\u200e\u200f·'’-]*")
# Vietnamese letters of Latin Extended Additional (U+1EA0-U+1EF9) and Latin Extended-B
# (ơ, ư): no English word has them.
MARKED_LATIN = re.compile("[\u1ea0-\u1ef9\u01a0\u01a1\u01af\u01b0]")
# In a text written in Vietnamese many lower-case words carry them; in English text, none.
MAX_MARKED_LOWER_SHARE = 0.1


# Chinese and Japanese name characters: ideographs (and the iteration mark "々"), katakana
CJK_NAME = re.compile(r"[\u3005\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u30a0-\u30ff]")
HANGUL = re.compile(r"[\uac00-\ud7a3]+")
CJK_MAX = 4  # a Chinese name has 2-3 characters, a Japanese one 2-4
# the scripts written with spaces whose names are found by cues, by their letters
WORD_SCRIPTS = {"DEVANAGARI": re.compile(r"[\u0900-\u097f]"), "HEBREW": re.compile(r"[\u0590-\u05ff]"), "ARABIC": re.compile(r"[\u0600-\u06ff]")}
PUNCT = "\"'.,;:!?()[]«»“”„।॥،؛؟—–-"
Cue = Tuple[int, int, str, str]


def _compiled(words: List[str]) -> Optional["re.Pattern[str]"]:
    return re.compile(alternatives(words)) if words else None


@lru_cache(maxsize=1)
def script_cues() -> Dict[str, Dict[str, Any]]:
    """The cues of ``data/names/scripts.json``, compiled: per script, the ``suffixes`` and
    ``prefixes`` patterns, the ``surnames``, ``stops`` and ``not_names`` sets."""
    with open(data_path("names") / "scripts.json", encoding="utf8") as stream:
        data = json.load(stream)
    out: Dict[str, Dict[str, Any]] = {}
    for script, cues in data.items():
        if script.startswith("_"):
            continue
        out[script] = {
            "suffixes": _compiled(cues.get("suffixes", [])),
            "surname_suffixes": _compiled(cues.get("surname_suffixes", [])),
            "prefixes": _compiled(cues.get("prefixes", [])),
            "endings": sorted(cues.get("endings", []), key=len, reverse=True),
            "surnames": frozenset(cues.get("surnames", "").split()),
            "stops": frozenset(cues.get("stops", "").split()),
            "not_names": frozenset(cues.get("not_names", [])),
            "conjunction": cues.get("conjunction", ""),
        }
    return out


def _cjk_name(run: str, surnames: frozenset, need_surname: bool) -> Optional[Tuple[int, int]]:
    """The name in ``run`` (the ideographs before an honorific), as (start, end) in it: the
    whole run when it is short and starts with a surname, else from the surname that leaves
    one to ``CJK_MAX`` characters, the longest listed surname first ("部長佐藤花子": "佐藤花子",
    not "藤花子"), the earlier start on a tie (one character more masked, never one left in
    clear); without a surname (``need_surname`` off) the whole run when it is short, else
    its last ``CJK_MAX`` characters."""
    n = len(run)

    def surname_at(i: int) -> int:
        return max((k for k in (1, 2, 3) if run[i : i + k] in surnames), default=0)

    if n <= CJK_MAX and surname_at(0):
        return 0, n
    start = max(range(max(1, n - CJK_MAX), n), key=lambda i: (surname_at(i), -i), default=None)
    if start is not None and surname_at(start):
        return start, n
    if need_surname:
        return None
    return (0, n) if n <= CJK_MAX else (n - CJK_MAX, n)


def _script(char: str) -> Optional[str]:
    """A coarse script name from the Unicode character name (LATIN, GREEK, CJK...)."""
    try:
        name = unicodedata.name(char)
    except ValueError:
        return None
    return name.split()[0]


class ScriptDetector:
    def __init__(self, name: str, label: str, spans_key: str, max_share: float, marked_latin: bool = True, cues: bool = True) -> None:
        self.name = name
        self.cues = cues
        self.label = check_label(label)
        self.spans_key = spans_key
        self.max_share = max_share
        self.marked_latin = marked_latin

    def __call__(self, doc: Doc) -> Doc:
        text = doc_text(doc)
        if self.marked_latin and MARKED_LATIN.search(text):
            self._marked_latin(doc)
        letters = [c for c in text if c.isalpha()]
        foreign = [c for c in letters if _script(c) not in ("LATIN", None)]
        if self.cues and foreign:
            self._add_cued(doc, self._cued(text))
        if not foreign or len(foreign) / len(letters) > self.max_share:
            add_pii_spans(doc, [], self.spans_key)  # the span group exists, maybe empty
            return doc
        runs: List[List[int]] = []
        for match in WORD.finditer(text):
            if _script(match.group()[0]) in ("LATIN", None):
                continue
            if runs and JOINER.fullmatch(text, runs[-1][1], match.start()):
                runs[-1][1] = match.end()
            else:
                runs.append([match.start(), match.end()])
        add_char_spans(doc, ((start, end, self.label, f"{self.name}:{_script(text[start])}") for start, end in runs), self.spans_key)
        return doc

    def _add_cued(self, doc: Doc, found: List[Cue]) -> None:
        """Cued names are validated (``spans.VALIDATED``): a statistical model's span across
        the name and the words after it (an English NER reading Chinese) does not leave
        part of the name in clear text."""
        add_char_spans(doc, found, self.spans_key, validated=True)

    def _cued(self, text: str) -> List[Cue]:
        """Names found by an honorific after them or a title / "my name is" before them."""
        cues = script_cues()
        found: List[Cue] = []
        if "CJK" in cues and CJK_NAME.search(text):
            found += self._cjk(text, cues["CJK"])
        if "HANGUL" in cues and HANGUL.search(text):
            found += self._hangul(text, cues["HANGUL"])
        for script, letters in WORD_SCRIPTS.items():
            if script in cues and letters.search(text):
                found += self._words(text, cues[script], letters)
        return found

    def _cjk(self, text: str, cues: Dict[str, Any]) -> List[Cue]:
        found = []
        honorifics = [(m, False) for m in cues["suffixes"].finditer(text)] if cues["suffixes"] else []
        honorifics += [(m, True) for m in cues["surname_suffixes"].finditer(text)] if cues["surname_suffixes"] else []
        for match, need_surname in honorifics:
            start = match.start()
            while start > 0 and match.start() - start < 8 and CJK_NAME.match(text, start - 1):
                start -= 1
            run = text[start : match.start()]
            if not run or run in cues["not_names"]:
                continue
            name = _cjk_name(run, cues["surnames"], need_surname)
            if name is not None:
                found.append((start + name[0], start + name[1], self.label, f"{self.name}:cue"))
        for match in cues["prefixes"].finditer(text) if cues["prefixes"] else ():
            end = match.end()
            while end < len(text) and text[end] in " \t":
                end += 1
            start = end
            while end < len(text) and end - start < CJK_MAX and CJK_NAME.match(text, end):
                end += 1
            if end > start:
                found.append((start, end, self.label, f"{self.name}:cue"))
        return found

    def _hangul(self, text: str, cues: Dict[str, Any]) -> List[Cue]:
        found = []
        words = list(HANGUL.finditer(text))
        suffixes = cues["suffixes"]
        for k, word in enumerate(words):
            stem = _strip(word.group(), cues["endings"])
            name: Optional[str] = None
            hon = suffixes.search(stem) if suffixes else None
            if hon is not None and hon.end() == len(stem) and hon.start() >= 2:
                name = stem[: hon.start()]  # "박서연님", "김민준씨는"
            elif k + 1 < len(words) and words[k + 1].start() - word.end() <= 1 and suffixes and _is_honorific(words[k + 1].group(), suffixes, cues["endings"]):
                name = word.group()  # "김민준 씨는"
            if name and 2 <= len(name) <= 4 and name not in cues["not_names"] and (name[:1] in cues["surnames"] or name[:2] in cues["surnames"]):
                found.append((word.start(), word.start() + len(name), self.label, f"{self.name}:cue"))
        for match in cues["prefixes"].finditer(text) if cues["prefixes"] else ():
            after = HANGUL.match(text, match.end() + (1 if text[match.end() : match.end() + 1].isspace() else 0))
            if after is not None:
                name = _strip(after.group(), cues["endings"])
                if 2 <= len(name) <= 5:
                    found.append((after.start(), after.start() + len(name), self.label, f"{self.name}:cue"))
        return found

    def _words(self, text: str, cues: Dict[str, Any], letters: "re.Pattern[str]") -> List[Cue]:
        """Names after a prefix (and before a suffix) in a script written with spaces."""
        found = []
        conjunction = cues["conjunction"]

        def ends_name(word: str) -> bool:
            return not letters.match(word) or word in cues["stops"] or (bool(conjunction) and word.startswith(conjunction) and word not in cues["surnames"])

        for match in cues["prefixes"].finditer(text) if cues["prefixes"] else ():
            if match.start() > 0 and not (text[match.start() - 1].isspace() or text[match.start() - 1] in PUNCT):
                continue  # inside a word
            taken: List[Tuple[int, int]] = []
            previous = 0
            for word in re.finditer(r"\S+", text[match.end() : match.end() + 256]):
                if text[match.end() + previous : match.end() + word.start()].strip():
                    break  # punctuation between the words ends the name
                previous = word.end()
                value = word.group().strip(PUNCT)
                if not value or ends_name(value) or (len(taken) >= 2 and value not in cues["surnames"]) or len(taken) == 4:
                    break
                first = match.end() + word.start() + word.group().index(value)
                taken.append((first, first + len(value)))
                if word.group() != value:
                    break  # punctuation after the word ends the name
            if taken:
                found.append((taken[0][0], taken[-1][1], self.label, f"{self.name}:cue"))
        for match in cues["suffixes"].finditer(text) if cues["suffixes"] else ():
            before = re.search(r"(?<!\S)(\S+)\s+$", text[max(0, match.start() - 64) : match.start()])
            if before is not None and not ends_name(before.group(1).strip(PUNCT)) and before.group(1).strip(PUNCT) == before.group(1):
                start = match.start() - len(before.group(0))
                found.append((start, start + len(before.group(1)), self.label, f"{self.name}:cue"))
        return found


    def _marked_latin(self, doc: Doc) -> None:
        lower = [t for t in doc if t.is_alpha and t.is_lower]
        if lower and sum(bool(MARKED_LATIN.search(t.text)) for t in lower) > MAX_MARKED_LOWER_SHARE * len(lower):
            return
        found = []
        i = 0
        while i < len(doc):
            if not (_capitalised(doc[i]) and MARKED_LATIN.search(doc[i].text)):
                i += 1
                continue
            start, end = i, i + 1
            while start > 0 and _capitalised(doc[start - 1]) and doc[start - 1].whitespace_ and not doc[start - 1].is_stop and doc[start - 1].lower_ not in PERSON_TITLES:
                start -= 1
            while end < len(doc) and _capitalised(doc[end]) and doc[end - 1].whitespace_:
                end += 1
            found.append((doc[start].idx, doc[end - 1].idx + len(doc[end - 1]), self.label, f"{self.name}:marked_latin"))
            i = end
        add_char_spans(doc, found, self.spans_key)


def _is_honorific(word: str, suffixes: "re.Pattern[str]", endings: List[str]) -> bool:
    """"씨", "씨는", "님께서": an honorific alone or with a particle."""
    match = suffixes.match(word)
    return match is not None and (match.end() == len(word) or word[match.end() :] in endings or word in endings)


def _strip(word: str, endings: List[str]) -> str:
    """``word`` without the longest of ``endings`` (a particle, a copula) that leaves two
    letters at least."""
    for ending in endings:
        if word.endswith(ending) and len(word) - len(ending) >= 2:
            return word[: -len(ending)]
    return word


def _capitalised(token: Token) -> bool:
    return token.is_alpha and token.text[0].isupper() and not token.is_upper


@Language.factory(
    "pii_script",
    default_config={"label": "PERSON", "spans_key": "pii", "max_share": 0.5, "marked_latin": True, "cues": True},
    assigns=["doc.spans", "span._.risk_explain"],
)
def make_script_detector(nlp: Language, name: str, label: str, spans_key: str, max_share: float, marked_latin: bool, cues: bool) -> ScriptDetector:
    """label (str): PII type of the runs. max_share (float): skip documents where more than
    this share of the letters is non-Latin (they are written in that script). marked_latin
    (bool): also take capitalised runs with a Vietnamese letter ("Nguyễn Văn An"). cues
    (bool): names in caseless scripts found by honorifics and "my name is" (any document)."""
    register_extensions()
    return ScriptDetector(name, label, spans_key, max_share, marked_latin, cues)
