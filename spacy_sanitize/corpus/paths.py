"""Where the development data (the project's ``shared/data`` folder: annotated biographies,
unlabeled texts, gazetteer sources) is: ``$SPACY_SANITIZE_DATA``, else the first
``shared/data`` folder above this source tree (a checkout, or a worktree next to it).
Benchmarks, scripts and tests read it from here; nothing in the package needs it."""
import os
from pathlib import Path


def shared_data_dir() -> Path:
    """The development data folder (it may not exist: callers say so or skip)."""
    if os.environ.get("SPACY_SANITIZE_DATA"):
        return Path(os.environ["SPACY_SANITIZE_DATA"])
    here = Path(__file__).resolve()
    for parent in here.parents[2:]:
        candidate = parent / "shared" / "data"
        if candidate.is_dir():
            return candidate
    return here.parents[3] / "shared" / "data"


def wiki_dev_path() -> Path:
    """The 70 annotated Wikipedia biographies (TAB format)."""
    return shared_data_dir() / "wiki" / "wiki_dev.json"
