"""The gRPC service: a thin servicer over the pipeline, ``serve()`` with health and reflection."""
