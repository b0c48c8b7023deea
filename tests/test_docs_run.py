"""Every fenced block of README.md and docs/*.md runs (issue #19 item 8).

One test per block, id = file:line. ```python blocks are executed (cwd: a temporary
folder holding `examples/` and small input files); bash/sh/console blocks run as a bash
script with `spacy-sanitize` and `python` bound to this interpreter; ini/cfg blocks are
parsed as spaCy configs; json/yaml blocks are parsed. Shown output is checked: a
```text/```output block right after a block, or `# ...` comment lines right after a python
statement that prints or evaluates to a value (an inline comment on a `print(...)` line
too), compared with whitespace normalised.

An HTML comment right before the fence steers a block:
  <!-- docs-test: skip (reason) -->      cannot run in a test: reported as skipped
  <!-- docs-test: slow (reason) -->      runs only with `pytest -m slow`
  <!-- docs-test: contains "..." -->     shown output is approximate: the output must contain this
  <!-- docs-test: continue -->           python: runs after the file's earlier python blocks
"""
import ast
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest
import spacy

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TAB_DEV = Path("/work/shared/data/tab/tab_dev.json")
TAB_TEXTS = TAB_DEV.with_name("tab_dev_texts.jsonl")
FENCE = re.compile(r"^```(\w*)\s*$")
DIRECTIVE = re.compile(r"^<!--\s*docs-test:\s*(skip|slow|contains|continue)\s*(.*?)\s*-->\s*$")
OUTPUT_LANGS = {"text", "output"}
SHELL_LANGS = {"bash", "sh", "console", "shell"}


@dataclass
class Block:
    path: Path
    line: int
    lang: str
    code: str
    directives: Dict[str, str] = field(default_factory=dict)
    output: Optional[str] = None
    previous_python: Optional["Block"] = None

    @property
    def id(self) -> str:
        name = self.path.relative_to(ROOT) if ROOT in self.path.parents else self.path.name
        return f"{name}:{self.line}"


def parse_blocks(path: Path) -> List[Block]:
    lines = path.read_text(encoding="utf8").splitlines()
    blocks: List[Block] = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        start, lang = i, match.group(1).lower()
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        directives: Dict[str, str] = {}
        j = start - 1
        while j >= 0 and (lines[j].strip() == "" or DIRECTIVE.match(lines[j])):
            directive = DIRECTIVE.match(lines[j])
            if directive:
                directives[directive.group(1)] = directive.group(2).strip("()\"")
            j -= 1
        block = Block(path, start + 1, lang, "\n".join(lines[start + 1:end]) + "\n", directives)
        if lang in OUTPUT_LANGS and blocks and blocks[-1].output is None and _adjacent(lines, blocks[-1], start):
            blocks[-1].output = block.code
        else:
            blocks.append(block)
        i = end + 1
    previous = None
    for block in blocks:
        if block.lang == "python":
            block.previous_python, previous = previous, block
    return blocks


def _adjacent(lines: List[str], block: Block, start: int) -> bool:
    """Only blank lines between the previous block's closing fence and this one."""
    closing = block.line + block.code.count("\n")
    return all(not line.strip() for line in lines[closing + 1:start])


BLOCKS = [block for path in DOCS for block in parse_blocks(path)]


def normalise(text: str) -> str:
    return " ".join(text.split())


def check_output(block: Block, actual: str, expected: str) -> None:
    wanted = block.directives.get("contains")
    if wanted is not None:
        assert normalise(wanted) in normalise(actual), f"{block.id}: output lacks {wanted!r}:\n{actual}"
    else:
        assert normalise(actual) == normalise(expected), f"{block.id}: shown output is stale\nshown:  {expected}\nactual: {actual}"


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Path:
    """A cwd with the files the examples name; secrets they read from the environment."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    short = "Anna Berg lives in Oslo. She was born on 3 May 1961."
    for name in ("note.txt", "big.txt"):
        (tmp_path / name).write_text(short, encoding="utf8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text(short, encoding="utf8")
    record = {"id": "a1", "text": short, "body": short, "doc": {"body": short}}
    for name in ("data.jsonl", "in.jsonl", "batch1.jsonl", "batch2.jsonl", "cases.jsonl"):
        (tmp_path / name).write_text(json.dumps(record) + "\n", encoding="utf8")
    if TAB_DEV.exists():
        gold = json.loads(TAB_DEV.read_text(encoding="utf8"))[:1]
        (tmp_path / "gold.json").write_text(json.dumps(gold), encoding="utf8")
    if TAB_TEXTS.exists():  # the attack benchmark needs labelled texts
        texts = TAB_TEXTS.read_text(encoding="utf8").splitlines(keepends=True)[:20]
        (tmp_path / "texts.jsonl").write_text("".join(texts), encoding="utf8")
    monkeypatch.setenv("SPACY_SANITIZE_SECRET", "docs-test-secret-" + "x" * 32)
    monkeypatch.setenv("MAPPING_KEY", "docs-test-mapping-key-" + "y" * 32)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_python(block: Block, namespace: Dict[str, Any]) -> None:
    source = block.code
    tree = ast.parse(source)
    lines = source.splitlines()
    for statement in tree.body:
        expected = _shown_after(statement, lines)
        module = ast.Module(body=[statement], type_ignores=[])
        value = None
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            if isinstance(statement, ast.Expr) and not isinstance(statement.value, ast.Call):
                value = eval(compile(ast.Expression(statement.value), block.id, "eval"), namespace)
            else:
                exec(compile(module, block.id, "exec"), namespace)
        printed = out.getvalue() + (repr(value) if value is not None else "")
        sys.stdout.write(printed)
        if expected is not None and printed:
            check_output(block, printed, expected)


def _shown_after(statement: ast.stmt, lines: List[str]) -> Optional[str]:
    """The `# ...` lines right after a statement, or the inline comment of a one-line print."""
    end = statement.end_lineno or statement.lineno
    shown = []
    for line in lines[end:]:
        if not line.startswith("#"):
            break
        shown.append(line[1:].strip())
    if shown:
        return "\n".join(shown)
    call = statement.value if isinstance(statement, ast.Expr) else None
    if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "print" and "#" in lines[end - 1]:
        return lines[end - 1].split("#", 1)[1].strip()
    return None


SHELL_PRELUDE = """set -euo pipefail
spacy-sanitize() { "$DOCS_TEST_PY" -m spacy_sanitize "$@"; }
python() { "$DOCS_TEST_PY" "$@"; }
"""


def run_shell(block: Block) -> str:
    env = dict(os.environ, DOCS_TEST_PY=sys.executable, PYTHONPATH=str(ROOT))
    if re.search(r"\b(gold|texts)\.json", block.code) and not TAB_DEV.exists():
        pytest.skip(f"{block.id}: needs the development data in {TAB_DEV.parent}")
    result = subprocess.run(["bash", "-c", SHELL_PRELUDE + block.code], capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, f"{block.id} failed ({result.returncode}):\n{result.stderr[-3000:]}"
    return result.stdout


def with_parent_sections(text: str) -> str:
    """A config excerpt (`[components.masker.strategy]` alone) with its parent sections declared."""
    sections = re.findall(r"^\[([^\]]+)\]", text, re.M)
    parents = {".".join(name.split(".")[:i]) for name in sections for i in range(1, name.count(".") + 1)}
    missing = sorted(parents - set(sections), key=lambda name: name.count("."))
    return "".join(f"[{name}]\n" for name in missing) + text


def parametrize(blocks: List[Block]) -> List[Any]:
    params = []
    for block in blocks:
        marks = []
        if "skip" in block.directives:
            marks.append(pytest.mark.skip(reason=f"{block.id}: {block.directives['skip']}"))
        if "slow" in block.directives:
            marks.append(pytest.mark.slow)
        params.append(pytest.param(block, id=block.id, marks=marks))
    return params


@pytest.mark.parametrize("block", parametrize(BLOCKS))
def test_block_runs(block: Block, workspace: Path) -> None:
    if block.lang == "python":
        namespace: Dict[str, Any] = {"__name__": "__docs__"}
        if "continue" in block.directives:
            earlier = block.previous_python
            assert earlier is not None, f"{block.id}: continue without a previous python block"
            chain = []
            while earlier is not None:
                chain.insert(0, earlier)
                earlier = earlier.previous_python
            with contextlib.redirect_stdout(io.StringIO()):
                for previous in chain:
                    exec(compile(previous.code, previous.id, "exec"), namespace)
        run_python(block, namespace)
    elif block.lang in SHELL_LANGS:
        stdout = run_shell(block)
        if block.output is not None:
            check_output(block, stdout, block.output)
    elif block.lang in ("ini", "cfg"):
        spacy.util.load_config_from_str(with_parent_sections(block.code), interpolate=False)
    elif block.lang == "json":
        json.loads(block.code)
    elif block.lang == "yaml":
        yaml = pytest.importorskip("yaml")
        yaml.safe_load(block.code)
    elif block.lang in ("", *OUTPUT_LANGS):
        pytest.skip(f"{block.id}: a diagram or synopsis, nothing to run")
    else:
        pytest.fail(f"{block.id}: no runner for ```{block.lang}; add one or mark the block <!-- docs-test: skip (reason) -->")


def test_blocks_found() -> None:
    """The collector sees the fences (a regex slip would silently test nothing)."""
    fences = sum(text.count("\n```") for text in (p.read_text(encoding="utf8") for p in DOCS))
    outputs = sum(block.output is not None for block in BLOCKS)
    assert len(BLOCKS) * 2 + outputs * 2 >= fences - 1 and len(BLOCKS) > 40


MASKING = ROOT / "docs" / "masking.md"


def masking_examples() -> List[Any]:
    """The rows of masking.md's "Examples (input → output)" table, with its input and spans."""
    text = MASKING.read_text(encoding="utf8")
    section = text[text.index("### Examples (input → output)"):]
    spans_line = re.search(r"Input \(spans: (.*?)\):", section, re.S).group(1)
    spans = [(label, mention) for part in spans_line.split(";")
             for label, mentions in [part.strip().split(" ", 1)] for mention in re.findall(r"`([^`]+)`", mentions)]
    source = re.search(r"^> (.+)$", section, re.M).group(1)
    rows = re.findall(r"^\| (`[^|]*?) \| (.+?) \|$", section.split("\n\n", 3)[3], re.M)
    params = []
    for cell, output in rows:
        names = re.findall(r"`([^`]+)`", cell)
        secret = None
        if "secret" in cell:
            secret = names.pop()
        config: Dict[str, Any] = {"@strategies": names[0] if names[0].startswith("spacy_sanitize.") else "spacy_sanitize." + names[0]}
        for name in names[1:]:
            key, _, value = name.partition("=")
            config[key] = json.loads(value) if value else True
        params.append(pytest.param(source, spans, config, secret, output.replace("\\*", "*"), id=cell))
    return params


@pytest.mark.parametrize("source,spans,strategy,secret,shown", masking_examples())
def test_masking_examples_table(source: str, spans: List[Any], strategy: Dict[str, Any], secret: Optional[str], shown: str) -> None:
    """Each strategy's row is what the masker writes for the stated spans (pii_coref links `Kodnani`)."""
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_coref")
    masker = nlp.add_pipe("masker", config={"strategy": strategy})
    masker.set_secret(secret)
    doc = nlp.make_doc(source)
    found = []
    for label, mention in spans:
        start = source.index(mention)
        found.append(doc.char_span(start, start + len(mention), label=label))
    doc.spans["pii"] = found
    for _, component in nlp.pipeline:
        doc = component(doc)
    pieces = [piece.strip() for piece in shown.split("…") if piece.strip()]
    if len(pieces) == 1 and "…" not in shown:
        assert doc._.sanitized == shown
    else:  # an abridged row: its pieces, in order
        position = 0
        for piece in pieces:
            position = doc._.sanitized.index(piece, position) + len(piece)


RESULTS = ROOT / "benchmarks" / "results"
README = ROOT / "README.md"


def readme_table(after: str, nth: int = 0) -> List[List[str]]:
    """The body rows (cells stripped) of the nth markdown table after the text `after`."""
    text = README.read_text(encoding="utf8")
    tables = re.findall(r"((?:^\|.*\|\n)+)", text[text.index(after):], re.M)
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in tables[nth].splitlines()]
    return rows[2:]


def same_number(shown: str, value: float) -> bool:
    """`shown` is `value` rounded (half up: 5.05 shows as 5.1) to the decimals shown."""
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    return abs(float(shown) - value) <= 0.5 * 10 ** -decimals + 1e-9


# README row prefix -> stage key of benchmarks/quality/default_pipeline.py's results (a key may be the end of the stage name)
DEFAULT_STAGES = {
    "CODE, script and title rules": "pii_codes + pii_script + pii_titles",
    "+ DEM/MISC gazetteer": "pii_codes + pii_script + pii_titles + pii_gazetteer",
    "+ the distilled `pii_ner`": "pii_codes + pii_script + pii_titles + pii_gazetteer + pii_ner",
    "+ `pii_refine`": "pii_codes + pii_script + pii_titles + pii_gazetteer + pii_ner + pii_refine",
    "+ `pii_propn`": "pii_codes + pii_script + pii_titles + pii_gazetteer + pii_ner + pii_refine + pii_propn",
    "+ `pii_text_view`, `pii_confidence`, `pii_coref`, masker": "+ pii_coref + masker",  # the whole default pipeline
}
ENSEMBLE_STAGES = {
    "plain `en_core_web_sm` NER, all labels": "plain NER (all labels)",
    "+ label mapping, CODE, script and title rules": "pii_codes + pii_script + pii_titles + pii_ent_mapper",
    "+ DEM/MISC gazetteer": "pii_codes + pii_script + pii_titles + pii_ent_mapper + pii_gazetteer",
    "+ silver-trained `pii_ner`": "pii_codes + pii_script + pii_titles + pii_ent_mapper + pii_gazetteer + pii_ner",
    "+ `pii_refine`, `pii_coref`": "+ pii_coref + masker",  # the whole ensemble pipeline
}
MASKING_COLUMNS = ["P", "R_all", "F1", "R_ent", "R_direct", "R_quasi"]


@pytest.mark.parametrize("results_file,nth,stages", [("default_pipeline.json", 0, DEFAULT_STAGES), ("ensemble_pipeline.json", 1, ENSEMBLE_STAGES)])
def test_readme_end_to_end_tables_are_their_results(results_file: str, nth: int, stages: dict) -> None:
    results = json.loads((RESULTS / results_file).read_text(encoding="utf8"))
    rows = readme_table("### End-to-end: the strict pipeline on wiki_dev", nth)
    assert len(rows) == len(stages)
    for row in rows:
        key = next(stage for prefix, stage in stages.items() if row[0].startswith(prefix))
        masking = next(value for name, value in results.items() if name == key or name.endswith(key))["masking"]
        stale = [(column, shown, masking[column]) for column, shown in zip(MASKING_COLUMNS, row[1:]) if not same_number(shown, masking[column])]
        assert not stale, f"README row {row[0]!r} differs from {results_file}: {stale}"


# presidio_compare.json was run when the mask-all pipeline was called default (now strict)
PRESIDIO_ROWS = {"Presidio": "Presidio (threshold 0.0)", "spacy-sanitize `strict`": "spacy-sanitize default", "spacy-sanitize `ensemble`": "spacy-sanitize ensemble"}


@pytest.mark.parametrize("corpus,nth", [("wiki_dev", 0), ("tab_dev", 1)])
def test_readme_presidio_tables_are_presidio_compare_json(corpus: str, nth: int) -> None:
    results = json.loads((RESULTS / "presidio_compare.json").read_text(encoding="utf8"))["results"]
    rows = [row for row in readme_table("Measured here against Presidio", nth) if row[0] in PRESIDIO_ROWS]
    assert len(rows) == 3
    for row in rows:
        result = results[PRESIDIO_ROWS[row[0]]][corpus]
        shown = dict(zip(["P", "R_all", "F1", "R_direct", "R_quasi"], row[1:6]))
        pairs = [(shown[column], result["masking"][column]) for column in shown]
        pairs += list(zip(row[6].split("/"), [result["detection_unlabelled"][k] for k in ("P", "R", "F1")]))
        for cell, speed in ((row[7], "one_doc"), (row[8], "batched")):
            rate, ratio = re.fullmatch(r"([\d.]+) \(([\d.]+)x\)", cell).groups()
            pairs += [(rate, result["docs_per_s"][speed]), (ratio, result["x_presidio"][speed])]
        stale = [pair for pair in pairs if not same_number(*pair)]
        assert not stale, f"README {corpus} row {row[0]!r} differs from presidio_compare.json: {stale}"


def test_readme_big_file_table_is_big_file_json() -> None:
    runs = json.loads((RESULTS / "big_file.json").read_text(encoding="utf8"))["runs"]
    rows = readme_table("Big inputs (`python benchmarks/speed/big_file.py`")
    assert len(rows) == len(runs)
    for row, run in zip(rows, runs):
        assert (row[0], int(row[1])) == (run["input"], run["n_process"])
        assert same_number(row[2], run["seconds"]) and same_number(row[4].split()[0], run["peak_rss_mb"])
        assert row[3] == "–" if "chars_per_s" not in run else int(row[3]) == run["chars_per_s"]


def test_parser_reads_directives_outputs_and_checks_them(tmp_path: Path) -> None:
    """The collector pairs a block with its shown output and its marker; stale output fails."""
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- docs-test: skip (needs a GPU) -->\n```bash\nspacy-sanitize x\n```\n\n"
        "```bash\necho hi\n```\n\n```text\nhi\n```\n\n"
        "<!-- docs-test: continue -->\n```python\nprint(1 + 1)   # 2\n```\n", encoding="utf8")
    skipped, shown, python = parse_blocks(page)
    assert skipped.directives == {"skip": "needs a GPU"} and skipped.output is None
    assert shown.output == "hi\n" and python.directives == {"continue": ""}
    assert python.previous_python is None
    check_output(shown, "hi \n", shown.output)
    with pytest.raises(AssertionError, match="stale"):
        check_output(shown, "bye", shown.output)
    with pytest.raises(AssertionError, match="stale"):
        run_python(Block(page, 1, "python", "[1, 2]\n# [1, 3]\n"), {})
    run_python(Block(page, 1, "python", "[1, 2]\n# [1, 2]\n"), {})
