"""Write (or with --check, verify) spacy_sanitize/configs/*.cfg from spacy_sanitize/configs/parts/:
one detector definition plus a fragment per pipeline. Run by `spacy project run configs`."""
import sys

from spacy_sanitize.pipeline import write_configs


def main(argv: list) -> int:
    check = "--check" in argv
    stale = write_configs(check=check)
    for name in stale:
        print(f"{'stale' if check else 'wrote'}: spacy_sanitize/configs/{name}.cfg")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
