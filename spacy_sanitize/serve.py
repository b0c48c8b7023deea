"""``spacy-sanitize serve``: the pipeline as a long-running HTTP service (the ``[serve]`` extra).

A CLI call loads the pipeline for every run (seconds and hundreds of MB for one line); the
service loads it once per worker process and answers

- ``POST /sanitize`` with ``{"text": "..."}`` or ``{"records": [{"id": ..., "text": ...}]}``
  and optionally ``strategy`` and ``operators`` (the CLI's ``--strategy``/``--operators``
  syntax, parsed by the same ``masker.options.build_operators``, or JSON objects);
- ``GET /health`` with the pipeline's name and components.

Requests larger than ``max_bytes`` get 413 before they are read; bad input gets 400/422 with
the catalogue's message. Concurrency comes from worker processes (``--workers``): in one
process the pipeline (spaCy components and the masker's per-document state are not thread
safe) runs one request at a time. Nothing the client sent is logged: the log lines hold
counts, sizes and timings only, and a failure logs its exception type, not its message
(messages may quote the text).
"""
import hmac
import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Tuple

from .errors import Errors
from .io import InputError, get_field, lone_surrogate

logger = logging.getLogger("spacy_sanitize.serve")

ENV = "SPACY_SANITIZE_SERVE"  # settings travel to uvicorn's worker processes as JSON here
# A warm-up text with PII of several types, so the masker's first-document checks (W700,
# W010) run at start on a pipeline that finds something, not on the first request.
WARM_UP = "Mr Per Aasen (per.aasen@example.org) moved to Oslo on 3 May 2020."


@dataclass
class ServeSettings:
    """pipeline (str): as ``--pipeline``. max_bytes (int): largest request body (413 above).
    max_records (int): most records in one request (413 above). batch_size (int): docs per
    ``nlp.pipe`` batch. max_chars (int): texts longer than this are processed in pieces.
    allow_origin: web page origins allowed to post (others 403). token_env: the environment
    variable with the bearer token every POST must carry (401 without it)."""

    pipeline: str = "default"
    max_bytes: int = 1_000_000
    max_records: int = 1000
    batch_size: int = 16
    max_chars: int = 100_000
    # characters of text one request may hold (the work is linear in them: 413 above)
    max_request_chars: int = 200_000
    # seconds the client may take to send each part of the body (408 after)
    read_timeout: float = 30.0
    # seconds a connection may take to send a request's line and headers (closed after: serve_http.py)
    header_timeout: float = 10.0
    # origins (scheme://host[:port]) of web pages allowed to post; others get 403
    allow_origin: Tuple[str, ...] = ()
    # the environment variable holding the bearer token requests must send (None: no token)
    token_env: Optional[str] = None


class RequestError(ValueError):
    """A request the client must fix: ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Sanitizer:
    """The service's adapter over a ``run.Session``: the pipeline loaded once, a masker per
    requested (strategy, operators), one request at a time."""

    def __init__(self, settings: ServeSettings) -> None:
        from .run.session import Session

        self.settings = settings
        self.session = Session(settings.pipeline, batch_size=settings.batch_size, max_chars=settings.max_chars)
        self.nlp = self.session.nlp
        self.lock = threading.Lock()
        self.nlp(WARM_UP)

    def masker_for(self, strategy: Any = None, operators: Any = None) -> Any:
        """The pipeline's masker, or one with the request's strategy and operators (kept,
        the last ``run.session.MAX_MASKERS``); a strategy with state across requests or a
        registered function, or a bad value, is 422."""
        try:
            with self.lock:
                return self.session.masker_for(strategy, operators, shared=True)
        except ValueError as err:
            raise RequestError(422, str(err)) from None

    def sanitize(self, texts: List[str], masker: Any) -> List[Dict[str, Any]]:
        """The record of each text (``run.records``), as the CLI writes it without
        --keep-original: long texts in pieces masked with one record state, a text that
        fails masked whole with ``error`` saying why (fail closed)."""
        with self.lock:
            # a failed text is counted by W950, which the service logs (ids and error types only)
            records = self.session.sanitize(texts, masker=masker)
        return [record.to_json() for record in records]


def parse_request(body: bytes, settings: ServeSettings) -> Tuple[str, List[str], List[Dict[str, Any]], Any, Any]:
    """``(kind, texts, records, strategy, operators)`` of a /sanitize body; RequestError
    (400 not JSON, 422 wrong shape, 413 too many records) otherwise."""
    try:
        payload = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise RequestError(400, Errors.E033.format(field="body", problem=f"not JSON ({type(err).__name__} at position {getattr(err, 'pos', '?')})")) from None
    except RecursionError:  # arrays or objects nested thousands deep
        raise RequestError(400, Errors.E033.format(field="body", problem="nested too deep")) from None
    except ValueError:  # an integer of more digits than Python converts
        raise RequestError(400, Errors.E033.format(field="body", problem="a number too long to read")) from None
    if not isinstance(payload, dict) or ("text" in payload) == ("records" in payload):
        raise RequestError(422, Errors.E033.format(field="body", problem="give a JSON object with either 'text' or 'records'"))
    unknown = sorted(set(payload) - {"text", "records", "strategy", "operators", "text_field"})
    if unknown:
        raise RequestError(422, Errors.E033.format(field=", ".join(unknown), problem="unknown field(s); use text or records, strategy, operators, text_field"))
    strategy, operators = payload.get("strategy"), payload.get("operators")
    if "text" in payload:
        if "text_field" in payload:
            raise RequestError(422, Errors.E033.format(field="text_field", problem="only goes with 'records'"))
        if not isinstance(payload["text"], str):
            raise RequestError(422, Errors.E033.format(field="text", problem="must be a string"))
        check_budget([payload["text"]], settings)
        return "text", [payload["text"]], [], strategy, operators
    records, field = payload["records"], payload.get("text_field", "text")
    if not isinstance(field, str):
        raise RequestError(422, Errors.E033.format(field="text_field", problem="must be a string"))
    if not isinstance(records, list):
        raise RequestError(422, Errors.E033.format(field="records", problem="must be a list of objects"))
    if len(records) > settings.max_records:
        raise RequestError(413, Errors.E034.format(what=f"{len(records)} records", limit=f"{settings.max_records} records", option="--max-records"))
    for number, record in enumerate(records):
        # a dotted field reads a nested one ("doc.body"), as the CLI's --text-field does
        if not isinstance(record, dict) or not isinstance(get_field(record, field), str):
            raise RequestError(422, Errors.E033.format(field=f"records[{number}]", problem=f"must be an object with a string field '{field}'"))
        # the answer copies the record's other fields back: a lone surrogate there cannot be written
        if any(lone_surrogate(value) is not None for value in _strings(record)):
            raise RequestError(422, Errors.E033.format(field=f"records[{number}]", problem="holds a lone surrogate (not valid Unicode)"))
    texts = [get_field(record, field) for record in records]
    check_budget(texts, settings)
    return "records", texts, records, strategy, operators


def _strings(value: Any) -> Iterator[str]:
    """Every string in a parsed JSON value, keys included (its nesting is bounded by the parser)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def check_budget(texts: List[str], settings: ServeSettings) -> None:
    """413 when the request's texts hold more characters than ``max_request_chars``: a worker
    runs one request at a time, so one huge request would hold it for every other client."""
    for number, text in enumerate(texts):
        if lone_surrogate(text) is not None:  # "\ud800": no text spaCy or a UTF-8 answer can hold
            raise RequestError(422, Errors.E033.format(field=f"text #{number}", problem="holds a lone surrogate (not valid Unicode)"))
    chars = sum(len(t) for t in texts)
    if chars > settings.max_request_chars:
        raise RequestError(413, Errors.E034.format(what=f"{chars} characters of text", limit=f"{settings.max_request_chars} characters",
                                                   option="--max-request-chars"))


def create_app(settings: Optional[ServeSettings] = None) -> Any:
    """The FastAPI application; the pipeline is loaded here, once."""
    import asyncio

    try:
        from fastapi import FastAPI, Request
        from fastapi.responses import JSONResponse
        from starlette.requests import ClientDisconnect
    except ImportError:
        raise InputError(Errors.E035) from None
    from . import __version__

    settings = settings or settings_from_env()
    token = None
    if settings.token_env:
        token = os.environ.get(settings.token_env, "")
        if not token:
            raise InputError(Errors.E050.format(name=settings.token_env))
    sanitizer = Sanitizer(settings)
    # no interactive schema pages: the API is two routes, documented in docs/serve.md
    app = FastAPI(title="spacy-sanitize", version=__version__, docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/health")
    def health() -> Dict[str, Any]:
        return {"status": "ok", "pipeline": settings.pipeline, "components": sanitizer.nlp.pipe_names, "version": __version__, "pid": os.getpid()}

    def error(status: int, message: str) -> Any:
        return JSONResponse({"detail": message}, status_code=status)

    @app.post("/sanitize")
    async def sanitize(request: Request) -> Any:
        started = time.perf_counter()
        refused = refusal(request.headers, settings, token)
        if refused is not None:
            logger.info("refused a request: %d", refused[0])
            return error(*refused)
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > settings.max_bytes:
            return error(413, Errors.E034.format(what=f"{declared} bytes", limit=f"{settings.max_bytes} bytes", option="--max-bytes"))
        chunks, size = [], 0
        stream = request.stream().__aiter__()
        while True:
            try:
                # a client that sends its body slower than this holds a connection, not the worker
                chunk = await asyncio.wait_for(stream.__anext__(), settings.read_timeout)
            except StopAsyncIteration:
                break
            except asyncio.TimeoutError:
                logger.info("timed out reading a request body after %d bytes", size)
                return error(408, Errors.E051.format(seconds=settings.read_timeout))
            except ClientDisconnect:
                logger.info("the client went away after sending %d bytes", size)  # one line, no traceback
                return error(400, Errors.E052)
            size += len(chunk)
            if size > settings.max_bytes:
                return error(413, Errors.E034.format(what=f"over {settings.max_bytes} bytes", limit=f"{settings.max_bytes} bytes", option="--max-bytes"))
            chunks.append(chunk)
        try:
            kind, texts, records, strategy, operators = parse_request(b"".join(chunks), settings)
            masker = sanitizer.masker_for(strategy, operators)
            from starlette.concurrency import run_in_threadpool

            results = await run_in_threadpool(sanitizer.sanitize, texts, masker)
        except RequestError as err:
            logger.info("rejected a request of %d bytes: %d", size, err.status)
            return error(err.status, str(err))
        except Exception as err:  # noqa: BLE001  (the message may quote the text: only its type is logged)
            logger.info("failed on a request of %d bytes: %s", size, type(err).__name__)
            return error(500, Errors.E036.format(kind=type(err).__name__))
        logger.info("sanitized %d text(s), %d bytes in %.3f s", len(texts), size, time.perf_counter() - started)
        if kind == "text":
            return results[0]
        return {"records": [{**record, **result} for record, result in zip(records, results)]}

    return app


def refusal(headers: Any, settings: ServeSettings, token: Optional[str]) -> Optional[Tuple[int, str]]:
    """Why a POST is refused before its body is read (status, message), or None: a body that is
    not JSON (415: a web page can send text/plain or a form without a CORS preflight), a web
    page of another site (403: its Origin, or Sec-Fetch-Site cross-site), a missing or wrong
    bearer token when the service has one (401)."""
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        return 415, Errors.E047.format(got=kind or "none")
    origin = headers.get("origin")
    if (origin is not None and origin not in settings.allow_origin) or (origin is None and headers.get("sec-fetch-site") == "cross-site"):
        return 403, Errors.E048.format(origin=origin or "(cross-site)")
    if token is not None:
        given = headers.get("authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), token.encode()):
            return 401, Errors.E049
    return None


def settings_from_env() -> ServeSettings:
    """The settings ``serve`` passes to its worker processes (``SPACY_SANITIZE_SERVE``)."""
    values = json.loads(os.environ.get(ENV, "{}"))
    if "allow_origin" in values:
        values["allow_origin"] = tuple(values["allow_origin"])
    return ServeSettings(**values)


def app_from_env() -> Any:
    """uvicorn's app factory in each worker process."""
    logging.captureWarnings(True)  # the pipeline's warnings go to the log, once per worker
    return create_app(settings_from_env())
