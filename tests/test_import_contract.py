"""The package's import contract (the front door's layering): the command line is a leaf
that nothing imports; the run layer (``run/``) serves every front door and is imported by no
stage; the stages (detect, risk, decide, masker) import neither; no import circle; argument
parsing only in the command line (and the offline training tools' own parsers)."""
import ast
from pathlib import Path
from typing import Dict, Set

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "spacy_sanitize"
STAGES = ("detect", "risk", "decide", "masker")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: Set[str]) -> Set[str]:
    """Every package module ``path`` imports, at the top or inside a function."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            # the module itself, or the package a name was taken from
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target.startswith("spacy_sanitize") and target != name:
                found.add(target)
    return found


@pytest.fixture(scope="module")
def graph() -> Dict[str, Set[str]]:
    paths = [p for p in PACKAGE.rglob("*.py")]
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports_of(p, modules) for p in paths}


def test_nothing_outside_the_command_line_imports_it(graph):
    offenders = sorted(
        f"{module} -> {target}" for module, targets in graph.items() for target in targets
        if target.startswith("spacy_sanitize.cli") and not module.startswith("spacy_sanitize.cli") and module != "spacy_sanitize.__main__"
    )
    assert not offenders, offenders


def test_stages_import_neither_the_run_layer_nor_the_command_line(graph):
    offenders = sorted(
        f"{module} -> {target}" for module, targets in graph.items() if module.split(".")[1:2] and module.split(".")[1] in STAGES
        for target in targets if target.startswith(("spacy_sanitize.run", "spacy_sanitize.cli"))
    )
    assert not offenders, offenders


def test_the_run_layer_imports_no_command(graph):
    offenders = sorted(f"{m} -> {t}" for m, targets in graph.items() if m.startswith("spacy_sanitize.run") for t in targets if t.startswith("spacy_sanitize.cli"))
    assert not offenders, offenders


def test_no_import_circle_between_modules(graph):
    # a package's __init__ re-exporting its own modules is not a circle between modules
    g = nx.DiGraph()
    for module, targets in graph.items():
        for target in targets:
            if not module.startswith(target + ".") and not target.startswith(module + "."):
                g.add_edge(module, target)
    cycles = list(nx.simple_cycles(g))
    assert not cycles, [" -> ".join(c) for c in cycles[:5]]


def test_only_the_command_line_parses_arguments(graph):
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        name = module_name(path)
        if name.startswith(("spacy_sanitize.cli", "spacy_sanitize.training")):
            continue  # the commands, and the offline training tools they forward to
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(n, ast.Import) and any(a.name == "argparse" for a in n.names) or isinstance(n, ast.ImportFrom) and n.module == "argparse"
               for n in ast.walk(tree)):
            offenders.append(name)
    assert not offenders, offenders


def test_detectors_and_deciders_take_their_text_helpers_from_the_text_module(graph):
    """Folding, common words, name parts and occurrences live in ``text.py``: a detector or a
    decider that imported them from the masking plan depended on a masking module. ``risk_infer``
    (``decide/infer/``) runs after the decision and reads the text as the masker will write it:
    it calls the plan itself."""
    offenders = sorted(
        f"{module} -> {target}" for module, targets in graph.items()
        if module.startswith(("spacy_sanitize.detect", "spacy_sanitize.decide")) and not module.startswith("spacy_sanitize.decide.infer")
        for target in targets if target == "spacy_sanitize.masker" or target.startswith("spacy_sanitize.masker.")
    )
    assert not offenders, offenders


def test_no_script_patches_the_import_path():
    """A benchmark or script imports its siblings from its own folder (first on a script's
    path) and the package as installed: none edits sys.path (the review counted 15)."""
    root = PACKAGE.parent
    offenders = [str(path.relative_to(root)) for folder in ("benchmarks", "scripts") for path in sorted((root / folder).rglob("*.py"))
                 if "sys.path" in path.read_text(encoding="utf-8")]
    assert not offenders, offenders
