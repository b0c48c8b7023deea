"""risk_stack: the learned combination of indicator scores with span features (features,
fit, fail closed, serialization, the decide-stage check) and train-stack's pieces on tiny cases."""
import numpy as np
import pytest
import spacy
import srsly

import spacy_sanitize  # noqa: F401 - registers factories
from spacy_sanitize.corpus import load_tab, read_tab
from spacy_sanitize.decide.check import undecided_indicators
from spacy_sanitize.risk.stack import LABELS, NO_WORD_ZIPF, StackModel, feature_matrix, feature_names, span_rows, text_features
from spacy_sanitize.training.seq_train import cnn_tagger
from spacy_sanitize.training.stack_train import fit_stack, out_of_fold_seq_risks, span_targets

# the case title, then the facts beyond the first 400 characters (risk_stack.HEAD_CHARS)
TEXT = "CASE OF YALMAN v. TURKEY. " + "The facts of the case follow. " * 14 + "Mr Yalman was born in Ankara. Yalman sued Turkey in 1999."
SMALL = {"kind": "hgb", "max_iter": 20, "learning_rate": 0.3, "max_leaf_nodes": 4, "min_samples_leaf": 2}


def _rows(text=TEXT):
    def at(word, n=0, label="PERSON", entity=None):
        start = -1
        for _ in range(n + 1):
            start = text.index(word, start + 1)
        return (start, start + len(word), label, entity or f"{label}:{word}", "ner", False)

    return [at("Yalman", 0, entity="e1"), at("Ankara", label="LOC"), at("Yalman", 1, entity="e1"), at("Turkey", 0, label="LOC"), at("1999", label="DATETIME")]


def test_features_aggregate_over_an_entitys_mentions_and_read_the_title():
    rows = _rows()
    X = feature_matrix(TEXT, rows, [[0.9], [0.2], [0.3], [0.1], [0.6]], ["ner"])
    names = feature_names(["seq"], ["ner"])
    col = {name: i for i, name in enumerate(names)}
    assert X.shape == (5, len(names))
    # both mentions of e1 share the entity's max and mean; their own risks stay theirs
    assert X[0, col["entity_max:seq"]] == X[2, col["entity_max:seq"]] == pytest.approx(0.9)
    assert X[2, col["entity_mean:seq"]] == pytest.approx(0.6) and X[2, col["risk:seq"]] == pytest.approx(0.3)
    assert X[0, col["log_mentions"]] == pytest.approx(np.log1p(2)) and X[1, col["log_mentions"]] == pytest.approx(np.log1p(1))
    # "Turkey" and "Yalman" are in the case title, "Ankara" is not
    assert X[3, col["in_head"]] == 1.0 and X[1, col["in_head"]] == 0.0
    assert X[4, col["digit"]] == 1.0 and X[4, col["label=DATETIME"]] == 1.0 and X[4, col["label=PERSON"]] == 0.0
    assert X[0, col["first_position"]] == X[2, col["first_position"]] == pytest.approx(rows[0][0] / len(TEXT))
    assert [n for n in names if n.startswith("label=")] == [f"label={label}" for label in LABELS]
    # rarity and shape of the words: "Yalman" is rare and capitalised, "1999" has no letter word
    assert X[0, col["min_zipf"]] < X[3, col["min_zipf"]] < NO_WORD_ZIPF == X[4, col["min_zipf"]]
    assert X[0, col["capitalised"]] == 1.0 and X[4, col["capitalised"]] == 0.0


def test_text_features_read_rarity_capitals_and_the_name_lists():
    from spacy_sanitize.detect.names import name_lists

    rare, capitalised, listed = text_features("Siverek Magistrates' Court")
    assert rare < text_features("the Court")[0] and capitalised == 1.0 and listed == 0.0
    assert text_features("the Court")[1] == 0.0
    given = sorted(name_lists().given)[0]
    assert text_features(given.title())[2] == 1.0


def test_a_model_fit_on_other_features_is_refused():
    data = StackModel.fit(_training_docs(), ["seq"], SMALL, seed=0).to_dict()
    StackModel.from_dict(data)  # its own features load
    data["features"] = data["features"][:-1]
    with pytest.raises(ValueError, match="another version"):
        StackModel.from_dict(data)


def _training_docs(n=30):
    rows = _rows()
    # annotators mask the person and the city, leave the respondent state; the date half of them
    return [(TEXT, rows, [[0.8], [0.4], [0.5], [0.45], [0.5]], [1.0, 1.0, 1.0, 0.0, 0.5])] * n


def test_stack_model_learns_the_decision_and_round_trips_exactly():
    model = StackModel.fit(_training_docs(), ["seq"], SMALL, seed=0)
    p = model.predict(TEXT, _rows(), [[0.8], [0.4], [0.5], [0.45], [0.5]])
    assert p[0] > 0.8 and p[1] > 0.8 and p[3] < 0.2 and 0.3 < p[4] < 0.7
    again = StackModel.from_dict(srsly.json_loads(srsly.json_dumps(model.to_dict())))
    assert np.array_equal(again.predict(TEXT, _rows(), [[0.8], [0.4], [0.5], [0.45], [0.5]]), p)
    with pytest.raises(ValueError, match="no spans to fit on"):
        StackModel.fit([(TEXT, [], [], [])], ["seq"], SMALL)


def test_doc_weight_lets_short_documents_count():
    """doc_weight: a document's spans weigh n ** -doc_weight each. One long document whose 90
    spans annotators left and ten one-span documents whose span they masked: counted span by
    span the long one decides (about 0.1); with doc_weight 1 every document weighs the same
    (about 10/11). Trees that cannot split (min_samples_leaf) predict the weighted share."""
    date = next(row for row in _rows() if row[2] == "DATETIME")
    long_doc = (TEXT, [(*date[:3], f"DATETIME:{i}", *date[4:]) for i in range(90)], [[0.5]] * 90, [0.0] * 90)
    short_docs = [(TEXT, [date], [[0.5]], [1.0])] * 10
    flat = {"kind": "hgb", "max_iter": 5, "learning_rate": 0.5, "max_leaf_nodes": 2, "min_samples_leaf": 10_000}

    def share(doc_weight):
        model = StackModel.fit([long_doc, *short_docs], ["seq"], flat, seed=0, doc_weight=doc_weight)
        return float(model.predict(TEXT, [date], [[0.5]])[0])

    assert share(0.0) == pytest.approx(0.1, abs=0.02)
    assert share(1.0) == pytest.approx(10 / 11, abs=0.02)
    assert share(0.0) < share(0.5) < share(1.0)


def test_document_features_are_the_texts_and_round_trip():
    """doc_features adds the text's length, span density and mean risk to every span's row (the
    kind of text); a model fit without them (every shipped one before) loads as it was."""
    risks = [[0.8], [0.4], [0.5], [0.45], [0.5]]
    plain = feature_matrix(TEXT, _rows(), risks, ["ner"])
    with_doc = feature_matrix(TEXT, _rows(), risks, ["ner"], doc_features=True)
    assert np.array_equal(with_doc[:, : plain.shape[1]], plain)
    assert with_doc.shape[1] == plain.shape[1] + 3 and len(feature_names(["seq"], ["ner"], True)) == with_doc.shape[1]
    assert np.allclose(with_doc[0, plain.shape[1]:], [np.log1p(len(TEXT)), 1000 * 5 / len(TEXT), 0.53])
    assert len({tuple(row[plain.shape[1]:]) for row in with_doc}) == 1  # the same for every span of the text
    model = StackModel.fit(_training_docs(), ["seq"], SMALL, seed=0, doc_features=True)
    data = srsly.json_loads(srsly.json_dumps(model.to_dict()))
    again = StackModel.from_dict(data)
    assert again.doc_features and np.array_equal(again.predict(TEXT, _rows(), risks), model.predict(TEXT, _rows(), risks))
    old = StackModel.fit(_training_docs(), ["seq"], SMALL, seed=0).to_dict()
    assert "doc_features" not in old and not StackModel.from_dict(old).doc_features
    data.pop("doc_features")  # features that do not match the flag: a clear error, not a wrong model
    with pytest.raises(ValueError, match="E544"):
        StackModel.from_dict(data)


def test_doc_fence_leaves_undecided_a_document_unlike_the_training_ones():
    """The fit keeps the quartiles of its documents' length and span density; a document
    beyond doc_fence interquartile ranges past them gets risk 1.0 on every span (fail closed)
    and each span's explanation says why, in the model and in the component."""
    risks = [[0.8], [0.4], [0.5], [0.45], [0.5]]
    longer = TEXT + " More facts." * 10  # quartiles with a spread: documents of two lengths
    docs = _training_docs(15) + [(longer, _rows(longer), risks, [1.0, 1.0, 1.0, 0.0, 0.5])] * 15
    model = StackModel.fit(docs, ["seq"], SMALL, seed=0)
    (q1, q3), (d1, d3) = model.quartiles["doc_log_chars"], model.quartiles["doc_span_density"]
    assert list(model.quartiles) == ["doc_log_chars", "doc_span_density"]
    assert q1 == pytest.approx(np.log1p(len(TEXT))) and q3 == pytest.approx(np.log1p(len(longer)))
    assert d1 == pytest.approx(1000 * 5 / len(longer)) and d3 == pytest.approx(1000 * 5 / len(TEXT))
    assert model.unlike(TEXT, 5, 1.5) is None and model.predict(TEXT, _rows(), risks, 1.5)[3] < 0.2
    dense = TEXT[:200]  # the same five spans in a short text: a density no training document had
    rows = [r for r in _rows() if r[1] <= 200] or _rows()[:1]
    assert "doc_span_density" in model.unlike(TEXT, 40, 1.5)
    # spans come whole: a short text may hold the fence's density for its length, rounded up
    high = d3 + 1.5 * (d3 - d1)
    short = TEXT[:400]
    allowed = int(np.ceil(high * len(short) / 1000))
    assert 1000 * allowed / len(short) > high and model.unlike(short, allowed, 1.5) is None
    assert "doc_span_density" in model.unlike(short, allowed + 1, 1.5)
    assert model.unlike(TEXT * 30, 150, 1.5).startswith("document unlike the training documents: doc_log_chars")
    assert model.predict(TEXT, _rows(), [[0.01]] * 5, 0.0).max() < 1.0  # the spans' scores are the model's to decide
    assert list(model.predict(dense, rows, [[0.1]] * len(rows), 1.5)) == [1.0] * len(rows)
    assert model.predict(dense, rows, [[0.1]] * len(rows)).max() < 1.0  # no fence: decided
    again = StackModel.from_dict(srsly.json_loads(srsly.json_dumps(model.to_dict())))
    assert again.quartiles == model.quartiles
    # the component: every span of a document beyond the fence is masked, and says why
    nlp = spacy.blank("en")
    stack = nlp.add_pipe("risk_stack", config={"doc_fence": 0.0})
    nlp.add_pipe("risk_threshold", config={"indicator": "stack", "threshold": 0.5, "protect": []})
    stack.model = model
    doc = _doc(nlp, [0.8, 0.4, 0.5, 0.45, 0.5])
    doc.spans["pii"] = list(doc.spans["pii"]) * 3  # three times the spans of any training text
    for _name, proc in nlp.pipeline:
        doc = proc(doc)
    assert all(s._.mask and s._.risk["stack"] == 1.0 for s in doc.spans["pii"])
    assert "doc_span_density" in doc.spans["pii"][3]._.risk_explain["stack"]["error"]
    # a fence over a model without quartiles (fit before the fence): a clear error
    old = model.to_dict()
    old.pop("doc_quartiles")
    stack.model = StackModel.from_dict(old)
    with pytest.raises(ValueError, match="keeps no quartiles"):
        stack(_doc(nlp, [0.5] * 5))
    for bad in (-1, "wide", True):
        with pytest.raises(ValueError, match="doc_fence"):
            spacy.blank("en").add_pipe("risk_stack", config={"doc_fence": bad})


def _pipeline(model=None, indicators=("seq",)):
    nlp = spacy.blank("en")
    stack = nlp.add_pipe("risk_stack", config={"indicators": list(indicators)})
    nlp.add_pipe("risk_threshold", config={"indicator": "stack", "threshold": 0.5, "protect": []})
    stack.model = model
    return nlp


def _doc(nlp, risks):
    doc = nlp.make_doc(TEXT)
    spans = [doc.char_span(s, e, label=label) for s, e, label, *_ in _rows()]
    for span, entity in zip(spans, ["e1", None, "e1", None, None]):
        span._.entity_id = entity
        span._.risk_explain["detector"] = "ner"
    for span, risk in zip(spans, risks):
        if risk == "failed":
            span._.risk["seq"] = 1.0
            span._.risk_explain["seq"] = {"error": "boom", "fail_closed": True}
        elif risk is not None:
            span._.risk["seq"] = risk
    doc.spans["pii"] = spans
    return doc


def test_component_decides_through_risk_threshold_and_fails_closed():
    nlp = _pipeline(StackModel.fit(_training_docs(), ["seq"], SMALL, seed=0))
    doc = _doc(nlp, [0.8, 0.4, 0.5, 0.45, 0.5])
    for name, proc in nlp.pipeline:
        doc = proc(doc)
    spans = list(doc.spans["pii"])
    assert [s._.mask for s in spans[:4]] == [True, True, True, False]
    assert spans[0]._.risk_explain["stack"] == {"indicators": {"seq": 0.8}}
    # a span its indicator did not score, or scored with a failure, is masked and says why
    doc = _doc(nlp, [0.8, 0.4, 0.5, None, "failed"])
    for name, proc in nlp.pipeline:
        doc = proc(doc)
    turkey, date = list(doc.spans["pii"])[3:]
    assert turkey._.risk["stack"] == 1.0 and turkey._.mask and turkey._.risk_explain["stack"]["error"] == "no seq risk"
    assert date._.mask and date._.risk_explain["stack"]["error"].startswith("seq failed")


def test_component_errors_and_disk_round_trip(tmp_path):
    nlp = _pipeline(None)
    with pytest.raises(ValueError, match="has no model"):
        nlp.get_pipe("risk_stack")(_doc(nlp, [0.5] * 5))
    model = StackModel.fit(_training_docs(), ["seq"], SMALL, seed=0)
    wrong = _pipeline(model, indicators=("seq", "llm_prob"))
    with pytest.raises(ValueError, match="was fit on"):
        wrong.get_pipe("risk_stack")(_doc(wrong, [0.5] * 5))
    with pytest.raises(ValueError, match="give the risk keys"):
        spacy.blank("en").add_pipe("risk_stack", config={"indicators": []})
    nlp = _pipeline(model)
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    a = nlp.get_pipe("risk_stack")(_doc(nlp, [0.8, 0.4, 0.5, 0.45, 0.5]))
    b = loaded.get_pipe("risk_stack")(_doc(loaded, [0.8, 0.4, 0.5, 0.45, 0.5]))
    assert [s._.risk["stack"] for s in a.spans["pii"]] == [s._.risk["stack"] for s in b.spans["pii"]]
    assert span_rows(a)[1][3] == "LOC:Ankara"  # a span without an entity id is its own entity


def test_indicators_read_by_a_decided_combiner_are_decided():
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_seq", config={"tagger": cnn_tagger(16, 1)})
    nlp.add_pipe("risk_stack")
    assert undecided_indicators(nlp) == ["risk_seq", "risk_stack"]
    nlp.add_pipe("risk_threshold", config={"indicator": "stack"})
    assert undecided_indicators(nlp) == []
    other = spacy.blank("en")
    other.add_pipe("risk_seq", config={"tagger": cnn_tagger(16, 1)})
    other.add_pipe("risk_stack", config={"indicators": ["llm_prob"]})
    other.add_pipe("risk_threshold", config={"indicator": "stack"})
    assert undecided_indicators(other) == ["risk_seq"]  # the combiner does not read it


def _case(doc_id, country):
    text = f"CASE OF A v. {country}. Mr Yalman lives in Ankara and {country} replied in 1999. " * 3
    mentions = []
    for k, (surface, ident) in enumerate([("Yalman", "DIRECT"), ("Ankara", "QUASI"), (country, "NO_MASK")]):
        start = text.index(surface, 20)
        mentions.append({"entity_type": "LOC", "entity_mention_id": f"{doc_id}_m{k}", "start_offset": start, "end_offset": start + len(surface),
                         "span_text": surface, "identifier_type": ident, "entity_id": f"{doc_id}_{k}"})
    return {"doc_id": doc_id, "text": text, "annotations": {"a1": {"entity_mentions": mentions}, "a2": {"entity_mentions": mentions[:1]}}}


def test_train_stack_pieces_cross_fit_by_case(tmp_path):
    path = tmp_path / "cases.json"
    srsly.write_json(path, [_case(f"c{i}", c) for i, c in enumerate(["Turkey", "Poland", "Sweden", "Malta"])])
    gold = {d.doc_id: d for d in load_tab(path)}
    rows = {}
    for doc_id, d in gold.items():
        found = []
        for word, label in [("Yalman", "PERSON"), ("Ankara", "LOC"), (d.text[13:19].rstrip("."), "LOC")]:
            start = d.text.index(word, 20)
            found.append((start, start + len(word), label, f"{label}:{word}", "ner", False))
        rows[doc_id] = found
    assert span_targets(gold["c0"], rows["c0"]) == [1.0, 0.5, 0.0]  # two annotators: both, one, none
    risks = out_of_fold_seq_risks(read_tab(path, spacy.blank("en")), rows, 2, 0, dict(cnn_tagger(16, 1)), 1)
    assert sorted(risks) == sorted(gold) and all(len(risks[i]) == 3 and all(0 <= r <= 1 for r in risks[i]) for i in gold)
    model = fit_stack(gold, rows, risks, sorted(gold), params=SMALL)
    assert model.indicators == ["seq"] and model.predict(gold["c0"].text, rows["c0"], [[r] for r in risks["c0"]]).shape == (3,)


def test_context_features_read_words_section_and_cues():
    from spacy_sanitize.risk.stack import ContextRates, context_keys

    text = "PROCEDURE\nThe applicant lodged it in Siverek.\nTHE FACTS\nThe Government met at the Ankara Prison.\n"
    rows = [(text.index("Siverek"), text.index("Siverek") + 7, "LOC", "e1", "ner", False),
            (text.index("Ankara Prison"), text.index("Ankara Prison") + 13, "ORG", "e2", "ner", False)]
    assert context_keys(text, rows) == [("LOC|<rare>", "LOC|in"), ("ORG|prison", "ORG|the")]
    heads = ContextRates.fit(["ORG|prison"] * 4 + ["ORG|court"] * 2, [1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
    assert "ORG|court" not in heads.rates  # seen fewer than MIN_KEY_COUNT times: the prior
    X = feature_matrix(text, rows, [[0.5], [0.5]], ["ner"], (heads, ContextRates()))
    col = {name: i for i, name in enumerate(feature_names(["seq"], ["ner"]))}
    prior = 0.5
    assert X[1, col["head_rate"]] == pytest.approx((3 + 10 * prior) / (4 + 10)) and X[1, col["head_seen"]] == pytest.approx(np.log1p(4))
    assert X[0, col["head_rate"]] == pytest.approx(prior) and X[0, col["head_seen"]] == 0.0
    assert X[0, col["before_facts"]] == 1.0 and X[1, col["before_facts"]] == 0.0
    assert X[0, col["cue:applicant"]] == 1.0 and X[0, col["cue:government"]] == 0.0
    assert X[1, col["cue:government"]] == 1.0 and X[1, col["cue:applicant"]] == 0.0


def test_context_tables_keep_common_words_only():
    """The rates ship with the model: a rare word (a name in the training cases) is "<rare>"."""
    from spacy_sanitize.detect.gazetteer.filters import term_zipf
    from spacy_sanitize.risk.stack import COMMON_ZIPF, context_keys

    model = StackModel.fit(_training_docs(), ["seq"], SMALL, seed=0)
    words = {key.split("|", 1)[1] for rates in model.context for key in rates.rates}
    assert "<name>" in words and "yalman" not in words
    assert context_keys("Mr Hartley and Rasmussen met.", [(3, 10, "PERSON", "e", "ner", False), (15, 24, "LOC", "f", "ner", False)]) == \
        [("PERSON|<name>", "PERSON|mr"), ("LOC|<name>", "LOC|and")]  # a PERSON's last word, a listed surname
    assert all(w.startswith("<") or term_zipf(w) >= COMMON_ZIPF for w in words)
    assert "yalman" not in srsly.json_dumps(model.to_dict()["context"]).lower()


def test_training_rows_see_rates_of_other_documents_only():
    """Cross-fitted rates: a key seen in one document only gives its rows the prior."""
    text = "They met at the Foo Prison. " * 3
    rows = [(m, m + 10, "ORG", "e1", "ner", False) for m in (16, 44, 72)]
    docs = [(text, rows, [[0.5]] * 3, [1.0] * 3)] + _training_docs(9)
    model = StackModel.fit(docs, ["seq"], SMALL, seed=0)
    assert model.context[0].rates["ORG|prison"][1] == 3  # the model keeps it ...
    from spacy_sanitize.risk.stack import context_rates, context_keys

    keys = [context_keys(t, r) for t, r, _x, _y in docs]
    others = [j for j in range(len(docs)) if j % 5 != 0]
    assert "ORG|prison" not in context_rates(keys, docs, others)[0].rates  # ... but its own rows never saw it


def test_sentence_cues_are_read_within_reach_of_the_span():
    """A text without full stops is one sentence: cues are read SENTENCE_REACH characters around
    a span, so the features stay linear in the text and the spans."""
    from spacy_sanitize.risk.stack import SENTENCE_REACH, context_matrix
    near = "the applicant " + "x " * 10 + "Ankara"
    far = "the applicant " + "x " * SENTENCE_REACH + "Ankara"
    from spacy_sanitize.risk.stack import CONTEXT_FEATURES

    col = CONTEXT_FEATURES.index("cue:applicant")
    for text, expected in ((near, 1.0), (far, 0.0)):
        start = text.index("Ankara")
        assert context_matrix(text, [(start, start + 6, "LOC", "e", "ner", False)], None)[0, col] == expected


@pytest.mark.parametrize("shipped", ["risk_stack_court", "risk_stack_court_trf", "risk_stack_default"])
def test_shipped_context_tables_hold_no_names(shipped):
    """The shipped rate tables come from annotated cases: they keep common words and placeholders only."""
    from spacy_sanitize.shipped import data_path
    from spacy_sanitize.detect.gazetteer.filters import term_zipf
    from spacy_sanitize.risk.stack import COMMON_ZIPF

    path = data_path(shipped) / "learned.json"
    if not path.exists():
        pytest.skip(f"{shipped} is not built here")
    model = StackModel.from_dict(srsly.read_json(path))
    words = {key.split("|", 1)[1] for rates in model.context for key in rates.rates}
    assert words and all(w.startswith("<") or term_zipf(w) >= COMMON_ZIPF for w in words)
