"""Build gazetteers from Wikidata: the values of the DEM and MISC properties of humans.

From a dump (``latest-all.json.gz`` or ``.json.bz2`` from dumps.wikimedia.org: a JSON
array with one entity per line), streamed twice and never held in memory:

1. keep humans (P31 = Q5), count for each (property, value item) how many humans use it
   (string and English monolingual-text values are kept as terms directly);
2. read the English label and aliases of the value items.

Or through a SPARQL endpoint (paged queries with retries and timeouts). Both write JSONL
records ``{"term", "label", "property", "qid", "count"}`` that ``pii_gazetteer`` loads
(``gazetteer = "path/to/file.jsonl.gz"``), and can compile them for fast loading.

    python -m spacy_sanitize build-gazetteer dump latest-all.json.gz gazetteer.jsonl.gz --compile gazetteer/
    python -m spacy_sanitize build-gazetteer sparql https://query.wikidata.org/sparql gazetteer.jsonl.gz
"""

import argparse
import bz2
import gzip
import io
import json
import logging
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Dict, Iterable, Iterator, List, Mapping, Optional, Set, Tuple, Union

from ..errors import Errors, Warnings
from ..shipped import data_path

logger = logging.getLogger(__name__)
logger.addHandler(logging.NullHandler())

HUMAN = "Q5"
USER_AGENT = "spacy-sanitize-gazetteer/0.1 (https://github.com/; text sanitization research)"


@dataclass(frozen=True)
class WikidataProperty:
    pid: str
    name: str
    label: str  # DEM or MISC


def properties_path() -> Path:
    return data_path("wikidata_properties.tsv")


def load_properties(path: Optional[Union[str, Path]] = None) -> Dict[str, WikidataProperty]:
    """The properties to collect (default: the 44 DEM + 196 MISC of seed 000's appendix)."""
    path = Path(path) if path else properties_path()
    out: Dict[str, WikidataProperty] = {}
    for line in path.read_text(encoding="utf8").splitlines():
        if not line.strip() or line.startswith(("#", "property\t")):
            continue
        row = line.split("\t")
        if (
            len(row) < 3
            or not row[0].startswith("P")
            or not row[0][1:].isdigit()
            or row[2] not in ("DEM", "MISC")
        ):
            raise ValueError(Errors.E206.format(path=path, row=line))
        out[row[0]] = WikidataProperty(row[0], row[1], row[2])
    return out


# ---------------------------------------------------------------------- dump reading
def _open_dump(path: Path, progress: bool) -> IO[str]:
    raw: IO[bytes] = path.open("rb")
    if progress:
        from tqdm import tqdm

        raw = tqdm.wrapattr(
            raw,
            "read",
            total=path.stat().st_size,
            desc=path.name,
            unit="B",
            unit_scale=True,
            mininterval=2,
        )  # type: ignore[assignment]
    if path.suffix == ".gz":
        stream: IO[bytes] = gzip.GzipFile(fileobj=raw)  # type: ignore[arg-type]
    elif path.suffix == ".bz2":
        stream = bz2.BZ2File(raw)  # type: ignore[arg-type]
    else:
        stream = raw
    return io.TextIOWrapper(stream, encoding="utf8")


def iter_dump(
    path: Union[str, Path], progress: bool = False, must_contain: Optional[str] = None
) -> Iterator[Dict[str, Any]]:
    """Entities of a Wikidata JSON dump, one line at a time. ``must_contain``: skip lines
    without this substring before parsing them (a cheap pre-filter)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(Errors.E205.format(path=path, err="no such file"))
    bad, first_bad = 0, 0
    try:
        with _open_dump(path, progress) as lines:
            for line_no, line in enumerate(lines, start=1):
                line = line.strip()
                if line in ("", "[", "]"):
                    continue
                if must_contain is not None and must_contain not in line:
                    continue
                line = line.removesuffix(",")
                try:
                    entity = json.loads(line)
                except ValueError:
                    bad += 1
                    first_bad = first_bad or line_no
                    continue
                if isinstance(entity, dict):
                    yield entity
    except (OSError, EOFError, UnicodeDecodeError) as err:
        raise ValueError(Errors.E205.format(path=path, err=err)) from None
    if bad:
        warnings.warn(Warnings.W200.format(errors=bad, path=path, line=first_bad), stacklevel=2)


def _snak_values(statement: Mapping[str, Any]) -> Iterator[Tuple[str, str]]:
    """("item", Q-id) or ("text", string) for a statement's main value."""
    if statement.get("rank") == "deprecated":
        return
    snak = statement.get("mainsnak") or {}
    if snak.get("snaktype") != "value":
        return
    datavalue = snak.get("datavalue") or {}
    value = datavalue.get("value")
    kind = datavalue.get("type")
    if kind == "wikibase-entityid" and isinstance(value, dict):
        qid = value.get("id") or (f"Q{value['numeric-id']}" if "numeric-id" in value else None)
        if qid and str(qid).startswith("Q"):
            yield "item", str(qid)
    elif kind == "string" and isinstance(value, str):
        yield "text", value
    elif kind == "monolingualtext" and isinstance(value, dict) and value.get("language") == "en":
        yield "text", str(value.get("text", ""))


def is_human(entity: Mapping[str, Any]) -> bool:
    for statement in (entity.get("claims") or {}).get("P31", []):
        if ("item", HUMAN) in set(_snak_values(statement)):
            return True
    return False


def collect_values(
    path: Union[str, Path], properties: Mapping[str, WikidataProperty], progress: bool = False
) -> Tuple[Counter, Counter, int]:
    """Pass 1: (property, item) -> number of humans, (property, text) -> number of humans,
    and the number of humans."""
    items: Counter = Counter()
    texts: Counter = Counter()
    humans = 0
    for entity in iter_dump(path, progress, must_contain='"Q5"'):
        if not is_human(entity):
            continue
        humans += 1
        seen: Set[Tuple[str, str, str]] = set()
        for pid, statements in (entity.get("claims") or {}).items():
            if pid not in properties:
                continue
            for statement in statements:
                for kind, value in _snak_values(statement):
                    seen.add((kind, pid, value.strip()))
        for kind, pid, value in seen:
            if value:
                (items if kind == "item" else texts)[(pid, value)] += 1
    return items, texts, humans


def english_names(entity: Mapping[str, Any], aliases: bool = True) -> List[str]:
    names = []
    label = (entity.get("labels") or {}).get("en")
    if isinstance(label, dict) and label.get("value"):
        names.append(str(label["value"]))
    if aliases:
        for alias in (entity.get("aliases") or {}).get("en", []):
            if isinstance(alias, dict) and alias.get("value"):
                names.append(str(alias["value"]))
    return list(dict.fromkeys(names))


def resolve_labels(
    path: Union[str, Path], qids: Set[str], aliases: bool = True, progress: bool = False
) -> Dict[str, List[str]]:
    """Pass 2: English label and aliases of the given items."""
    names: Dict[str, List[str]] = {}
    for entity in iter_dump(path, progress):
        qid = entity.get("id")
        if qid in qids:
            found = english_names(entity, aliases)
            if found:
                names[str(qid)] = found
    return names


def records_from_dump(
    path: Union[str, Path],
    properties: Optional[Mapping[str, WikidataProperty]] = None,
    min_count: int = 1,
    aliases: bool = True,
    progress: bool = False,
) -> Iterator[Dict[str, Any]]:
    """Gazetteer records from a dump, most used values first."""
    properties = properties or load_properties()
    items, texts, humans = collect_values(path, properties, progress)
    logger.info(
        "%d humans, %d (property, item) values, %d text values", humans, len(items), len(texts)
    )
    wanted = {qid for (_, qid), count in items.items() if count >= min_count}
    names = resolve_labels(path, wanted, aliases, progress)
    rows: List[Tuple[int, str, str, str, str]] = []
    for (pid, qid), count in items.items():
        if count < min_count:
            continue
        for term in names.get(qid, []):
            rows.append((count, pid, qid, term, properties[pid].label))
    for (pid, text), count in texts.items():
        if count >= min_count:
            rows.append((count, pid, "", text, properties[pid].label))
    rows.sort(key=lambda row: (-row[0], row[1], row[3]))
    for count, pid, qid, term, label in rows:
        yield {"term": term, "label": label, "property": pid, "qid": qid, "count": count}


# ---------------------------------------------------------------------- SPARQL
SPARQL_QUERY = """SELECT ?value ?count ?name WHERE {{
  {{ SELECT ?value (COUNT(DISTINCT ?human) AS ?count) WHERE {{
      ?human wdt:P31 wd:Q5 ; wdt:{pid} ?value . FILTER(isIRI(?value))
    }} GROUP BY ?value HAVING (COUNT(DISTINCT ?human) >= {min_count})
    ORDER BY DESC(?count) ?value LIMIT {limit} OFFSET {offset} }}
  ?value {name_predicate} ?name . FILTER(LANG(?name) = "en")
}}"""


class SparqlClient:
    """A small SPARQL-over-HTTP client with timeouts, retries and back-off."""

    def __init__(
        self, url: str, timeout: float = 60.0, retries: int = 3, backoff: float = 2.0
    ) -> None:
        self.url = url
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff

    def query(self, sparql: str) -> List[Dict[str, Any]]:
        data = urllib.parse.urlencode({"query": sparql, "format": "json"}).encode("utf8")
        request = urllib.request.Request(
            self.url,
            data=data,
            headers={
                "Accept": "application/sparql-results+json",
                "User-Agent": USER_AGENT,
                "Content-Type": "application/x-www-form-urlencoded",
            },
        )
        last_error: Optional[BaseException] = None
        for attempt in range(self.retries + 1):
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read().decode("utf8"))["results"]["bindings"]
            except urllib.error.HTTPError as err:
                last_error = err
                if err.code not in (429, 500, 502, 503, 504):
                    break
                delay = (
                    float(err.headers.get("Retry-After") or self.backoff * 2**attempt)
                    if err.headers
                    else self.backoff * 2**attempt
                )
            except (urllib.error.URLError, TimeoutError, OSError, ValueError, KeyError) as err:
                last_error = err
                delay = self.backoff * 2**attempt
            if attempt < self.retries:
                logger.info("SPARQL query failed (%s); retrying in %.1f s", last_error, delay)
                time.sleep(delay)
        raise RuntimeError(Errors.E207.format(url=self.url, tries=self.retries + 1, err=last_error))


def records_from_sparql(
    url: str,
    properties: Optional[Mapping[str, WikidataProperty]] = None,
    min_count: int = 1,
    aliases: bool = True,
    page_size: int = 10000,
    timeout: float = 60.0,
    retries: int = 3,
    backoff: float = 2.0,
    progress: bool = False,
) -> Iterator[Dict[str, Any]]:
    """Gazetteer records through a SPARQL endpoint, one property and page at a time."""
    properties = properties or load_properties()
    client = SparqlClient(url, timeout=timeout, retries=retries, backoff=backoff)
    name_predicate = "rdfs:label|skos:altLabel" if aliases else "rdfs:label"
    pids: Iterable[str] = list(properties)
    if progress:
        from tqdm import tqdm

        pids = tqdm(pids, desc="properties", unit=" properties")
    for pid in pids:
        offset = 0
        while True:
            query = SPARQL_QUERY.format(
                pid=pid,
                min_count=min_count,
                limit=page_size,
                offset=offset,
                name_predicate=name_predicate,
            )
            rows = client.query(query)
            values: Set[str] = set()
            for row in rows:
                qid = row["value"]["value"].rsplit("/", 1)[-1]
                values.add(qid)
                yield {
                    "term": row["name"]["value"],
                    "label": properties[pid].label,
                    "property": pid,
                    "qid": qid,
                    "count": int(row["count"]["value"]),
                }
            # A page holds up to page_size values (each with one or more names).
            if len(values) < page_size or not rows:
                break
            offset += page_size


# ---------------------------------------------------------------------- output
def write_records(records: Iterable[Mapping[str, Any]], path: Union[str, Path]) -> int:
    """Write JSONL (gzip when the name ends in .gz), dropping duplicate (term, property, qid)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    opener = gzip.open if path.suffix == ".gz" else open
    seen: Set[Tuple[str, str, str]] = set()
    n = 0
    with opener(path, "wt", encoding="utf8") as out:  # type: ignore[operator]
        for record in records:
            key = (record["term"], record.get("property", ""), record.get("qid", ""))
            if key in seen:
                continue
            seen.add(key)
            out.write(json.dumps(dict(record), ensure_ascii=False) + "\n")
            n += 1
    return n


def compile_gazetteer(
    jsonl: Union[str, Path], output_dir: Union[str, Path], progress: bool = False
) -> int:
    """Build the matcher for a JSONL gazetteer and save it (binary, fast to load)."""
    from ..detect.gazetteer.matcher import GazetteerMatcher, read_records

    matcher = GazetteerMatcher.build(read_records(jsonl), progress=progress)
    matcher.to_disk(output_dir)
    return len(matcher)


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(
        prog="spacy-sanitize build-gazetteer", description=__doc__.split("\n\n")[0]
    )
    sub = parser.add_subparsers(dest="source", required=True)
    dump = sub.add_parser("dump", help="from a Wikidata JSON dump (.json, .json.gz, .json.bz2)")
    dump.add_argument("dump_path", type=Path)
    sparql = sub.add_parser("sparql", help="through a SPARQL endpoint")
    sparql.add_argument("url")
    sparql.add_argument("--page-size", type=int, default=10000)
    sparql.add_argument("--timeout", type=float, default=60.0)
    sparql.add_argument("--retries", type=int, default=3)
    for command in (dump, sparql):
        command.add_argument("output", type=Path, help="JSONL output (.jsonl or .jsonl.gz)")
        command.add_argument(
            "--properties",
            type=Path,
            default=None,
            help="TSV of properties (default: seed 000's list)",
        )
        command.add_argument(
            "--min-count", type=int, default=1, help="drop values used by fewer humans"
        )
        command.add_argument("--no-aliases", action="store_true", help="English labels only")
        command.add_argument(
            "--compile", type=Path, default=None, help="also save the compiled matcher here"
        )
        command.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    properties = load_properties(args.properties)
    progress = not args.quiet
    if args.source == "dump":
        records = records_from_dump(
            args.dump_path, properties, args.min_count, not args.no_aliases, progress
        )
    else:
        records = records_from_sparql(
            args.url,
            properties,
            args.min_count,
            not args.no_aliases,
            args.page_size,
            args.timeout,
            args.retries,
            progress=progress,
        )
    n = write_records(records, args.output)
    logger.info("wrote %d records to %s", n, args.output)
    if args.compile:
        entries = compile_gazetteer(args.output, args.compile, progress)
        logger.info("compiled %d entries into %s", entries, args.compile)

