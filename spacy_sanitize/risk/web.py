"""risk_web: the web-search risk indicator (seed 000, "Web Search").

For each document, the person to protect (the target, by default the PERSON entity with
most mentions) is searched for, giving ``URLs_i``; then each PII span is searched for on its
own, giving ``URLs_e`` and the engine's hit count. Two estimates (seed 000):

- ``url`` (URL ∩): risk 1 when ``URLs_e ∩ URLs_i`` is not empty, else 0 (top 20 results);
- ``hits`` (# of hits): risk 1 when ``min_hits <= hits <= max_hits`` (the seed's bounds, tuned
  for token F1 on the TAB dev set: at least 100 hits, no upper bound), else 0;
- ``any``: the maximum of both.

Mentions of the target itself get risk 1.0 without a query. Queries are deduplicated per
batch, run on a small thread pool, and cached on disk under a keyed hash (HMAC) of
backend + query.

PRIVACY: searching for a span sends it to the search engine. The component refuses (E800)
an endpoint that is not loopback unless ``allow_private=true`` (private and link-local
addresses) or ``allow_external=true``; redirects are never followed (E806, fail closed).
Fail closed: a span whose search (or its target's search, for ``url``) failed, or whose
engine gave no hit count (for ``hits``), gets risk 1.0, the error in
``Span._.risk_explain["web"]`` and a logged warning.
"""

import hashlib
import hmac
import json
import os
import tempfile
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Union
from urllib.parse import urlsplit

from spacy import util
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import minibatch, registry

from ..extensions import register_extensions
from ..io import write_file
from .base import FAIL_CLOSED_RISK, failure, risk_key, write_risk
from .web_backends import SearchResult, WebBackend, WebBackendError, host_is_local, query_tag
from ..errors import Errors, Warnings


METHODS = ("url", "hits", "any")
Target = Dict[str, Optional[str]]  # {"name": str, "entity_id": Optional[str]}
TargetGetter = Callable[[Doc, List[Span]], Optional[Target]]


# ------------------------------------------------------------------ the person to protect


@registry.misc("spacy_sanitize.web_target.main_person.v1")
def make_main_person(label: str = "PERSON", user_data_key: str = "target") -> TargetGetter:
    """The target of a document: ``doc.user_data[user_data_key]`` (a name) when set, else
    the ``label`` entity with most mentions (ties: the first one), named by its longest
    mention. Mentions are grouped by ``Span._.entity_id`` (else by text)."""

    def get_target(doc: Doc, spans: List[Span]) -> Optional[Target]:
        given = doc.user_data.get(user_data_key)
        if isinstance(given, str) and given.strip():
            return {"name": given.strip(), "entity_id": None}
        groups: Dict[str, List[Span]] = {}
        for span in spans:
            if span.label_ == label:
                groups.setdefault(span._.entity_id or f"text:{span.text}", []).append(span)
        if not groups:
            return None
        entity, mentions = max(
            groups.items(), key=lambda item: (len(item[1]), -item[1][0].start_char)
        )
        name = max(mentions, key=lambda s: (len(s.text), -s.start_char)).text
        return {"name": name, "entity_id": None if entity.startswith("text:") else entity}

    return get_target


# ------------------------------------------------------------------ cache


class WebCache:
    """Search results on disk, one JSON file per query named by HMAC-SHA256(backend id +
    query) under a random secret kept in the folder (``secret.key``, mode 0600): without the
    secret, the queried names cannot be recovered by hashing candidate names. The query
    text is not stored; the results are: files and folders are private to the user (0600 /
    0700), but protect the folder. Files named by an older unkeyed hash are never read."""

    SECRET = "secret.key"

    def __init__(self, path: Union[str, Path]) -> None:
        self.path = Path(path)
        self._secret: Optional[bytes] = None

    def _file(self, key: str) -> Path:
        return self.path / key[:2] / f"{key}.json"

    def secret(self) -> bytes:
        """The folder's secret, made on first use. Made in a temporary file and linked into
        place, so concurrent processes agree on one secret and never read a partial one."""
        if self._secret is None:
            self.path.mkdir(parents=True, exist_ok=True, mode=0o700)
            target = self.path / self.SECRET
            if not target.exists():
                fd, tmp = tempfile.mkstemp(dir=self.path, suffix=".tmp")  # mode 0600
                try:
                    with os.fdopen(fd, "wb") as out:
                        out.write(os.urandom(32))
                    try:
                        os.link(tmp, target)
                    except FileExistsError:
                        pass  # another process was first: use its secret
                finally:
                    os.unlink(tmp)
            self._secret = target.read_bytes()
        return self._secret

    def key(self, backend_id: str, query: str) -> str:
        message = f"{backend_id}\x00{query}".encode("utf-8")
        return hmac.new(self.secret(), message, hashlib.sha256).hexdigest()

    def get(self, key: str) -> Optional[SearchResult]:
        try:
            return SearchResult.from_dict(json.loads(self._file(key).read_text(encoding="utf8")))
        except (OSError, ValueError, AttributeError):
            return None

    def put(self, key: str, result: SearchResult) -> None:
        target = self._file(key)
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_file(target, json.dumps(result.to_dict()))  # 0600, whole or not at all


def normalize_url(url: str) -> str:
    """Compare URLs without scheme, ``www.``, fragment, host case and trailing slash."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    host = host[4:] if host.startswith("www.") else host
    path = parts.path.rstrip("/")
    return f"{host}{path}" + (f"?{parts.query}" if parts.query else "")


# ------------------------------------------------------------------ component


class RiskWeb:
    """Writes ``Span._.risk["web"]`` (the component name without ``risk_``), the evidence in
    ``Span._.risk_explain["web"]``; a decider (``risk_threshold``, ``risk_vote``) turns it into
    ``Span._.mask``."""

    def __init__(
        self,
        nlp: Language,
        name: str,
        backend: WebBackend,
        target: TargetGetter,
        spans_key: str,
        method: str,
        query_template: str,
        target_template: str,
        min_hits: int,
        max_hits: Optional[int],
        labels: List[str],
        allow_external: bool,
        cache_dir: Optional[str],
        n_threads: int,
        allow_private: bool = False,
    ) -> None:
        if method not in METHODS:
            raise ValueError(Errors.E802.format(method=method, methods=", ".join(METHODS)))
        endpoint = str(getattr(backend, "endpoint", ""))
        if not allow_external and not host_is_local(endpoint, allow_private=allow_private):
            raise ValueError(
                Errors.E800.format(
                    host=urlsplit(endpoint).hostname or endpoint or "an unknown endpoint"
                )
            )
        for template in (query_template, target_template):
            try:
                template.format(span="s", target="t")
            except (KeyError, IndexError, ValueError) as err:
                raise ValueError(Errors.E805.format(template=template, err=err)) from None
        if n_threads < 1:
            raise ValueError(
                Errors.E801.format(name="n_threads", value=n_threads, problem="must be >= 1")
            )
        self.nlp = nlp
        self.name = name
        self.key = risk_key(name)
        self.backend = backend
        self.target = target
        self.spans_key = spans_key
        self.method = method
        self.query_template = query_template
        self.target_template = target_template
        self.min_hits = int(min_hits)
        self.max_hits = None if max_hits is None else int(max_hits)
        self.labels = list(labels)
        self.allow_external = allow_external
        self.allow_private = allow_private
        self.cache = WebCache(cache_dir) if cache_dir else None
        self.n_threads = int(n_threads)
        self.stats = {"queries": 0, "cache_hits": 0, "errors": 0}

    # ---------------------------------------------------------------- searching

    def search_all(self, queries: Iterable[str]) -> Dict[str, Union[SearchResult, str]]:
        """Results (or the error message) of unique queries: cache first, then the backend
        on ``n_threads`` threads. Only successful results are cached."""
        out: Dict[str, Union[SearchResult, str]] = {}
        todo: List[str] = []
        backend_id = self.backend.cache_id()
        for query in dict.fromkeys(queries):
            cached = self.cache.get(self.cache.key(backend_id, query)) if self.cache else None
            if cached is not None:
                out[query] = cached
                self.stats["cache_hits"] += 1
            else:
                todo.append(query)

        def run(query: str) -> Union[SearchResult, str]:
            try:
                return self.backend.search(query)
            except WebBackendError as err:
                return str(err)
            except Exception as err:  # any backend failure fails closed
                # a third-party message may quote the query (private text): name its type only
                return f"{type(err).__name__} in the backend for query #{query_tag(query)}"

        if todo:
            with ThreadPoolExecutor(max_workers=min(self.n_threads, len(todo))) as pool:
                for query, result in zip(todo, pool.map(run, todo)):
                    out[query] = result
                    self.stats["queries"] += 1
                    if isinstance(result, str):
                        self.stats["errors"] += 1
                    elif self.cache:
                        self.cache.put(self.cache.key(backend_id, query), result)
        return out

    def _plan(self, doc: Doc) -> Tuple[List[Span], Optional[Target], Optional[str], Dict[int, str]]:
        spans = [
            s
            for s in doc.spans.get(self.spans_key, [])
            if not self.labels or s.label_ in self.labels
        ]
        target = self.target(doc, list(doc.spans.get(self.spans_key, [])))
        target_query = None
        if target and self.method != "hits":
            target_query = self.target_template.format(target=target["name"], span=target["name"])
        queries = {
            i: self.query_template.format(span=span.text, target=(target or {}).get("name") or "")
            for i, span in enumerate(spans)
            if not self._is_target(span, target)
        }
        return spans, target, target_query, queries

    @staticmethod
    def _is_target(span: Span, target: Optional[Target]) -> bool:
        if not target:
            return False
        if target["entity_id"] is not None:
            return span._.entity_id == target["entity_id"]
        return span.text == target["name"]

    # ---------------------------------------------------------------- scoring

    def _score(
        self,
        query: str,
        result: Union[SearchResult, str],
        target_result: Any,
        target: Optional[Target],
    ) -> Tuple[float, Dict[str, Any]]:
        explain: Dict[str, Any] = {"query": query, "method": self.method}
        if isinstance(result, str):
            return FAIL_CLOSED_RISK, failure(result, **explain)
        explain["hits"] = result.hits
        explain["n_urls"] = len(result.urls)
        risks: List[float] = []
        errors: List[str] = []
        if self.method in ("url", "any"):
            if target is None:
                errors.append("no target person found in the document for the URL intersection")
            elif isinstance(target_result, str):
                errors.append(f"target search failed: {target_result}")
            else:
                target_urls = {normalize_url(u) for u in target_result.urls}
                shared = [u for u in result.urls if normalize_url(u) in target_urls]
                explain["shared_urls"] = shared
                explain["target"] = target["name"]
                risks.append(1.0 if shared else 0.0)
        if self.method in ("hits", "any"):
            if result.hits is None:
                errors.append("the search engine reported no hit count")
            else:
                in_window = result.hits >= self.min_hits and (
                    self.max_hits is None or result.hits <= self.max_hits
                )
                explain["hit_window"] = [self.min_hits, self.max_hits]
                risks.append(1.0 if in_window else 0.0)
        if errors:
            return FAIL_CLOSED_RISK, failure("; ".join(errors), **explain)
        return max(risks), explain

    def set_annotations(
        self,
        docs: List[Doc],
        plans: List[Tuple[Any, ...]],
        results: Dict[str, Union[SearchResult, str]],
    ) -> None:
        for doc, (spans, target, target_query, queries) in zip(docs, plans):
            target_result = results.get(target_query) if target_query else None
            failed: List[str] = []
            for i, span in enumerate(spans):
                if i not in queries:
                    risk, explain = (
                        1.0,
                        {"target_mention": True, "target": target["name"] if target else None},
                    )
                else:
                    risk, explain = self._score(
                        queries[i], results[queries[i]], target_result, target
                    )
                    if explain.get("fail_closed"):
                        failed.append(explain["error"])
                write_risk(span, self.key, risk, explain)
            if failed:
                warnings.warn(Warnings.W801.format(n=len(failed), doc_id=doc._.doc_id, err=failed[0]), stacklevel=2)

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 32) -> Iterator[Doc]:
        for batch in minibatch(stream, size=batch_size):
            docs = list(batch)
            plans = [self._plan(doc) for doc in docs]
            wanted: List[str] = []
            for _, _, target_query, queries in plans:
                if target_query:
                    wanted.append(target_query)
                wanted.extend(queries.values())
            self.set_annotations(docs, plans, self.search_all(wanted))
            yield from docs

    def __call__(self, doc: Doc) -> Doc:
        return next(self.pipe([doc]))

    # ---------------------------------------------------------------- serialization
    # risk_web learns nothing: every setting (the backend, allow_external, cache_dir
    # included) lives in config.cfg, so an override at load time wins, and the cache stays
    # where it is. The methods exist for spaCy's nlp.to_disk/to_bytes.

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> None:
        util.to_disk(path, {}, exclude)

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = ()) -> "RiskWeb":
        return self

    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        return util.to_bytes({}, exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = ()) -> "RiskWeb":
        return self


@Language.factory(
    "risk_web",
    default_config={
        "backend": {
            "@misc": "spacy_sanitize.web_backend.searxng.v1",
            "url": "http://127.0.0.1:8888",
        },
        "target": {"@misc": "spacy_sanitize.web_target.main_person.v1"},
        "spans_key": "pii",
        "method": "hits",
        "query_template": '"{span}"',
        "target_template": '"{target}"',
        "min_hits": 100,
        "max_hits": None,
        "labels": [],
        "allow_external": False,
        "allow_private": False,
        "cache_dir": None,
        "n_threads": 4,
    },
    requires=["doc.spans"],
    assigns=["span._.risk", "span._.risk_explain"],
)
def make_risk_web(
    nlp: Language,
    name: str,
    backend: WebBackend,
    target: TargetGetter,
    spans_key: str,
    method: str,
    query_template: str,
    target_template: str,
    min_hits: int,
    max_hits: Optional[int],
    labels: List[str],
    allow_external: bool,
    allow_private: bool,
    cache_dir: Optional[str],
    n_threads: int,
) -> RiskWeb:
    """backend (WebBackend): a ``spacy_sanitize.web_backend.*`` entry. target (TargetGetter):
    who to protect. method (str): ``url`` (URL ∩), ``hits`` or ``any``. query_template /
    target_template (str): query text, with ``{span}`` and ``{target}``. min_hits / max_hits
    (int / Optional[int]): hit window counted as risky. labels (List[str]): PII labels to
    search (empty = all). allow_private (bool): also allow private (RFC 1918, ULA) and
    link-local endpoints (only loopback by default). allow_external (bool): allow any
    endpoint (leaks spans!).
    cache_dir (Optional[str]): disk cache folder. n_threads (int): parallel queries."""
    register_extensions()
    return RiskWeb(
        nlp,
        name,
        backend,
        target,
        spans_key,
        method,
        query_template,
        target_template,
        min_hits,
        max_hits,
        labels,
        allow_external,
        cache_dir,
        n_threads,
        allow_private,
    )
