"""Write files so that readers see the old content or the new one, never half a file.

Data goes to a temporary file in the target's folder, is flushed to disk, and is moved
over the target with ``os.replace`` (atomic on POSIX and Windows). On any error, Ctrl-C
included, the temporary file is removed and the target is untouched.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary handle whose content replaces ``path`` when the block ends without error."""
    target = Path(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8)."""
    with atomic_output(path) as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)


def write_gzip_json(path: str | os.PathLike[str], data: Any) -> int:
    """Replace ``path`` with ``data`` as compact gzipped JSON (no timestamp, so the same data
    writes the same bytes); returns the file's size in bytes."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    with atomic_output(target) as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        out.write(payload)
    return target.stat().st_size


def read_gzip_json(path: str | os.PathLike[str]) -> Any:
    """What :func:`write_gzip_json` wrote (``OSError``, ``EOFError`` or ``ValueError`` when it cannot)."""
    with gzip.open(path, "rb") as handle:
        return json.loads(handle.read())
