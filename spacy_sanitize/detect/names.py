"""Person names that the NER misses for want of capitals: the shipped name lists and the
lower-case name finder.

``data/names/given.txt`` and ``family.txt`` (built by scripts/build_name_lists.py) hold
given names and family names that are not also ordinary words: a name is left out when
its lower-case form is common in running text ("will", "mark", "rose", "young"). In chat
and notes names are often typed in lower case ("john smith called, and later jane doe
arrived."), where a cased NER sees common nouns. A lower-case given name followed by a
family name, another given name or a rare word (not a stop word, below the common-word
frequency) is read as a person name; a word alone is not (a first name alone in lower case
is too often something else).
"""
import re
from functools import lru_cache
from pathlib import Path
from typing import FrozenSet, List, NamedTuple, Optional, Tuple

from spacy.tokens import Doc

from ..text import COMMON_WORDS, is_common_word
from ..shipped import data_path


class NameLists(NamedTuple):
    given: FrozenSet[str]
    family: FrozenSet[str]


def _read(path: Path) -> FrozenSet[str]:
    with open(path, encoding="utf8") as stream:
        return frozenset(line.strip() for line in stream if line.strip())


@lru_cache(maxsize=4)
def name_lists(folder: Optional[str] = None) -> NameLists:
    """The lower-cased given and family names of ``folder`` (None: the shipped lists)."""
    root = Path(folder) if folder else data_path("names")
    return NameLists(_read(root / "given.txt"), _read(root / "family.txt"))


@lru_cache(maxsize=4)
def word_names(folder: Optional[str] = None) -> FrozenSet[str]:
    """The lower-cased names left out of the lists because they are also ordinary words
    ("grace", "will", "baker"): such a word may still be a name."""
    root = Path(folder) if folder else data_path("names")
    return _read(root / "word_names.txt")


@lru_cache(maxsize=4)
def plain_words(folder: Optional[str] = None) -> FrozenSet[str]:
    """Lower-cased words written in lower case in at least 60% of their (3 or more)
    occurrences in the unlabeled biographies and judgments: ordinary words, not names."""
    root = Path(folder) if folder else data_path("names")
    return _read(root / "plain_words.txt")


# ordinary words of everyday text the biographies and judgments rarely hold: greetings, log levels
EVERYDAY_WORDS = frozenset({"hi", "hello", "hey", "info", "debug", "warn", "warning", "error", "trace", "fatal", "critical", "notice"})


def ordinary_word(word: str) -> bool:
    """A word of general use, not a name's: a stop word, month, weekday or title, a word of
    ``plain_words`` or of ``EVERYDAY_WORDS`` (case-insensitive)."""
    lowered = word.lower()
    return lowered in COMMON_WORDS or lowered in plain_words() or lowered in EVERYDAY_WORDS


def _lower_word(text: str) -> bool:
    return text.isalpha() and text.islower()


def _name_word(word: str, lists: NameLists) -> bool:
    """A word that may follow a given name in a lower-case name."""
    if word in lists.family or word in lists.given:
        return True
    return len(word) >= 2 and not is_common_word(word)


def lower_case_names(doc: Doc, lists: Optional[NameLists] = None) -> List[Tuple[int, int]]:
    """Token ranges of lower-case person names ("john smith", "jane doe"): a given name of
    the lists followed by one or two name words."""
    lists = lists or name_lists()
    found: List[Tuple[int, int]] = []
    i = 0
    while i < len(doc) - 1:
        first, second = doc[i], doc[i + 1]
        ok = (
            first.whitespace_ and _lower_word(first.text) and _lower_word(second.text)
            and first.text in lists.given and _name_word(second.text, lists)
        )
        if not ok:
            i += 1
            continue
        end = i + 2
        # a third part only from the lists ("mary ann jones"): a rare word there is often not a name
        if end < len(doc) and doc[end - 1].whitespace_ and _lower_word(doc[end].text) and doc[end].text in lists.family:
            end += 1
        found.append((i, end))
        i = end
    return found


# a login or handle made of a name: "fatima.zahra", or an initial and a family name "k.yamamoto"
_NAME_HANDLE = re.compile(r"([a-z]{1,32})[._]([a-z]{2,32})")


def name_handles(doc: Doc, lists: Optional[NameLists] = None) -> List[int]:
    """Indices of tokens that are a login written from a person's name in running text
    ("grant access to fatima.zahra", "k.yamamoto"): a given name of the lists and a name word
    (``_name_word``: of the lists, or rare in English), or an initial and a family name of the
    lists, joined by a dot or an underscore."""
    lists = lists or name_lists()
    found = []
    for token in doc:
        match = _NAME_HANDLE.fullmatch(token.text)
        if match is None:
            continue
        first, second = match.groups()
        if (first in lists.given and _name_word(second, lists)) or (len(first) == 1 and second in lists.family):
            found.append(token.i)
    return found
