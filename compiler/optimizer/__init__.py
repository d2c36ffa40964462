"""Optimiser passes, one per module; the pipeline is a plain tuple of them."""
