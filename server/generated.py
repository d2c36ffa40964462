"""The protobuf and gRPC modules generated from ``protos/`` at build time, with a clear error when absent.

They are build outputs (git-ignored), made by setup.py's ``build_py`` step: a checkout
that was never installed, or installed before a proto changed, lacks them or has stale ones.
"""

from __future__ import annotations

from google.protobuf.runtime_version import VersionError

from nl2sparql.errors import ConfigError

try:
    from nl2sparql.v1 import nl2sparql_pb2 as pb
    from nl2sparql.v1 import nl2sparql_pb2_grpc as pb_grpc
except (ImportError, RuntimeError, VersionError) as exc:  # the latter two: gencode newer than runtime
    raise ConfigError(
        "the gRPC modules nl2sparql.v1.nl2sparql_pb2 and _pb2_grpc cannot be imported "
        f"({exc}); they are generated from protos/ when the package is built: reinstall it "
        "(in a checkout: pip install -e .)"
    ) from exc

SERVICE_NAME: str = pb.DESCRIPTOR.services_by_name["Nl2Sparql"].full_name

__all__ = ["SERVICE_NAME", "pb", "pb_grpc"]
