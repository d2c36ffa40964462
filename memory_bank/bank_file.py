"""Bank files (``.nl2sq``, a zip) and bank folders: write atomically, read only what checks out.

A bank travels as one archive: ``manifest.json`` (format version, embedder name and
dimension, KG namespace and prefixes, counts by structure and kind, sha256 and size of
every other member), ``statements.jsonl`` (graph statements, then constraints: line order
is index row order) and one serialised FAISS index per section. The same members unpacked
form a bank folder.

Writing goes to a temporary file (or folder) beside the target and is moved into place
with ``os.replace``. Reading refuses, with an error that names the problem: an archive
that is not a complete zip (truncated), a member whose bytes do not match its checksum
(naming the member), a member path that would leave the target folder (``../x``,
``/etc/x``), members the manifest does not list, and a bank whose embedder dimension is
not the current embedder's. Import checks everything before anything is written, and a
failure leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

from nl2sparql.memory_bank.bank import DEFAULT_PREFIXES, FREEBASE_NS, SECTIONS, BankMeta, MemoryBank
from nl2sparql.memory_bank.embedder import Embedder, default_embedder
from nl2sparql.memory_bank.errors import BankDimensionError, BankFormatError
from nl2sparql.memory_bank.index import IndexSettings, VectorIndex
from nl2sparql.memory_bank.lazy_entries import LazyEntries
from nl2sparql.memory_bank.statement import Constraint, Statement, entry_from_json, entry_section

FORMAT = "nl2sparql-memory-bank"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
STATEMENTS = "statements.jsonl"
INDEX_FILES = {"graph": "index.graph.faiss", "constraint": "index.constraint.faiss"}
SUFFIX = ".nl2sq"
MAX_MEMBER_BYTES = 2 << 30


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- bank <-> members ---------------------------------------------------------------------------


def bank_members(bank: MemoryBank) -> dict[str, bytes]:
    """The members of a bank, manifest last (it holds the others' checksums)."""
    lines = [json.dumps(e.to_json(), ensure_ascii=False, sort_keys=True) for e in (*bank.statements, *bank.constraints)]
    members: dict[str, bytes] = {STATEMENTS: ("\n".join(lines) + "\n" if lines else "").encode("utf-8")}
    for section, name in INDEX_FILES.items():
        members[name] = bank.index(section).serialize()
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "embedder": {"name": bank.meta.embedder, "dimension": bank.meta.dimension},
        "kg": {"namespace": bank.meta.namespace, "prefixes": bank.meta.prefixes},
        "describer": bank.meta.describer,
        "sources": list(bank.meta.sources),
        "counts": {"statements": len(bank.statements), "constraints": len(bank.constraints), **bank.counts()},
        "index": {
            s: {"file": INDEX_FILES[s], "kind": bank.index(s).kind, "size": len(bank.index(s))} for s in SECTIONS
        },
        "members": {name: {"sha256": _sha256(data), "size": len(data)} for name, data in members.items()},
    }
    members[MANIFEST] = (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    return members


def _parse_manifest(data: bytes, where: str) -> dict[str, Any]:
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise BankFormatError(f"{where}: manifest.json is not valid JSON ({exc})") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BankFormatError(f"{where}: manifest.json is not a {FORMAT} manifest")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise BankFormatError(
            f"{where}: bank format version {version!r}; this nl2sparql reads version {FORMAT_VERSION}"
        )
    try:
        int(manifest["embedder"]["dimension"])
        str(manifest["embedder"]["name"])
        for name, info in manifest["members"].items():
            str(info["sha256"]), int(info["size"]), str(name)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise BankFormatError(f"{where}: manifest.json lacks {exc} (embedder, members)") from exc
    for required in (STATEMENTS, *INDEX_FILES.values()):
        if required not in manifest["members"]:
            raise BankFormatError(f"{where}: manifest.json does not list the member {required}")
    return manifest


def check_dimension(manifest: dict[str, Any], embedder: Embedder | None, where: str) -> None:
    dimension = int(manifest["embedder"]["dimension"])
    current = embedder if embedder is not None else default_embedder()
    if dimension != current.dimension:
        raise BankDimensionError(
            f"{where}: the bank was embedded with {manifest['embedder']['name']} (dimension {dimension}); "
            f"the embedder in use, {current.name}, has dimension {current.dimension}"
        )


def _verify_member(name: str, data: bytes, manifest: dict[str, Any], where: str) -> None:
    info = manifest["members"][name]
    if len(data) != int(info["size"]) or _sha256(data) != info["sha256"]:
        raise BankFormatError(f"{where}: checksum mismatch in member {name} (the bank is corrupt)")


def bank_from_members(members: dict[str, bytes], where: str, embedder: Embedder | None = None) -> MemoryBank:
    """A bank from verified members (``check_members`` first)."""
    manifest = _parse_manifest(members[MANIFEST], where)
    text = members[STATEMENTS].decode("utf-8", errors="strict")
    numbered = [(number, line) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    indexes = {}
    for section in SECTIONS:
        index = VectorIndex.deserialize(members[INDEX_FILES[section]], IndexSettings())
        if index.dimension != int(manifest["embedder"]["dimension"]):
            raise BankDimensionError(
                f"{where}: {INDEX_FILES[section]} has dimension {index.dimension}, "
                f"the manifest says {manifest['embedder']['dimension']}"
            )
        indexes[section] = index
    kg = manifest.get("kg") if isinstance(manifest.get("kg"), dict) else {}
    meta = BankMeta(
        embedder=str(manifest["embedder"]["name"]),
        dimension=int(manifest["embedder"]["dimension"]),
        # An empty namespace (a graph whose entity ids are full IRIs) is kept; a missing one is Freebase's.
        namespace=str(kg["namespace"]) if kg.get("namespace") is not None else FREEBASE_NS,
        prefixes=dict(kg.get("prefixes") or DEFAULT_PREFIXES),
        describer=str(manifest.get("describer", "template")),
        sources=tuple(manifest.get("sources", ())),
    )
    sizes = len(indexes["graph"]), len(indexes["constraint"])
    statements, constraints = _entries(numbered, *sizes, f"{where}: {STATEMENTS}")
    try:
        return MemoryBank(statements, constraints, indexes["graph"], indexes["constraint"], meta, embedder)
    except BankDimensionError:
        raise
    except Exception as exc:  # index / entry count mismatch
        raise BankFormatError(f"{where}: {exc}") from exc


def _entries(
    numbered: list[tuple[int, str]], graph: int, constraints: int, where: str
) -> tuple[Sequence[Statement], Sequence[Constraint]]:
    """The graph statements and the constraints of the numbered lines of ``statements.jsonl``.

    A bank lists as many graph statements as its graph index holds, then its constraints;
    such a file is read when its entries are first used (memory_bank/lazy_entries.py).
    Any other is read whole, line by line, so that the line at fault is named."""
    if len(numbered) != graph + constraints or not _sections_meet(numbered, graph):
        return _read_whole(numbered, where)
    return (
        LazyEntries(numbered[:graph], where, "graph", Statement.from_json),
        LazyEntries(numbered[graph:], where, "constraint", Constraint.from_json),
    )


def _sections_meet(numbered: list[tuple[int, str]], graph: int) -> bool:
    """Whether the line before the ``graph``-th is a graph statement and the one from it a
    constraint (where there are such lines): two lines read, not all of them."""
    try:
        before = graph == 0 or entry_section(json.loads(numbered[graph - 1][1]), "") == "graph"
        after = graph == len(numbered) or entry_section(json.loads(numbered[graph][1]), "") == "constraint"
    except (ValueError, BankFormatError):
        return False
    return before and after


def _read_whole(numbered: list[tuple[int, str]], where: str) -> tuple[list[Statement], list[Constraint]]:
    statements: list[Statement] = []
    constraints: list[Constraint] = []
    for number, line in numbered:
        spot = f"{where} line {number}"
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise BankFormatError(f"{spot}: not JSON ({exc.args[0]})") from exc
        entry = entry_from_json(record, spot)
        (statements if isinstance(entry, Statement) else constraints).append(entry)  # type: ignore[arg-type]
    return statements, constraints


def check_members(members: dict[str, bytes], where: str, embedder: Embedder | None) -> dict[str, Any]:
    if MANIFEST not in members:
        raise BankFormatError(f"{where}: no manifest.json")
    manifest = _parse_manifest(members[MANIFEST], where)
    for name in members:
        if name != MANIFEST and name not in manifest["members"]:
            raise BankFormatError(f"{where}: member {name} is not listed in manifest.json")
    for name in manifest["members"]:
        if name not in members:
            raise BankFormatError(f"{where}: member {name} is listed in manifest.json but missing")
        _verify_member(name, members[name], manifest, where)
    check_dimension(manifest, embedder, where)
    return manifest


# -- member paths -------------------------------------------------------------------------------


def safe_member_name(name: str, where: str) -> str:
    """Refuse member paths that would leave the target folder: absolute, ``..``, drive letters."""
    if (
        not name
        or "\\" in name
        or "\x00" in name
        or name.startswith("/")
        or re.match(r"^[A-Za-z]:", name)
        or ".." in PurePosixPath(name).parts
    ):
        raise BankFormatError(f"{where}: bad member path {name!r} (leaves the target folder)")
    return name


# -- archives -----------------------------------------------------------------------------------


def read_archive(path: Path) -> dict[str, bytes]:
    """Every member of a bank archive, with paths checked and CRCs verified by zipfile."""
    path = Path(path)
    where = str(path)
    if not path.is_file():
        raise BankFormatError(f"{where}: no such bank file")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise BankFormatError(f"{where}: not a complete bank archive (truncated or not a zip file: {exc})") from exc
    members: dict[str, bytes] = {}
    with archive:
        infos = archive.infolist()
        for info in infos:
            safe_member_name(info.filename, where)
        for info in infos:
            if info.is_dir():
                continue
            if info.filename in members:
                raise BankFormatError(f"{where}: member {info.filename} appears twice")
            if info.file_size > MAX_MEMBER_BYTES:
                raise BankFormatError(f"{where}: member {info.filename} is too large ({info.file_size} bytes)")
            try:
                members[info.filename] = archive.read(info)
            except zipfile.BadZipFile as exc:
                if "CRC" in str(exc):
                    raise BankFormatError(f"{where}: checksum mismatch in member {info.filename} ({exc})") from exc
                raise BankFormatError(
                    f"{where}: member {info.filename} is unreadable, truncated archive? ({exc})"
                ) from exc
            except (zlib.error, EOFError, OSError, ValueError) as exc:
                raise BankFormatError(f"{where}: member {info.filename} is corrupt or truncated ({exc})") from exc
    return members


def write_archive(members: dict[str, bytes], path: Path) -> Path:
    """Zip ``members`` to ``path`` through a temporary file in the same folder.

    Members are stored, not compressed: a flipped byte then always shows as a checksum
    mismatch of the member it is in, and reading can never inflate a small file into a
    huge one. The FAISS vectors, most of a bank, would not compress anyway."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle, zipfile.ZipFile(handle, "w", zipfile.ZIP_STORED) as archive:
            for name in sorted(members, key=lambda n: (n != MANIFEST, n)):
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_STORED
                archive.writestr(info, members[name])
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a bank is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def save_bank(bank: MemoryBank, path: Path | str) -> Path:
    """Write ``bank`` to a ``.nl2sq`` archive, atomically."""
    return write_archive(bank_members(bank), Path(path))


def load_bank(path: Path | str, embedder: Embedder | None = None) -> MemoryBank:
    """A bank from an archive or a bank folder, every checksum verified."""
    path = Path(path)
    members = read_folder(path) if path.is_dir() else read_archive(path)
    check_members(members, str(path), embedder)
    return bank_from_members(members, str(path), embedder)


# -- folders ------------------------------------------------------------------------------------


def read_folder(folder: Path) -> dict[str, bytes]:
    folder = Path(folder)
    manifest_path = folder / MANIFEST
    if not manifest_path.is_file():
        raise BankFormatError(f"{folder}: not a bank folder (no manifest.json)")
    manifest = _parse_manifest(manifest_path.read_bytes(), str(folder))
    members = {MANIFEST: manifest_path.read_bytes()}
    for name in manifest["members"]:
        safe_member_name(name, str(folder))
        member = folder / name
        if not member.is_file():
            raise BankFormatError(f"{folder}: member {name} is listed in manifest.json but missing")
        members[name] = member.read_bytes()
    return members


@contextmanager
def _staging(target: Path) -> Iterator[Path]:
    """A temporary folder beside ``target``; removed unless the caller moved it into place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        yield staging
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _install_folder(members: dict[str, bytes], folder: Path) -> Path:
    folder = Path(folder)
    occupied = folder.exists() and (not folder.is_dir() or any(folder.iterdir()))
    if occupied and not (folder / MANIFEST).is_file():
        raise BankFormatError(f"{folder}: exists and is not an empty folder or a bank folder; not overwriting")
    with _staging(folder) as staging:
        root = staging.resolve()
        for name, data in members.items():
            target = (staging / safe_member_name(name, str(folder))).resolve()
            if root not in target.parents:
                raise BankFormatError(f"{folder}: bad member path {name!r} (leaves the target folder)")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if folder.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{folder.name}.old.", dir=folder.parent))
            old.rmdir()
            os.replace(folder, old)
            try:
                os.replace(staging, folder)
            except BaseException:
                os.replace(old, folder)
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, folder)
    return folder


def write_bank_folder(bank: MemoryBank, folder: Path | str) -> Path:
    """Unpacked form of a bank (a folder of the archive's members), written atomically."""
    return _install_folder(bank_members(bank), Path(folder))


def import_bank(archive: Path | str, folder: Path | str, embedder: Embedder | None = None) -> MemoryBank:
    """Unpack a bank archive into ``folder`` after checking every member; nothing is left on failure."""
    archive = Path(archive)
    members = read_archive(archive)
    check_members(members, str(archive), embedder)
    bank = bank_from_members(members, str(archive), embedder)
    _install_folder(members, Path(folder))
    return bank


def export_bank(folder: Path | str, archive: Path | str, embedder: Embedder | None = None) -> Path:
    """Pack a bank folder into one archive (checksums verified on the way)."""
    folder = Path(folder)
    members = read_folder(folder)
    check_members(members, str(folder), embedder)
    return write_archive(members, Path(archive))
