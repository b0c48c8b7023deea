"""``spacy-sanitize serve``: the service of ``spacy_sanitize.serve`` under uvicorn, one
pipeline per worker process (the ``[serve]`` extra)."""
import argparse
import json
import os
from dataclasses import asdict, fields
from typing import Any, Dict

from ..errors import Errors
from ..io import InputError
from ..serve import ENV, ServeSettings

# how long a stopped service waits for the requests in flight
GRACEFUL_SECONDS = 10


def log_config(level: str) -> Dict[str, Any]:
    """uvicorn's logging config plus this package's logger and captured warnings on its
    console handler (set in every worker process)."""
    from uvicorn.config import LOGGING_CONFIG

    config = json.loads(json.dumps(LOGGING_CONFIG))
    for name in ("spacy_sanitize", "py.warnings"):
        config["loggers"][name] = {"handlers": ["default"], "level": level.upper(), "propagate": False}
    return config


def cmd_serve(args: argparse.Namespace) -> int:
    from ..run.pieces import check_max_chars

    try:
        check_max_chars(args.max_chars)  # at start (exit 2), not as a failure of every request
    except ValueError as err:
        raise InputError(str(err)) from None
    try:
        import uvicorn
    except ImportError:
        raise InputError(Errors.E035) from None
    settings = ServeSettings(**{f.name: getattr(args, f.name) for f in fields(ServeSettings)})
    settings.allow_origin = tuple(settings.allow_origin)
    if settings.token_env and not os.environ.get(settings.token_env):
        raise InputError(Errors.E050.format(name=settings.token_env))  # at start (exit 2), not in each worker
    os.environ[ENV] = json.dumps(asdict(settings))
    level = "debug" if getattr(args, "verbose", False) else "info"
    if args.limit_concurrency < 1:
        raise InputError(Errors.E054.format(n=args.limit_concurrency))
    if settings.header_timeout <= 0 or settings.read_timeout <= 0:
        raise InputError(Errors.E055.format(header=settings.header_timeout, read=settings.read_timeout))
    from ..serve_http import HeaderTimeoutProtocol

    uvicorn.run(
        "spacy_sanitize.serve:app_from_env", factory=True, host=args.host, port=args.port, workers=args.workers,
        http=HeaderTimeoutProtocol,  # uvicorn's h11 protocol with a deadline for a request's headers
        log_level=level, log_config=log_config(level),
        # open connections (slow clients' included) past this get 503 at once: file descriptors and
        # memory stay bounded; a stop waits this long for requests in flight
        limit_concurrency=args.limit_concurrency, timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )
    return 0


def add_serve_subparser(sub: Any) -> None:
    defaults = ServeSettings()
    serve = sub.add_parser("serve", help="run the pipeline as an HTTP service (POST /sanitize, GET /health; needs the [serve] extra)", description=(
        "Load the pipeline once per worker process and serve POST /sanitize ({\"text\": ...} or {\"records\": [...]}, "
        "optionally with strategy and operators as on the command line) and GET /health. No request text is logged."))
    serve.add_argument("-p", "--pipeline", default=defaults.pipeline, help="as for sanitize (default: default)")
    serve.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: 127.0.0.1, loopback only; 0.0.0.0 in a container)")
    serve.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    serve.add_argument("--workers", type=int, default=1, help="worker processes, each with its own pipeline (default: 1)")
    serve.add_argument("--max-bytes", type=int, default=defaults.max_bytes, help=f"largest request body; larger ones get 413 (default: {defaults.max_bytes})")
    serve.add_argument("--max-records", type=int, default=defaults.max_records, help=f"most records in one request (default: {defaults.max_records})")
    serve.add_argument("--batch-size", type=int, default=defaults.batch_size, help=f"documents per nlp.pipe batch (default: {defaults.batch_size})")
    serve.add_argument("--max-chars", type=int, default=defaults.max_chars, help="texts longer than this are processed in pieces")
    serve.add_argument("--max-request-chars", type=int, default=defaults.max_request_chars,
                       help=f"most characters of text in one request; more get 413 (default: {defaults.max_request_chars})")
    serve.add_argument("--read-timeout", type=float, default=defaults.read_timeout,
                       help=f"seconds a client may take to send each part of a request body; slower gets 408 (default: {defaults.read_timeout:g})")
    serve.add_argument("--header-timeout", type=float, default=defaults.header_timeout,
                       help=f"seconds a connection may take to send a request's line and headers; slower is closed (default: {defaults.header_timeout:g})")
    serve.add_argument("--limit-concurrency", type=int, default=100,
                       help="most open connections per worker (slow clients included); more get 503 (default: 100)")
    serve.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                       help="a web page origin (https://app.example.org) allowed to post; repeat for several (default: none: "
                            "requests with an Origin header are refused)")
    serve.add_argument("--token-env", metavar="NAME", help="require 'Authorization: Bearer <token>' on POST, the token read from "
                                                          "this environment variable (never from the command line)")
    serve.set_defaults(func=cmd_serve)
