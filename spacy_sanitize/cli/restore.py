"""``spacy-sanitize sanitize --mapping FILE`` and ``spacy-sanitize restore``.

The mapping holds the originals of every replaced span. With ``--mapping-key-env VAR`` or
``--mapping-key-file PATH`` it is written encrypted (``masker.restore``: scrypt + Fernet);
without a key it is plaintext and warning W101 says so. ``restore`` takes the key the
same way. A key is never printed: errors name the variable or the file it came from.
"""
import argparse
from pathlib import Path
from typing import Any, Dict, List, Optional

import srsly

from ..errors import Errors
from ..io import InputError, Output, _read_stdin, _read_text
from ..masker.restore import load_mapping, read_key, restore
from .options import add_verbose


def add_key_arguments(parser: argparse.ArgumentParser, action: str) -> None:
    keys = parser.add_mutually_exclusive_group()
    keys.add_argument("--mapping-key-env", metavar="VAR", help=f"{action} the mapping with the key in this environment variable (needs spacy-sanitize[crypto])")
    keys.add_argument("--mapping-key-file", metavar="PATH", help=f"{action} the mapping with the key in this file (mode 0600; needs spacy-sanitize[crypto])")


def add_mapping_arguments(parser: argparse.ArgumentParser) -> None:
    """The mapping options of ``sanitize``."""
    parser.add_argument("--mapping", metavar="FILE", help=(
        "also write the reversible mapping (the ORIGINAL text of every replacement, for "
        "'spacy-sanitize restore') to FILE, mode 0600; encrypted with --mapping-key-env/--mapping-key-file, "
        "else in clear with a warning"))
    add_key_arguments(parser, "encrypt")


def mapping_key(args: argparse.Namespace) -> Optional[bytes]:
    """The key of ``--mapping-key-env``/``--mapping-key-file`` (None when neither), checked
    before any work: a key option without ``--mapping`` would be ignored, so it is refused."""
    env, path = getattr(args, "mapping_key_env", None), getattr(args, "mapping_key_file", None)
    if (env or path) and not getattr(args, "mapping", None):
        raise InputError(Errors.E117.format(problem="--mapping-key-env/--mapping-key-file given without --mapping FILE"))
    target, source = getattr(args, "mapping", None), getattr(args, "input", None)
    if target and source not in (None, "-") and Path(target).resolve() == Path(source).resolve():
        raise InputError(Errors.E021.format(output=target))  # the mapping would replace the input
    try:
        key = read_key(env, path)
        if key is not None:
            _check_crypto()
    except ValueError as err:
        raise InputError(str(err)) from None
    return key


def _check_crypto() -> None:
    try:
        import cryptography  # noqa: F401
    except ImportError:
        raise ValueError(Errors.E118) from None


def cmd_restore(args: argparse.Namespace) -> int:
    try:
        key = read_key(args.mapping_key_env, args.mapping_key_file)
        mapping = load_mapping(args.mapping, key, allow_plaintext=args.allow_plaintext_mapping)
    except ValueError as err:  # wrong key, no key, unreadable key: the user's to fix
        raise InputError(str(err)) from None
    mappings: List[Dict[str, Any]] = mapping if isinstance(mapping, list) else [mapping]
    jsonl = args.format == "jsonl" or args.format == "auto" and Path(args.input).suffix in (".jsonl", ".json")
    # read as sanitize reads (line ends kept, E017 on bad bytes): a CRLF file restores byte for byte
    text = _read_stdin(args.input) if args.input == "-" else _read_text(Path(args.input))
    out = Output(args.output, inputs=[args.input], private=True)  # the restored text is the original
    ok = False
    try:
        if jsonl:
            _restore_lines(text, mappings, args.mapping, out)
        else:
            if len(mappings) != 1:
                raise InputError(Errors.E119.format(path=args.mapping, problem=f"it holds {len(mappings)} records, a text input is one; give the JSONL output (--format jsonl)"))
            out.write(_restore_one(text, mappings[0], args.mapping, 1))
        ok = True
    finally:
        out.close(ok)
    return 0


def _restore_one(sanitized: str, mapping: Dict[str, Any], path: str, number: int) -> str:
    try:
        return restore(sanitized, mapping)
    except ValueError as err:
        raise InputError(Errors.E119.format(path=path, problem=f"record {number}: {err}")) from None
    except (KeyError, TypeError, AttributeError, IndexError) as err:  # a hand-edited or truncated mapping
        problem = f"record {number} is malformed ({type(err).__name__}: {err}); a mapping record holds 'entries', each with 'replacement', 'original', 'out_start' and 'out_end'"
        raise InputError(Errors.E119.format(path=path, problem=problem)) from None


def _restore_lines(text: str, mappings: List[Dict[str, Any]], path: str, out: Output) -> None:
    """Each JSONL record of ``sanitize``'s output with ``restored`` added, from its
    ``sanitized`` field and the mapping of the same position (and id)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) != len(mappings):
        raise InputError(Errors.E119.format(path=path, problem=f"{len(lines)} records in the input, {len(mappings)} in the mapping"))
    for number, (line, mapping) in enumerate(zip(lines, mappings), 1):
        try:
            record = srsly.json_loads(line)
        except ValueError:
            raise InputError(Errors.E119.format(path=path, problem=f"record {number} is not JSON")) from None
        if not isinstance(record, dict) or not isinstance(record.get("sanitized"), str):
            raise InputError(Errors.E119.format(path=path, problem=f"record {number} has no string field 'sanitized'"))
        if "id" in record and mapping.get("doc_id") is not None and str(record["id"]) != str(mapping["doc_id"]):
            raise InputError(Errors.E119.format(path=path, problem=f"record {number} has id {record['id']!r}, its mapping {mapping['doc_id']!r}"))
        record["restored"] = _restore_one(record["sanitized"], mapping, path, number)
        out.write(srsly.json_dumps(record) + "\n")


def add_restore_subparser(sub: Any) -> None:
    parser = sub.add_parser("restore", help="rebuild the original text from sanitized output and its mapping", description=(
        "Rebuild the original text from the output of 'sanitize' and the mapping it wrote with --mapping. "
        "Text output gives the original text; JSONL output gives each record with 'restored' added. "
        "The restored text is as sensitive as the input."))
    parser.add_argument("input", help="the sanitized output (text, or JSONL with a 'sanitized' field), or - for stdin")
    parser.add_argument("--mapping", required=True, metavar="FILE", help="the mapping written by sanitize --mapping")
    add_key_arguments(parser, "decrypt")
    parser.add_argument("--allow-plaintext-mapping", action="store_true",
                        help="with a key option, still read a mapping that is not encrypted (refused otherwise: it may have been swapped)")
    parser.add_argument("-o", "--output", help="output file (default: stdout)")
    parser.add_argument("--format", choices=("auto", "text", "jsonl"), default="auto", help="input format (default: jsonl for .jsonl/.json, text otherwise)")
    add_verbose(parser)
    parser.set_defaults(func=cmd_restore)
