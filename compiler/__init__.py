"""The SPARQL compiler: typed AST, readers per dialect, validation, optimiser passes and generators."""
