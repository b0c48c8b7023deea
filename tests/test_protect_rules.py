"""The deciders' protection rules beyond labels (decide/rules.py, issue #14): a listed name of
any label, a span of a name rule, a validated code and a date after a birth cue stay masked
whatever the risk, in risk_threshold and risk_vote alike; off unless set; coded errors."""
import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc

import spacy_sanitize  # noqa: F401 - registers the factories
from spacy_sanitize.decide.rules import ProtectRules
from spacy_sanitize.risk.base import write_risk
from spacy_sanitize.spans import VALIDATED

# text, then per span: (text, label, detector, validated); the indicator scores all of them 0.1
TEXT = "Yilmaz v. Turkey. DOB: 12/03/1985, heard on 3 May 2001. THORNBURY LIMITED at LS21 3HJ."
SPANS = [
    ("Yilmaz", "LOC", "pii_ner", False),
    ("Turkey", "LOC", "pii_ner", False),
    ("12/03/1985", "DATETIME", "pii_ner", False),
    ("3 May 2001", "DATETIME", "pii_ner", False),
    ("THORNBURY LIMITED", "ORG", "pii_titles:company", False),
    ("LS21 3HJ", "LOC", "pii_codes:postcode", True),
]
RULES = {
    "protect_names": True,
    "protect_detectors": ["pii_titles", "pii_script"],
    "protect_validated": True,
    "protect_date_cues": ["born", "dob", "date of birth"],
}


@Language.component("test_rules_spans")
def rules_spans(doc: Doc) -> Doc:
    spans = []
    for text, label, detector, validated in SPANS:
        start = doc.text.index(text)
        span = doc.char_span(start, start + len(text), label=label)
        span._.risk_explain["detector"] = detector
        if validated:
            span._.risk_explain[VALIDATED] = label
        spans.append(span)
    doc.spans["pii"] = spans
    return doc


@Language.component("risk_test_low")
def low_risk(doc: Doc) -> Doc:
    for span in doc.spans["pii"]:
        write_risk(span, "test_low", 0.1, {})
    return doc


def decided(factory: str, **config) -> dict:
    nlp = spacy.blank("en")
    nlp.add_pipe("test_rules_spans")
    nlp.add_pipe("risk_test_low")
    if factory == "risk_threshold":
        config = {"indicator": "test_low", "threshold": 0.5, **config}
    else:
        config = {"indicators": ["test_low"], **config}
    nlp.add_pipe(factory, config=config)
    doc = nlp(TEXT)
    return {span.text: (span._.mask, span._.risk_explain[factory.replace("risk_", "")]) for span in doc.spans["pii"]}


@pytest.mark.parametrize("factory", ["risk_threshold", "risk_vote"])
def test_rules_keep_names_codes_and_birth_dates_masked_whatever_the_risk(factory):
    out = decided(factory, **RULES)
    masks = {text: mask for text, (mask, _) in out.items()}
    assert masks == {"Yilmaz": True, "Turkey": False, "12/03/1985": True, "3 May 2001": False,
                     "THORNBURY LIMITED": True, "LS21 3HJ": True}
    for text in ("Yilmaz", "12/03/1985", "THORNBURY LIMITED", "LS21 3HJ"):
        explain = out[text][1]
        assert explain["votes_decision"] is False  # the risk alone would have un-masked it
        assert text not in explain["reason"]  # reasons reach reports: no span text in them
    assert "name lists" in out["Yilmaz"][1]["reason"] and "'dob'" in out["12/03/1985"][1]["reason"]
    assert "pii_titles" in out["THORNBURY LIMITED"][1]["reason"] and "validated" in out["LS21 3HJ"][1]["reason"]


@pytest.mark.parametrize("factory", ["risk_threshold", "risk_vote"])
def test_rules_are_off_unless_set(factory):
    assert not any(mask for mask, _ in decided(factory).values())
    only_dates = decided(factory, protect_date_cues=["dob"])
    assert [text for text, (mask, _) in only_dates.items() if mask] == ["12/03/1985"]


def test_date_cue_window_and_sentence():
    rules = ProtectRules([], date_cues=["born", "d."], date_window=2)
    text = "He was born in the city of Izmir in 1950. On 3 May 2001 he left. Abena (d. 03/01/2020) left."
    at = text.index
    assert rules.date_cue(text, at("1950")) is None  # "born" is 6 words back: outside a window of 2
    assert ProtectRules([], date_cues=["born"]).date_cue(text, at("1950")) is None  # 5 words: still out
    assert ProtectRules([], date_cues=["born"], date_window=8).date_cue(text, at("1950")) == "born"
    # a cue in the sentence before does not reach across its end
    assert ProtectRules([], date_cues=["born"], date_window=20).date_cue(text, at("3 May 2001")) is None
    assert rules.date_cue(text, at("03/01/2020")) == "d."  # "d." after one letter ends no sentence
    assert ProtectRules([], date_cues=["d."]).date_cue("Smith Ltd. 4 May", 11) is None  # not in "ltd."
    assert ProtectRules([], date_cues=["date of birth"]).date_cue("Date  of\nbirth: 1/2/1990", 16) == "date of birth"


def test_protected_detectors_are_prefixes_of_whole_names():
    rules = ProtectRules([], detectors=["pii_titles"])
    text = "ACME LIMITED"
    assert rules.reason("ORG", text, 0, 12, "pii_titles:company")
    assert rules.reason("ORG", text, 0, 12, "pii_titles")
    assert rules.reason("ORG", text, 0, 12, "pii_titles_extra:x") is None
    assert rules.reason("ORG", text, 0, 12, "pii_ner") is None


@pytest.mark.parametrize(
    "config, code",
    [
        ({"protect_date_cues": ["born", " "]}, "E530"),
        ({"protect_detectors": [""]}, "E530"),
        ({"date_cue_window": 0}, "E532"),
    ],
)
def test_bad_rule_settings_are_coded_errors(config, code):
    with pytest.raises(ValueError, match=code):
        decided("risk_threshold", **config)


def test_bad_values_built_in_code_are_coded_errors():
    # (a config's types are checked by spaCy first; code building the rules gets these)
    with pytest.raises(ValueError, match="E530"):
        ProtectRules([], detectors="pii_titles")  # a string is not a list of detectors
    with pytest.raises(ValueError, match="E531"):
        ProtectRules([], names="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="E532"):
        ProtectRules([], date_window=True)  # type: ignore[arg-type]


@pytest.mark.parametrize("date, full", [
    ("1990-06-11", True), ("11/06/1990", True), ("11.06.90", True), ("3-5-2001", True),
    ("11 June 1990", False), ("June 1990", False), ("1990", False), ("2019-20", False), ("5/6", False),
])
def test_numeric_dates_are_protected_when_set(date, full):
    """protect_numeric_dates: a DATETIME span in digits with a day, a month and a year stays
    masked (records write dates so; the annotated corpora in words: the decision never saw one);
    worded dates, a month or a year alone are the risk's to decide."""
    text = f"Seen on {date} at the clinic."
    start = text.index(date)
    reason = ProtectRules([], numeric_dates=True).reason("DATETIME", text, start, start + len(date))
    assert bool(reason) is full
    assert ProtectRules([]).reason("DATETIME", text, start, start + len(date)) is None  # off by default
    # a span that is the date and nothing else is protected whatever its label ("5/5/1991" typed MISC)
    assert bool(ProtectRules([], numeric_dates=True).reason("QUANTITY", text, start, start + len(date))) is full
    assert ProtectRules([], numeric_dates=True).reason("QUANTITY", text, start, start + len(date) + 3) is None  # "... at": more than a date
    with pytest.raises(ValueError, match="E531"):
        ProtectRules([], numeric_dates="yes")  # type: ignore[arg-type]


def test_listed_names_that_are_places_or_nationalities_do_not_protect():
    """The given-name list holds "London", "Ireland", "Irish" (people are named so); in court
    texts they are places and nationalities, which the risk decides."""
    rules = ProtectRules([], names=True)
    for text in ("London", "Northern Ireland", "Irish Government", "New York", "English"):
        assert rules.reason("LOC", text, 0, len(text)) is None, text
    for text in ("Yilmaz", "HOLLOWAY", "Saunders Ltd", "Patel</td><td"):
        assert rules.reason("ORG", text, 0, len(text)), text


@pytest.mark.parametrize("term, special", [
    ("breast cancer", True), ("epilepsy", True), ("Epilepsy", True), ("lesbian", True), ("Catholic", True), ("Roma", True),
    ("teacher", False), ("French", False), ("chemistry", False),
])
def test_special_categories_are_protected_where_a_person_is_named(term, special):
    """protect_special: a gazetteer term of health, sexual orientation, religion or ethnic
    group stays masked in a text that names a person or holds a code (identified: it has a
    PERSON or CODE span); in a text that names no one, or with the rule off, the risk decides."""
    text = f"Ewa Sikorska mentioned {term} twice."
    start = text.index(term)
    rules = ProtectRules([], special=True)
    assert bool(rules.reason("DEM", text, start, start + len(term), identified=True)) is special
    assert rules.reason("DEM", text, start, start + len(term)) is None  # names no one
    assert ProtectRules([]).reason("DEM", text, start, start + len(term), identified=True) is None  # off by default


@pytest.mark.parametrize("span_text, special", [
    ("14 weeks pregnant", True), ("allergic to penicillin", True), ("peanut allergy", True),
    ("a history of type 2 diabetes", True), ("HIV positive", True),
    ("14 weeks", False), ("the Pregnant Women's Act Committee of the Ministry of Health and Social Affairs", False),
])
def test_a_span_holding_a_special_term_is_protected(span_text, special):
    """A span the recognizer or pii_refine made around a health term keeps it ("14 weeks
    pregnant" typed DATETIME); a long span is judged whole (no term search in a long title)."""
    text = f"Ewa Sikorska: {span_text}."
    start = text.index(span_text)
    reason = ProtectRules([], special=True).reason("DATETIME", text, start, start + len(span_text), identified=True)
    assert bool(reason) is special
    with pytest.raises(ValueError, match="E531"):
        ProtectRules([], special="yes")  # type: ignore[arg-type]


def _low_risk_pipeline(component: str, spans, decider: str, settings):
    """A blank pipeline: a component that marks each of ``spans`` ((text, label)) found in the
    text, an indicator that scores every span low, and ``decider`` with ``settings``."""
    @Language.component(component)
    def mark(doc: Doc) -> Doc:
        found = []
        for text, label in spans:
            if text in doc.text:
                start = doc.text.index(text)
                found.append(doc.char_span(start, start + len(text), label=label))
        doc.spans["pii"] = found
        return doc

    nlp = spacy.blank("en")
    nlp.add_pipe(component)
    nlp.add_pipe("risk_test_low")
    nlp.add_pipe(decider, config=settings)
    return nlp


@pytest.mark.parametrize("factory", ["decide_threshold", "decide_vote"])
def test_both_deciders_keep_a_named_persons_health_condition_masked(factory):
    """protect_special in a pipeline: the decider reads the text's PERSON spans itself (without
    protect_names too), and a text that names no one leaves the condition to the risk."""
    config = {"indicator": "test_low", "threshold": 0.5} if factory == "decide_threshold" else {"indicators": ["test_low"]}
    nlp = _low_risk_pipeline("test_special_spans", (("Ewa Sikorska", "PERSON"), ("epilepsy", "DEM")), factory,
                             {**config, "protect": ["PERSON"], "protect_special": True})
    named, nameless = nlp("Ewa Sikorska has epilepsy."), nlp("Epilepsy and epilepsy are common.")
    assert {s.text: s._.mask for s in named.spans["pii"]} == {"Ewa Sikorska": True, "epilepsy": True}
    assert {s.text: s._.mask for s in nameless.spans["pii"]} == {"epilepsy": False}
    # a name the decider's person words leave out ("Ben" and "Cole" are common words) still names a person
    @Language.component("test_common_name_spans")
    def common_name_spans(doc: Doc) -> Doc:
        doc.spans["pii"] = [doc.char_span(0, 8, label="PERSON"), doc.char_span(13, 21, label="DEM")]
        return doc

    nlp.replace_pipe("test_special_spans", "test_common_name_spans")
    doc = nlp("Ben Cole has epilepsy.")
    assert [s._.mask for s in doc.spans["pii"]] == [True, True]


@pytest.mark.parametrize("text, span_text, age", [
    ("Patient: John Smith, age 52, admitted.", "age 52", True),
    ("Patient: John Smith, age 52, admitted.", "52", True),  # the cue outside the span
    ("Maria Lopez (aged 34) was seen.", "34", True),
    ("Name: Tom Barker\nAge: 47", "47", True),
    ("Ella Watts, 11 years old, Year 6.", "11 years old", True),
    ("Ella Watts, 11 years old, Year 6.", "11", True),
    ("Daniel Okafor, 23 years of age, gave a statement.", "23 years of age", True),
    ("Ahmed Karimi is a 29-year-old driver.", "29-year-old", True),
    ("the applicant killed a 75 year old woman", "75 year old", True),
    ("Ella Watts, 11 years old, Year 6.", "Year 6", False),  # the number beside the age is not it
    ("Tom Barker waited 3 years for the page 52 of it.", "3 years", False),
    ("Tom Barker waited 3 years for the page 52 of it.", "52", False),  # "page": no age word
    ("Tom Barker: age 12.5 kg", "12.5", False),
    # in apposition right after a word of the text's names
    ("Mr Tomasz Wojcik, 67, NHS no 943 476 5919", "67", True),
    ("Local man Derek Hollins, 54, of Mill Lane", "54", True),
    ("Tom Barker paid Article 6, 13 and 14", "13", False),     # no name before the comma
    ("Derek Hollins, 1999, Leeds", "1999", False),            # no age: above 120
    ("Residents: Mrs Edna Fairbairn (94) and Tom Barker (101).", "94", True),   # in parentheses
    ("Tom Barker (1999) wrote it", "1999", False),
])
def test_an_age_is_protected_where_a_person_is_named(text, span_text, age):
    """protect_ages: a span holding the number of an age, its words inside or around it, stays
    masked in a text that names a person or holds a code; else the risk decides."""
    start = text.index(span_text)
    rules = ProtectRules([], ages=True)
    names = frozenset({"tomasz", "wojcik", "derek", "hollins", "tom", "barker", "edna", "fairbairn"})
    assert bool(rules.reason("DATETIME", text, start, start + len(span_text), name_words=names, identified=True)) is age
    assert rules.reason("DATETIME", text, start, start + len(span_text)) is None  # names no one
    assert ProtectRules([]).reason("DATETIME", text, start, start + len(span_text), identified=True) is None  # off by default
    with pytest.raises(ValueError, match="E531"):
        ProtectRules([], ages="yes")  # type: ignore[arg-type]


def test_the_decider_keeps_a_named_persons_age_masked():
    """protect_ages in a pipeline: the decider reads the text's PERSON spans itself."""
    nlp = _low_risk_pipeline("test_age_spans", (("John Smith", "PERSON"), ("age 52", "DATETIME")), "decide_threshold",
                             {"indicator": "test_low", "threshold": 0.5, "protect": ["PERSON"], "protect_ages": True})
    named, nameless = nlp("Patient: John Smith, age 52."), nlp("Benefits stop at age 52.")
    assert {s.text: s._.mask for s in named.spans["pii"]} == {"John Smith": True, "age 52": True}
    assert "protect_ages" in named.spans["pii"][1]._.risk_explain["decide_threshold"]["reason"]
    assert {s.text: s._.mask for s in nameless.spans["pii"]} == {"age 52": False}
