"""Build spacy_sanitize/data/names/dictionary_words.txt: the everyday English words that
pii_refine may drop as a plain word when a recognizer tags one at a sentence or line start
("Whisk the eggs", "Preheat the oven", "Reloading settings", "Allergies and Intolerances").

``plain_words.txt`` holds the words of the unlabeled biographies and judgments, which have
few recipes, logs or care notes; this list adds the words of SCOWL's spell-checker lists
(Debian's ``wamerican`` and ``wbritish``: /usr/share/dict/american-english and
british-english; SCOWL's notice is in data/names/README.md) that the lists write only in
lower case (no capitalised entry: "rose" has "Rose", "turner" has "Turner"), of Zipf
frequency ``--min-zipf`` or more in general English (wordfreq), less every name a shipped
list or a mimesis English locale holds ("cook", "baker", "hunter" stay names).

Usage: python scripts/build_dictionary_words.py /usr/share/dict/american-english
    /usr/share/dict/british-english [--output spacy_sanitize/data/names/dictionary_words.txt]
"""
import argparse
from pathlib import Path
from typing import Iterable, List, Set

from build_name_lists import OUTPUT, all_locale_names


def dictionary_words(paths: Iterable[Path], names: Set[str], min_zipf: float) -> List[str]:
    """The words of the word lists at ``paths`` written only in lower case, not in ``names``."""
    from wordfreq import zipf_frequency

    lower: Set[str] = set()
    capitalised: Set[str] = set()
    for path in paths:
        for line in path.read_text(encoding="utf8").splitlines():
            word = line.strip()
            if word.isalpha() and word.islower():
                lower.add(word)
            elif word[:1].isupper():
                capitalised.add(word.split("'")[0].lower())
    return sorted(w for w in lower - capitalised - names if len(w) >= 3 and zipf_frequency(w, "en") >= min_zipf)


def main() -> None:
    from spacy_sanitize.detect.names import name_lists, word_names

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("word_lists", nargs="+", type=Path)
    parser.add_argument("--output", type=Path, default=OUTPUT / "dictionary_words.txt")
    parser.add_argument("--min-zipf", type=float, default=2.0)
    args = parser.parse_args()
    given, family = name_lists()
    names = {n.lower() for n in all_locale_names()} | given | family | word_names()
    words = dictionary_words(args.word_lists, names, args.min_zipf)
    args.output.write_text("\n".join(words) + "\n", encoding="utf8")
    print(f"dictionary_words: {len(words)}")


if __name__ == "__main__":
    main()
