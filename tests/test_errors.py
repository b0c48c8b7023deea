"""The one error catalogue: every coded message lives in spacy_sanitize/errors.py, no two
entries share a code, every message formats with its placeholders, and warnings the user
must act on go through warnings.warn with a catalogue entry."""
import ast
import importlib
import logging
import pkgutil
import re
import string
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

import spacy_sanitize
from spacy_sanitize.errors import Errors, Warnings

PACKAGE = Path(spacy_sanitize.__file__).parent
CODE = re.compile(r"^[EW]\d{3}$")
CODED_LITERAL = re.compile(r"^\[?[EW]\d{3}[:\]]")
# Modules that report results to a terminal (CLI and offline tools) may print.
MAY_PRINT = ("spacy_sanitize/cli/", "spacy_sanitize/training/", "spacy_sanitize/__main__.py")


def sources() -> List[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def rel(path: Path) -> str:
    return str(path.relative_to(PACKAGE.parent))


def catalogue(cls: type) -> Dict[str, str]:
    """The raw (unprefixed) messages of a catalogue class."""
    return {name: value for name, value in vars(cls).items() if CODE.match(name)}


def test_every_module_imports_and_only_the_catalogue_defines_codes():
    modules = [spacy_sanitize]
    for info in pkgutil.walk_packages(spacy_sanitize.__path__, "spacy_sanitize."):
        if info.name.endswith("__main__"):
            continue
        modules.append(importlib.import_module(info.name))
    owners: Dict[str, List[str]] = {}
    seen = set()
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, type) and id(value) not in seen and catalogue(value):
                seen.add(id(value))
                for code in catalogue(value):
                    owners.setdefault(code, []).append(f"{value.__module__}.{value.__qualname__}")
    duplicated = {code: where for code, where in owners.items() if len(where) > 1}
    assert not duplicated, f"codes defined more than once: {duplicated}"
    for code, (where,) in owners.items():
        assert where.rsplit(".", 1)[0] == "spacy_sanitize.errors", f"{code} is defined in {where}"


def test_no_coded_literal_outside_the_catalogue():
    """A coded message written inline (``raise ValueError("E123: ...")``) escapes the
    duplicate check: it must be a catalogue entry."""
    offenders = []
    for path in sources():
        if rel(path) == "spacy_sanitize/errors.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf8"))
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        for node in ast.walk(tree):
            if id(node) in docstrings:
                continue
            if isinstance(node, ast.JoinedStr):
                first = node.values[0] if node.values else None
                text = first.value if isinstance(first, ast.Constant) else ""
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
            else:
                continue
            if isinstance(text, str) and CODED_LITERAL.match(text):
                offenders.append(f"{rel(path)}:{node.lineno}: {text[:40]!r}")
    assert not offenders, "coded messages outside spacy_sanitize/errors.py:\n" + "\n".join(offenders)


def test_warnings_come_from_the_catalogue_and_runtime_modules_do_not_print():
    """warnings.warn takes a Warnings entry; nothing logs at WARNING (a warning the user
    must act on is warnings.warn); runtime modules do not print."""
    offenders = []
    for path in sources():
        name = rel(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, (ast.Attribute, ast.Name)):
                continue
            func = ast.unparse(node.func)
            if func == "warnings.warn":
                message = ast.unparse(node.args[0]) if node.args else ""
                if not re.match(r"Warnings\.W\d{3}\b", message):
                    offenders.append(f"{name}:{node.lineno}: warnings.warn({message[:40]})")
            elif re.match(r"(logger|logging|log)\.(warning|warn|error)$", func):
                offenders.append(f"{name}:{node.lineno}: {func}")
            elif func == "print" and not name.startswith(MAY_PRINT):
                offenders.append(f"{name}:{node.lineno}: print")
    assert not offenders, "\n".join(offenders)


def placeholders(message: str) -> List[Tuple[str, str, str]]:
    return [(field, spec, conv or "") for _, field, spec, conv in string.Formatter().parse(message) if field is not None]


@pytest.mark.parametrize("cls", [Errors, Warnings], ids=["Errors", "Warnings"])
def test_messages_format_with_their_placeholders(cls):
    prefix = "E" if cls is Errors else "W"
    messages = catalogue(cls)
    assert messages and all(code.startswith(prefix) for code in messages)
    for code, raw in messages.items():
        assert not CODED_LITERAL.match(raw), f"{code} still has a hand-written code prefix"
        message = getattr(cls, code)
        assert message.startswith(f"[{code}] ")
        fields = placeholders(message)
        assert all(field and field.isidentifier() for field, _, _ in fields), f"{code}: positional or odd field"
        values = {field: 0.5 if spec else f"<{field}>" for field, spec, _ in fields}
        text = message.format(**values)
        assert text.count("{") == message.count("{{"), f"{code}: a brace left after formatting: {text}"
        assert all(f"<{field}>" in text for field, spec, _ in fields if not spec), f"{code}: {text}"


def test_every_entry_is_used():
    text = "\n".join(path.read_text(encoding="utf8") for path in sources() if rel(path) != "spacy_sanitize/errors.py")
    used = set(re.findall(r"\b(?:Errors|Warnings)\.([EW]\d{3})\b", text))
    unused = sorted((set(catalogue(Errors)) | set(catalogue(Warnings))) - used)
    assert not unused, f"catalogue entries nothing raises or warns: {unused}"


def test_the_package_logger_has_a_null_handler():
    handlers = logging.getLogger("spacy_sanitize").handlers
    assert any(isinstance(h, logging.NullHandler) for h in handlers)
