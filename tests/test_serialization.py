"""Saved pipelines: components write only what they learned; settings come from config.cfg,
so an override given at load time wins. Per component: the override wins, the learned value
survives the round trip, ``exclude`` leaves it out."""
import numpy as np
import pytest
import spacy
from spacy.tokens import Span
from spacy.training import Example

from spacy_sanitize.cli import main
from spacy_sanitize.run.options import masker_overrides
from spacy_sanitize.pipeline import load_pipeline
from spacy_sanitize.decide.infer.attacker import LinearAttacker

CODES = "Mail anna@example.org or call 555-123-4567."


def masker_nlp(**config):
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_codes")
    nlp.add_pipe("masker", config=config)
    return nlp


def fit_p(nlp):
    """initialize the masker with gold masks: it learns p = 0.5 (one of two gold spans replaced)."""
    text = "Anna lives in Oslo."
    ref = nlp.make_doc(text)
    ref.spans["mask"] = [ref.char_span(0, 4, "DIRECT"), ref.char_span(14, 18, "QUASI")]
    pred = nlp.make_doc(text)
    pred.spans["pii"] = [pred.char_span(14, 18, "LOC")]
    nlp.get_pipe("masker").initialize(lambda: [Example(pred, ref)], gold_key="mask")
    assert nlp.get_pipe("masker").learned_p == 0.5


# --- masker ---------------------------------------------------------------------------------


def test_cli_strategy_overrides_a_saved_pipeline(tmp_path, capsys):
    """The reported bug: --strategy redact on a saved pipeline still typed the spans."""
    masker_nlp().to_disk(tmp_path / "pipe")
    source, out = tmp_path / "note.txt", tmp_path / "out.txt"
    source.write_text(CODES)
    assert main(["sanitize", str(source), "-o", str(out), "-q", "--pipeline", str(tmp_path / "pipe")]) == 0
    assert out.read_text() == "Mail [CODE] or call [CODE]."
    argv = ["sanitize", str(source), "-o", str(out), "-q", "--pipeline", str(tmp_path / "pipe"), "--strategy", "redact"]
    assert main(argv) == 0
    assert out.read_text() == "Mail *** or call ***."


def test_load_pipeline_applies_masker_overrides_to_a_directory(tmp_path):
    masker_nlp(strategy={"@strategies": "spacy_sanitize.numbered.v1"}, allow_list=["x"]).to_disk(tmp_path / "pipe")
    loaded = load_pipeline(tmp_path / "pipe", masker_overrides("redact", "CODE=typed"))
    masker = loaded.get_pipe("masker")
    assert masker.strategy("LOC")[0] == "spacy_sanitize.redact.v1" and masker.strategy("CODE")[0] == "spacy_sanitize.typed.v1"
    assert masker.cfg["allow_list"] == ["x"]  # settings not overridden come from config.cfg
    assert loaded(CODES)._.sanitized == "Mail [CODE] or call [CODE]."
    assert load_pipeline(tmp_path / "pipe")(CODES)._.sanitized == "Mail [CODE 1] or call [CODE 2]."
    # the override replaces the saved strategy: it does not inherit its parameters (E101)
    masker_nlp(strategy={"@strategies": "spacy_sanitize.generalize.v1", "date_granularity": "year"}).to_disk(tmp_path / "gen")
    redacted = load_pipeline(tmp_path / "gen", masker_overrides("redact", None))
    assert redacted.get_pipe("masker").strategy("LOC")[0] == "spacy_sanitize.redact.v1"
    assert redacted.config["components"]["masker"]["strategy"] == {"@strategies": "spacy_sanitize.redact.v1", "marker": "***", "preserve_length": False}


def test_masker_learned_p_survives_and_a_configured_p_wins(tmp_path):
    nlp = masker_nlp()
    fit_p(nlp)
    nlp.get_pipe("masker").set_secret("never-written")
    nlp.to_disk(tmp_path / "pipe")
    assert not any(b"never-written" in f.read_bytes() for f in (tmp_path / "pipe").rglob("*") if f.is_file())
    loaded = spacy.load(tmp_path / "pipe")
    report = loaded(CODES)._.privacy
    assert report["p"] == 0.5 and "recall" in report["p_source"]
    overridden = spacy.load(tmp_path / "pipe", config={"components": {"masker": {"p": 0.8}}})
    report = overridden(CODES)._.privacy
    assert report["p"] == 0.8 and report["p_source"] == "set in the config"
    assert overridden.get_pipe("masker").learned_p == 0.5  # kept, not used
    excluded = spacy.load(tmp_path / "pipe", exclude=[]).get_pipe("masker")
    excluded.learned_p = None
    excluded.from_disk(tmp_path / "pipe" / "masker", exclude=["learned"])
    assert excluded.learned_p is None
    clone = masker_nlp().get_pipe("masker")
    clone.from_bytes(nlp.get_pipe("masker").to_bytes())
    assert clone.learned_p == 0.5 and clone._secret is None
    clone.learned_p = None
    clone.from_bytes(nlp.get_pipe("masker").to_bytes(exclude=["learned"]))
    assert clone.learned_p is None
    # initialize with a configured p: the estimate is kept, the configured p used, the user told
    configured = masker_nlp(p=0.9)
    with pytest.warns(UserWarning, match="W103"):
        fit_p(configured)
    assert configured(CODES)._.privacy["p"] == 0.9


# --- pii_gazetteer --------------------------------------------------------------------------


def gazetteer_nlp(path, **config):
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_gazetteer", config={"gazetteer": str(path), "use_default_stop_list": False, **config})
    return nlp


def labels(doc):
    return [(s.text, s.label_) for s in doc.spans["pii"]]


@pytest.fixture
def terms(tmp_path):
    import srsly

    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    srsly.write_jsonl(first, [{"term": "botanist", "label": "DEM"}, {"term": "zither", "label": "MISC"}])
    srsly.write_jsonl(second, [{"term": "glassblower", "label": "DEM"}])
    return first, second


TERMS_TEXT = "A botanist who played the zither met a glassblower."


def test_gazetteer_saved_matcher_settings_override_and_exclude(terms, tmp_path):
    first, second = terms
    nlp = gazetteer_nlp(first, labels=["DEM", "MISC"])
    assert labels(nlp(TERMS_TEXT)) == [("botanist", "DEM"), ("zither", "MISC")]
    nlp.to_disk(tmp_path / "pipe")
    first.unlink()  # the learned state (the compiled matcher) travels with the pipeline
    assert labels(spacy.load(tmp_path / "pipe")(TERMS_TEXT)) == [("botanist", "DEM"), ("zither", "MISC")]
    # a setting overridden at load time applies (the old cfg only held gazetteer, but the
    # saved one also won over an overridden gazetteer)
    only_dem = spacy.load(tmp_path / "pipe", config={"components": {"pii_gazetteer": {"labels": ["DEM"]}}})
    assert labels(only_dem(TERMS_TEXT)) == [("botanist", "DEM")]
    with pytest.warns(UserWarning, match="W202"):
        other = spacy.load(tmp_path / "pipe", config={"components": {"pii_gazetteer": {"gazetteer": str(second)}}})
    assert labels(other(TERMS_TEXT)) == [("glassblower", "DEM")]
    # exclude: the saved matcher is not read, the configured gazetteer loads on first use
    comp = gazetteer_nlp(second).get_pipe("pii_gazetteer")
    comp.from_disk(tmp_path / "pipe" / "pii_gazetteer", exclude=["matcher"])
    assert labels(comp(spacy.blank("en")(TERMS_TEXT))) == [("glassblower", "DEM")]
    assert "matcher" not in __import__("srsly").msgpack_loads(nlp.get_pipe("pii_gazetteer").to_bytes(exclude=["matcher"]))


# --- risk_infer -----------------------------------------------------------------------------


def attacker():
    vocab = {"kyoto": 0, "tokyo": 1}
    coef = np.array([[2.0, -1.0], [-1.0, 2.0]], dtype=np.float32)
    return LinearAttacker(["KYO", "TOK"], vocab, coef, np.zeros(2))


def infer_nlp(**config):
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_infer", config=config)
    nlp.get_pipe("risk_infer").attacker = attacker()
    return nlp


def test_risk_infer_fitted_threshold_attacker_override_and_exclude(tmp_path):
    nlp = infer_nlp(search="exact", max_removals=7)
    comp = nlp.get_pipe("risk_infer")
    assert comp.threshold == 0.37  # nothing fitted, nothing configured: seed 001's value
    comp.fitted_threshold = 0.8  # what initialize(threshold_path=...) learns
    assert comp.threshold == 0.8
    nlp.to_disk(tmp_path / "pipe")
    loaded = spacy.load(tmp_path / "pipe").get_pipe("risk_infer")
    assert (loaded.threshold, loaded.search, loaded.max_removals) == (0.8, "exact", 7)
    assert loaded.attacker.vocab == comp.attacker.vocab
    overrides = {"components": {"risk_infer": {"threshold": 0.6, "search": "beam", "max_removals": 3}}}
    overridden = spacy.load(tmp_path / "pipe", config=overrides).get_pipe("risk_infer")
    assert (overridden.threshold, overridden.search, overridden.max_removals) == (0.6, "beam", 3)
    assert overridden.fitted_threshold == 0.8
    fresh = infer_nlp().get_pipe("risk_infer")
    fresh.attacker = None
    fresh.from_disk(tmp_path / "pipe" / "risk_infer", exclude=["attacker"])
    assert fresh.attacker is None and fresh.threshold == 0.8
    fresh.from_bytes(comp.to_bytes(exclude=["learned"]))
    assert fresh.attacker is not None and fresh.threshold == 0.8
    fresh.fitted_threshold = None
    fresh.from_bytes(comp.to_bytes(exclude=["learned"]))
    assert fresh.threshold == 0.37


# --- risk_perturb ---------------------------------------------------------------------------

FREQUENCY = {"@misc": "spacy_sanitize.lm.frequency.v1"}


def test_risk_perturb_fitted_threshold_survives_and_settings_come_from_the_config(tmp_path):
    # The frequency scorer keeps it fast; every component built with it warns W450.
    with pytest.warns(UserWarning, match=r"\[W450\]"):
        nlp = spacy.blank("en")
        comp = nlp.add_pipe("risk_perturb", config={"scorer": FREQUENCY, "scale": 0.5})
        assert comp.threshold == 3.5
        comp.fitted_threshold, comp.meta = 1.25, {"objective": "paper", "n_docs": 2}
        nlp.to_disk(tmp_path / "pipe")
        loaded = spacy.load(tmp_path / "pipe").get_pipe("risk_perturb")
        assert (loaded.threshold, loaded.scale, loaded.meta) == (1.25, 0.5, comp.meta)
        overrides = {"components": {"risk_perturb": {"threshold": 2.0, "scale": 2.0}}}
        overridden = spacy.load(tmp_path / "pipe", config=overrides).get_pipe("risk_perturb")
        assert (overridden.threshold, overridden.scale, overridden.fitted_threshold) == (2.0, 2.0, 1.25)
        other = spacy.blank("en").add_pipe("risk_perturb", config={"scorer": FREQUENCY})
        other.from_bytes(comp.to_bytes(exclude=["learned"]))
        assert other.fitted_threshold is None and other.threshold == 3.5
        other.from_disk(tmp_path / "pipe" / "risk_perturb")
        assert other.threshold == 1.25 and other.scale == 1.0


def test_risk_perturb_configured_threshold_wins_over_fitting():
    nlp = spacy.blank("en")
    with pytest.warns(UserWarning, match=r"\[W450\]"):
        comp = nlp.add_pipe("risk_perturb", config={"scorer": FREQUENCY, "threshold": 99.0})
    doc = nlp.make_doc("Anna Berg met Olaf Lund in Oslo.")
    doc.spans["pii"] = [doc[0:2], doc[3:5], doc[6:7]]
    for span, entity in zip(doc.spans["pii"], ["e1", "e2", "e3"]):
        span._.entity_id = entity
    doc.spans["mask"] = [Span(doc, 0, 2, label="DIRECT")]
    doc._.doc_id = "d"
    with pytest.warns(UserWarning, match=r"\[W451\] threshold = 99.0 is set in the config"):
        comp.fit([doc])
    assert comp.fitted_threshold is not None and comp.threshold == 99.0


# --- risk_llm_prob --------------------------------------------------------------------------

RARE = ["Zabrowski", "Quillfeather", "Oyelaran", "Vantongeren", "Kovalchuk"]
COMMON = ["school", "house", "city", "company", "river", "church", "hospital", "market"]


def llm_gold(nlp, n=10):
    docs = []
    for i in range(n):
        doc = nlp.make_doc(f"{RARE[i % 5]} {RARE[(i + 1) % 5]} worked at the {COMMON[i % 8]} in the {COMMON[(i + 3) % 8]}.")
        doc.spans["pii"] = [Span(doc, 0, 2, label="PERSON"), Span(doc, 5, 6, label="ORG"), Span(doc, 8, 9, label="LOC")]
        doc.spans["mask"] = [Span(doc, 0, 2, label="DIRECT")]
        doc._.doc_id = f"d{i}"
        docs.append(doc)
    return docs


def llm_nlp(**config):
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_llm_prob", config={"scorer": FREQUENCY, "model": None, "classifier": "logreg_c1", **config})
    return nlp


def test_risk_llm_prob_classifier_survives_threshold_is_a_setting(tmp_path):
    nlp = llm_nlp(threshold=0.4)
    comp = nlp.get_pipe("risk_llm_prob")
    comp.fit(llm_gold(nlp))
    before = [s._.risk["llm_prob"] for d in comp.pipe(llm_gold(nlp, 3)) for s in d.spans["pii"]]
    nlp.to_disk(tmp_path / "pipe")
    loaded = spacy.load(tmp_path / "pipe").get_pipe("risk_llm_prob")
    assert loaded.threshold == 0.4 and loaded.classifier.kind == comp.classifier.kind
    after = [s._.risk["llm_prob"] for d in loaded.pipe(llm_gold(nlp, 3)) for s in d.spans["pii"]]
    assert np.allclose(before, after)
    overridden = spacy.load(tmp_path / "pipe", config={"components": {"risk_llm_prob": {"threshold": 0.9}}})
    comp2 = overridden.get_pipe("risk_llm_prob")
    assert comp2.threshold == 0.9 and comp2.classifier is not None
    # the decider masks at the indicator's (overridden) threshold
    decider = overridden.add_pipe("risk_threshold", config={"indicator": "llm_prob", "types_always_mask": []})
    masks = [s._.mask for d in comp2.pipe(llm_gold(nlp, 3)) for s in decider(d).spans["pii"]]
    assert masks == [risk >= 0.9 for risk in before]
    # another model in the config wins over the saved classifier (fails closed, and says so)
    with pytest.warns(UserWarning, match="W431"):
        other = spacy.load(tmp_path / "pipe", config={"components": {"risk_llm_prob": {"model": str(tmp_path / "none")}}})
    assert other.get_pipe("risk_llm_prob").classifier is None
    # exclude
    fresh = llm_nlp().get_pipe("risk_llm_prob")
    fresh.from_disk(tmp_path / "pipe" / "risk_llm_prob", exclude=["model"])
    assert fresh.classifier is None and fresh.meta["n_train"] == comp.meta["n_train"]
    fresh.from_bytes(comp.to_bytes())
    assert fresh.classifier is not None and fresh.threshold == 0.5
    fresh.from_bytes(comp.to_bytes(exclude=["classifier"]))
    assert fresh.classifier is None
