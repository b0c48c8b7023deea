import pytest
import spacy
from spacy.tokens import Doc, DocBin

from spacy_sanitize.decide.protect import matched_parts, name_parts, protect_from_record, protected_names

TEXT = "Mr Galip Yalman of Yalman Ltd met Judge Smith in Ankara."
# (start, end, label): the spans a detector found; every one gets a low risk below.
SPANS = [(0, 15, "PERSON"), (19, 29, "ORG"), (34, 45, "PERSON"), (49, 55, "LOC")]


def _doc(nlp, protect=None) -> Doc:
    doc = nlp.make_doc(TEXT)
    doc.spans["pii"] = [doc.char_span(s, e, label=label) for s, e, label in SPANS]
    for span in doc.spans["pii"]:
        span._.risk["seq"] = 0.01  # the indicator alone un-masks everything
    doc._.protect = protect
    return doc


def _decide(factory, protect, config=None):
    nlp = spacy.blank("en")
    settings = {"indicator": "seq", "threshold": 0.5} if factory == "risk_threshold" else {}
    decider = nlp.add_pipe(factory, config={**settings, "protect": [], **(config or {})})
    doc = decider(_doc(nlp, protect))
    return {s.text: s._.mask for s in doc.spans["pii"]}, {s.text: s._.risk_explain[decider.key] for s in doc.spans["pii"]}


@pytest.mark.parametrize("factory", ["risk_vote", "risk_threshold"])
@pytest.mark.parametrize(
    "protect,masked",
    [
        (None, []),
        ("", []),
        ("galip YALMAN", ["Mr Galip Yalman", "Yalman Ltd"]),  # case-insensitive, any label
        ("Mr. Yalman", ["Mr Galip Yalman", "Yalman Ltd"]),  # the title is not a name part
        (["Ayse Demir", "John Smith"], ["Judge Smith"]),  # several persons
        ("Mr", []),  # a title alone names nobody
        ("G. Yalman", ["Mr Galip Yalman", "Yalman Ltd"]),  # an initial is not matched on
        ("Ankara", ["Ankara"]),
    ],
)
def test_the_person_to_protect_stays_masked(factory, protect, masked):
    decisions, explains = _decide(factory, protect)
    assert [text for text, mask in decisions.items() if mask] == masked
    for text in masked:
        assert explains[text]["votes_decision"] is False  # the votes alone would not mask
        assert explains[text]["protected_person"] and "Doc._.protect" in explains[text]["reason"]
    for text in set(decisions) - set(masked):
        assert "protected_person" not in explains[text]


def test_label_protection_still_applies_with_a_person():
    decisions, explains = _decide("risk_vote", "Galip Yalman", {"protect": ["LOC"]})
    assert decisions == {"Mr Galip Yalman": True, "Yalman Ltd": True, "Judge Smith": False, "Ankara": True}
    assert "protected_person" not in explains["Ankara"] and "protect" in explains["Ankara"]["reason"]


def test_a_bad_protect_value_is_a_coded_error():
    nlp = spacy.blank("en")
    decider = nlp.add_pipe("risk_vote")
    with pytest.raises(ValueError, match="E706"):
        decider(_doc(nlp, protect={"name": "Galip Yalman"}))
    with pytest.raises(ValueError, match="E706"):
        protected_names(["Galip", 3])


def test_name_parts():
    assert name_parts(["Mr Galip Yalman", "Dr. A. Öztürk-Bey"]) == {"galip", "yalman", "öztürk", "bey"}
    assert matched_parts("the YALMAN family", name_parts(["Galip Yalman"])) == ["yalman"]
    assert matched_parts("Yalmanoglu", name_parts(["Galip Yalman"])) == []  # whole words only


def test_protect_survives_docbin():
    nlp = spacy.blank("en")
    docs = [_doc(nlp, ["Galip Yalman", "John Smith"]), _doc(nlp, "Ayse Demir")]
    restored = list(DocBin(docs=docs, store_user_data=True).get_docs(nlp.vocab))
    assert [d._.protect for d in restored] == [["Galip Yalman", "John Smith"], "Ayse Demir"]


def test_protect_reaches_the_sanitized_text():
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_threshold", config={"indicator": "seq", "threshold": 0.5, "protect": []})
    nlp.add_pipe("masker")
    doc = _doc(nlp, "Galip Yalman")
    for _, proc in nlp.pipeline:
        doc = proc(doc)
    assert "Yalman" not in doc._.sanitized and "Galip" not in doc._.sanitized
    assert "Ankara" in doc._.sanitized


def test_protect_from_record():
    record = {"meta": {"applicant": "Galip Yalman", "others": ["A B", "C D"]}, "task": "x"}
    assert protect_from_record(record, "meta.applicant") == "Galip Yalman"
    assert protect_from_record(record, "meta.others") == ["A B", "C D"]
    with pytest.warns(UserWarning, match="W701"):
        assert protect_from_record(record, "meta.respondent") is None
    with pytest.warns(UserWarning, match="W701"):
        assert protect_from_record(record, "task.applicant") is None  # "task" is not a mapping
    with pytest.raises(ValueError, match="E706"):
        protect_from_record({"meta": {"applicant": 42}}, "meta.applicant")
