"""The Wikidata gazetteer builder: a tiny dump in the real format, end to end, and the
SPARQL path against a loopback HTTP server."""

import bz2
import gzip
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar, Dict, List

import pytest
import spacy

import spacy_sanitize  # noqa: F401
from spacy_sanitize.training.gazetteer_build import (
    SparqlClient,
    load_properties,
    main,
    records_from_dump,
    records_from_sparql,
)
from spacy_sanitize.detect.gazetteer.matcher import GazetteerMatcher, read_records


def item_claim(pid: str, qid: str, rank: str = "normal") -> Dict[str, Any]:
    return {
        "mainsnak": {
            "snaktype": "value",
            "property": pid,
            "datavalue": {
                "value": {"entity-type": "item", "numeric-id": int(qid[1:]), "id": qid},
                "type": "wikibase-entityid",
            },
            "datatype": "wikibase-item",
        },
        "type": "statement",
        "id": f"{qid}$x",
        "rank": rank,
    }


def text_claim(pid: str, text: str) -> Dict[str, Any]:
    return {
        "mainsnak": {
            "snaktype": "value",
            "property": pid,
            "datavalue": {"value": {"text": text, "language": "en"}, "type": "monolingualtext"},
            "datatype": "monolingualtext",
        },
        "type": "statement",
        "rank": "normal",
    }


def entity(
    qid: str, label: str, claims: Dict[str, List[Dict[str, Any]]], aliases: List[str] = ()
) -> Dict[str, Any]:
    return {
        "type": "item",
        "id": qid,
        "labels": {
            "en": {"language": "en", "value": label},
            "fr": {"language": "fr", "value": label + " (fr)"},
        },
        "aliases": {"en": [{"language": "en", "value": a} for a in aliases]},
        "claims": claims,
        "sitelinks": {},
    }


ENTITIES = [
    entity(
        "Q1",
        "Ada Example",
        {
            "P31": [item_claim("P31", "Q5")],
            "P106": [item_claim("P106", "Q33999"), item_claim("P106", "Q82955")],
            "P1399": [item_claim("P1399", "Q132821")],
            "P3909": [text_claim("P3909", "More light!")],
        },
    ),
    entity(
        "Q2",
        "Bo Example",
        {
            "P31": [item_claim("P31", "Q5")],
            "P106": [item_claim("P106", "Q82955"), item_claim("P106", "Q82955")],
            "P39": [item_claim("P39", "Q11696")],
        },
    ),
    # Not a human: its occupation must not be counted.
    entity(
        "Q3", "A Cat", {"P31": [item_claim("P31", "Q146")], "P106": [item_claim("P106", "Q33999")]}
    ),
    # A deprecated statement does not count.
    entity(
        "Q4",
        "Cy Example",
        {
            "P31": [item_claim("P31", "Q5")],
            "P106": [item_claim("P106", "Q1028181", rank="deprecated")],
        },
    ),
    entity(
        "Q33999",
        "actor",
        {"P31": [item_claim("P31", "Q28640")]},
        aliases=["actress", "stage actor"],
    ),
    entity("Q82955", "politician", {"P31": [item_claim("P31", "Q28640")]}),
    entity("Q132821", "murder", {"P31": [item_claim("P31", "Q1456832")]}),
    entity("Q11696", "President of the United States", {}, aliases=["POTUS"]),
    entity("Q1028181", "painter", {}),
    entity("Q5", "human", {}),
]


def write_dump(path: Path) -> Path:
    """The published layout: a JSON array, one entity per line, lines ending in commas."""
    lines = ["["] + [json.dumps(e, separators=(",", ":")) + "," for e in ENTITIES[:-1]]
    lines += [json.dumps(ENTITIES[-1], separators=(",", ":")), "]"]
    data = ("\n".join(lines) + "\n").encode("utf8")
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(data))
    elif path.suffix == ".bz2":
        path.write_bytes(bz2.compress(data))
    else:
        path.write_bytes(data)
    return path


def test_properties_from_seed_appendix():
    properties = load_properties()
    labels = [p.label for p in properties.values()]
    assert labels.count("DEM") == 44 and labels.count("MISC") == 196
    assert properties["P106"].label == "DEM" and properties["P1399"].label == "MISC"


def test_bad_properties_row_is_an_error(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text("P1\tx\tOTHER\n")
    with pytest.raises(ValueError, match="E206"):
        load_properties(path)


@pytest.mark.parametrize("suffix", [".json.gz", ".json.bz2", ".json"])
def test_builder_on_tiny_dump(tmp_path, suffix):
    dump = write_dump(tmp_path / f"dump{suffix}")
    records = list(records_from_dump(dump))
    by_term = {(r["term"], r["property"]): r for r in records}
    assert by_term[("politician", "P106")] == {
        "term": "politician",
        "label": "DEM",
        "property": "P106",
        "qid": "Q82955",
        "count": 2,
    }
    assert by_term[("actor", "P106")]["count"] == 1  # the cat does not count
    assert ("actress", "P106") in by_term and ("stage actor", "P106") in by_term  # aliases
    assert by_term[("murder", "P1399")]["label"] == "MISC"
    assert by_term[("More light!", "P3909")]["qid"] == ""
    assert ("painter", "P106") not in by_term  # deprecated
    assert ("POTUS", "P39") in by_term
    assert records[0]["term"] == "politician"  # most used first


def test_builder_min_count_and_no_aliases(tmp_path):
    dump = write_dump(tmp_path / "dump.json.gz")
    records = list(records_from_dump(dump, min_count=2, aliases=False))
    assert [r["term"] for r in records] == ["politician"]


def test_builder_cli_end_to_end(tmp_path):
    dump = write_dump(tmp_path / "dump.json.bz2")
    out = tmp_path / "gazetteer.jsonl.gz"
    main(["dump", str(dump), str(out), "--compile", str(tmp_path / "compiled"), "--quiet"])
    records = list(read_records(out))
    assert len(records) == len({(r["term"], r["property"], r["qid"]) for r in records}) > 5
    matcher = GazetteerMatcher.from_disk(tmp_path / "compiled")
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_gazetteer", config={"gazetteer": str(tmp_path / "compiled")})
    doc = nlp("The former President of the United States was a stage actor.")
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [
        ("President of the United States", "DEM"),
        ("stage actor", "DEM"),
    ]
    assert doc.spans["pii"][1]._.risk_explain["pii_gazetteer"]["qid"] == "Q33999"
    assert len(matcher) == len(records)


def test_malformed_dump_lines_are_skipped_with_a_warning(tmp_path):
    path = tmp_path / "dump.json"
    write_dump(path)
    text = path.read_text().replace('"id":"Q2"', '"id":"Q2"', 1)
    lines = text.splitlines()
    lines.insert(2, '{"broken": "Q5",')
    path.write_text("\n".join(lines))
    with pytest.warns(UserWarning, match="W200"):
        records = list(records_from_dump(path))
    assert any(r["term"] == "politician" for r in records)


def test_missing_dump_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="E205"):
        list(records_from_dump(tmp_path / "none.json.gz"))


class _Sparql(BaseHTTPRequestHandler):
    """Answers the builder's paged queries from a table; fails the first request."""

    values: ClassVar[Dict[str, List[Any]]] = {
        "P106": [
            ("Q82955", 9, ["politician"]),
            ("Q33999", 5, ["actor", "actress"]),
            ("Q1028181", 2, ["painter"]),
        ]
    }
    failures = 1
    queries: ClassVar[List[str]] = []

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        query = urllib.parse.parse_qs(self.rfile.read(length).decode())["query"][0]
        type(self).queries.append(query)
        if type(self).failures:
            type(self).failures -= 1
            self.send_response(503)
            self.send_header("Retry-After", "0")
            self.end_headers()
            return
        pid = query.split("wdt:P31 wd:Q5 ; wdt:")[1].split(" ")[0]
        limit = int(query.split("LIMIT ")[1].split()[0])
        offset = int(query.split("OFFSET ")[1].split()[0])
        rows = []
        for qid, count, names in self.values.get(pid, [])[offset : offset + limit]:
            for name in names:
                rows.append(
                    {
                        "value": {"type": "uri", "value": f"http://www.wikidata.org/entity/{qid}"},
                        "count": {"type": "literal", "value": str(count)},
                        "name": {"type": "literal", "value": name, "xml:lang": "en"},
                    }
                )
        body = json.dumps(
            {"head": {"vars": ["value", "count", "name"]}, "results": {"bindings": rows}}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/sparql-results+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def sparql_server():
    _Sparql.failures = 1
    _Sparql.queries = []
    server = HTTPServer(("127.0.0.1", 0), _Sparql)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/sparql"
    server.shutdown()
    server.server_close()
    thread.join()


def test_sparql_builder_pages_and_retries(sparql_server):
    properties = {k: v for k, v in load_properties().items() if k in ("P106", "P39")}
    records = list(
        records_from_sparql(sparql_server, properties, page_size=2, backoff=0.0, retries=2)
    )
    assert [(r["term"], r["count"]) for r in records] == [
        ("politician", 9),
        ("actor", 5),
        ("actress", 5),
        ("painter", 2),
    ]
    assert all(r["label"] == "DEM" and r["property"] == "P106" for r in records)
    # one failed try, two pages for P106 (2 + 1 values), one empty page for P39
    assert len(_Sparql.queries) == 4


def test_sparql_gives_up_with_a_coded_error():
    client = SparqlClient("http://127.0.0.1:9/sparql", timeout=0.5, retries=1, backoff=0.0)
    with pytest.raises(RuntimeError, match="E207"):
        client.query("SELECT * WHERE { ?s ?p ?o }")
