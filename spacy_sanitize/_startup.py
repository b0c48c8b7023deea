"""Start-up of the command line: spaCy without torch unless a component needs it.

thinc imports torch when it is installed (``thinc.compat``), which is more than half of
``import spacy`` (1.2 s of 1.9 s here), although no shipped pipeline uses thinc's torch
layers: the torch-backed components (pii_relabel, risk_llm_prob, risk_perturb...) load
their models with transformers, which imports torch itself when one is built. So when
the process is the ``spacy-sanitize`` command running a shipped pipeline, thinc is
imported with torch hidden (thinc then reports no torch, as where it is not installed)
and torch stays out of the process until a component imports it.

The same process also finds wordfreq's data without reading the stack (``cheap_locate``).

A library user's process is never changed: another pipeline in it may need thinc's torch
layers (spacy-transformers). Neither is a CLI run of a pipeline that is not shipped (an
installed package or a directory may hold a transformer) or of a command that trains.
"""
import sys
from pathlib import Path
from typing import List, Optional, Sequence

COMMANDS = ("sanitize", "evaluate")
PIPELINE_OPTIONS = ("-p", "--pipeline")


def cli_argv() -> Optional[List[str]]:
    """The arguments after the program when this process is the ``spacy-sanitize``
    command (the console script or ``python -m spacy_sanitize``), else None."""
    if Path(sys.argv[0]).name == "spacy-sanitize":
        return list(sys.argv[1:])
    orig = list(getattr(sys, "orig_argv", []))  # Python >= 3.10; 3.9 keeps the import of torch
    for i in range(len(orig) - 1):
        if orig[i] == "-m" and orig[i + 1] == "spacy_sanitize":
            return orig[i + 2 :]
    return None


def shipped_only(argv: Sequence[str]) -> bool:
    """Whether ``argv`` runs a command of ``COMMANDS`` with a shipped pipeline (the default
    one when no ``-p`` is given)."""
    args = [a for a in argv if a not in ("-v", "--verbose")]
    if not args or args[0] not in COMMANDS:
        return False
    pipeline = "default"
    for i, arg in enumerate(args):
        if arg in PIPELINE_OPTIONS and i + 1 < len(args):
            pipeline = args[i + 1]
        elif arg.startswith("--pipeline="):
            pipeline = arg.split("=", 1)[1]
    configs = Path(__file__).parent / "configs"
    return (configs / f"{pipeline}.cfg").is_file() and "/" not in pipeline


def import_thinc_without_torch() -> bool:
    """Import thinc with torch hidden; False (and nothing done) when thinc or torch is
    already imported. torch can be imported normally afterwards."""
    if "thinc" in sys.modules or "torch" in sys.modules:
        return False
    sys.modules["torch"] = None  # type: ignore[assignment]  # makes `import torch` raise ImportError
    try:
        import thinc.compat  # noqa: F401
    finally:
        del sys.modules["torch"]
    return True


def cheap_locate() -> bool:
    """wordfreq finds its data folder with ``locate.this_dir()``, which reads the source line of
    every frame on the stack (``inspect.stack()``): 0.1 s of a start-up when a component first
    imports wordfreq deep in the pipeline's loading. Replaced by the caller's file's folder,
    which is what it returns for a caller in a file; False (nothing done) when wordfreq is
    already imported or locate is missing."""
    if "wordfreq" in sys.modules:
        return False
    try:
        import locate
    except ImportError:
        return False

    def this_dir() -> Path:
        caller = Path(sys._getframe(1).f_code.co_filename)
        return caller.resolve().parent if caller.is_file() else Path.cwd()

    locate.this_dir = this_dir
    return True


def prepare() -> None:
    argv = cli_argv()
    if argv is not None and shipped_only(argv):
        import_thinc_without_torch()
        cheap_locate()
