"""Where pii_gazetteer's gazetteers come from: the shipped one (and its stop list) in the
``gazetteer`` folder of ``[paths] sanitize_data``, built once per process, or a user's
JSONL(.gz) file or saved matcher directory."""
import threading
from pathlib import Path
from typing import Dict, List, Optional, Union

from ...errors import Errors
from ...shipped import artefact_path, data_path
from .matcher import GazetteerMatcher, read_records

_SHIPPED: Dict[str, GazetteerMatcher] = {}
_SHIPPED_LOCK = threading.Lock()


SHIPPED = "gazetteer"  # the shipped gazetteer's folder under [paths] sanitize_data


def data_dir(data: Optional[Union[str, Path]] = None) -> Path:
    """Where the shipped gazetteer data lives (under ``data``; None: the package's)."""
    return Path(data) / SHIPPED if data is not None else data_path(SHIPPED)


def shipped_gazetteer_path(data: Optional[Union[str, Path]] = None) -> Path:
    return data_dir(data) / "default.jsonl.gz"


def shipped_stop_terms(data: Optional[Union[str, Path]] = None) -> List[str]:
    path = data_dir(data) / "stop_terms.txt"
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def load_gazetteer(name: Optional[str], progress: bool = False, data: Optional[Union[str, Path]] = None) -> GazetteerMatcher:
    """A matcher for ``name``: None (the shipped one under ``data``, None: the package's),
    "" (empty), a JSONL(.gz) file or a saved directory. A shipped gazetteer is built once per
    process; a missing one is OSError E018."""
    if name == "":
        return GazetteerMatcher()
    if name is None:
        path = artefact_path(str(Path(SHIPPED) / "default.jsonl.gz"), data, component="pii_gazetteer")
        with _SHIPPED_LOCK:
            key = str(path.resolve())
            if key not in _SHIPPED:
                _SHIPPED[key] = GazetteerMatcher.build(read_records(path))
            return _SHIPPED[key]
    path = Path(name)
    if path.is_dir():
        return GazetteerMatcher.from_disk(path)
    if path.is_file():
        return GazetteerMatcher.build(read_records(path), progress=progress)
    raise FileNotFoundError(Errors.E200.format(name=name))
