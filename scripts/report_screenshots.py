"""The pictures of docs/report.md: the top of a review report, then a report of examples/sample.txt and a court case
(court pipeline) with a tooltip open, its --no-original version, and the displaCy views.

    python scripts/report_screenshots.py [--out docs] [--court /work/shared/data/tab/tab_dev_texts.jsonl]

Needs the [report] extra and Debian's chromium + chromium-driver (spacy_sanitize.report.browser).
"""
import argparse
import json
import tempfile
from pathlib import Path

import spacy_sanitize
from spacy_sanitize.io import Record
from spacy_sanitize.report.browser import headless_chromium
from spacy_sanitize.report.build import run_records
from spacy_sanitize.report.html import build_html

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--court", type=Path, default=None, help="JSONL of court texts: its first case joins the report")
    args = parser.parse_args()
    nlp = spacy_sanitize.load_pipeline("court")
    records = [Record("sample", (ROOT / "examples" / "sample.txt").read_text(encoding="utf8"), {})]
    if args.court and args.court.exists():
        case = json.loads(args.court.read_text(encoding="utf8").splitlines()[0])
        records.append(Record(case["doc_id"], case["text"][:2500], {}))
    work = Path(tempfile.mkdtemp())
    driver = headless_chromium(1300, 1000)
    try:
        for original, name in ((True, "report.png"), (False, "report_sanitized.png")):
            entries, privacy = run_records(nlp, records, original=original)
            page = work / f"{name}.html"
            page.write_text(build_html(entries, original=original, privacy=privacy), encoding="utf8")
            driver.get(page.as_uri())
            if original:  # the banner, the summary and the privacy report
                driver.save_screenshot(str(args.out / "report_summary.png"))
            driver.execute_script("document.getElementById('controls').scrollIntoView()")
            marks = [m for m in driver.find_elements("css selector", "#docs mark.pii") if m.text.startswith(("Ms Ingrid Solheim", "[PERSON]"))]
            if marks:
                driver.execute_script("arguments[0].focus(); window.scrollBy(0, -120)", marks[0])
                driver.execute_script("arguments[0].dispatchEvent(new FocusEvent('focusin', {bubbles: true}))", marks[0])
            driver.save_screenshot(str(args.out / name))
        doc = nlp(records[0].text)
        for view in ("type", "decision"):
            page = work / f"displacy_{view}.html"
            page.write_text(spacy_sanitize.render(doc, view=view, page=True, jupyter=False), encoding="utf8")
            driver.get(page.as_uri())
            driver.save_screenshot(str(args.out / f"report_displacy_{view}.png"))
    finally:
        driver.quit()
    print("written to", args.out)


if __name__ == "__main__":
    main()
