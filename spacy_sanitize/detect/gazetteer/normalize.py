"""Light normalization shared by gazetteer terms and document tokens.

Terms and tokens are cut into words (``split_words``): dotted abbreviations ("U.S." ->
"us"), runs of word characters, and single punctuation characters; hyphens and
apostrophes only separate words, so "co-founder" = "co founder" and "women's" =
"women s". Each word is folded by ``normalize`` (which keeps the length of its input):

- case folding and removal of diacritics (one character to one character: "É" -> "e");
- regular English plurals are folded onto the singular by blanking their ending:
  "actresses" -> "actress  ", "cities" -> "city  ", "politicians" -> "politician ",
  "chairmen" -> "chairman".

Terms and texts go through the same functions, so a fold that is not linguistically
right ("physics" -> "physic") is harmless. ``term_variants`` adds the surface variants
folding cannot give: "cofounder" for "co-founder", "US senator" for "U.S. senator".
"""

import re
import unicodedata
from typing import Dict, Iterable, List, Tuple

_NON_WORD = re.compile(r"[\W_]")
_PLURAL_RULES = (
    (re.compile(r"(?<=[a-z]{2})ies\b"), "y  "),
    (re.compile(r"(?<=ss|sh|ch)es\b"), "  "),
    (re.compile(r"(?<=[a-z]x)es\b"), "  "),
    (re.compile(r"(?<=[a-z]{2}[a-hj-rtv-z])s\b"), " "),
    (re.compile(r"(?<=[a-z])men\b"), "man"),
)


def _deaccent_table() -> Dict[int, str]:
    table: Dict[int, str] = {}
    for code in list(range(0xC0, 0x250)) + list(range(0x1E00, 0x1F00)):
        char = chr(code)
        base = "".join(
            c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c)
        )
        if len(base) == 1 and base != char:
            table[code] = base.lower()
    table.update(
        {
            ord("ø"): "o",
            ord("Ø"): "o",
            ord("ł"): "l",
            ord("Ł"): "l",
            ord("đ"): "d",
            ord("Đ"): "d",
            ord("ı"): "i",
        }
    )
    return table


_DEACCENT = _deaccent_table()


def _lower(text: str) -> str:
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    # A few characters ("İ") lower to two; keep those as they are so offsets hold.
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def normalize(text: str) -> str:
    """``text`` folded for matching; same length as ``text``."""
    folded = _NON_WORD.sub(" ", _lower(text).translate(_DEACCENT))
    for pattern, replacement in _PLURAL_RULES:
        folded = pattern.sub(replacement, folded)
    return folded


def term_variants(term: str) -> List[str]:
    """Surface variants of a term that normalization does not cover: hyphenated words
    written solid ("co-founder" -> "cofounder") and dotted abbreviations without dots
    ("U.S. senator" -> "US senator", "Ph.D." -> "PhD")."""
    variants = [term]
    if "-" in term:
        variants.append(term.replace("-", ""))
    if "." in term:
        variants.append(re.sub(r"(?<=\w)\.(?=\w|\s|$)", "", term))
    return list(dict.fromkeys(v for v in variants if v.strip()))


# Words of a term or of a token: dotted abbreviations ("U.S.") as one word without dots,
# runs of word characters, and single punctuation characters. Hyphens and apostrophes
# only separate words ("co-founder" = "co founder", "women's" = "women s").
# Combining marks (a decomposed "é" = "e" + U+0301) belong to the word they follow.
_WORDS = re.compile(r"(?:[^\W\d_]\.){2,}|\w[\w\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]*|[^\w\s]")
_TRANSPARENT = frozenset("-‐‑'’`´")


def piece_word(piece: str) -> str:
    """The normalized word of one piece found by ``_WORDS`` ("" for hyphens, apostrophes)."""
    if piece in _TRANSPARENT:
        return ""
    if not piece.isascii() and any(unicodedata.combining(c) for c in piece):
        piece = "".join(c for c in unicodedata.normalize("NFC", piece) if not unicodedata.combining(c))
        if not piece:
            return ""
    if len(piece) > 1 and piece.endswith("."):
        piece = piece.replace(".", "")
    if piece[0].isalnum() or piece[0] == "_":
        return normalize(piece).strip()
    return piece


def split_words(text: str) -> List[str]:
    """The normalized words of ``text`` (see the module docstring)."""
    return [word for word in map(piece_word, _WORDS.findall(text)) if word]


def word_spans(text: str) -> List[Tuple[int, int, str]]:
    """(start, end, normalized word) for the words of a whole text: the tokenization
    ``GazetteerMatcher.find`` uses when it is given a string instead of a Doc."""
    out = []
    for match in _WORDS.finditer(text):
        word = piece_word(match.group())
        if word:
            out.append((match.start(), match.end(), word))
    return out


def term_key(term: str) -> str:
    """A term's normalized words joined by spaces ("" when it has none)."""
    return " ".join(split_words(term))


def term_keys(term: str) -> List[str]:
    """The distinct non-empty keys of a term and its surface variants."""
    return list(dict.fromkeys(k for k in map(term_key, term_variants(term)) if k))


def normalize_set(terms: Iterable[str]) -> frozenset:
    """Terms as a set of keys (for stop, allow and deny lists)."""
    return frozenset(key for term in terms for key in term_keys(str(term)))
