"""Which gRPC status a failure becomes, and the message the client reads.

The product's own errors carry messages meant for users, so they go out as they are; a
passed deadline is ``DEADLINE_EXCEEDED`` whichever layer noticed it; an unreachable
endpoint is ``UNAVAILABLE`` (worth a retry); anything else is a bug, logged here in full
and reported as ``INTERNAL`` without its details.
"""

from __future__ import annotations

import grpc

from nl2sparql.errors import ConfigError, Nl2SparqlError
from nl2sparql.kg.errors import EndpointError, QueryTimeout, StoreError

INTERNAL_MESSAGE = "internal error while answering; the server's log has the details"


def status_for(error: BaseException) -> tuple[grpc.StatusCode, str]:
    """The status code and message for an exception raised by the pipeline."""
    if isinstance(error, TimeoutError | QueryTimeout):
        return grpc.StatusCode.DEADLINE_EXCEEDED, str(error) or "the deadline passed"
    if isinstance(error, EndpointError):
        return grpc.StatusCode.UNAVAILABLE, str(error)
    if isinstance(error, StoreError | ConfigError):
        return grpc.StatusCode.FAILED_PRECONDITION, str(error)
    if isinstance(error, Nl2SparqlError):
        return grpc.StatusCode.INVALID_ARGUMENT, str(error)
    return grpc.StatusCode.INTERNAL, INTERNAL_MESSAGE
