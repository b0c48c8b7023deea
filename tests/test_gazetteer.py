"""pii_gazetteer: matching semantics, noise control, serialization, shipped data."""

import warnings
from pathlib import Path

import pytest
import spacy
import srsly
from spacy.tokens import Span

import spacy_sanitize  # noqa: F401  (registers the factories)
from spacy_sanitize.detect.gazetteer import GazetteerMatcher
from spacy_sanitize.detect.gazetteer.component import load_gazetteer, shipped_gazetteer_path
from spacy_sanitize.detect.gazetteer.normalize import normalize, split_words, term_keys

RECORDS = [
    {"term": "actress", "label": "DEM", "property": "P106", "qid": "Q33999", "count": 50},
    {"term": "film actress", "label": "DEM", "property": "P106", "qid": "Q10800557", "count": 20},
    {
        "term": "Minister of State for Women and Child Development",
        "label": "DEM",
        "property": "P39",
    },
    {"term": "Minister of State", "label": "DEM", "property": "P39"},
    {"term": "co-founder", "label": "DEM", "property": "P39"},
    {"term": "U.S. senator", "label": "DEM", "property": "P39"},
    {"term": "Teachta Dála", "label": "DEM", "property": "P39"},
    {"term": "American", "label": "DEM", "property": "P27"},
    {"term": "Academy Award", "label": "MISC", "property": "P166"},
    {"term": "head", "label": "MISC", "property": "P2"},
    {"term": "murder", "label": "MISC", "property": "P1399", "count": 3},
    {"term": "Will & Grace", "label": "MISC", "property": "P800"},
]


@pytest.fixture
def gazetteer_file(tmp_path: Path) -> Path:
    path = tmp_path / "terms.jsonl"
    srsly.write_jsonl(path, RECORDS)
    return path


@pytest.fixture
def nlp(gazetteer_file: Path):
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "pii_gazetteer", config={"gazetteer": str(gazetteer_file), "use_default_stop_list": False}
    )
    return nlp


def spans(doc, key="pii"):
    return [(span.text, span.label_) for span in doc.spans[key]]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Actresses", "actress  "),
        ("cities", "city  "),
        ("Chairmen", "chairman"),
        ("Société", "societe"),
        ("boss", "boss"),
    ],
)
def test_normalize_keeps_length_and_folds(text, expected):
    assert normalize(text) == expected
    assert len(normalize(text)) == len(text)


@pytest.mark.parametrize(
    "term,words",
    [
        ("U.S. Senator", ["us", "senator"]),
        ("co-founder", ["co", "founder"]),
        ("Women's Prize", ["woman", "s", "prize"]),
        ("Will & Grace", ["will", "&", "grace"]),
        ("Teachta Dála", ["teachta", "dala"]),
    ],
)
def test_split_words(term, words):
    assert split_words(term) == words


def test_variants_cover_solid_hyphen_and_undotted_abbreviations():
    assert set(term_keys("co-founder")) == {"co founder", "cofounder"}
    assert set(term_keys("U.S. senator")) == {"us senator"}


@pytest.mark.parametrize(
    "text,expected",
    [
        # case, plural, longest match wins over the nested "actress"
        ("The FILM ACTRESSES arrived.", [("FILM ACTRESSES", "DEM")]),
        # the longest of two nested positions
        (
            "She was Minister of State for Women and Child Development.",
            [("Minister of State for Women and Child Development", "DEM")],
        ),
        ("She was Minister of State.", [("Minister of State", "DEM")]),
        # hyphen / space / solid variants
        (
            "a co founder and a cofounder and a co-founder",
            [("co founder", "DEM"), ("cofounder", "DEM"), ("co-founder", "DEM")],
        ),
        # diacritics and dotted abbreviations
        (
            "elected Teachta Dala, later US Senator",
            [("Teachta Dala", "DEM"), ("US Senator", "DEM")],
        ),
        # punctuation inside a term must match; punctuation between words is a barrier
        ("starred in Will & Grace", [("Will & Grace", "MISC")]),
        ("film, actress", [("actress", "DEM")]),
        # never inside a word
        ("the actressy look", []),
        # tokens with two words ("n't", "O'Neill") take the general token mapping
        ("O'Neill isn't a film actress", [("film actress", "DEM")]),
    ],
)
def test_matching_semantics(nlp, text, expected):
    assert spans(nlp(text)) == expected


def test_existing_longer_span_is_never_split(nlp):
    doc = nlp.make_doc("He won the Academy Award for Best Actress in a film actress role")
    doc.spans["pii"] = [Span(doc, 2, 8, label="MISC")]  # "the Academy Award for Best Actress"
    doc = nlp.get_pipe("pii_gazetteer")(doc)
    assert spans(doc) == [("the Academy Award for Best Actress", "MISC"), ("film actress", "DEM")]


def test_longer_gazetteer_match_replaces_shorter_existing_span(nlp):
    doc = nlp.make_doc("a film actress")
    doc.spans["pii"] = [Span(doc, 2, 3, label="PERSON")]
    doc = nlp.get_pipe("pii_gazetteer")(doc)
    assert spans(doc) == [("film actress", "DEM")]


def test_risk_explain_records_the_source(nlp):
    doc = nlp("an American film actress")
    explain = {span.text: span._.risk_explain for span in doc.spans["pii"]}
    assert explain["film actress"]["detector"] == "pii_gazetteer:P106"
    assert explain["film actress"]["pii_gazetteer"] == {
        "term": "film actress",
        "property": "P106",
        "qid": "Q10800557",
        "count": 20,
    }


def test_equal_length_existing_span_keeps_its_explanation(nlp):
    doc = nlp.make_doc("an American")
    span = Span(doc, 1, 2, label="DEM")
    span._.risk_explain["detector"] = "pii_ent_mapper:NORP"
    doc.spans["pii"] = [span]
    doc = nlp.get_pipe("pii_gazetteer")(doc)
    assert doc.spans["pii"][0]._.risk_explain == {"detector": "pii_ent_mapper:NORP"}


def test_frequency_filter_and_capitalization(nlp):
    # "head" (Zipf ~5.5) is too common; "American" passes only when capitalized mid-sentence.
    assert spans(nlp("the head of the american team")) == []
    assert spans(nlp("the head of the American team")) == [("American", "DEM")]
    assert spans(nlp("American teams")) == []  # sentence-initial capital is no evidence


def test_filters_per_label_and_property(gazetteer_file):
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "pii_gazetteer",
        config={
            "gazetteer": str(gazetteer_file),
            "use_default_stop_list": False,
            "filters": {
                "all": {"max_zipf": 5.0},
                "MISC": {"max_zipf": 6.0},
                "P27": {"max_zipf": 7.0},
                "P1399": {"min_count": 5},
            },
        },
    )
    assert spans(nlp("the head of the american team")) == [("head", "MISC"), ("american", "DEM")]
    assert spans(nlp("a murder")) == []  # count 3 < min_count 5


def test_unknown_filter_setting_is_an_error(gazetteer_file):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="E204"):
        nlp.add_pipe(
            "pii_gazetteer",
            config={"gazetteer": str(gazetteer_file), "filters": {"DEM": {"max_zip": 3}}},
        )


def test_stop_allow_and_deny_lists(gazetteer_file):
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "pii_gazetteer",
        config={
            "gazetteer": str(gazetteer_file),
            "use_default_stop_list": False,
            "stop_terms": ["actress"],
            "allow_list": ["Academy Award"],
            "deny_list": {"head": "MISC", "beekeeper": "DEM"},
        },
    )
    doc = nlp("The actress and beekeeper won an Academy Award; head")
    assert spans(doc) == [("beekeeper", "DEM"), ("head", "MISC")]
    assert doc.spans["pii"][0]._.risk_explain["pii_gazetteer"]["property"] == "deny_list"


def test_the_deny_list_label_wins_over_the_gazetteer_label():
    """A term the gazetteer lists under one label and the deny list under another gets the
    deny list's label and explanation."""
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_gazetteer", config={"deny_list": {"surgeon": "MISC"}})
    doc = nlp("She was a surgeon.")
    assert spans(doc) == [("surgeon", "MISC")]
    assert doc.spans["pii"][0]._.risk_explain["pii_gazetteer"]["property"] == "deny_list"


def test_shipped_stop_list_is_used():
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "pii_gazetteer", config={"filters": {"all": {"max_zipf": 8.0, "max_zipf_capitalized": 8.0}}}
    )
    assert "head" not in [text for text, _ in spans(nlp("The head of the film"))]


def test_labels_restrict_the_output(gazetteer_file):
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_gazetteer", config={"gazetteer": str(gazetteer_file), "labels": ["MISC"]})
    assert spans(nlp("an actress in Will & Grace")) == [("Will & Grace", "MISC")]


def test_relabel_exact_existing_span(nlp, gazetteer_file):
    nlp2 = spacy.blank("en")
    nlp2.add_pipe("pii_gazetteer", config={"gazetteer": str(gazetteer_file), "relabel": ["ORG"]})
    doc = nlp2.make_doc("won the Academy Award")
    doc.spans["pii"] = [Span(doc, 2, 4, label="ORG")]
    assert spans(nlp2.get_pipe("pii_gazetteer")(doc)) == [("Academy Award", "MISC")]
    doc = nlp.make_doc("won the Academy Award")
    doc.spans["pii"] = [Span(doc, 2, 4, label="ORG")]
    assert spans(nlp.get_pipe("pii_gazetteer")(doc)) == [("Academy Award", "ORG")]


def test_missing_gazetteer_is_a_clear_error(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_gazetteer", config={"gazetteer": str(tmp_path / "nope.jsonl")})
    with pytest.raises(FileNotFoundError, match="E200"):
        nlp("text")


def test_matcher_find_on_plain_text():
    matcher = GazetteerMatcher.build(RECORDS)
    text = "An American film actress."
    found = sorted((text[s:e], matcher.term(entry)) for s, e, entry in matcher.find(text))
    assert found == [
        ("American", "American"),
        ("actress", "actress"),
        ("film actress", "film actress"),
    ]
    assert matcher.lookup("Film Actresses") == matcher.lookup("film actress") is not None
    assert matcher.lookup("unknown thing") is None


def test_duplicate_key_keeps_highest_count():
    matcher = GazetteerMatcher.build(
        [
            {"term": "Actor", "label": "MISC", "count": 1},
            {"term": "actors", "label": "DEM", "count": 9},
        ]
    )
    assert matcher.record(matcher.lookup("actor"))["label"] == "DEM"


def test_unknown_label_is_an_error():
    with pytest.raises(ValueError, match="E202"):
        GazetteerMatcher.build([{"term": "x", "label": "NOPE"}])


def test_matcher_round_trips(tmp_path):
    matcher = GazetteerMatcher.build(RECORDS)
    matcher.to_disk(tmp_path / "m")
    for loaded in (
        GazetteerMatcher.from_disk(tmp_path / "m"),
        GazetteerMatcher.from_bytes(matcher.to_bytes()),
    ):
        assert list(loaded.records()) == list(matcher.records())
        assert sorted(loaded.find("a film actress")) == sorted(matcher.find("a film actress"))


def test_matcher_rebuilds_a_foreign_index(tmp_path):
    matcher = GazetteerMatcher.build(RECORDS)
    matcher.to_disk(tmp_path / "m")
    meta = srsly.read_json(tmp_path / "m" / "meta.json")
    meta["index"] = "another-layout"
    srsly.write_json(tmp_path / "m" / "meta.json", meta)
    with pytest.warns(UserWarning, match="W201"):
        loaded = GazetteerMatcher.from_disk(tmp_path / "m")
    assert sorted(loaded.find("a film actress")) == sorted(matcher.find("a film actress"))


def test_pipeline_round_trip(nlp, gazetteer_file, tmp_path):
    text = "An American film actress starred in Will & Grace."
    expected = spans(nlp(text))
    nlp.to_disk(tmp_path / "pipeline")
    gazetteer_file.unlink()  # the saved matcher is used, not the source file
    loaded = spacy.load(tmp_path / "pipeline")
    assert spans(loaded(text)) == expected
    clone = spacy.blank("en")
    clone.add_pipe("pii_gazetteer", config={"gazetteer": str(gazetteer_file), "use_default_stop_list": False})
    clone.get_pipe("pii_gazetteer").from_bytes(nlp.get_pipe("pii_gazetteer").to_bytes())
    assert spans(clone(text)) == expected


def test_shipped_gazetteer_loads_offline_and_is_small():
    assert shipped_gazetteer_path().exists()
    assert shipped_gazetteer_path().stat().st_size < 3_000_000
    matcher = load_gazetteer(None)
    assert len(matcher) > 2000
    assert {"DEM", "MISC"} <= set(matcher.labels)
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_gazetteer")
    doc = nlp("She is a Canadian politician and former Minister of Health who died of lung cancer.")
    found = spans(doc)
    assert ("politician", "DEM") in found
    assert ("Minister of Health", "DEM") in found
    assert ("lung cancer", "DEM") in found


@pytest.mark.parametrize("pipeline", ["default", "ensemble"])
def test_shipped_pipelines_have_the_gazetteer_before_coref(pipeline):
    from spacy_sanitize import load_pipeline

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nlp = load_pipeline(pipeline)
    names = nlp.pipe_names
    assert names.index("pii_gazetteer") < names.index("pii_ner") < names.index("pii_coref")
    if "pii_ent_mapper" in names:
        assert names.index("pii_ent_mapper") < names.index("pii_gazetteer")
    doc = nlp("Anna Berg is a Swedish footballer and politician.")
    labels = {span.text: span.label_ for span in doc.spans["pii"]}
    assert labels.get("footballer") == "DEM" and labels.get("politician") == "DEM"
    assert all(span._.entity_id for span in doc.spans["pii"])


def test_fresh_component_is_safe_from_several_threads():
    import threading

    import spacy

    def work(comp, nlp, barrier, errors, results):
        barrier.wait()
        try:
            doc = comp(nlp.make_doc("She is a Catholic priest and a physicist , foo bar ."))
            results.append(sorted((s.text, s.label_) for s in doc.spans["pii"]))
        except Exception as err:  # any error fails the test below
            errors.append(repr(err))

    for _ in range(20):
        nlp = spacy.blank("en")
        comp = nlp.add_pipe("pii_gazetteer", config={"allow_list": ["physicist"], "deny_list": {"foo bar": "MISC"}})
        assert comp.matcher is not None  # loaded; the per-component set-up (stop list, deny matcher) still lazy
        barrier = threading.Barrier(4)
        errors, results = [], []
        threads = [threading.Thread(target=work, args=(comp, nlp, barrier, errors, results)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert len(results) == 4 and all(r == results[0] for r in results) and ("foo bar", "MISC") in results[0]


def test_decomposed_accents_match_like_precomposed():
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("pii_gazetteer")
    found = []
    for text in ["He is Me\u0301tis and Catho\u0301lic .", "He is M\u00e9tis and Cath\u00f3lic ."]:
        doc = nlp(text)
        found.append([(s.start, s.end, s.label_) for s in doc.spans["pii"]])
    assert found[0] == found[1] and len(found[0]) == 2


def test_no_match_across_any_line_break():
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("pii_gazetteer")
    for sep, expected in [("   ", 1), ("\n", 0), ("\r", 0), ("\u2028", 0), ("\x0c", 0)]:
        doc = nlp(f"He won the Nobel {sep} Prize .")
        assert len(doc.spans["pii"]) == expected, repr(sep)
