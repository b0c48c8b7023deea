"""Finding and shifting dates in DATETIME mentions (English formats)."""
import datetime as dt
import re
from dataclasses import dataclass
from typing import Callable, List, Optional

from ...types import MONTHS, WEEKDAYS

_MONTH_INDEX = {m.lower(): i + 1 for i, m in enumerate(MONTHS)}
_MONTH_INDEX.update({m[:3].lower(): i + 1 for i, m in enumerate(MONTHS)})
_MONTH_INDEX["sept"] = 9
_FULL_MONTHS = {m.lower() for m in MONTHS}

_MONTH = r"(?P<{0}>" + "|".join(sorted(_MONTH_INDEX, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<{0}>[0-3]?\d)(?P<{0}sfx>st|nd|rd|th)?"
_YEAR = r"(?P<{0}>1\d{{3}}|20\d{{2}}|21\d{{2}})"
PATTERNS = [
    ("dmy", _DAY.format("d") + r"(?:\s+of)?\s+" + _MONTH.format("m") + r",?\s+" + _YEAR.format("y")),
    ("mdy", _MONTH.format("m") + r"\s+" + _DAY.format("d") + r",?\s+" + _YEAR.format("y")),
    ("iso", _YEAR.format("y") + r"-(?P<m>[01]\d)-(?P<d>[0-3]\d)"),
    ("num", r"(?P<d>[0-3]?\d)(?P<sep>[./])(?P<m>[01]?\d)(?P=sep)" + _YEAR.format("y")),
    ("my", _MONTH.format("m") + r",?\s+" + _YEAR.format("y")),
    ("decade", r"(?P<y>1\d{2}0|20\d0)(?P<apo>'?)s"),
    ("dm", _DAY.format("d") + r"(?:\s+of)?\s+" + _MONTH.format("m")),
    ("md", _MONTH.format("m") + r"\s+" + _DAY.format("d")),
    ("year", _YEAR.format("y")),
    ("month", _MONTH.format("m")),
    ("weekday", r"(?P<w>" + "|".join(WEEKDAYS) + r")"),
]
_COMPILED = [
    (kind, re.compile(r"(?<![\w-])" + pattern + r"(?![\w-])", re.IGNORECASE))
    for kind, pattern in PATTERNS
]


@dataclass
class DateMatch:
    start: int
    end: int
    kind: str
    match: "re.Match[str]"

    def year(self) -> Optional[int]:
        return int(self.match.group("y")) if "y" in self.match.groupdict() else None


def find_dates(text: str) -> List[DateMatch]:
    """Non-overlapping date expressions, most specific pattern first."""
    taken: List[DateMatch] = []
    for kind, pattern in _COMPILED:
        for match in pattern.finditer(text):
            if kind in ("month", "md", "dm") and match.group("m") == "may":
                continue  # the modal verb "may"
            if any(match.start() < m.end and m.start < match.end() for m in taken):
                continue
            if kind in ("dmy", "dm", "mdy", "md", "num", "iso") and not _valid_day(match):
                continue
            taken.append(DateMatch(match.start(), match.end(), kind, match))
    return sorted(taken, key=lambda m: m.start)


def _valid_day(match: "re.Match[str]") -> bool:
    day = int(match.group("d"))
    month = _month_number(match.group("m"))
    return 1 <= day <= 31 and 1 <= month <= 12


def _month_number(value: str) -> int:
    return int(value) if value.isdigit() else _MONTH_INDEX[value.lower()]


def _month_like(original: str, month: int) -> str:
    name = MONTHS[month - 1]
    core = original.rstrip(".")
    if core.lower() not in _FULL_MONTHS:
        name = "Sept" if month == 9 and core.lower() == "sept" else name[:3]
    if original.endswith("."):
        name += "."
    if core.isupper():
        return name.upper()
    return name if core[:1].isupper() else name.lower()


def _with(match: "re.Match[str]", values: dict) -> str:
    """The matched text with some named groups replaced."""
    text = match.group(0)
    base = match.start()
    spans = sorted(((match.start(g), match.end(g), v) for g, v in values.items() if match.start(g) >= 0), reverse=True)
    for start, end, value in spans:
        text = text[: start - base] + value + text[end - base :]
    return text


def _suffix(day: int) -> str:
    if 11 <= day % 100 <= 13:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def ordinal(n: int) -> str:
    """``21`` -> ``"21st"``."""
    return f"{n}{_suffix(n)}"


def shift_match(m: DateMatch, days: int) -> str:
    g = m.match
    years = round(days / 365.25) or (1 if days > 0 else -1)
    if m.kind in ("dmy", "mdy", "iso", "num", "dm", "md"):
        year = int(g.group("y")) if "y" in g.groupdict() else 2001
        try:
            date = dt.date(year, _month_number(g.group("m")), int(g.group("d")))
        except ValueError:
            date = dt.date(year, _month_number(g.group("m")), 28)
        new = date + dt.timedelta(days=days)
        values = {"d": str(new.day).zfill(len(g.group("d"))) if g.group("d").startswith("0") else str(new.day)}
        if g.group("m").isdigit():
            values["m"] = str(new.month).zfill(len(g.group("m")))
        else:
            values["m"] = _month_like(g.group("m"), new.month)
        if "y" in g.groupdict():
            values["y"] = str(new.year)
        if g.groupdict().get("dsfx"):
            values["dsfx"] = _suffix(new.day)
        return _with(g, values)
    if m.kind == "my":
        months = round(days / 30.44) or (1 if days > 0 else -1)
        total = int(g.group("y")) * 12 + _month_number(g.group("m")) - 1 + months
        return _with(g, {"m": _month_like(g.group("m"), total % 12 + 1), "y": str(total // 12)})
    if m.kind == "decade":
        return _with(g, {"y": str(int(g.group("y")) + (10 if days > 0 else -10))})
    if m.kind == "year":
        return str(int(g.group("y")) + years)
    if m.kind == "month":
        months = round(days / 30.44) or (1 if days > 0 else -1)
        return _month_like(g.group("m"), (_month_number(g.group("m")) - 1 + months) % 12 + 1)
    if m.kind == "weekday":
        name = WEEKDAYS[(WEEKDAYS.index(g.group("w").capitalize()) + days) % 7]
        return name if g.group("w")[:1].isupper() else name.lower()
    return g.group(0)


def shift_dates(text: str, days: int, fallback: Callable[[str], str]) -> str:
    """Every date in ``text`` shifted by ``days``; characters outside dates that are
    digits go through ``fallback`` (so no digit of the original survives)."""
    out = []
    cursor = 0
    for m in find_dates(text):
        out.append(_digits_through(text[cursor : m.start], fallback))
        out.append(shift_match(m, days))
        cursor = m.end
    out.append(_digits_through(text[cursor:], fallback))
    return "".join(out)


def _digits_through(piece: str, fallback: Callable[[str], str]) -> str:
    return re.sub(r"\d+", lambda mt: fallback(mt.group(0)), piece)


def most_specific_year(text: str) -> Optional[DateMatch]:
    """The first date with a year (full dates rank before months and plain years)."""
    for m in find_dates(text):
        if m.year() is not None:
            return m
    return None
