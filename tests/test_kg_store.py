"""The store registry (built-ins, run-time registration, entry-point plugins) and result terms."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from nl2sparql.kg import (
    SelectResult,
    Store,
    StoreError,
    StoreStats,
    Term,
    available_stores,
    open_store,
    register_store,
)
from nl2sparql.kg.endpoint_store import EndpointStore
from nl2sparql.kg.oxigraph_store import OxigraphStore
from nl2sparql.kg.rdflib_store import RdflibStore

PLUGIN = '''
from nl2sparql.kg.rdflib_store import RdflibStore


class TinyStore(RdflibStore):
    """A third-party store: an rdflib store that starts with one triple."""

    name = "tiny"

    def __init__(self, subject="urn:x:s", **options):
        super().__init__(**options)
        from rdflib import Literal, URIRef
        label = URIRef("http://www.w3.org/2000/01/rdf-schema#label")
        self.graph.add((URIRef(subject), label, Literal("tiny")))


def not_a_store(**options):
    return object()
'''


def test_importing_the_package_loads_no_backend() -> None:
    code = (
        "import sys, nl2sparql.kg; "
        "print(sorted(m for m in ('pyoxigraph', 'rdflib', 'SPARQLWrapper') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_builtin_stores_open_by_name(tmp_path: Path) -> None:
    assert {"oxigraph", "rdflib", "endpoint"} <= set(available_stores())
    assert isinstance(open_store("oxigraph", path=tmp_path / "s"), OxigraphStore)
    assert isinstance(open_store("rdflib"), RdflibStore)
    assert isinstance(open_store("endpoint", url="http://127.0.0.1:9/sparql"), EndpointStore)


def test_unknown_store_and_bad_options() -> None:
    with pytest.raises(StoreError, match=r"unknown store 'qlever'; available: .*oxigraph"):
        open_store("qlever")
    with pytest.raises(StoreError, match=r"store 'rdflib': bad options \['colour'\]"):
        open_store("rdflib", colour="blue")


def test_register_store_at_run_time() -> None:
    register_store("scratch", lambda **options: RdflibStore(**options))
    store = open_store("scratch")
    assert isinstance(store, Store) and "scratch" in available_stores()
    register_store("broken", lambda **options: "not a store")
    with pytest.raises(StoreError, match="returned str, not a Store"):
        open_store("broken")
    with pytest.raises(StoreError, match="needs a name and a callable"):
        register_store("", None)  # type: ignore[arg-type]


def test_entry_point_plugins_are_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A distribution declaring ``nl2sparql.stores`` entry points, installed on sys.path."""
    (tmp_path / "tiny_plugin.py").write_text(textwrap.dedent(PLUGIN), encoding="utf-8")
    info = tmp_path / "tiny_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tiny-plugin\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[nl2sparql.stores]\ntiny = tiny_plugin:TinyStore\nbad = tiny_plugin:not_a_store\n"
        "gone = tiny_plugin_missing:Store\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert {"tiny", "bad", "gone"} <= set(available_stores())
    store = open_store("tiny", subject="urn:x:thing")
    assert store.labels(["urn:x:thing"]) == {"urn:x:thing": "tiny"}
    with pytest.raises(StoreError, match="not a Store"):
        open_store("bad")
    with pytest.raises(StoreError, match=r"store plugin 'gone' \(tiny_plugin_missing:Store\) failed to load"):
        open_store("gone")


def test_terms_follow_the_sparql_json_format() -> None:
    virtuoso_json = {
        "head": {"link": [], "vars": ["a", "b", "c", "d"]},
        "results": {
            "bindings": [
                {
                    "a": {"type": "uri", "value": "http://rdf.freebase.com/ns/m.0abc"},
                    "b": {
                        "type": "typed-literal",
                        "datatype": "http://www.w3.org/2001/XMLSchema#integer",
                        "value": "7",
                    },
                    "c": {"type": "literal", "xml:lang": "EN-gb", "value": "colour"},
                    "d": {
                        "type": "typed-literal",
                        "datatype": "http://www.w3.org/2001/XMLSchema#string",
                        "value": "x",
                    },
                },
                {"a": {"type": "bnode", "value": "b0"}},
            ]
        },
    }
    result = SelectResult.from_json(virtuoso_json)
    assert result.variables == ("a", "b", "c", "d") and len(result) == 2
    first = result.rows[0]
    assert first["a"].freebase_id == "m.0abc"
    assert first["b"] == Term("literal", "7", "http://www.w3.org/2001/XMLSchema#integer")
    assert first["c"] == Term("literal", "colour", None, "en-gb")
    assert first["d"] == Term("literal", "x")  # xsd:string is a plain literal
    assert result.column("b") == [first["b"], None]
    again = SelectResult.from_json(result.to_json())
    assert again == result
    assert result.to_json()["results"]["bindings"][1] == {"a": {"type": "bnode", "value": "b0"}}
    assert first["c"].n3() == '"colour"@en-gb' and Term.literal('say "hi"').n3() == '"say \\"hi\\""'
    with pytest.raises(ValueError, match="unknown SPARQL JSON term type"):
        Term.from_json({"type": "triple", "value": ""})
    stats = StoreStats(3, {"p": 2, "q": 1})
    assert StoreStats.from_json(stats.to_json()) == stats
