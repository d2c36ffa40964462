"""FAISS inner-product search over statement embeddings (unit vectors: inner product = cosine).

A bank of a few thousand statements is searched exactly (``IndexFlatIP``); past a size
threshold, or when asked, an HNSW graph keeps recall latency flat for banks built from a
large KG's schema. When faiss sees a GPU the exact index moves there (HNSW has no GPU
form in faiss, so it stays on the CPU); serialisation always goes through the CPU form.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import faiss
import numpy as np

from nl2sparql.memory_bank.errors import BankFormatError, MemoryBankError

INDEX_KINDS = ("auto", "flat", "hnsw")
HNSW_THRESHOLD = 50_000


@dataclass(frozen=True, slots=True)
class IndexSettings:
    kind: str = "auto"
    hnsw_threshold: int = HNSW_THRESHOLD
    hnsw_m: int = 32
    hnsw_ef_construction: int = 200
    hnsw_ef_search: int = 128
    use_gpu: bool = True

    def resolved_kind(self, size: int) -> str:
        if self.kind not in INDEX_KINDS:
            raise MemoryBankError(f"index kind must be one of {INDEX_KINDS}, got {self.kind!r}")
        if self.kind != "auto":
            return self.kind
        return "hnsw" if size >= self.hnsw_threshold else "flat"


class VectorIndex:
    """Add unit vectors, search the ``k`` nearest by inner product; thread-safe searches."""

    def __init__(self, index: faiss.Index, kind: str) -> None:
        self._cpu = index
        self.kind = kind
        self._search_index: faiss.Index = index
        self._gpu_resources = None
        self._lock = threading.Lock()

    @classmethod
    def build(cls, vectors: np.ndarray, settings: IndexSettings | None = None) -> VectorIndex:
        settings = settings or IndexSettings()
        vectors = _as_matrix(vectors)
        dim = vectors.shape[1]
        kind = settings.resolved_kind(len(vectors))
        if kind == "hnsw":
            index = faiss.IndexHNSWFlat(dim, settings.hnsw_m, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = settings.hnsw_ef_construction
            index.hnsw.efSearch = settings.hnsw_ef_search
        else:
            index = faiss.IndexFlatIP(dim)
        if len(vectors):
            index.add(vectors)
        built = cls(index, kind)
        if settings.use_gpu:
            built.to_gpu()
        return built

    @property
    def dimension(self) -> int:
        return int(self._cpu.d)

    def __len__(self) -> int:
        return int(self._cpu.ntotal)

    @property
    def on_gpu(self) -> bool:
        return self._gpu_resources is not None

    def to_gpu(self) -> bool:
        """Move the exact index to GPU 0 when faiss has one; returns whether it moved."""
        if self.kind != "flat" or self.on_gpu:
            return self.on_gpu
        get_num_gpus = getattr(faiss, "get_num_gpus", None)
        if get_num_gpus is None or get_num_gpus() <= 0:
            return False
        resources = faiss.StandardGpuResources()
        self._search_index = faiss.index_cpu_to_gpu(resources, 0, self._cpu)
        self._gpu_resources = resources
        return True

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(scores, ids)``, each ``(len(queries), k')`` with ``k' = min(k, len(self))``, best first."""
        queries = _as_matrix(queries)
        if queries.shape[1] != self.dimension:
            raise MemoryBankError(f"query vectors have dimension {queries.shape[1]}, the index {self.dimension}")
        k = min(k, len(self))
        if k <= 0:
            empty = np.zeros((len(queries), 0), dtype=np.float32)
            return empty, empty.astype(np.int64)
        with self._lock:
            scores, ids = self._search_index.search(queries, k)
        return scores, ids

    def vectors(self) -> np.ndarray:
        """The stored vectors (both index kinds keep them flat), for merging banks without re-embedding."""
        if len(self) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._cpu.reconstruct_n(0, len(self))

    def serialize(self) -> bytes:
        return faiss.serialize_index(self._cpu).tobytes()

    @classmethod
    def deserialize(cls, data: bytes, settings: IndexSettings | None = None) -> VectorIndex:
        try:
            index = faiss.deserialize_index(np.frombuffer(data, dtype=np.uint8))
        except RuntimeError as exc:
            raise BankFormatError(f"the FAISS index is unreadable ({str(exc).splitlines()[0]})") from exc
        kind = "hnsw" if isinstance(index, faiss.IndexHNSW) else "flat"
        if kind == "hnsw":
            index.hnsw.efSearch = (settings or IndexSettings()).hnsw_ef_search
        built = cls(index, kind)
        if settings is None or settings.use_gpu:
            built.to_gpu()
        return built


def _as_matrix(vectors: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        array = array.reshape(1, -1)
    if array.ndim != 2:
        raise MemoryBankError(f"vectors must be a 2-D array, got shape {array.shape}")
    return array
