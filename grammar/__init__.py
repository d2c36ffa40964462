"""Lark grammars (``sparql.lark``, ``plan.lark``) and the transformers that turn their trees into nodes."""
