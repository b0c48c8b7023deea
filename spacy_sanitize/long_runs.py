"""Tokenizing long runs without whitespace in linear time.

spaCy's tokenizer strips prefixes, suffixes and infixes from one whitespace-free substring
at a time, copying the rest of it at each step: a run of n punctuation characters costs
O(n²) (4,000 "(" take about 5 s, 100 kB would take an hour; a 2 MB minified JSON line
likewise). ``make_doc`` tokenizes a run longer than ``LONG_RUN`` characters in chunks of
about ``CHUNK`` characters, cut after a separator, and joins the chunks' Docs: the text is
the same string, only a few more token boundaries fall inside the run (detectors map their
matches to tokens with ``alignment_mode="expand"``, so a boundary more never loses one).
Text without such a run is tokenized by ``nlp.make_doc`` as before.

``LinearTokenizer`` does this on every call, so ``nlp(text)`` and ``nlp.pipe`` are linear
too, not only the CLI and ``sanitize_pieces``. The shipped configs name it (``[nlp.tokenizer]
@tokenizers = "spacy_sanitize.Tokenizer.v1"``: the same rules, prefixes, suffixes and infixes
as spaCy's), so a pipeline saved with ``nlp.to_disk`` keeps it through ``spacy.load``; a config
of your own can name it too. It also makes each Chinese or Japanese character a token of its
own (these scripts write a name without a space before the honorific: "张伟先生住在北京"):
spans can then cover the name only, not the sentence. It also splits the fields of a CSV row
written without spaces at their separators and quotes (``FIELD_INFIX``).
"""
import re
from typing import Callable, Iterator, List, Optional, Union

from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc
from spacy import util
from spacy.util import registry

# No word, e-mail, phone number or ordinary URL is this long; 128 "(" still tokenize in ~5 ms.
LONG_RUN = 128
# A chunk is cut after a separator once it has ``CHUNK`` characters, after any character
# that is not a letter or digit once it has ``2 * CHUNK`` (letters and digits alone are no
# affixes: a chunk of them costs spaCy linear time however long it is).
CHUNK = 64

_RUN = re.compile(r"\S{%d,}" % (LONG_RUN + 1))
# JSON/CSV/markup separators, as split_text's safe cuts: they never sit inside an identifier
_SEPARATOR = re.compile(r"[,;}\]>)\"']")
_NOT_ALNUM = re.compile(r"[^\w]|_")


def has_long_run(text: str) -> bool:
    return _RUN.search(text) is not None


def cuts(text: str) -> Iterator[int]:
    """The offsets at which ``text`` is cut before tokenizing (inside long runs only)."""
    for run in _RUN.finditer(text):
        start, end = run.span()
        while end - start > LONG_RUN:
            found = _SEPARATOR.search(text, start + CHUNK, min(end, start + 2 * CHUNK))
            if found is None:
                found = _NOT_ALNUM.search(text, start + 2 * CHUNK, end)
            if found is None or found.end() >= end:
                break
            start = found.end()
            yield start


def pipe_input(nlp: Language, text: str) -> Union[str, Doc]:
    """What ``nlp.pipe`` should take for ``text``: the text itself, or its Doc made here when
    it holds a long run (so nlp.pipe does not tokenize it quadratically)."""
    return make_doc(nlp, text) if has_long_run(text) else text


def make_doc(nlp: Language, text: str) -> Doc:
    """``nlp.make_doc(text)`` in time linear in the length of its whitespace-free runs."""
    if isinstance(nlp.tokenizer, LinearTokenizer):
        return nlp.make_doc(text)  # it cuts the runs itself: a second scan would cut nothing new
    return tokenize(nlp.make_doc, nlp.vocab, text)


def tokenize(tokenizer: Callable[[str], Doc], vocab: object, text: str) -> Doc:
    positions = list(cuts(text))
    if not positions:
        return tokenizer(text)
    docs: List[Doc] = []
    previous = 0
    for position in positions + [len(text)]:
        docs.append(tokenizer(text[previous:position]))
        previous = position
    return Doc.from_docs(docs, ensure_whitespace=False)


# ideographs (with the iteration mark) and kana: one token each (Korean writes spaces)
CASELESS_CHAR = r"[\u3005\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"


class LinearTokenizer(Tokenizer):
    """spaCy's tokenizer, cutting long whitespace-free runs first (``tokenize``)."""

    def __call__(self, text: str) -> Doc:
        return tokenize(super().__call__, self.vocab, text)


# a CSV field's separator or quote between fields written without spaces ('1041,"Gómez, Lucía",lucia@x.es'):
# its own token, so a field's value is not glued to the next one's (double quotes only: an
# apostrophe before a comma is a possessive)
FIELD_INFIX = r'(?<=[\w"])[,;|](?=")|(?<=")[,;|](?=[\w"])|(?<=[,;|])"(?=\w)|(?<=\w)"(?=[,;|])'
# a JSON or log key's quotes and its ":" or "=" ('"name":"Ana Ruiz"', "holder='RUIZ/ANA'"): tokens
# of their own, so a masked value leaves its key and quotes (the output stays valid JSON)
KEY_VALUE_INFIX = (r'(?<=[\w.])"(?=[:=,}\]])|(?<=[:=,{\[])"(?=[\w+-])|(?<=")[:=](?=["\w\[{+-])|(?<=["\]}])[,}\]](?=[,"{\[\]}])'
                   r"|(?<=[A-Za-z_])=(?=[\w'+-])|(?<=[:=])'(?=[\w+-])")  # not '="': markup's attributes stay whole
# a markup tag glued to the text it wraps ("Our Services</h2>", "<b>Anna</b>"): the tag's
# "</" and ">" are tokens of their own, so a heading or a name is read without its tags
MARKUP_INFIX = (r"(?<=\w)</(?=[A-Za-z])|(?<=[A-Za-z0-9\"'])>(?=[\w<])"
                # a forum's BBCode tag the same ("[quote=tiggerbounce]my son", "the class[/quote]")
                r"|(?<=[\w\"'])\](?=\w)|(?<=\w)\[(?=/[A-Za-z])")


def _with_caseless_infix(infix_finditer: Optional[Callable]) -> Optional[Callable]:
    pattern = getattr(getattr(infix_finditer, "__self__", None), "pattern", None)
    if infix_finditer is not None and pattern is None:
        return infix_finditer  # a callable of the user's own: left as it is
    if pattern is not None and CASELESS_CHAR in pattern:
        return infix_finditer
    extra = f"{CASELESS_CHAR}|{FIELD_INFIX}|{KEY_VALUE_INFIX}|{MARKUP_INFIX}"
    return re.compile(extra if pattern is None else f"{extra}|{pattern}").finditer


def linear_tokenizer(tokenizer: Tokenizer, split_caseless: bool = True) -> LinearTokenizer:
    """A ``LinearTokenizer`` with the settings of ``tokenizer`` (and, with ``split_caseless``,
    one token per Chinese or Japanese character)."""
    infix = _with_caseless_infix(tokenizer.infix_finditer) if split_caseless else tokenizer.infix_finditer
    return LinearTokenizer(
        tokenizer.vocab,
        rules=tokenizer.rules,
        prefix_search=tokenizer.prefix_search,
        suffix_search=tokenizer.suffix_search,
        infix_finditer=infix,
        token_match=tokenizer.token_match,
        url_match=tokenizer.url_match,
        faster_heuristics=tokenizer.faster_heuristics,
    )


@registry.tokenizers("spacy_sanitize.Tokenizer.v1")
def create_tokenizer(split_caseless: bool = True) -> Callable[[Language], Tokenizer]:
    """The language's default tokenizer, linear on long runs without whitespace.
    split_caseless (bool): one token per Chinese or Japanese character."""

    def make(nlp: Language) -> Tokenizer:
        # spaCy's own factory (spacy.Tokenizer.v1), built once as a LinearTokenizer: building
        # spaCy's and copying it added its 1,300 special cases twice (70 ms of every start-up)
        defaults = nlp.Defaults
        infix = util.compile_infix_regex(defaults.infixes).finditer if defaults.infixes else None
        return LinearTokenizer(
            nlp.vocab,
            rules=defaults.tokenizer_exceptions,
            prefix_search=util.compile_prefix_regex(defaults.prefixes).search if defaults.prefixes else None,
            suffix_search=util.compile_suffix_regex(defaults.suffixes).search if defaults.suffixes else None,
            infix_finditer=_with_caseless_infix(infix) if split_caseless else infix,
            token_match=defaults.token_match,
            url_match=defaults.url_match,
        )

    return make
