"""nl2sparql: compile natural-language questions into executable SPARQL over knowledge graphs.

The import package is kept light: importing ``nl2sparql`` loads no model, store or parser.
"""

__version__ = "0.1.0"
