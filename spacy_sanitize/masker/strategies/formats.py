"""Format-preserving replacement of numbers and codes: every digit becomes a digit and
every letter an ASCII letter of the same case (an "ø" or a "ç" would tell the original's
language); punctuation, spaces and other characters stay. A run of ``NAME_RUN`` letters or
more (a name in an e-mail address or a user name: "søren.kierkegård") gets a length of its
own, 4 to 10 letters, so the lengths of its name parts do not survive either; shorter
runs (code prefixes "AB-", a top-level domain, "km") keep their length and case pattern."""
import re
import string

from .keyed import KeyedChooser

NUMBER_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "thousand", "dozen"]
NUMBER_WORD_VALUES = dict(
    zip(NUMBER_WORDS, list(range(1, 21)) + [30, 40, 50, 60, 70, 80, 90, 100, 1000, 12])
)


# Letters of any script, with the combining marks that may follow them (NFD text).
_LETTERS = re.compile(r"(?:[^\W\d_][\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]*)+")
NAME_RUN = 4
RUN_LENGTHS = range(4, 11)
# Words that a quantity's surrogate or generalization keeps (units, scale and age words);
# an address ("14 Elm Street") or a span with a proper name is replaced as a whole.
ADDRESS_WORDS = frozenset(
    "street st road rd avenue ave lane ln drive dr boulevard blvd way place pl court ct square sq terrace "
    "close crescent gardens grove row hill park parkway highway hwy alley flat apartment apt suite unit floor "
    "building house box gade vej straße strasse str rue via calle plaza platz weg laan".split()
)
CAPITALIZED_UNITS = frozenset(["celsius", "fahrenheit", "kelvin"])


def format_space(text: str) -> int:
    """How many strings have the format of ``text`` (the support of a uniform draw)."""
    size = 1
    first_digit = True
    for char in text:
        if char.isdigit():
            size *= 9 if first_digit and char != "0" else 10
            first_digit = False
        elif char.isalpha():
            size *= 26
    return size


def address_like(text: str) -> bool:
    """Whether the words of a number span identify (a street, a flat, a proper name) rather
    than measure: then it is replaced as a whole, not only its digits."""
    for word in re.findall(r"[^\W\d_]+", text):
        lower = word.lower()
        if lower in ADDRESS_WORDS:
            return True
        if word[0].isupper() and not word.isupper() and lower not in NUMBER_WORD_VALUES and lower not in CAPITALIZED_UNITS:
            return True
    return False


def _letters(original: str, picks: "Picks") -> str:
    """ASCII letters for a run of letters: the same length and case per letter for a short
    run, a keyed length (``RUN_LENGTHS``) and the run's case pattern for a long one."""
    letters = [c for c in original if c.isalpha()]
    if len(letters) < NAME_RUN:
        return "".join((string.ascii_uppercase if c.isupper() else string.ascii_lowercase)[picks.next() % 26] for c in letters)
    length = RUN_LENGTHS[picks.next() % len(RUN_LENGTHS)]
    out = [string.ascii_lowercase[picks.next() % 26] for _ in range(length)]
    if all(c.isupper() for c in letters):
        return "".join(out).upper()
    if letters[0].isupper():
        out[0] = out[0].upper()
    return "".join(out)


class Picks:
    """Two-digit keyed picks, drawn as needed."""

    def __init__(self, chooser: KeyedChooser, purpose: str, text: str) -> None:
        self.chooser, self.purpose, self.text = chooser, purpose, text
        self.stream = ""
        self.position = 0

    def next(self) -> int:
        if self.position + 2 > len(self.stream):
            self.stream += self.chooser.digits(self.purpose, f"{len(self.stream)}\x1f{self.text}", 2 * len(self.text) + 24)
        pick = int(self.stream[self.position : self.position + 2])
        self.position += 2
        return pick


def replace_format(text: str, chooser: KeyedChooser, purpose: str, letters: bool = True) -> str:
    """Same format, different value (when the format allows another value): digits and
    short letter runs keep their length, long letter runs get one of their own (see the
    module). letters (bool): replace letters too (codes); off for quantities, whose words
    are units."""
    for attempt in range(4):
        picks = Picks(chooser, purpose, f"{attempt}\x1f{text}")
        out = []
        seen_digit = False
        position = 0
        runs = list(_LETTERS.finditer(text)) if letters else []
        for run in runs + [None]:
            end = run.start() if run is not None else len(text)
            for char in text[position:end]:
                pick = picks.next()
                if char.isdigit():
                    digit = pick % 10
                    if not seen_digit and char != "0":
                        digit = 1 + pick % 9
                    seen_digit = True
                    out.append(str(digit))
                else:
                    out.append(char)
            if run is not None:
                out.append(_letters(run.group(0), picks))
                position = run.end()
        result = "".join(out)
        if result != text or format_space(text) <= 1:
            return result
    return result


def replace_number_word(text: str, chooser: KeyedChooser, purpose: str) -> str:
    word = chooser.choose(NUMBER_WORDS[:20], purpose, text.lower(), avoid=text.lower())
    return word.capitalize() if text[:1].isupper() else word
