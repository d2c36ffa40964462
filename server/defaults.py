"""The service's default bind address and limits, apart from ``serve`` so that the CLI can
name them in its help without importing gRPC (``nl2sparql ask`` with a service configured
starts faster for it)."""

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 50051
DEFAULT_MAX_CONCURRENCY = 8
DEFAULT_GRACE = 10.0
