"""Format-preserving replacement of numbers and codes: every digit becomes a digit and
every letter a letter of the same case; punctuation, spaces and other characters stay."""
import string

from .keyed import KeyedChooser

NUMBER_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "thousand", "dozen"]
NUMBER_WORD_VALUES = dict(
    zip(NUMBER_WORDS, list(range(1, 21)) + [30, 40, 50, 60, 70, 80, 90, 100, 1000, 12])
)


def format_space(text: str) -> int:
    """How many strings have the format of ``text`` (the support of a uniform draw)."""
    size = 1
    first_digit = True
    for char in text:
        if char.isdigit():
            size *= 9 if first_digit and char != "0" else 10
            first_digit = False
        elif char.isascii() and char.isalpha():
            size *= 26
    return size


def replace_format(text: str, chooser: KeyedChooser, purpose: str, letters: bool = True) -> str:
    """Same length and format, different value (when the format allows another value).
    letters (bool): replace ASCII letters too (codes); off for quantities, whose words
    are units."""
    for attempt in range(4):
        stream = chooser.digits(purpose, f"{attempt}\x1f{text}", 2 * len(text) + 2)
        out = []
        position = 0
        seen_digit = False
        for char in text:
            pick = int(stream[position : position + 2])
            position += 2
            if char.isdigit():
                digit = pick % 10
                if not seen_digit and char != "0":
                    digit = 1 + pick % 9
                seen_digit = True
                out.append(str(digit))
            elif letters and char.isascii() and char.isalpha():
                alphabet = string.ascii_uppercase if char.isupper() else string.ascii_lowercase
                out.append(alphabet[pick % 26])
            else:
                out.append(char)
        result = "".join(out)
        if result != text or format_space(text) <= 1:
            return result
    return result


def replace_number_word(text: str, chooser: KeyedChooser, purpose: str) -> str:
    word = chooser.choose(NUMBER_WORDS[:20], purpose, text.lower(), avoid=text.lower())
    return word.capitalize() if text[:1].isupper() else word
