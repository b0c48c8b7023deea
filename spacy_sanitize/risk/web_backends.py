"""Search backends for risk_web: versioned ``registry.misc`` entries that turn a query into
a ``SearchResult`` (result URLs + the engine's hit count).

- ``spacy_sanitize.web_backend.searxng.v1``: a SearXNG instance's JSON API,
  ``GET {url}/search?q=...&format=json&pageno=N``.
- ``spacy_sanitize.web_backend.json_api.v1``: any JSON search API, from a URL template
  and dotted JSON paths to the result list, the URL field and the hit count.

Both share ``HttpJsonBackend``: timeouts, retries with exponential backoff on timeouts,
connection errors, HTTP 429 and 5xx, a rate limit shared by all threads, several pages up
to ``max_results``. Only the standard library is used; system proxies are ignored, so a
loopback endpoint is really reached on loopback. HTTP redirects are never followed: a
redirect could send the query (private text) to any host, so it fails that query. Errors
raise ``WebBackendError``.
"""

from abc import ABC, abstractmethod
import hashlib
import ipaddress
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Protocol, runtime_checkable

from spacy.util import registry
from ..errors import Errors


class WebBackendError(RuntimeError):
    """A search that failed (after retries) or whose answer could not be read."""


@dataclass
class SearchResult:
    """urls (List[str]): result URLs, in rank order. hits (Optional[int]): the engine's
    estimated total number of results; None when the engine does not say."""

    urls: List[str] = field(default_factory=list)
    hits: Optional[int] = None

    def to_dict(self) -> Dict[str, Any]:
        return {"urls": list(self.urls), "hits": self.hits}

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "SearchResult":
        return cls(urls=[str(u) for u in data.get("urls", [])], hits=data.get("hits"))


@runtime_checkable
class WebBackend(Protocol):
    """What risk_web needs from a backend."""

    endpoint: str

    def search(self, query: str) -> SearchResult: ...

    def cache_id(self) -> str: ...


def host_is_local(url: str, allow_private: bool = False) -> bool:
    """True for loopback IP literals and ``localhost``; with ``allow_private`` also for
    private (RFC 1918, ULA) and link-local ones. Other host names (``searx.lan``, and
    ``x.localhost``, which a resolver may send to DNS) count as external: nothing is
    resolved."""
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # ::ffff:10.0.0.1 is 10.0.0.1
    if address.is_loopback:
        return True
    return allow_private and (address.is_private or address.is_link_local) and not address.is_unspecified


def json_path(data: Any, path: str) -> Any:
    """``json_path({"a": {"b": [1]}}, "a.b")`` -> ``[1]``; integer parts index lists.
    An empty path returns ``data``; a missing part raises KeyError."""
    for part in [p for p in path.split(".") if p]:
        if isinstance(data, list):
            data = data[int(part)]
        elif isinstance(data, dict):
            data = data[part]
        else:
            raise KeyError(part)
    return data


class RateLimiter:
    """At most ``per_second`` calls per second across threads (0 = unlimited)."""

    def __init__(self, per_second: float) -> None:
        self.interval = 1.0 / per_second if per_second > 0 else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        if not self.interval:
            return
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            time.sleep(start - now)


class _Retryable(Exception):
    pass


class _Redirected(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(f"HTTP {code}")
        self.code = code


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """The loopback check covers the configured URL only; a redirect's target is another
    host, so the request is never re-sent: the query fails (and fails closed)."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> None:
        fp.close()
        raise _Redirected(code)


class HttpJsonBackend(ABC):
    """Shared HTTP machinery; subclasses say how to build page URLs and read a response."""

    name = "http_json"

    def __init__(
        self,
        endpoint: str,
        timeout: float = 10.0,
        retries: int = 2,
        backoff: float = 0.5,
        rate_limit: float = 1.0,
        max_results: int = 20,
        page_size: int = 10,
        headers: Optional[Dict[str, str]] = None,
    ) -> None:
        for name, value, low in (
            ("timeout", timeout, 1e-9),
            ("max_results", max_results, 1),
            ("page_size", page_size, 1),
        ):
            if value < low:
                raise ValueError(
                    Errors.E801.format(name=name, value=value, problem=f"must be >= {low}")
                )
        if retries < 0 or backoff < 0 or rate_limit < 0:
            raise ValueError(
                Errors.E801.format(
                    name="retries/backoff/rate_limit",
                    value=(retries, backoff, rate_limit),
                    problem="must be >= 0",
                )
            )
        self.endpoint = endpoint
        self.timeout = float(timeout)
        self.retries = int(retries)
        self.backoff = float(backoff)
        self.max_results = int(max_results)
        self.page_size = int(page_size)
        self.headers = {
            "Accept": "application/json",
            "User-Agent": "spacy-sanitize/risk_web",
            **(headers or {}),
        }
        self.limiter = RateLimiter(rate_limit)
        # build_opener replaces its default redirect handler by our subclass
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _RefuseRedirects())

    # subclass hooks ---------------------------------------------------------
    @abstractmethod
    def page_url(self, query: str, page: int) -> str:
        ...

    @abstractmethod
    def parse(self, data: Any) -> SearchResult:
        ...

    def cache_id(self) -> str:
        return f"{self.name}|{self.endpoint}|{self.max_results}"

    # ------------------------------------------------------------------------
    def search(self, query: str) -> SearchResult:
        """Results of ``query``: pages are fetched until ``max_results`` URLs, or a page
        brings nothing new. Raises WebBackendError."""
        urls: List[str] = []
        hits: Optional[int] = None
        pages = -(-self.max_results // self.page_size)
        for page in range(1, pages + 1):
            result = self._fetch(self.page_url(query, page), query)
            if hits is None:
                hits = result.hits
            new = [u for u in result.urls if u not in urls]
            urls.extend(new)
            if not new or len(result.urls) < self.page_size:
                break
        return SearchResult(urls=urls[: self.max_results], hits=hits)

    def _fetch(self, url: str, query: str) -> SearchResult:
        tag = query_tag(query)
        attempts = self.retries + 1
        last: Exception = RuntimeError("no attempt")
        for attempt in range(attempts):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            self.limiter.wait()
            try:
                body = self._get(url)
            except _Retryable as err:
                last = err.__cause__ or err
                continue
            except _Redirected as err:
                raise WebBackendError(Errors.E806.format(hash=tag, code=err.code)) from None
            except urllib.error.HTTPError as err:  # a 4xx other than 429: retrying will not help
                raise WebBackendError(
                    Errors.E803.format(hash=tag, attempts=attempt + 1, err=f"HTTP {err.code}")
                ) from None
            try:
                return self.parse(json.loads(body.decode("utf-8")))
            except (ValueError, KeyError, IndexError, TypeError) as err:
                raise WebBackendError(
                    Errors.E804.format(hash=tag, err=f"{type(err).__name__}: {err}")
                ) from None
        raise WebBackendError(
            Errors.E803.format(hash=tag, attempts=attempts, err=f"{type(last).__name__}: {last}")
        )

    def _get(self, url: str) -> bytes:
        request = urllib.request.Request(url, headers=self.headers)
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                return response.read()
        except urllib.error.HTTPError as err:
            err.close()
            if err.code == 429 or err.code >= 500:
                raise _Retryable(f"HTTP {err.code}") from err
            raise
        except OSError as err:  # URLError, socket.timeout, TimeoutError, ConnectionError
            raise _Retryable(str(err)) from err


def query_tag(query: str) -> str:
    """A tag for log and error messages that does not repeat the (private) query."""
    return hashlib.sha256(query.encode("utf-8")).hexdigest()[:10]


class SearxngBackend(HttpJsonBackend):
    """A SearXNG instance (``format=json`` must be enabled in its settings.yml)."""

    name = "searxng.v1"

    def __init__(
        self, url: str, categories: str = "general", language: str = "all", **kwargs: Any
    ) -> None:
        super().__init__(url.rstrip("/"), **kwargs)
        self.categories = categories
        self.language = language

    def page_url(self, query: str, page: int) -> str:
        params = {
            "q": query,
            "format": "json",
            "pageno": page,
            "categories": self.categories,
            "language": self.language,
        }
        return f"{self.endpoint}/search?{urllib.parse.urlencode(params)}"

    def parse(self, data: Any) -> SearchResult:
        urls = [str(r["url"]) for r in data["results"] if isinstance(r, dict) and r.get("url")]
        hits = data.get("number_of_results")
        # SearXNG says 0 when none of its engines reported a count: unknown, not "no result".
        if not isinstance(hits, (int, float)) or (hits == 0 and urls):
            hits = None
        return SearchResult(urls=urls, hits=None if hits is None else int(hits))

    def cache_id(self) -> str:
        return f"{super().cache_id()}|{self.categories}|{self.language}"


class JsonApiBackend(HttpJsonBackend):
    """A generic JSON search API. ``url_template`` has ``{query}`` (URL-quoted) and may have
    ``{page}`` (1-based) and ``{start}`` (0-based offset of the page's first result)."""

    name = "json_api.v1"

    def __init__(
        self,
        url_template: str,
        results_path: str,
        url_key: str,
        hits_path: Optional[str] = None,
        **kwargs: Any,
    ) -> None:
        if "{query}" not in url_template:
            raise ValueError(
                Errors.E801.format(
                    name="url_template", value=url_template, problem="needs a {query} placeholder"
                )
            )
        super().__init__(url_template, **kwargs)
        self.url_template = url_template
        self.results_path = results_path
        self.url_key = url_key
        self.hits_path = hits_path

    def page_url(self, query: str, page: int) -> str:
        return self.url_template.format(
            query=urllib.parse.quote_plus(query), page=page, start=(page - 1) * self.page_size
        )

    def parse(self, data: Any) -> SearchResult:
        results = json_path(data, self.results_path)
        if not isinstance(results, list):
            raise TypeError(f"'{self.results_path}' is not a list")
        urls = [str(json_path(r, self.url_key)) for r in results]
        hits = None
        if self.hits_path:
            try:
                raw = json_path(data, self.hits_path)
            except (KeyError, IndexError):
                raw = None
            hits = (
                None if raw is None else int(str(raw).replace(",", ""))
            )  # counts often come as strings
        return SearchResult(urls=urls, hits=hits)

    def cache_id(self) -> str:
        return f"{super().cache_id()}|{self.results_path}|{self.url_key}|{self.hits_path}"


@registry.misc("spacy_sanitize.web_backend.searxng.v1")
def make_searxng_backend(
    url: str,
    timeout: float = 10.0,
    retries: int = 2,
    backoff: float = 0.5,
    rate_limit: float = 1.0,
    max_results: int = 20,
    page_size: int = 10,
    categories: str = "general",
    language: str = "all",
    headers: Optional[Dict[str, str]] = None,
) -> SearxngBackend:
    """url (str): the instance's base URL. timeout (float): seconds per request. retries (int):
    extra attempts after a timeout/connection error/429/5xx, waiting backoff * 2**i seconds.
    rate_limit (float): requests per second (0 = unlimited). max_results (int): URLs kept
    (seed 000: top 20 = two pages of 10)."""
    return SearxngBackend(
        url,
        categories=categories,
        language=language,
        timeout=timeout,
        retries=retries,
        backoff=backoff,
        rate_limit=rate_limit,
        max_results=max_results,
        page_size=page_size,
        headers=headers,
    )


@registry.misc("spacy_sanitize.web_backend.json_api.v1")
def make_json_api_backend(
    url_template: str,
    results_path: str = "results",
    url_key: str = "url",
    hits_path: Optional[str] = None,
    timeout: float = 10.0,
    retries: int = 2,
    backoff: float = 0.5,
    rate_limit: float = 1.0,
    max_results: int = 20,
    page_size: int = 10,
    headers: Optional[Dict[str, str]] = None,
) -> JsonApiBackend:
    """url_template (str): e.g. ``http://10.0.0.5/api?q={query}&start={start}``.
    results_path (str): dotted path to the result list (``items``, ``data.web.results``).
    url_key (str): dotted path of the URL in one result (``link``). hits_path
    (Optional[str]): dotted path to the total hit count (``searchInformation.totalResults``).
    Other settings as for the SearXNG backend."""
    return JsonApiBackend(
        url_template,
        results_path,
        url_key,
        hits_path,
        timeout=timeout,
        retries=retries,
        backoff=backoff,
        rate_limit=rate_limit,
        max_results=max_results,
        page_size=page_size,
        headers=headers,
    )
