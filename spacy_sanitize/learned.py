"""Serialization of a component whose learned state is one small JSON-able dict.

Settings live in ``config.cfg`` (an override at load time wins); the component's files hold
only what ``initialize`` learned, returned by ``_learned()`` and restored by
``_set_learned(dict)``: ``learned.json`` on disk, ``learned`` in bytes, through spaCy's
serializer dicts so ``exclude`` works. A folder without ``learned.json`` (nothing learned
yet) loads as nothing learned."""
from pathlib import Path
from typing import Any, Dict, Iterable, Union

import srsly
from spacy import util


class LearnedState:
    def _learned(self) -> Dict[str, Any]:
        return {}

    def _set_learned(self, learned: Dict[str, Any]) -> None:
        """Restore what ``_learned`` returned; components override both."""

    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        return util.to_bytes({"learned": self._learned}, exclude)

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = ()) -> Any:
        util.from_bytes(data, {"learned": self._set_learned}, exclude)
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> None:
        util.to_disk(path, {"learned.json": lambda p: srsly.write_json(p, self._learned())}, exclude)

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> Any:
        def read(p: Path) -> None:
            if p.exists():
                self._set_learned(srsly.read_json(p))

        util.from_disk(path, {"learned.json": read}, exclude)
        return self
