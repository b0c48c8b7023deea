"""The review report in a real browser (headless Debian chromium via selenium): every
document present, every span highlighted with its decision, the tooltip, the filters,
no script from the data, and a screenshot that is not blank."""
import re
from pathlib import Path

import pytest
import spacy

import spacy_sanitize
from spacy_sanitize.run.records import span_rows
from spacy_sanitize.io import Record
from spacy_sanitize.report import browser
from spacy_sanitize.report.build import run_records
from spacy_sanitize.report.data import entry
from spacy_sanitize.report.html import build_html

from .conftest import court_threshold

from .test_report import decided_doc

REASON = browser.missing()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"no headless browser: {REASON}")

SAMPLE = Path(__file__).parent.parent / "examples" / "sample.txt"
TEXTS = {
    "sample": SAMPLE.read_text(),
    "inject": "<script>alert('x')</script> Ms Ingrid Solheim wrote <b>to</b> Bergen District Court on 3 May 2001.",
    "short": "Per Aasen lives in Oslo.",
    "dates": "The hearing was on 12 June 1998 in Strasbourg.\n\nThe applicant is a Norwegian teacher.",
}
WIDTH, HEIGHT = 1300, 900


def voted_entry(original):
    """risk_vote with a missing indicator (failed closed spans) and a deny list (an added one)."""
    doc = decided_doc(deny_list=["knew"], indicators=("seq", "web"))
    record = {"sanitized": doc._.sanitized, "spans": span_rows(doc, 0, with_text=True), "replacements": doc._.replacements}
    masker = spacy.blank("en").add_pipe("masker", config={"deny_list": ["knew"]})
    return entry("voted", doc.text, record, original, sources={(r.start, r.end): r.source for r in masker.regions(doc)})


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    nlp = spacy_sanitize.load_pipeline("court")  # has a decider: some spans are kept in clear
    folder = tmp_path_factory.mktemp("report")
    paths = {}
    for original in (True, False):
        entries, privacy = run_records(nlp, [Record(key, text, {}) for key, text in TEXTS.items()], original=original)
        entries.append(voted_entry(original))
        path = folder / ("report.html" if original else "sanitized.html")
        path.write_text(build_html(entries, original=original, privacy=privacy, page_size=2), encoding="utf8")
        paths[original] = (path, entries)
    return paths


@pytest.fixture(scope="module")
def driver():
    chrome = browser.headless_chromium(WIDTH, HEIGHT)
    yield chrome
    chrome.quit()


def open_report(driver, path):
    driver.get(path.as_uri())
    return driver


def page_ids(driver):
    return [box.get_attribute("data-id") for box in driver.find_elements("css selector", "#docs section.doc")]


def all_pages(driver):
    ids = page_ids(driver)
    while True:
        before = driver.find_element("id", "pager-info").text
        driver.find_element("id", "next").click()
        if driver.find_element("id", "pager-info").text == before:
            return ids
        ids += page_ids(driver)


def test_every_document_and_span_with_its_decision(driver, reports):
    path, entries = reports[True]
    open_report(driver, path)
    assert "ORIGINAL PERSONAL DATA" in driver.find_element("id", "banner").text
    assert len(page_ids(driver)) == 2  # page_size 2: the rest is not rendered yet
    open_report(driver, path)
    seen = {}
    while True:
        for box in driver.find_elements("css selector", "#docs section.doc"):
            seen[box.get_attribute("data-id")] = [
                (mark.text.split("\n")[0], mark.get_attribute("data-decision"), mark.get_attribute("class"))
                for mark in box.find_elements("css selector", ".para.orig mark.pii")
            ]
        before = driver.find_element("id", "pager-info").text
        driver.find_element("id", "next").click()
        if driver.find_element("id", "pager-info").text == before:
            break
    assert list(seen) == [*TEXTS, "voted"]
    for item in entries:
        expected = [(item["t"][m[0] : m[1]], m[5]["decision"]) for m in sorted(item["m"], key=lambda m: m[0])]
        shown = seen[item["id"]]
        assert [(text, decision) for text, decision, _ in shown] == expected
        assert all(f"d-{decision}" in classes and "pii" in classes for _, decision, classes in shown)
    decisions = {d for marks in seen.values() for _, d, _ in marks}
    assert decisions == {"masked", "kept", "failed_closed", "added"}
    assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def find_mark(driver, text, side="orig"):
    for mark in driver.find_elements("css selector", f".para.{side} mark.pii"):
        if mark.text.startswith(text):
            return mark
    raise AssertionError(f"no mark {text!r}")


def test_tooltip_on_focus_and_hover(driver, reports):
    from selenium.webdriver.common.action_chains import ActionChains

    open_report(driver, reports[True][0])
    person = find_mark(driver, "Ms Ingrid Solheim")
    assert person.get_attribute("tabindex") == "0"  # keyboard reachable
    driver.execute_script("arguments[0].focus()", person)
    tip = driver.find_element("id", "tip")
    assert tip.is_displayed()
    text = tip.text
    assert text.startswith("PERSON — masked") and "detector: pii_ner" in text and "replacement: [PERSON]" in text
    # court decides from risk_stack's risk, which combines risk_seq's (shown without a threshold)
    assert re.search(r"seq: risk 0\.9\d\n", text) and f"≥ threshold {court_threshold():.2f} → MASK" in text.split("stack: risk", 1)[1].split("\n", 1)[0]
    assert "policy: label PERSON is protected" in text
    assert "vote (threshold): rule k (k=1), 1 of 1 MASK → mask" in text
    court = find_mark(driver, "Court")
    ActionChains(driver).move_to_element(court).perform()
    assert tip.is_displayed() and tip.text.startswith("ORG — kept") and "replacement: none (left in clear)" in tip.text


def test_filters_hide_kept_spans_and_list_risky_documents(driver, reports):
    from selenium.webdriver.support.ui import Select

    open_report(driver, reports[True][0])
    Select(driver.find_element("id", "f-decision")).select_by_value("masked")
    kept = driver.find_elements("css selector", "#docs mark.pii.d-kept")
    assert kept and all("off" in mark.get_attribute("class") for mark in kept)
    assert all(mark.value_of_css_property("background-color") in ("rgba(0, 0, 0, 0)", "transparent") for mark in kept)
    masked = driver.find_elements("css selector", "#docs mark.pii.d-masked")
    assert masked and not any("off" in mark.get_attribute("class") for mark in masked)
    Select(driver.find_element("id", "f-decision")).select_by_value("")
    driver.find_element("id", "f-kept").click()  # kept in clear only: the documents with such spans
    ids = all_pages(driver)
    assert "short" not in ids and "sample" in ids  # "short": a name and a city, both masked
    visible = driver.find_elements("css selector", "#docs mark.pii:not(.off)")
    assert visible and all(mark.get_attribute("data-decision") == "kept" for mark in visible)


def test_markup_in_the_data_stays_text(driver, reports):
    from selenium.common.exceptions import NoAlertPresentException

    open_report(driver, reports[True][0])  # "inject" is the second document: page 1
    box = driver.find_element("css selector", "section.doc[data-id='inject']")
    assert box.find_element("css selector", ".para.orig").text.startswith("<script>alert('x')</script>")
    assert not driver.find_elements("css selector", "#docs b")
    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.accept()


def test_no_original_shows_the_sanitized_side_only(driver, reports):
    open_report(driver, reports[False][0])
    assert "Sanitized view only" in driver.find_element("id", "banner").text
    assert not driver.find_elements("css selector", ".para.orig")
    body = driver.find_element("tag name", "body").text
    assert "Ingrid" not in body and "[PERSON]" in body
    assert find_mark(driver, "[PERSON]", side="san").get_attribute("data-label") == "PERSON"


def test_screenshot_is_not_blank(driver, reports, tmp_path):
    from PIL import Image

    open_report(driver, reports[True][0])
    shot = tmp_path / "report.png"
    viewport = tuple(driver.execute_script("return [window.innerWidth, window.innerHeight]"))
    assert driver.save_screenshot(str(shot))
    with Image.open(shot) as image:
        assert image.size == viewport and viewport[0] == WIDTH and viewport[1] > HEIGHT // 2
        pixels = list(image.convert("RGB").resize((WIDTH // 4, viewport[1] // 4)).getdata())
    background = sum(1 for p in pixels if p in ((250, 250, 250), (255, 255, 255)))
    assert background < 0.9 * len(pixels)  # text, tables and highlights drawn
    assert len(set(pixels)) > 50
