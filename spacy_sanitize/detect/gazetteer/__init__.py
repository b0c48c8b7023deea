"""pii_gazetteer and the Wikidata gazetteer builder."""

from .matcher import GazetteerMatcher, read_records  # noqa: F401
from .normalize import normalize, split_words, term_key  # noqa: F401
