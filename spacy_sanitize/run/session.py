"""One session: a pipeline loaded once, run over texts of any length, giving one
``SanitizedRecord`` per text. The CLI, the service, batch (pandas, Arrow, Ray) and the
report are adapters over it: the loading, the per-request maskers and the isolation of a
record that fails are written once, here."""
import json
import re
import warnings
from collections import OrderedDict
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from spacy.language import Language

from ..errors import Errors, Warnings
from ..io import InputError
from .options import masker_overrides
from .pieces import DEFAULT_CHUNK_CHARS, Piece, check_max_chars, sanitize_pieces, sanitize_texts
from .records import SanitizedRecord, failed_record, record_of

ON_ERROR = ("mask", "raise")
FAILED_TEXT = "[REDACTED]"
# maskers kept for per-request strategies (the service): the most recently used ones
MAX_MASKERS = 32
_CODE = re.compile(r"^\[([EW]\d{3})\]")

Pipeline = Union[str, Path, Language]


class RecordError(RuntimeError):
    """A record could not be sanitized and ``on_error="raise"``."""


def error_kind(err: Exception) -> str:
    """The exception's type and coded error (``TypeError [E010]``), never its message: a
    message may quote the record's text."""
    match = _CODE.match(str(err))
    return f"{type(err).__name__} [{match.group(1)}]" if match else type(err).__name__


def check_options(on_error: str, batch_size: int, max_chars: int) -> None:
    if on_error not in ON_ERROR:
        raise ValueError(Errors.E950.format(value=on_error, options=", ".join(ON_ERROR)))
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(Errors.E954.format(n=batch_size))
    check_max_chars(max_chars)


class Session:
    """A pipeline loaded once and the settings of a run.

    pipeline (str, Path or Language): what ``load_pipeline`` takes, or a loaded pipeline.
    overrides (dict): config overrides for ``load_pipeline``. strategy, operators: the
        masker's (the CLI's ``--strategy``/``--operators`` syntax or JSON). confidence (dict):
        the config of a ``decide_confidence`` component put before the masker (in place of
        the pipeline's own, if it has one): ``run.options.confidence_settings``.
    batch_size (int): pieces per ``nlp.pipe`` batch. max_chars (int): longer texts are
        sanitized in pieces of at most this many characters. n_process (int): worker
        processes of ``nlp.pipe``.
    on_error (str): what ``sanitize`` does with a record that fails: ``mask`` (its whole
        text becomes ``failed_text``, ``error`` says why, a warning counts them) or
        ``raise`` (RecordError naming it, without the message, which may quote the text).
    """

    def __init__(
        self,
        pipeline: Pipeline = "default",
        overrides: Optional[Dict[str, Any]] = None,
        *,
        strategy: Optional[Any] = None,
        operators: Optional[Any] = None,
        confidence: Optional[Dict[str, Any]] = None,
        batch_size: int = 16,
        max_chars: int = DEFAULT_CHUNK_CHARS,
        n_process: int = 1,
        on_error: str = "mask",
        failed_text: str = FAILED_TEXT,
    ) -> None:
        check_options(on_error, batch_size, max_chars)
        if isinstance(pipeline, Language):
            if strategy or operators or overrides or confidence:
                # a loaded pipeline's config cannot change: the settings would be ignored
                raise ValueError(Errors.E951)
            self.nlp = pipeline
        else:
            from ..pipeline import load_pipeline

            self.nlp = load_pipeline(pipeline, {**masker_overrides(strategy, operators), **(overrides or {})})
        if "masker" not in self.nlp.pipe_names:
            raise InputError(Errors.E014.format(pipeline=pipeline if not isinstance(pipeline, Language) else "given"))
        if confidence:
            from ..decide.confidence import add_confidence_decider

            add_confidence_decider(self.nlp, confidence)
        self.masker = self.nlp.get_pipe("masker")
        self.batch_size = batch_size
        self.max_chars = max_chars
        self.n_process = n_process
        self.on_error = on_error
        self.failed_text = failed_text
        self._maskers: "OrderedDict[Tuple[Optional[str], Optional[str]], Any]" = OrderedDict()

    @property
    def spans_key(self) -> str:
        return self.masker.cfg["spans_key"]

    def masker_for(self, strategy: Any = None, operators: Any = None, shared: bool = False) -> Any:
        """The pipeline's masker, or one with these strategy and operators (the CLI's syntax
        or JSON objects; built once and kept, the last ``MAX_MASKERS``): its other settings
        (lists, overlap, learned p, the secret) are the pipeline's. ``shared``: the session
        serves several clients, so strategies that keep state across documents or run a
        registered function are refused (E045). A bad value is ValueError."""
        if strategy in (None, "") and operators in (None, "", {}):
            return self.masker
        from ..masker.options import build_operators

        for value, name in ((strategy, "strategy"), (operators, "operators")):
            if value is not None and not isinstance(value, (str, dict)):
                raise ValueError(Errors.E033.format(field=name, problem="must be a string or a JSON object"))
        spec = tuple(value if value is None or isinstance(value, str) else json.dumps(value, sort_keys=True) for value in (strategy, operators))
        if spec in self._maskers:
            self._maskers.move_to_end(spec)
            return self._maskers[spec]
        strategy_cfg, operators_cfg = build_operators(spec[0] or "spacy_sanitize.typed.v1", spec[1], strategy_given=bool(spec[0]))
        if shared:
            # one client's request must not change another's answer, run arbitrary code, nor key
            # ids with another environment variable (they would confirm a guess of its value)
            for where, cfg in (("strategy", strategy_cfg), *((f"operators.{label}", c) for label, c in operators_cfg.items())):
                if cfg.get("across_docs") or cfg.get("@strategies") == "spacy_sanitize.custom.v1" or "secret_env" in cfg:
                    raise ValueError(Errors.E045.format(what=where))
        masker = self.masker.with_strategies(strategy_cfg if spec[0] else None, operators_cfg if spec[1] else None)
        self._maskers[spec] = masker
        if len(self._maskers) > MAX_MASKERS:
            self._maskers.popitem(last=False)
        return masker

    def pieces(self, texts: Iterable[Any], masker: Optional[Any] = None) -> Iterator[Piece]:
        """The texts (or (text, {extension: value}) pairs; a text may be ``io.TextChunks``)
        sanitized piece by piece, in order: what streams a text of any size."""
        return sanitize_pieces(self.nlp, texts, self.batch_size, self.max_chars, self.n_process, masker)

    def sanitize(self, texts: Sequence[Any], ids: Optional[Sequence[Any]] = None, *, masker: Optional[Any] = None,
                 with_text: bool = False) -> List[SanitizedRecord]:
        """One record per text, in order. The texts go through the pipeline together; when
        that fails, the rest one by one, so only a record that fails on its own is masked
        whole (``on_error="mask"``) or stops the run (``raise``). ``ids`` name records in
        errors (default: their position). ``with_text``: span rows keep their text."""
        ids = list(ids) if ids is not None else list(range(len(texts)))
        key = (masker or self.masker).cfg["spans_key"]
        results: List[Optional[SanitizedRecord]] = [None] * len(texts)
        good = []
        for i, text in enumerate(texts):
            if isinstance(text, str):
                good.append(i)
            else:  # None, NaN, bytes...: checked here, so one bad record does not rerun the batch
                results[i] = self._failed(ids[i], TypeError(Errors.E010.format(doc_id=ids[i], type_name=type(text).__name__)))
        done = 0
        try:
            for _, docs, offsets in self._texts([texts[i] for i in good], masker):
                results[good[done]] = record_of(docs, offsets, key, with_text)
                done += 1
        except Exception:
            # the records finished before the failure are kept; the rest go one by one
            for i in good[done:]:
                try:
                    _, docs, offsets = next(self._texts([texts[i]], masker))
                    results[i] = record_of(docs, offsets, key, with_text)
                except Exception as err:
                    results[i] = self._failed(ids[i], err)
        failed = [ids[i] for i, result in enumerate(results) if result is not None and result.error]
        if failed:
            shown = ", ".join(map(repr, failed[:10])) + (", ..." if len(failed) > 10 else "")
            warnings.warn(Warnings.W950.format(n=len(failed), total=len(texts), ids=shown, text=self.failed_text), stacklevel=2)
        return [r for r in results if r is not None]  # every slot is filled above

    def _texts(self, texts: List[str], masker: Optional[Any]) -> Iterator[Tuple[str, List[Any], List[int]]]:
        return sanitize_texts(self.nlp, texts, self.batch_size, self.max_chars, self.n_process, masker)

    def _failed(self, record_id: Any, err: Exception) -> SanitizedRecord:
        kind = error_kind(err)
        if self.on_error == "raise":
            # not chained: the cause's message may quote the record's text, and a traceback
            # (or Ray, passing the chain to the driver) would print it
            raise RecordError(Errors.E952.format(id=record_id, kind=kind)) from None
        return failed_record(self.failed_text, kind)
