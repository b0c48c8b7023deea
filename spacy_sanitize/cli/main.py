"""The ``spacy-sanitize`` command (also ``python -m spacy_sanitize``): one module per
command, each an adapter over the library (``run.Session`` for sanitizing). Only this
package parses arguments; nothing outside it imports it.

Exit codes: 0 success, 1 processing error, 2 bad usage or bad input.
"""
import argparse
import logging
import signal
import sys
import warnings
from typing import Any, Optional, Sequence

from ..corpus.tab import TabFormatError
from ..io import InputError
from .info import package_version

def build_parser() -> argparse.ArgumentParser:
    from .attack import add_attack_subparser
    from .convert import add_convert_subparser
    from .evaluate import add_evaluate_subparser
    from .info import add_info_subparser
    from .report import add_report_subparser
    from .restore import add_restore_subparser
    from .sanitize import add_sanitize_subparser
    from .serve import add_serve_subparser
    from .tools import add_tool_subparsers

    parser = argparse.ArgumentParser(prog="spacy-sanitize", description="Detect, score and mask personal identifiers in text.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress and warnings")
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    add_sanitize_subparser(sub)
    add_evaluate_subparser(sub)
    add_attack_subparser(sub)
    add_tool_subparsers(sub)
    add_serve_subparser(sub)
    add_restore_subparser(sub)
    add_report_subparser(sub)
    add_convert_subparser(sub)
    add_info_subparser(sub)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    # spaCy's logger has a handler of its own: with ours each line printed twice (-v)
    for handler in list(logging.getLogger("spacy").handlers):
        logging.getLogger("spacy").removeHandler(handler)
    # a warning reads "warning: [W040] ...", without this package's source path and code line
    formatwarning = warnings.formatwarning
    warnings.formatwarning = _format_warning
    # SIGTERM unwinds like Ctrl-C, so the output's temporary file is removed on the way out
    previous = _on_sigterm(_terminate)
    try:
        return args.func(args)
    except (InputError, TabFormatError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except (OSError, ValueError, TypeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, Terminated) as err:
        signum = err.signum if isinstance(err, Terminated) else signal.SIGINT
        output = getattr(args, "output", None)
        what = (f"'{output}' was not written (a file already there is kept as it was), nor the mapping or manifest"
                if output not in (None, "-") else "the output printed so far is incomplete")
        print(f"interrupted ({signal.Signals(signum).name}): {what}; run the command again to sanitize the input from its start.", file=sys.stderr)
        return 128 + signum
    finally:
        _on_sigterm(previous)
        warnings.formatwarning = formatwarning


def _format_warning(message: Any, category: Any, filename: str, lineno: int, line: Optional[str] = None) -> str:
    return f"warning: {message}\n"


class Terminated(Exception):
    """SIGTERM, raised where the process is, so ``finally`` blocks clean up."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, _frame: Any) -> None:
    raise Terminated(signum)


def _on_sigterm(handler: Any) -> Any:
    """Install ``handler`` for SIGTERM; the previous one (None off the main thread: unchanged)."""
    if handler is None:
        return None
    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        return None




