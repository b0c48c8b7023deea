"""GazetteerMatcher's batched numpy matching: same matches as per-Doc calls (plain-Python
and numpy paths) and as a brute-force reference, across normalization cases; round trips."""

import random
from typing import List, Set, Tuple

import numpy as np
import pytest
import spacy
import srsly
from spacy.tokens import Doc

import spacy_sanitize  # noqa: F401  (registers the factories)
from spacy_sanitize.detect.gazetteer import GazetteerMatcher
from spacy_sanitize.detect.gazetteer.hashtable import HashTable
from spacy_sanitize.detect.gazetteer.matcher import MatchArrays
from spacy_sanitize.detect.gazetteer.normalize import split_words

RECORDS = [
    {"term": "actress", "label": "DEM", "count": 5},
    {"term": "film actress", "label": "DEM"},
    {"term": "co-founder", "label": "DEM"},
    {"term": "U.S. senator", "label": "DEM"},
    {"term": "Teachta Dála", "label": "DEM"},
    {"term": "Minister of State", "label": "DEM"},
    {"term": "Minister of State for Women", "label": "DEM"},
    {"term": "State", "label": "MISC"},
    {"term": "women's rights", "label": "MISC"},
    {"term": "film", "label": "MISC"},
]
# Tokens as a tokenizer may give them: case, diacritics, plurals, hyphen and space
# variants, dotted abbreviations, multi-word tokens, hyphens, apostrophes, newlines.
TOKENS = [
    "actress", "Actresses", "ACTRESS", "film", "Films", "co-founder", "Co-Founders",
    "cofounder", "co", "-", "founder", "U.S.", "US", "senator", "Senators", "Teachta",
    "Dála", "DALA", "Minister", "Ministers", "of", "State", "States", "for", "Women",
    "women", "'s", "'", "rights", "xyzzy", "the", "\n", "film-actress", "film/actress",
]  # fmt: skip


def random_docs(n: int, seed: int = 0) -> List[Doc]:
    rng = random.Random(seed)
    vocab = spacy.blank("en").vocab
    docs = []
    for _ in range(n):
        words = [rng.choice(TOKENS) for _ in range(rng.randint(0, 30))]
        docs.append(Doc(vocab, words=words, spaces=[rng.random() < 0.8 for _ in words]))
    return docs


def reference(matcher: GazetteerMatcher, doc: Doc) -> Set[Tuple[int, int, str]]:
    """Brute force over every token span: its tokens' words (none for hyphens, apostrophes,
    spaces) must be exactly a key; a newline, an unknown word, or a multi-word token with
    an unknown word stops a match."""
    keys = {tuple(split_words(r["term"])) for r in RECORDS}
    keys |= {tuple(split_words(r["term"].replace("-", ""))) for r in RECORDS}
    keys |= {tuple(split_words(r["term"].replace(".", ""))) for r in RECORDS}
    known = {word for key in keys for word in key}
    token_words = []
    for token in doc:
        words = split_words(token.text)
        barrier = "\n" in token.text or any(w not in known for w in words)
        token_words.append(None if barrier else words)
    found = set()
    for i in range(len(doc)):
        if not token_words[i]:
            continue
        words: List[str] = []
        for j in range(i, len(doc)):
            if token_words[j] is None:
                break
            words += token_words[j]
            if token_words[j] and tuple(words) in keys:
                found.add((i, j + 1, matcher.term(matcher.lookup(" ".join(words)))))
    return found


@pytest.fixture(scope="module")
def matcher() -> GazetteerMatcher:
    return GazetteerMatcher.build(RECORDS)


def as_set(matcher, matches) -> Set[Tuple[int, int, str]]:
    return {(s, e, matcher.term(entry)) for s, e, entry in matches}


def test_batch_per_doc_and_reference_agree(matcher):
    docs = random_docs(300)
    batched = matcher.find_in_docs(docs)
    arrays = matcher.match_docs(docs)
    assert isinstance(arrays, MatchArrays) and len(arrays) == sum(map(len, batched)) > 100
    numpy_path = GazetteerMatcher.from_bytes(matcher.to_bytes())
    numpy_path.python_max_tokens = -1  # per-Doc calls through numpy too
    for doc, found in zip(docs, batched):
        expected = reference(matcher, doc)
        assert as_set(matcher, found) == expected, doc.text
        assert matcher.find_in_doc(doc) == found  # plain-Python path, same order
        assert numpy_path.find_in_doc(doc) == found
        assert len(set(found)) == len(found)
    # Sorted by doc, end, start; doc indices point at the right Doc.
    order = np.lexsort((arrays.start, arrays.end, arrays.doc))
    assert (order == np.arange(len(order))).all()
    assert set(arrays.doc.tolist()) <= set(range(len(docs)))


@pytest.mark.parametrize(
    "words,expected",
    [
        (["Actresses"], {("Actresses", "actress")}),
        (["film", "Actresses"], {("film", "film"), ("Actresses", "actress"), ("film Actresses", "film actress")}),
        (["Co-Founders"], {("Co-Founders", "co-founder")}),
        (["co", "-", "founder"], {("co-founder", "co-founder")}),
        (["cofounder"], {("cofounder", "co-founder")}),
        (["US", "Senators"], {("US Senators", "U.S. senator")}),
        (["Teachta", "DALA"], {("Teachta DALA", "Teachta Dála")}),
        (["women", "'s", "rights"], {("women's rights", "women's rights")}),
        (["film", "\n", "actress"], {("film", "film"), ("actress", "actress")}),
        (["film/actress"], set()),
        (["film-actress"], {("film-actress", "film actress")}),
    ],
)  # fmt: skip
def test_normalization_cases_in_batches(matcher, words, expected):
    vocab = spacy.blank("en").vocab
    doc = Doc(vocab, words=words, spaces=[w not in {"co", "-", "women"} for w in words])
    other = Doc(vocab, words=["film", "actress"])
    for found in (matcher.find_in_docs([other, doc, other])[1], matcher.find_in_doc(doc)):
        assert {(doc[s:e].text, matcher.term(entry)) for s, e, entry in found} == expected


def test_no_match_crosses_docs(matcher):
    vocab = spacy.blank("en").vocab
    docs = [Doc(vocab, words=["film"]), Doc(vocab, words=[]), Doc(vocab, words=["actress"])]
    assert matcher.find_in_docs(docs) == [[(0, 1, matcher.lookup("film"))], [], [(0, 1, 0)]]
    assert list(matcher.pipe(docs, batch_size=2))[2] == (docs[2], [(0, 1, 0)])


def test_empty_matcher_and_empty_batch(matcher):
    empty = GazetteerMatcher()
    doc = random_docs(1, seed=3)[0]
    assert empty.find_in_doc(doc) == [] and empty.find("film") == [] and empty.lookup("x") is None
    assert len(matcher.match_docs([])) == 0


def test_round_trip_keeps_batched_matches(matcher, tmp_path):
    docs = random_docs(50, seed=1)
    matcher.to_disk(tmp_path / "m")
    for loaded in (
        GazetteerMatcher.from_disk(tmp_path / "m"),
        GazetteerMatcher.from_bytes(matcher.to_bytes()),
    ):
        assert loaded.find_in_docs(docs) == matcher.find_in_docs(docs)
        assert list(loaded.records()) == list(matcher.records())


def test_format_1_directory_is_refused(tmp_path):
    """Format 1 (word codes for pyahocorasick) was never released: no upgrade path, a
    clear error (E208) instead of a silent conversion."""
    matcher = GazetteerMatcher.build(RECORDS)
    matcher.to_disk(tmp_path / "m")
    meta = srsly.read_json(tmp_path / "m" / "meta.json")
    meta["format"] = 1
    srsly.write_json(tmp_path / "m" / "meta.json", meta)
    with pytest.raises(ValueError, match="E208.*format 1"):
        GazetteerMatcher.from_disk(tmp_path / "m")


def test_hash_table_grows_and_probes():
    table = HashTable(bits=4)
    rng = np.random.default_rng(0)
    keys = np.unique(rng.integers(1, 2**63, size=5000, dtype=np.int64)).astype(np.uint64)
    for chunk in np.array_split(np.arange(len(keys)), 7):
        table.insert(keys[chunk], chunk.astype(np.int32))
    assert table.count == len(keys) and len(table.keys) >= 2 * len(keys)
    assert (table.get(keys) == np.arange(len(keys))).all()
    absent = keys + np.uint64(1)
    absent = absent[~np.isin(absent, keys)]
    assert (table.get(absent) == np.iinfo(np.int32).min).all()


def test_orth_cache_reset_keeps_results(matcher):
    docs = random_docs(40, seed=4)
    expected = matcher.find_in_docs(docs)
    fresh = GazetteerMatcher.from_bytes(matcher.to_bytes())
    fresh.find_in_docs(docs)
    fresh._reset_caches()
    assert fresh.find_in_docs(docs) == expected
    assert [fresh.find_in_doc(doc) for doc in docs] == expected


def test_component_pipe_equals_per_doc_calls(tmp_path):
    path = tmp_path / "terms.jsonl"
    srsly.write_jsonl(path, RECORDS)
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "pii_gazetteer",
        config={
            "gazetteer": str(path),
            "use_default_stop_list": False,
            "deny_list": {"xyzzy": "MISC"},
        },
    )
    texts = [" ".join(random.Random(i).choice(TOKENS[:31]) for _ in range(20)) for i in range(30)]
    one_by_one = [nlp(text) for text in texts]
    piped = list(nlp.pipe(texts, batch_size=7))

    def spans(doc):
        return [(s.start, s.end, s.label_, str(s._.risk_explain)) for s in doc.spans["pii"]]

    assert [spans(d) for d in piped] == [spans(d) for d in one_by_one]
    assert sum(len(d.spans["pii"]) for d in piped) > 30


def test_threads_and_cache_resets_keep_results(matcher, monkeypatch):
    import threading

    from spacy_sanitize.detect.gazetteer import tokens as tokens_module

    docs = random_docs(60, seed=5)
    expected = matcher.find_in_docs(docs)
    fresh = GazetteerMatcher.from_bytes(matcher.to_bytes())
    monkeypatch.setattr(tokens_module, "ORTH_CACHE_MAX", 5)  # a reset at almost every call
    results: List[bool] = []

    def work(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(20):
            i = rng.randrange(len(docs) - 5)
            ok = fresh.find_in_docs(docs[i : i + 5]) == expected[i : i + 5]
            results.append(ok and fresh.find_in_doc(docs[i]) == expected[i])

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 80 and all(results)


def test_inconsistent_index_is_rebuilt(matcher, tmp_path):
    matcher.to_disk(tmp_path / "m")
    with np.load(tmp_path / "m" / "table.npz") as data:
        arrays = {name: data[name] for name in data.files}
    arrays["table_values"] = arrays["table_values"][:-1]  # not the table's size any more
    np.savez(tmp_path / "m" / "table.npz", **arrays)
    with pytest.warns(UserWarning, match="W201"):
        loaded = GazetteerMatcher.from_disk(tmp_path / "m")
    docs = random_docs(30, seed=6)
    assert loaded.find_in_docs(docs) == matcher.find_in_docs(docs)
    empty = GazetteerMatcher.from_bytes(GazetteerMatcher().to_bytes())
    assert len(empty) == 0 and empty.find_in_docs(docs) == [[] for _ in docs]
