"""Table-driven tests of the masker's strategies and options."""
from typing import List, Tuple

import pytest
import spacy
from spacy.tokens import Doc

import spacy_sanitize  # noqa: F401
from spacy_sanitize.masker import build_operators, build_strategy
from spacy_sanitize.masker.strategies.dates import find_dates, shift_dates
from spacy_sanitize.masker.strategies.generalize import (
    bucket,
    generalize_date,
    generalize_place,
    generalize_quantity,
)

SECRET = "test-secret"


def make_doc(nlp, text: str, spans: List[Tuple[str, str, str]]) -> Doc:
    """spans: (substring, label, entity_id); every occurrence-free first match is used."""
    doc = nlp.make_doc(text)
    out = []
    for sub, label, eid in spans:
        start = text.index(sub)
        span = doc.char_span(start, start + len(sub), label=label, alignment_mode="expand")
        span._.entity_id = eid
        out.append(span)
    doc.spans["pii"] = out
    return doc


def run(text, spans, strategy, secret=SECRET, **cfg):
    nlp = spacy.blank("en")
    masker = nlp.add_pipe("masker", config={"strategy": strategy, **cfg})
    masker.set_secret(secret)
    return masker(make_doc(nlp, text, spans))


TEXT = "Maya Kodnani met Raj Patel in Paris. Kodnani left."
SPANS = [("Maya Kodnani", "PERSON", "e1"), ("Raj Patel", "PERSON", "e2"), ("Paris", "LOC", "e3")]


@pytest.mark.parametrize(
    "strategy,expected",
    [
        ({"@strategies": "spacy_sanitize.redact.v1"}, "*** met *** in ***. *** left."),
        ({"@strategies": "spacy_sanitize.redact.v1", "marker": "#", "preserve_length": True}, "############ met ######### in #####. ####### left."),
        ({"@strategies": "spacy_sanitize.typed.v1"}, "[PERSON] met [PERSON] in [LOC]. [PERSON] left."),
        ({"@strategies": "spacy_sanitize.typed.v1", "template": "<{label}>"}, "<PERSON> met <PERSON> in <LOC>. <PERSON> left."),
        ({"@strategies": "spacy_sanitize.numbered.v1"}, "[PERSON 1] met [PERSON 2] in [LOC 1]. [PERSON 1] left."),
        ({"@strategies": "spacy_sanitize.generalize.v1"}, "[PERSON 1] met [PERSON 2] in [France]. [PERSON 1] left."),
    ],
)
def test_strategy_outputs(strategy, expected):
    assert run(TEXT, SPANS, strategy)._.sanitized == expected


@pytest.mark.parametrize(
    "name,params",
    [
        ("redact.v1", {"marker": ""}),
        ("typed.v1", {"template": "[X]"}),
        ("numbered.v1", {"template": "[{label}]"}),
        ("generalize.v1", {"date_granularity": "week"}),
        ("surrogate.v1", {"min_shift_days": 0}),
        ("surrogate.v1", {"secret": "in-config"}),
        ("redact.v1", {"colour": "black"}),
        ("custom.v1", {"function": "no.such.function.v1"}),
        ("nonexistent", {}),
    ],
)
def test_invalid_parameters_are_coded_errors(name, params):
    with pytest.raises(ValueError, match=r"E1\d\d"):
        build_strategy({"@strategies": name, **params})


def test_operator_map_with_default():
    doc = run(TEXT, SPANS, {"@strategies": "spacy_sanitize.typed.v1"}, operators={"PERSON": {"@strategies": "spacy_sanitize.numbered.v1"}, "DEFAULT": {"@strategies": "spacy_sanitize.redact.v1"}})
    assert doc._.sanitized == "[PERSON 1] met [PERSON 2] in ***. [PERSON 1] left."


def test_numbered_across_docs():
    nlp = spacy.blank("en")
    masker = nlp.add_pipe("masker", config={"strategy": {"@strategies": "spacy_sanitize.numbered.v1", "across_docs": True}})
    first = masker(make_doc(nlp, "Ann Lee met Bob Ray.", [("Ann Lee", "PERSON", "e1"), ("Bob Ray", "PERSON", "e2")]))
    second = masker(make_doc(nlp, "Bob Ray called.", [("Bob Ray", "PERSON", "e1")]))
    assert first._.sanitized == "[PERSON 1] met [PERSON 2]."
    assert second._.sanitized == "[PERSON 2] called."


@pytest.mark.parametrize(
    "spec,operators,expected",
    [
        ("surrogate", "PERSON=numbered,DATETIME=generalize,DEFAULT=redact",
         ({"@strategies": "spacy_sanitize.surrogate.v1"}, {"PERSON": {"@strategies": "spacy_sanitize.numbered.v1"}, "DATETIME": {"@strategies": "spacy_sanitize.generalize.v1"}, "DEFAULT": {"@strategies": "spacy_sanitize.redact.v1"}})),
        ('{"name": "redact", "marker": "[X]"}', None, ({"@strategies": "spacy_sanitize.redact.v1", "marker": "[X]"}, {})),
        ("typed.v1", '{"LOC": {"name": "generalize", "date_granularity": "year"}, "ORG": "redact"}',
         ({"@strategies": "spacy_sanitize.typed.v1"}, {"LOC": {"@strategies": "spacy_sanitize.generalize.v1", "date_granularity": "year"}, "ORG": {"@strategies": "spacy_sanitize.redact.v1"}})),
    ],
)
def test_build_operators(spec, operators, expected):
    assert build_operators(spec, operators) == expected


@pytest.mark.parametrize("spec,operators", [("surrogate", "PERSONS=numbered"), ("surrogate", "PERSON"), ("nope", None), ("typed", "{bad json"), ("redact", "PERSON=nope")])
def test_build_operators_errors(spec, operators):
    with pytest.raises(ValueError, match=r"E1\d\d"):
        build_operators(spec, operators)


# surrogate -------------------------------------------------------------------------------

def test_surrogate_consistent_reproducible_and_keyed():
    text = "Dr. Maya Kodnani met Raj Patel. Kodnani was born on 30 June 1990 and left on 2 July 1995. Code AB-1234."
    spans = SPANS[:2] + [("30 June 1990", "DATETIME", "d1"), ("2 July 1995", "DATETIME", "d2"), ("AB-1234", "CODE", "c1")]
    spans = [("Maya Kodnani", "PERSON", "e1"), ("Raj Patel", "PERSON", "e2")] + spans[2:]
    a = run(text, spans, {"@strategies": "spacy_sanitize.surrogate.v1"})
    b = run(text, spans, {"@strategies": "spacy_sanitize.surrogate.v1"})
    c = run(text, spans, {"@strategies": "spacy_sanitize.surrogate.v1"}, secret="another-secret")
    assert a._.sanitized == b._.sanitized
    assert a._.sanitized != c._.sanitized
    rows = {row[0]: row[4] for row in a._.replacements}
    full, alone = rows[text.index("Maya")], rows[text.index("Kodnani was")]
    assert full.split()[-1] == alone  # the surname surrogate agrees across mentions
    assert "Dr." in a._.sanitized and "Kodnani" not in a._.sanitized and "Maya" not in a._.sanitized
    code = rows[text.index("AB-1234")]
    assert code != "AB-1234" and len(code) == 7 and code[2] == "-" and code[:2].isupper() and code[3:].isdigit()
    d1, d2 = find_dates(rows[text.index("30 June")])[0], find_dates(rows[text.index("2 July")])[0]
    import datetime as dt
    def date(m):
        g = m.match
        return dt.datetime.strptime(f"{g.group('d')} {g.group('m')} {g.group('y')}", "%d %B %Y").date()
    assert (date(d2) - date(d1)).days == (dt.date(1995, 7, 2) - dt.date(1990, 6, 30)).days


@pytest.mark.parametrize(
    "text,label,check",
    [
        ("Sir John Smith", "PERSON", lambda out: out.startswith("Sir ") and len(out.split()) == 3 and "John" not in out and "Smith" not in out),
        ("J. R. Tolkien", "PERSON", lambda out: out.count(".") == 2 and "Tolkien" not in out),
        ("Smith-Jones", "PERSON", lambda out: "-" in out and "Smith" not in out),
        ("Kodnani's", "PERSON", lambda out: out.endswith("'s") and "Kodnani" not in out),
        ("Germany", "LOC", lambda out: out != "Germany" and out[0].isupper()),
        ("+47 912 34 567", "CODE", lambda out: len(out) == 14 and out[:4] == "+" + out[1:3] + " " and out != "+47 912 34 567"),
        ("$145 million", "QUANTITY", lambda out: out.startswith("$") and out.endswith(" million") and "145" not in out),
        ("five", "QUANTITY", lambda out: out != "five" and out.isalpha()),
        ("Harvard University", "ORG", lambda out: "University" in out or "College" in out or "Institute" in out),
        ("American", "DEM", lambda out: out != "American" and out[0].isupper()),
    ],
)
def test_surrogate_shapes(text, label, check):
    doc = run(f"X {text} Y", [(text, label, "e1")], {"@strategies": "spacy_sanitize.surrogate.v1"}, propagate=False)
    out = doc._.replacements[0][4]
    assert check(out), out


def test_surrogate_without_secret_warns(monkeypatch):
    monkeypatch.delenv("SPACY_SANITIZE_SECRET", raising=False)
    with pytest.warns(UserWarning, match="W100"):
        doc = run(TEXT, SPANS, {"@strategies": "spacy_sanitize.surrogate.v1"}, secret=None)
    assert "Kodnani" not in doc._.sanitized


def test_surrogate_secret_from_env(monkeypatch):
    monkeypatch.setenv("SPACY_SANITIZE_SECRET", SECRET)
    assert run(TEXT, SPANS, {"@strategies": "spacy_sanitize.surrogate.v1"}, secret=None)._.sanitized == run(TEXT, SPANS, {"@strategies": "spacy_sanitize.surrogate.v1"})._.sanitized


# dates and generalization ----------------------------------------------------------------

@pytest.mark.parametrize(
    "text,days,expected",
    [
        ("30 June 1990", 3, "3 July 1990"),
        ("November 14, 1932", -14, "October 31, 1932"),
        ("June 1990", 400, "July 1991"),
        ("1932", 400, "1933"),
        ("the 1990s", 400, "the 2000s"),
        ("2012-03-04", 1, "2012-03-05"),
        ("Monday", 2, "Wednesday"),
        ("the 15th of May", 2, "the 17th of May"),
        ("Sept. 3, 2001", 30, "Oct. 3, 2001"),
    ],
)
def test_shift_dates(text, days, expected):
    assert shift_dates(text, days, lambda s: "#" * len(s)) == expected


@pytest.mark.parametrize(
    "text,granularity,expected",
    [
        ("30 June 1990", "decade", "the 1990s"),
        ("30 June 1990", "year", "1990"),
        ("1932", "year", "the 1930s"),
        ("the 1970s", "decade", "the 20th century"),
        ("258", "decade", "the 3rd century"),
        ("noon", "decade", "a time of day"),
    ],
)
def test_generalize_dates(text, granularity, expected):
    assert generalize_date(text, granularity) == expected


@pytest.mark.parametrize(
    "text,context,expected",
    [
        ("$145 million", "", "$100-200 million"),
        ("67.1", "", "50-100"),
        ("five", "", "5-10"),
        ("45", "at the age of", "40-49"),
        ("45 years old", "", "40-49 years old"),
        ("$100–130 million", "", "$100-200 million"),
        ("12th", "", "an ordinal"),
        ("0.5", "", "less than 1"),
    ],
)
def test_generalize_quantities(text, context, expected):
    assert generalize_quantity(text, context) == expected


@pytest.mark.parametrize(
    "text,expected",
    [("Turkey", "a country in Western Asia"), ("the United States", "a country in North America"), ("Gujarat", "India"),
     ("Michigan", "United States"), ("Paris", "France"), ("Europe", "a region"), ("Naroda", "a place")],
)
def test_generalize_places(text, expected):
    assert generalize_place(text) == expected


def test_bucket_boundaries():
    assert [bucket(v) for v in (1, 1.99, 2, 4.9, 5, 9.99, 10, 999)] == ["1-2", "1-2", "2-5", "2-5", "5-10", "5-10", "10-20", "500-1000"]


@pytest.mark.parametrize(
    "text,label,expected",
    [("Government of Gujarat", "ORG", "[government]"), ("Harvard University", "ORG", "[university]"), ("Acme Widgets", "ORG", "[organisation]"),
     ("actress", "DEM", "[performer]"), ("Israeli", "DEM", "[Western Asian]"), ("Nobel Prize in Physics", "MISC", "[award]")],
)
def test_generalize_classes(text, label, expected):
    doc = run(f"X {text} Y", [(text, label, "e1")], {"@strategies": "spacy_sanitize.generalize.v1"}, propagate=False)
    assert doc._.replacements[0][4] == expected


def test_custom_strategy():
    from spacy.util import registry

    @registry.misc("test_masker.initials.v1")
    def initials(text, label, entity_id, suffix=""):
        return "".join(w[0] for w in text.split()) + suffix

    doc = run(TEXT, SPANS, {"@strategies": "spacy_sanitize.custom.v1", "function": "test_masker.initials.v1", "params": {"suffix": "."}})
    # the propagated surname is a mention of e1 with its own text
    assert doc._.sanitized == "MK. met RP. in P.. K. left."


def test_generalization_benchmark_on_wiki(wiki_path):
    """The benchmark runs on the annotated biographies and every mention is replaced."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "quality" / "generalization_match.py"
    spec = importlib.util.spec_from_file_location("generalization_match", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.run(wiki_path)
    table = result["table"]
    assert {"PERSON", "DATETIME", "ALL"} <= set(table)
    assert table["ALL"]["n"] == sum(row["n"] for label, row in table.items() if label != "ALL")
    assert 0 <= table["ALL"]["exact"] <= table["ALL"]["equivalent"] <= table["ALL"]["equivalent_offered"] <= 1
    assert module.equivalent("QUANTITY", "[$100-200 million]", "$X million")
    assert not module.equivalent("DATETIME", "[the 1990s]", "date in the 1980s")


# strategies as a config registry ------------------------------------------------------------

CONFIG = """
[nlp]
lang = "en"
pipeline = ["masker"]

[components]

[components.masker]
factory = "masker"

[components.masker.strategy]
@strategies = "spacy_sanitize.redact.v1"
marker = "[X]"

[components.masker.operators]

[components.masker.operators.PERSON]
@strategies = "spacy_sanitize.numbered.v1"
template = "<{label}-{n}>"
"""


def _nlp_from_config(text=CONFIG):
    from spacy.util import load_model_from_config
    from thinc.api import Config

    return load_model_from_config(Config().from_str(text), auto_fill=True)


def test_strategies_resolve_from_config_blocks(tmp_path):
    nlp = _nlp_from_config()
    masker = nlp.get_pipe("masker")
    doc = masker(make_doc(nlp, TEXT, SPANS))
    assert doc._.sanitized == "<PERSON-1> met <PERSON-2> in [X]. <PERSON-1> left."
    assert doc._.privacy["labels"]["PERSON"]["strategy"] == "spacy_sanitize.numbered.v1"
    # the blocks survive nlp.to_disk / spacy.load: the config holds them, not the component's files
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    assert loaded.config["components"]["masker"]["operators"]["PERSON"]["@strategies"] == "spacy_sanitize.numbered.v1"
    assert loaded.get_pipe("masker")(make_doc(loaded, TEXT, SPANS))._.sanitized == doc._.sanitized


def test_strategy_registry_is_spacys():
    from spacy.util import registry

    from spacy_sanitize.masker.strategies import Strategy

    class Upper(Strategy):
        def replace(self, mention, state):
            return mention.label.lower()

    @registry.strategies("test_masker.lower_label.v1")
    def make_lower():
        return Upper()

    doc = run(TEXT, SPANS, {"@strategies": "test_masker.lower_label.v1"})
    assert doc._.sanitized == "person met person in loc. person left."


@pytest.mark.parametrize(
    "strategy,message",
    [
        ({"@strategies": "spacy_sanitize.nope.v1"}, r"(?s)spacy_sanitize.nope.v1.*Available names: .*spacy_sanitize.typed.v1"),
        ({"@strategies": "spacy_sanitize.redact.v1", "colour": "black"}, "colour"),
        # the old form: the default block is merged in, and 'name' is an unknown argument
        ({"name": "surrogate.v1"}, "name"),
    ],
)
def test_bad_strategy_config_is_a_clear_error(strategy, message):
    nlp = spacy.blank("en")
    with pytest.raises(Exception, match=message):
        nlp.add_pipe("masker", config={"strategy": strategy})


def test_old_form_given_to_the_python_api_shows_the_new_form():
    from spacy_sanitize.masker.component import Masker

    with pytest.raises(ValueError, match=r"E113.*'@strategies': 'spacy_sanitize.surrogate.v1', 'seed': 3"):
        Masker("masker", {"name": "surrogate", "seed": 3}, {})
    masker = Masker("masker", {"@strategies": "spacy_sanitize.redact.v1"}, {"PERSON": {"@strategies": "numbered"}})
    assert masker.strategy("PERSON")[0] == "spacy_sanitize.numbered.v1" and masker.strategy("LOC")[0] == "spacy_sanitize.redact.v1"


def test_shipped_configs_name_strategies_the_spacy_way():
    from spacy_sanitize.pipeline import config_path, shipped_configs

    for name in shipped_configs():
        text = config_path(name).read_text()
        assert '[components.masker.strategy]\n@strategies = "spacy_sanitize.typed.v1"' in text, name


@pytest.mark.parametrize("doc_file", ["docs/masking.md", "README.md"])
def test_docs_config_example_resolves(doc_file):
    import re
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[1] / doc_file).read_text(encoding="utf8")
    block = re.search(r"```ini\n(.*?)```", docs, re.S).group(1)
    head = '[nlp]\nlang = "en"\npipeline = ["masker"]\n\n[components]\n\n[components.masker]\nfactory = "masker"\n\n'
    masker = _nlp_from_config(head + block).get_pipe("masker")
    assert masker.strategy("PERSON")[0] == "spacy_sanitize.numbered.v1"
    if doc_file == "docs/masking.md":
        assert masker.strategy("LOC")[0] == "spacy_sanitize.redact.v1" and masker.default.marker == "[X]"


def test_an_unused_strategy_is_named():
    """--strategy surrogate with a DEFAULT operator: the strategy never runs, and W107 says so."""
    import warnings as _warnings

    from spacy_sanitize.masker.options import build_operators

    with pytest.warns(UserWarning, match="W107.*surrogate.*DEFAULT=spacy_sanitize.redact.v1"):
        build_operators("surrogate", "PERSON=numbered,DEFAULT=redact", strategy_given=True)
    with _warnings.catch_warnings():
        _warnings.simplefilter("error")
        build_operators("surrogate", "PERSON=numbered", strategy_given=True)
        build_operators("spacy_sanitize.typed.v1", "DEFAULT=redact")  # the strategy was not chosen
