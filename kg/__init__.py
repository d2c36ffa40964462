"""Knowledge-graph access: read-only stores (Oxigraph, rdflib, SPARQL endpoint), dataset loaders, importers."""
