"""The HTTP protocol of ``spacy-sanitize serve``: uvicorn's h11 protocol with a deadline for
a request's line and headers (the ``[serve]`` extra).

uvicorn times out an idle keep-alive connection but not one that sends its headers slowly: a
client sending a header byte every few seconds holds its connection for ever, and a few
hundred of them fill ``--limit-concurrency`` (everyone else gets 503). Here a connection must
finish each request's headers within ``--header-timeout`` seconds of its start (or of the end
of the response before), else it is closed, with one log line.
"""
import asyncio
import json
import logging
import os
from functools import lru_cache
from typing import Any, Optional

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .serve import ENV, ServeSettings

logger = logging.getLogger("spacy_sanitize.serve")



@lru_cache(maxsize=1)
def header_timeout() -> float:
    """``--header-timeout``, read once per process: the service's settings reach uvicorn's
    worker processes in the environment (``serve.ENV``)."""
    return float(json.loads(os.environ.get(ENV, "{}")).get("header_timeout", ServeSettings.header_timeout))


class HeaderTimeoutProtocol(H11Protocol):
    """``H11Protocol`` that closes a connection whose request headers are not complete
    ``header_timeout`` seconds (``--header-timeout``) after it opened or after its last response."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout = header_timeout()
        self._header_deadline: Optional[asyncio.TimerHandle] = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # the headers are in (or the connection is done)
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm()  # the next request on this keep-alive connection has its own deadline

    def connection_lost(self, exc: Optional[Exception]) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_deadline = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _disarm(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _headers_too_slow(self) -> None:
        self._header_deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            logger.info("closed a connection whose request headers took over %g s", self.header_timeout)
            self.transport.close()
