"""The review report without a browser: why per span, the JSONL field, the page's data,
escaping, --no-original, reading sanitize output, the displaCy views."""
import json
import re
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Span

import spacy_sanitize
from spacy_sanitize.cli import main
from spacy_sanitize.report.build import run_records
from spacy_sanitize.report.data import OffsetMap, entry
from spacy_sanitize.report.html import build_html
from spacy_sanitize.report.why import span_why

from .conftest import court_threshold

SAMPLE = Path(__file__).parent.parent / "examples" / "sample.txt"
SECRETS = ("Ingrid", "Solheim", "Aasen", "36110/97", "per.aasen@example.org", "22 33 44 55")


def decided_doc(deny_list=(), protect_person=None, indicators=("seq",)):
    """Real risk_vote + masker over hand-placed spans and scores (what a detector and an
    indicator write): Oslo scores high, Bergen low, Solheim (PERSON) low, 1994 has no web score."""
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_vote", config={"indicators": list(indicators), "thresholds": {"seq": 0.5}})
    nlp.add_pipe("masker", config={"deny_list": list(deny_list)})
    doc = nlp.make_doc("Ingrid Solheim moved from Bergen to Oslo in 1994. Aasen knew it.")
    spans = [Span(doc, 0, 2, "PERSON"), Span(doc, 4, 5, "LOC"), Span(doc, 6, 7, "LOC"), Span(doc, 8, 9, "DATETIME")]
    for span, risk, entity in zip(spans, (0.1, 0.2, 0.9, 0.3), ("e1", "e2", "e3", "e4")):
        span._.risk["seq"] = risk
        span._.entity_id = entity
        span._.risk_explain["detector"] = "pii_ner"
    spans[3]._.risk_explain["pii_gazetteer"] = {"term": "1994"}
    doc.spans["pii"] = spans
    doc._.protect = protect_person
    for _, proc in nlp.pipeline:
        doc = proc(doc)
    return doc


def whys(doc):
    return {span.text: span_why(span, doc._.replacements) for span in doc.spans["pii"]}


def test_why_masked_kept_and_policy():
    why = whys(decided_doc())
    oslo, bergen, person = why["Oslo"], why["Bergen"], why["Ingrid Solheim"]
    assert oslo["decision"] == "masked" and oslo["replacement"] == "[LOC]"
    assert oslo["indicators"] == {"seq": {"risk": 0.9, "threshold": 0.5, "vote": True}}
    assert oslo["vote"]["decider"] == "vote" and oslo["vote"]["n_mask"] == 1 and oslo["vote"]["decision"] is True
    assert oslo["detectors"] == ["pii_ner"] and oslo["policy"] is None
    assert bergen["decision"] == "kept" and bergen["replacement"] is None and bergen["indicators"]["seq"]["vote"] is False
    assert bergen["summary"].startswith("kept in clear")
    # PERSON is protected: masked whatever the vote, and the breakdown says what it decided
    assert person["decision"] == "masked" and "protected" in person["policy"] and person["vote"]["decision"] is False
    assert why["1994"]["detectors"] == ["pii_ner", "pii_gazetteer"]


def test_why_failed_closed_when_an_indicator_is_missing():
    why = whys(decided_doc(indicators=("seq", "web")))
    bergen = why["Bergen"]  # seq says keep, web wrote nothing: it votes MASK (fail closed)
    assert bergen["decision"] == "failed_closed" and bergen["replacement"] == "[LOC]"
    assert bergen["indicators"]["web"] == {"risk": None, "threshold": 0.5, "vote": True, "reason": "missing"}
    assert "web: missing" in bergen["summary"]
    # Oslo: seq alone masks it (k = 1), so the missing web score decided nothing
    assert why["Oslo"]["decision"] == "masked" and why["Oslo"]["indicators"]["web"]["reason"] == "missing"


def test_why_without_a_decider_is_masked_by_default():
    nlp = spacy.blank("en")
    nlp.add_pipe("masker")
    doc = nlp.make_doc("Oslo is cold.")
    doc.spans["pii"] = [Span(doc, 0, 1, "LOC")]
    why = span_why(nlp(doc).spans["pii"][0], nlp(doc)._.replacements)
    assert why["decision"] == "masked" and "no decider" in why["summary"] and why["vote"] is None


def test_why_of_a_protected_person_names_no_one():
    why = whys(decided_doc(protect_person="Per Bergen"))["Bergen"]
    assert why["decision"] == "masked" and "person to protect" in why["policy"]
    assert "Bergen" not in json.dumps(why)  # the explanation carries no original text


def test_added_regions_deny_list_and_propagation():
    doc = decided_doc(deny_list=["knew"])
    record = {"sanitized": doc._.sanitized, "spans": [], "replacements": doc._.replacements}
    from spacy_sanitize.run.records import span_rows

    record["spans"] = span_rows(doc, 0, with_text=True)
    sources = {(r.start, r.end): r.source for r in spacy.blank("en").add_pipe("masker", config={"deny_list": ["knew"]}).regions(doc)}
    item = entry("d", doc.text, record, sources=sources)
    added = {doc.text[m[0] : m[1]]: m[5] for m in item["m"] if m[5]["decision"] == "added"}
    # "Aasen" is not detected: nothing adds it; "knew" is denied, "Solheim" is not repeated
    assert set(added) == {"knew"} and "deny list" in added["knew"]["summary"]


def test_offset_map_and_paragraphs_align_both_sides(default_nlp):
    text = SAMPLE.read_text()
    doc = default_nlp(text)
    record = {"sanitized": doc._.sanitized, "spans": [], "replacements": doc._.replacements}
    item = entry("sample", text, record)
    assert len(item["p"]) == 3
    for start, end, out_start, out_end in item["p"]:
        original_para, sanitized_para = text[start:end], doc._.sanitized[out_start:out_end]
        assert original_para.split()[0] == sanitized_para.split()[0]  # "PROCEDURE", "1.", "2."
        assert "\n\n" not in sanitized_para
    to_out = OffsetMap(doc._.replacements)
    assert doc._.sanitized[to_out(len(text)) :] == ""


def test_sanitize_jsonl_has_why_per_span(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "a", "text": SAMPLE.read_text()}) + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["sanitize", str(source), "-o", str(out), "-q", "-p", "court", "--keep-original"]) == 0
    spans = json.loads(out.read_text())["spans"]
    assert spans and all({"decision", "detectors", "indicators", "vote", "policy", "replacement", "summary"} <= set(s["why"]) for s in spans)
    by_text = {s["text"]: s["why"] for s in spans}
    assert by_text["Ms Ingrid Solheim"]["replacement"] == "[PERSON]" and by_text["Ms Ingrid Solheim"]["indicators"]["stack"]["threshold"] == court_threshold()
    assert by_text["per.aasen@example.org"]["detectors"] == ["pii_codes:email_address"]
    kept = [s for s in spans if s["why"]["decision"] == "kept"]
    assert kept and all(s["mask"] is False and s["why"]["replacement"] is None for s in kept)


def _blob(page: str):
    match = re.search(r"<script type='application/json' id='report-data'>(.*?)</script>", page, re.S)
    return json.loads(match.group(1))


def test_report_cli_from_text_and_from_sanitize_output(tmp_path, capsys):
    page_path = tmp_path / "r.html"
    assert main(["report", str(SAMPLE), "-o", str(page_path), "-p", "court", "-q"]) == 0
    page = page_path.read_text()
    assert "ORIGINAL PERSONAL DATA" in page and "http://" not in page and "https://" not in page
    data = _blob(page)
    assert data["original"] and [d["id"] for d in data["docs"]] == ["sample"]
    assert "id='privacy'" in page and "spacy_sanitize.typed.v1" in page
    # from the JSONL sanitize wrote: the same entries, no re-run
    jsonl = tmp_path / "out.jsonl"
    assert main(["sanitize", str(SAMPLE), "-o", str(jsonl), "--output-format", "jsonl", "-q", "-p", "court", "--keep-original"]) == 0
    again = tmp_path / "again.html"
    assert main(["report", str(jsonl), "-o", str(again), "-q"]) == 0
    assert _blob(again.read_text())["docs"] == data["docs"]
    with pytest.warns(UserWarning, match="W900"):
        assert main(["report", str(jsonl), "-o", str(again), "-q", "-p", "court"]) == 0
    # without --keep-original the output holds no original: the report says so and shows none
    shared = tmp_path / "shared.jsonl"
    assert main(["sanitize", str(SAMPLE), "-o", str(shared), "--output-format", "jsonl", "-q", "-p", "court"]) == 0
    with pytest.warns(UserWarning, match="W901"):
        assert main(["report", str(shared), "-o", str(again), "-q"]) == 0
    page = again.read_text()
    assert not _blob(page)["original"] and "Ingrid Solheim" not in page


def test_report_refuses_mixed_input(tmp_path, capsys):
    jsonl = tmp_path / "mixed.jsonl"
    done = {"id": "a", "text": "x", "sanitized": "x", "spans": [], "replacements": []}
    jsonl.write_text(json.dumps(done) + "\n" + json.dumps({"id": "b", "text": "Oslo"}) + "\n")
    assert main(["report", str(jsonl), "-o", str(tmp_path / "r.html"), "-q"]) == 2
    assert "E900" in capsys.readouterr().err and not (tmp_path / "r.html").exists()


def test_no_original_holds_no_original_text(tmp_path, default_nlp):
    records = [spacy_sanitize.io.Record("sample", SAMPLE.read_text(), {})]
    entries, privacy = run_records(default_nlp, records, original=False)
    page = build_html(entries, original=False, privacy=privacy)
    for secret in SECRETS:
        assert secret not in page
    assert "Sanitized view only" in page and "ORIGINAL PERSONAL DATA" not in page
    mark = entries[0]["m"][0]
    assert len(mark) == 4 and entries[0]["s"][mark[0] : mark[1]] == mark[3]["replacement"]


def test_markup_in_the_input_is_escaped(default_nlp):
    text = "<script>alert('x')</script> Ingrid Solheim <b>lives</b> in Oslo & </script><!-- Bergen."
    entries, _ = run_records(default_nlp, [spacy_sanitize.io.Record("<img src=x onerror=alert(1)>", text, {})])
    page = build_html(entries, title="<i>t</i>")
    assert page.count("<script") == 2 and page.count("</script>") == 2  # the data blob and the code
    assert "<b>lives" not in page and "<img" not in page and "<!--" not in page and "<i>t</i>" not in page
    assert _blob(page)["docs"][0]["t"] == text  # the text itself survives, as data


def test_displacy_views(default_nlp):
    doc = default_nlp("Ingrid Solheim lives in Oslo.")
    markup = spacy_sanitize.render(doc, jupyter=False)
    assert "Ingrid" in markup and "PERSON" in markup and "#ffcdd2" in markup
    decided = decided_doc()
    view = spacy_sanitize.render(decided, view="decision", jupyter=False)
    assert "LOC kept · risk 0.20" in view and "LOC masked · risk 0.90" in view and "#ef9a9a" in view
    from spacy import displacy

    from spacy_sanitize.report import displacy_options

    assert "LOC" in displacy.render(decided, style="span", options=displacy_options(), jupyter=False)
    with pytest.raises(ValueError, match="E902"):
        spacy_sanitize.render(doc, view="risk")


def test_packed_whys_come_back_whole(default_nlp):
    from spacy_sanitize.report.html import pack, unpack

    doc = decided_doc(indicators=("seq", "web"))
    record = {"sanitized": doc._.sanitized, "spans": [], "replacements": doc._.replacements}
    from spacy_sanitize.run.records import span_rows

    record["spans"] = span_rows(doc, 0, with_text=True)
    item = entry("d", doc.text, record)
    packed = pack([item])
    assert len(packed["whys"]) <= len(item["m"])
    for mark, packed_mark in zip(item["m"], packed["docs"][0]["m"]):
        assert unpack(packed["whys"][packed_mark[5]], packed_mark[6]) == mark[5]
    doc = spacy_sanitize.load_pipeline("strict")(SAMPLE.read_text())  # no decider: the masked spans share one shape
    many = pack([entry("s", doc.text, {"sanitized": doc._.sanitized, "spans": span_rows(doc, 0, with_text=True), "replacements": doc._.replacements})])
    # spans of one detector and label share a shape (each rule's span keeps its rule's name)
    assert len(many["whys"]) < len(many["docs"][0]["m"]) / 2


def test_displacy_view_in_jupyter_is_displayed(default_nlp, capsys):
    pytest.importorskip("IPython")
    doc = default_nlp("Ingrid Solheim lives in Oslo.")
    for view in ("type", "decision"):
        assert spacy_sanitize.render(doc, view=view, jupyter=True) is None  # shown, as displaCy does
        assert "HTML object" in capsys.readouterr().out


def test_why_of_a_span_masked_after_the_decision():
    """risk_infer sets Span._.mask = True after the decider kept the span: the vote still says
    what it decided, and the summary who masked it."""
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_vote", config={"indicators": ["seq"], "protect": []})
    doc = nlp.make_doc("She lives in Oslo.")
    span = Span(doc, 3, 4, "LOC")
    span._.risk["seq"] = 0.1
    doc.spans["pii"] = [span]
    doc = nlp(doc)
    span = doc.spans["pii"][0]
    span._.mask = True  # what risk_infer does, with its explanation
    span._.risk_explain["infer"] = {"removed_by_search": True}
    why = span_why(span, [[13, 17, "LOC", "e1", "[LOC]", 13, 18]])
    assert why["vote"]["decision"] is False and why["decision"] == "masked" and "by infer" in why["summary"]


def test_no_original_drops_error_details():
    nlp = spacy.blank("en")
    nlp.add_pipe("risk_vote", config={"indicators": ["web"]})
    nlp.add_pipe("masker")
    doc = nlp.make_doc("She lives in Oslo.")
    span = Span(doc, 3, 4, "LOC")
    span._.risk["web"] = 1.0
    span._.risk_explain["web"] = {"error": "ValueError: no result for 'Oslo'", "fail_closed": True}
    doc.spans["pii"] = [span]
    doc = nlp.get_pipe("masker")(nlp.get_pipe("risk_vote")(doc))
    from spacy_sanitize.run.records import span_rows

    record = {"sanitized": doc._.sanitized, "spans": span_rows(doc, 0, with_text=True), "replacements": doc._.replacements}
    assert "Oslo" in record["spans"][0]["why"]["indicators"]["web"]["error"]  # the full report keeps it
    (mark,) = entry("d", doc.text, record, original=False)["m"]
    assert mark[3]["decision"] == "failed_closed" and "Oslo" not in json.dumps(mark)
