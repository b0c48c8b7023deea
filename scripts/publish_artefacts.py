"""Maintainer step (`spacy project run publish`): copy the artefacts the training commands
staged (``training/shipped/<artefact>``, the package data layout) into the package data
folder, replacing the shipped ones file by file; the torch pipelines' weights
(``shipped.TORCH_ARTEFACTS``) go to packages/torch-data's instead, the package that ships them.
No other project command writes into the package: a training run never changes what an
installed ``spacy_sanitize`` ships by accident.

    python scripts/publish_artefacts.py training/shipped spacy_sanitize/data
"""
import argparse
import shutil
import sys
from pathlib import Path
from typing import List


ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DATA = ROOT / "spacy_sanitize" / "data"
TORCH_DATA = ROOT / "packages" / "torch-data" / "spacy_sanitize_torch_data" / "data"


def publish(staged: Path, data: Path) -> List[Path]:
    """Copy every file under ``staged`` to the same place under ``data`` (the torch-only
    artefacts of the package's data folder to packages/torch-data's); returns them."""
    from spacy_sanitize.shipped import TORCH_ARTEFACTS

    if not staged.is_dir():
        raise SystemExit(f"nothing staged: '{staged}' is not a folder; run a training command first")
    into_package = data.resolve() == PACKAGE_DATA.resolve()  # data/<artefact>/... for each
    one_torch_artefact = data.resolve().parent == PACKAGE_DATA.resolve() and data.name in TORCH_ARTEFACTS
    copied = []
    for source in sorted(p for p in staged.rglob("*") if p.is_file()):
        relative = source.relative_to(staged)
        if into_package and relative.parts[0] in TORCH_ARTEFACTS:
            target = TORCH_DATA / relative
        elif one_torch_artefact:
            target = TORCH_DATA / data.name / relative
        else:
            target = data / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        copied.append(target)
    return copied


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("staged", type=Path)
    parser.add_argument("data", type=Path)
    args = parser.parse_args()
    copied = publish(args.staged, args.data)
    for path in copied:
        print(path)
    print(f"published {len(copied)} file(s) into {args.data}", file=sys.stderr)


if __name__ == "__main__":
    main()
