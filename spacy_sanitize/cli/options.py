"""Arguments several commands share."""
import argparse


def add_verbose(parser: argparse.ArgumentParser) -> None:
    """-v after the subcommand too (``sanitize f.txt -v``); SUPPRESS keeps a -v given before it."""
    parser.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="log progress and warnings")
