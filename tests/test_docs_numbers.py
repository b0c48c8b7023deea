"""Every measured number in README.md and docs/*.md comes from a results file a benchmark writes (issue #19 item 8).

Tables: the line before a markdown table (blank lines allowed between) names its source,
  <!-- results: benchmarks/results/FILE.json[, benchmarks/results/FILE2.json] -->
and every number with a decimal point (or a thousands comma) in the table's body must equal, at
the precision shown, some number in the named file(s): 0.853 matches 0.8528, 2.19x matches 2.187,
1,324 matches 1324, 6.3M matches 6258000, 85.3% matches 0.853 or 85.3. A table with such numbers and no results marker
must say why it holds no measurement:
  <!-- numbers: not measured (settings and defaults) -->
A body row whose first cell says "(published" (the seeds' published figures, not measured here)
is exempt from the match.

Prose: a paragraph with a number of two or more decimals, or a speed-up like 2.4x, is a
measurement (0.5 or 10x are not: too common in settings and targets; a leading minus is part of the number);
each such number must match a results file named by a marker in the paragraph's
section (heading to next heading), unless a `numbers: not measured` marker precedes the paragraph.
"""
import bisect
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, List, Optional, Set, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RESULTS_MARKER = re.compile(r"^\s*<!--\s*results:\s*(.+?)\s*-->\s*$")
NOT_MEASURED = re.compile(r"^\s*<!--\s*numbers:\s*not measured\s*\((.+)\)\s*-->\s*$")
HEADING = re.compile(r"^#{1,6} ")
# A sign, digits (optionally grouped by commas), decimals; not part of a word, a version or a date.
NUMBER = re.compile(r"(?<![\w.])((?<![\w.])[+\-−](?=\d))?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+)(?![\w.]*\d)([kM](?![A-Za-z]))?(%?)")
PROSE_MEASURE = re.compile(r"(?<![\w.])((?<![\w.])[\-−](?=\d))?(\d+\.\d{2,}|\d+\.\d+x)(?![\w.]*\d|/\d)")  # not 192.168/16

@dataclass
class Table:
    page: str
    line: int
    heading: str
    rows: List[str]
    sources: List[str] = field(default_factory=list)
    not_measured: Optional[str] = None

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


@dataclass
class Paragraph:
    page: str
    line: int
    heading: str
    text: str
    sources: List[str]
    not_measured: bool


def numbers_in(text: str) -> List[Tuple[str, float, float, bool]]:
    """(as shown, value, half a unit of the last digit shown, percent) for each decimal, comma-grouped or k/M number."""
    found = []
    for sign, digits, unit, percent in NUMBER.findall(text):
        plain = digits.replace(",", "")
        decimals = len(plain.split(".")[1]) if "." in plain else 0
        scale = {"k": 1e3, "M": 1e6}.get(unit, 1.0)
        value = (-float(plain) if sign in ("-", "−") else float(plain)) * scale
        found.append((sign + digits + unit + percent, value, 0.5 * 10 ** -decimals * scale, bool(percent)))
    return found


def _walk(value: object) -> Iterable[float]:
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        if math.isfinite(value):
            yield float(value)
    elif isinstance(value, str):
        try:
            yield float(value)
        except ValueError:
            # A label the benchmark wrote ("0.1 MB", a bin "0.8-0.9") is a number of the file too:
            # the table showing it as its row label must not need rewording.
            for _, number, _, _ in numbers_in(value):
                yield number
    elif isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


_VALUES: dict = {}


def result_values(sources: List[str]) -> List[float]:
    values: List[float] = []
    for source in sources:
        if source not in _VALUES:
            path = ROOT / source
            assert path.is_file(), f"results marker names {source}, which does not exist"
            _VALUES[source] = sorted(_walk(json.loads(path.read_text(encoding="utf8"))))
        values.extend(_VALUES[source])
    return sorted(values)


def matches(value: float, tolerance: float, percent: bool, values: List[float]) -> bool:
    """Some value rounds (half up, within float noise) to `value` at the precision shown."""
    for target, scale in [(value, 1.0)] + ([(value / 100, 100.0)] if percent else []):
        low = bisect.bisect_left(values, target - (tolerance + 1e-9) / scale)
        if low < len(values) and values[low] <= target + (tolerance + 1e-9) / scale:
            return True
    return False


def _markers_before(lines: List[str], start: int) -> Tuple[List[str], Optional[str]]:
    sources: List[str] = []
    reason = None
    j = start - 1
    while j >= 0 and (not lines[j].strip() or RESULTS_MARKER.match(lines[j]) or NOT_MEASURED.match(lines[j])):
        results, unmeasured = RESULTS_MARKER.match(lines[j]), NOT_MEASURED.match(lines[j])
        if results:
            sources += [name.strip() for name in results.group(1).split(",")]
        if unmeasured:
            reason = unmeasured.group(1)
        j -= 1
    return sources, reason


def parse_page(path: Path) -> Tuple[List[Table], List[Paragraph]]:
    page = str(path.relative_to(ROOT))
    lines = path.read_text(encoding="utf8").splitlines()
    tables: List[Table] = []
    paragraphs: List[Paragraph] = []
    heading, section_sources = "", []  # type: str, List[str]
    pending_paragraphs: List[Paragraph] = []
    in_fence = False
    i = 0

    def close_section() -> None:
        for paragraph in pending_paragraphs:
            paragraph.sources += section_sources
        paragraphs.extend(pending_paragraphs)
        pending_paragraphs.clear()

    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            i += 1
            continue
        if in_fence:
            i += 1
            continue
        if HEADING.match(line):
            close_section()
            heading, section_sources = line.lstrip("#").strip(), []
        elif RESULTS_MARKER.match(line):
            section_sources += [name.strip() for name in RESULTS_MARKER.match(line).group(1).split(",")]
        elif line.lstrip().startswith("|"):  # a table, also one indented in a list item
            end = i
            while end < len(lines) and lines[end].lstrip().startswith("|"):
                end += 1
            sources, reason = _markers_before(lines, i)
            tables.append(Table(page, i + 1, heading, [row.strip() for row in lines[i:end]], sources, reason))
            i = end
            continue
        elif line.strip() and not line.lstrip().startswith("<!--"):
            end = i + 1
            while end < len(lines) and lines[end].strip() and not lines[end].lstrip().startswith(("```", "|", "#", "<!--")):
                end += 1
            _, reason = _markers_before(lines, i)
            pending_paragraphs.append(Paragraph(page, i + 1, heading, " ".join(lines[i:end]), [], reason is not None))
            i = end
            continue
        i += 1
    close_section()
    return tables, paragraphs


PAGES = {str(path.relative_to(ROOT)): parse_page(path) for path in DOCS}
TABLES = [table for tables, _ in PAGES.values() for table in tables]
PARAGRAPHS = [paragraph for _, paragraphs in PAGES.values() for paragraph in paragraphs]


def body_rows(table: Table) -> List[str]:
    rows = table.rows[2:] if len(table.rows) > 1 and set(table.rows[1]) <= set("|-: ") else table.rows
    return [row for row in rows if "(published" not in row.strip("| ").split("|")[0]]


def stale_numbers(text: str, sources: List[str]) -> List[str]:
    values = result_values(sources)
    return [shown for shown, value, tolerance, percent in numbers_in(text) if not matches(value, tolerance, percent, values)]


@pytest.mark.parametrize("table", [pytest.param(table, id=table.id) for table in TABLES])
def test_table_numbers_come_from_results(table: Table) -> None:
    rows = body_rows(table)
    if not any(numbers_in(row) for row in rows):
        return
    if not table.sources:
        if table.not_measured:
            return
        pytest.fail(f"{table.id} ({table.heading}): numbers with no <!-- results: benchmarks/results/FILE.json --> "
                    "marker; or say <!-- numbers: not measured (why) --> for settings or published figures")
    stale = [(row.split("|")[1].strip(), shown) for row in rows for shown in stale_numbers(row, table.sources)]
    assert not stale, f"{table.id} ({table.heading}): numbers found in none of {table.sources}: {stale}"


def _measured(paragraph: Paragraph) -> List[str]:
    # The sign counts: a threshold of -1.25 is not matched by a 1.25 elsewhere in the file.
    return [sign + number for sign, number in PROSE_MEASURE.findall(paragraph.text)]


@pytest.mark.parametrize("paragraph", [pytest.param(p, id=f"{p.page}:{p.line}") for p in PARAGRAPHS if _measured(p)])
def test_prose_measurements_come_from_results(paragraph: Paragraph) -> None:
    if paragraph.not_measured:
        return
    where = f"{paragraph.page}:{paragraph.line}"
    assert paragraph.sources, (f"{where}: measured figures {_measured(paragraph)} and no results marker in the section; "
                               "add <!-- results: benchmarks/results/FILE.json --> or <!-- numbers: not measured (why) -->")
    values = result_values(paragraph.sources)
    stale = []
    for shown in _measured(paragraph):
        plain = shown.rstrip("x").replace("−", "-")
        decimals = len(plain.split(".")[1]) if "." in plain else 0
        if not matches(float(plain), 0.5 * 10 ** -decimals, False, values):
            stale.append(shown)
    assert not stale, f"{where}: {stale} found in none of {paragraph.sources}"


def test_results_markers_name_files_that_exist() -> None:
    named: Set[str] = {source for table in TABLES for source in table.sources}
    named |= {source for paragraph in PARAGRAPHS for source in paragraph.sources}
    missing = sorted(source for source in named if not (ROOT / source).is_file())
    assert not missing, f"results markers name missing files: {missing}"


def test_checker_matches_at_shown_precision_and_flags_the_rest(tmp_path: Path) -> None:
    """The rules in the docstring, on a page written here (a checker that flags nothing tests nothing)."""
    values = sorted([0.8528, 2.187, 1324.0, -0.0121, 6258000.0, *_walk({"input": "0.1 MB", "bin": "0.8-0.9", "v": "3.8.0"})])
    for shown, expected in [("0.853", True), ("0.85", True), ("0.852", False), ("2.19x", True), ("1,324", True),
                            ("85.3%", True), ("-0.012", True), ("0.012", False), ("1,325", False), ("6.3M", True),
                            ("6.2M", False), ("0.1", True), ("0.9", True), ("3.8", False)]:
        [(_, value, tolerance, percent)] = numbers_in(f"| a | {shown} |")
        assert matches(value, tolerance, percent, values) is expected, shown
    assert numbers_in("spaCy 3.8, v1.2.3, 2024-05-01, en_core_web_sm-3.8.0") == [("3.8", 3.8, 0.05, False)]
    assert [shown for shown, *_ in numbers_in("0.91/0.61/0.73, 1.0-1.7x, −0.02")] == ["0.91", "0.61", "0.73", "1.0", "1.7", "−0.02"]
    page = tmp_path / "page.md"
    page.write_text("# A\n\n| x | P |\n|---|---|\n| a | 0.5 |\n\n"
                    "<!-- numbers: not measured (defaults) -->\n| x | v |\n|---|---|\n| t | 0.37 |\n\n"
                    "## B\n\n<!-- results: r.json -->\n\n| x | P |\n|---|---|\n| seed 000 (published) | 0.9 |\n| ours | 0.7 |\n\n"
                    "It took 0.1234 s, a 2.4x gain (target 10x).\n\n```text\n| not | 0.1 |\n```\n", encoding="utf8")
    (tmp_path / "r.json").write_text("{}", encoding="utf8")
    global ROOT
    old_root, ROOT = ROOT, tmp_path
    try:
        tables, paragraphs = parse_page(page)
    finally:
        ROOT = old_root
    unmarked, settings, marked = tables
    assert (unmarked.sources, unmarked.not_measured) == ([], None) and settings.not_measured == "defaults"
    assert marked.sources == ["r.json"] and body_rows(marked) == ["| ours | 0.7 |"]
    [prose] = [paragraph for paragraph in paragraphs if _measured(paragraph)]
    assert prose.sources == ["r.json"] and _measured(prose) == ["0.1234", "2.4x"]


def test_prose_rule_takes_two_decimals_and_signs() -> None:
    """Two-decimal figures are measurements too (P 0.76); a sign belongs to the number; versions, IPs, ranges' ends are plain."""
    text = ("P 0.76 at threshold -1.25 and −0.91, a 1.8x gain; p 0.5, spaCy 3.8.0, 10.0.0.1, 192.168/16, "
            "grid 0.02-0.7, target 10x, 12.5 %")
    prose = Paragraph("page.md", 1, "A", text, [], False)
    assert _measured(prose) == ["0.76", "-1.25", "−0.91", "1.8x", "0.02"]


def test_the_docs_carry_markers() -> None:
    """Not vacuous: most measured tables name their results file."""
    marked = [table for table in TABLES if table.sources]
    assert len(marked) >= 15, [table.id for table in marked]
