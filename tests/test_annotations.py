"""One annotation style across the package: ``Optional[X]`` / ``Union[X, Y]``, never PEP 604
``X | Y``. On Python 3.9 (allowed by ``python_requires``) confection evaluates factory
signatures, and ``X | None`` there raises a TypeError (also under ``from __future__ import
annotations``, where the string is evaluated later)."""
import ast
from pathlib import Path
from typing import Iterator, List

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "spacy_sanitize"


def _annotations(tree: ast.AST) -> Iterator[ast.expr]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None and arg.annotation is not None:
                    yield arg.annotation
            if node.returns is not None:
                yield node.returns
        elif isinstance(node, ast.AnnAssign):
            yield node.annotation


def _pep604_unions(annotation: ast.expr) -> List[str]:
    """The ``X | Y`` unions inside an annotation, including string (forward) annotations."""
    found = []
    for node in ast.walk(annotation):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            found.append(ast.unparse(node) if hasattr(ast, "unparse") else "X | Y")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                inner = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                continue
            found += _pep604_unions(inner)
    return found


def _none_unions(tree: ast.AST) -> Iterator[ast.BinOp]:
    """``X | None`` outside annotations (type aliases, casts): never a bitwise operation."""
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            if any(isinstance(side, ast.Constant) and side.value is None for side in (node.left, node.right)):
                yield node


def pep604_annotations(source: str, filename: str = "<source>") -> List[str]:
    """``file:line: union`` for every PEP 604 union in an annotation of ``source`` (and every
    ``X | None`` anywhere)."""
    tree = ast.parse(source)
    in_annotations = [(ann.lineno, union) for ann in _annotations(tree) for union in _pep604_unions(ann)]
    lines = {line for line, _ in in_annotations}
    elsewhere = [(node.lineno, "X | None") for node in _none_unions(tree) if node.lineno not in lines]
    return [f"{filename}:{line}: {union}" for line, union in sorted(in_annotations + elsewhere)]


@pytest.mark.parametrize(
    "source,expected",
    [
        ("def f(x: int | None) -> None: ...", 1),
        ("def f(*, x: 'str | Path' = 'a') -> 'Optional[int]': ...", 1),
        ("def f(x) -> dict[str, float | None]: ...", 1),
        ("x: int | None = None", 1),
        ("class A:\n    y: 'List[int] | None'\n", 1),
        ("def f(x: Optional[int], y: Union[str, Path]) -> int:\n    return x | 1", 0),
        ("CharRange = Tuple[int, int] | None", 1),
        ("FLAGS = re.I | re.M", 0),
    ],
)
def test_the_check_finds_pep604_unions_in_annotations_only(source: str, expected: int) -> None:
    assert len(pep604_annotations(source)) == expected


def test_no_pep604_union_annotations_in_the_package() -> None:
    found: List[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        found += pep604_annotations(path.read_text(encoding="utf8"), str(path.relative_to(PACKAGE.parent)))
    assert not found, "use Optional[X] / Union[X, Y] (Python 3.9, confection):\n" + "\n".join(found)

