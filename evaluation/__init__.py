"""Metrics (Hits@1, F1, edge hit rate, graph edit distance, exact match), runners and reports."""
