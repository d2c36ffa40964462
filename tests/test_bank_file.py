"""Bank files: export / import round trip, and refusals that leave nothing behind."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from nl2sparql.memory_bank.bank import MemoryBank
from nl2sparql.memory_bank.bank_file import (
    MANIFEST,
    STATEMENTS,
    bank_members,
    export_bank,
    import_bank,
    load_bank,
    read_archive,
    save_bank,
    write_archive,
    write_bank_folder,
)
from nl2sparql.memory_bank.build_queries import build_bank_from_queries, load_examples
from nl2sparql.memory_bank.embedder import Embedder, default_embedder
from nl2sparql.memory_bank.errors import BankDimensionError, BankFormatError

SENTENCES = ["the sibling of the person Justin Bieber", "the gender of ?x", "the currency used in Jamaica"]


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return default_embedder()


@pytest.fixture(scope="module")
def bank(embedder: Embedder) -> MemoryBank:
    built, _ = build_bank_from_queries(load_examples("webqsp-train")[:40], embedder=embedder, source="t")
    return built


@pytest.fixture()
def archive(bank: MemoryBank, tmp_path: Path) -> Path:
    return save_bank(bank, tmp_path / "bank.nl2sq")


def _recalls(bank: MemoryBank) -> list[list[tuple[str, float]]]:
    return [
        [(c.entry.id, round(c.score, 5)) for c in r.candidates]
        for section in ("graph", "constraint")
        for r in bank.recall_batch(SENTENCES, section)
    ]


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_export_import_round_trip(bank: MemoryBank, archive: Path, tmp_path: Path) -> None:
    folder = tmp_path / "imported"
    imported = import_bank(archive, folder)
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [MANIFEST, STATEMENTS, "index.graph.faiss", "index.constraint.faiss"]
    )
    assert imported.statements == bank.statements and imported.constraints == bank.constraints
    assert _recalls(imported) == _recalls(bank)
    again = export_bank(folder, tmp_path / "again.nl2sq")
    assert again.read_bytes() == archive.read_bytes()  # deterministic archive
    assert _recalls(load_bank(again)) == _recalls(bank)
    assert _recalls(load_bank(folder)) == _recalls(bank)


def test_manifest_contents(bank: MemoryBank, archive: Path) -> None:
    manifest = json.loads(read_archive(archive)[MANIFEST])
    assert manifest["embedder"] == {"name": "sentence-transformers/all-MiniLM-L6-v2", "dimension": 384}
    assert manifest["kg"]["namespace"] == "http://rdf.freebase.com/ns/"
    assert manifest["counts"]["structure"] == bank.counts()["structure"]
    assert set(manifest["members"]) == {STATEMENTS, "index.graph.faiss", "index.constraint.faiss"}
    assert all(len(m["sha256"]) == 64 for m in manifest["members"].values())


def test_save_is_atomic_and_overwrites(bank: MemoryBank, tmp_path: Path) -> None:
    target = tmp_path / "out" / "bank.nl2sq"
    save_bank(bank, target)
    save_bank(bank, target)
    assert _leftovers(target.parent) == ["bank.nl2sq"]
    assert target.stat().st_mode & 0o044  # readable like any file the user writes, not 0600


def test_truncated_archive(archive: Path, tmp_path: Path) -> None:
    data = archive.read_bytes()
    cut = tmp_path / "cut.nl2sq"
    cut.write_bytes(data[: len(data) // 2])
    before = _leftovers(tmp_path)
    with pytest.raises(BankFormatError, match="truncated"):
        import_bank(cut, tmp_path / "target")
    assert _leftovers(tmp_path) == before


def _data_offset(archive: Path, member: str) -> int:
    with zipfile.ZipFile(archive) as zf:
        info = zf.getinfo(member)
    raw = archive.read_bytes()
    name_len = int.from_bytes(raw[info.header_offset + 26 : info.header_offset + 28], "little")
    extra_len = int.from_bytes(raw[info.header_offset + 28 : info.header_offset + 30], "little")
    return info.header_offset + 30 + name_len + extra_len


def test_flipped_byte_names_the_member(archive: Path, tmp_path: Path) -> None:
    raw = bytearray(archive.read_bytes())
    offset = _data_offset(archive, STATEMENTS) + 40
    raw[offset] ^= 0x01
    broken = tmp_path / "flipped.nl2sq"
    broken.write_bytes(bytes(raw))
    before = _leftovers(tmp_path)
    with pytest.raises(BankFormatError, match=f"checksum mismatch in member {STATEMENTS}"):
        import_bank(broken, tmp_path / "target")
    assert _leftovers(tmp_path) == before


def test_sha256_mismatch_names_the_member(archive: Path, tmp_path: Path) -> None:
    members = read_archive(archive)
    lines = members[STATEMENTS].decode().splitlines()
    record = json.loads(lines[0])
    record["description"] = "?e2 is something else entirely"
    members[STATEMENTS] = ("\n".join([json.dumps(record), *lines[1:]]) + "\n").encode()
    tampered = write_archive(members, tmp_path / "tampered.nl2sq")  # valid zip, stale manifest
    with pytest.raises(BankFormatError, match=f"checksum mismatch in member {STATEMENTS}"):
        load_bank(tampered)
    assert not (tmp_path / "target").exists()


def test_other_dimension_is_refused(archive: Path, tmp_path: Path) -> None:
    members = read_archive(archive)
    manifest = json.loads(members[MANIFEST])
    manifest["embedder"]["dimension"] = 768
    members[MANIFEST] = json.dumps(manifest).encode()
    wide = write_archive(members, tmp_path / "wide.nl2sq")
    before = _leftovers(tmp_path)
    with pytest.raises(BankDimensionError, match="dimension 768"):
        import_bank(wide, tmp_path / "target")
    assert _leftovers(tmp_path) == before


def test_current_embedder_of_other_dimension_is_refused(archive: Path, tmp_path: Path) -> None:
    model = tmp_path / "fake-model"
    (model / "1_Pooling").mkdir(parents=True)
    (model / "config.json").write_text("{}")
    (model / "1_Pooling" / "config.json").write_text(json.dumps({"word_embedding_dimension": 256}))
    other = Embedder(model_dir=model, name="fake-256")
    assert other.dimension == 256 and not other.loaded  # read from the config, nothing loaded
    with pytest.raises(BankDimensionError, match="dimension 256"):
        import_bank(archive, tmp_path / "target", embedder=other)
    assert not (tmp_path / "target").exists()


@pytest.mark.parametrize("bad", ["../evil.txt", "/tmp/evil.txt", "sub/../../evil.txt", "C:evil.txt"])
def test_member_path_leaving_the_folder(archive: Path, tmp_path: Path, bad: str) -> None:
    members = read_archive(archive)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        zf.writestr(bad, b"owned")
    evil = tmp_path / "work" / "evil.nl2sq"
    evil.parent.mkdir()
    evil.write_bytes(buffer.getvalue())
    with pytest.raises(BankFormatError, match="bad member path"):
        import_bank(evil, tmp_path / "work" / "target")
    assert _leftovers(tmp_path / "work") == ["evil.nl2sq"]
    assert not (tmp_path / "evil.txt").exists()


def test_unlisted_member_and_not_a_bank(archive: Path, tmp_path: Path) -> None:
    members = read_archive(archive)
    members["extra.bin"] = b"x"
    with pytest.raises(BankFormatError, match="extra.bin is not listed"):
        load_bank(write_archive(members, tmp_path / "extra.nl2sq"))
    plain = tmp_path / "plain.zip"
    with zipfile.ZipFile(plain, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(BankFormatError, match="no manifest.json"):
        load_bank(plain)
    with pytest.raises(BankFormatError, match="no such bank file"):
        load_bank(tmp_path / "absent.nl2sq")


def test_import_refuses_an_occupied_folder(archive: Path, tmp_path: Path) -> None:
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "notes.txt").write_text("mine")
    with pytest.raises(BankFormatError, match="not overwriting"):
        import_bank(archive, occupied)
    assert _leftovers(occupied) == ["notes.txt"]
    assert _leftovers(tmp_path) == ["bank.nl2sq", "occupied"]


def test_bank_folder_is_replaced_whole(bank: MemoryBank, tmp_path: Path) -> None:
    folder = write_bank_folder(bank, tmp_path / "bank")
    write_bank_folder(bank, folder)
    assert _leftovers(tmp_path) == ["bank"]
    assert load_bank(folder).statements == bank.statements


def test_bad_statement_line_is_located(archive: Path, tmp_path: Path) -> None:
    members = read_archive(archive)
    members[STATEMENTS] = members[STATEMENTS] + b"{not json}\n"
    manifest: dict[str, Any] = json.loads(members[MANIFEST])
    folder = tmp_path / "folder"
    folder.mkdir()
    for name, data in members.items():
        (folder / name).write_bytes(data)
    import hashlib

    manifest["members"][STATEMENTS] = {
        "sha256": hashlib.sha256(members[STATEMENTS]).hexdigest(),
        "size": len(members[STATEMENTS]),
    }
    (folder / MANIFEST).write_text(json.dumps(manifest))
    lines = members[STATEMENTS].decode().count("\n")
    with pytest.raises(BankFormatError, match=f"{STATEMENTS} line {lines}: not JSON"):
        load_bank(folder)


def _folder_with_statements(members: dict[str, bytes], lines: list[str], folder: Path) -> Path:
    """A bank folder of ``members`` whose statements file holds ``lines``, checksums renewed."""
    import hashlib

    members = {**members, STATEMENTS: ("\n".join(lines) + "\n").encode()}
    manifest: dict[str, Any] = json.loads(members[MANIFEST])
    manifest["members"][STATEMENTS] = {
        "sha256": hashlib.sha256(members[STATEMENTS]).hexdigest(),
        "size": len(members[STATEMENTS]),
    }
    members[MANIFEST] = json.dumps(manifest).encode()
    folder.mkdir()
    for name, data in members.items():
        (folder / name).write_bytes(data)
    return folder


def test_a_bad_statement_is_named_when_it_is_read(archive: Path, tmp_path: Path) -> None:
    """Statements are made when first read: a line that is JSON but not a statement loads, and
    reading it raises the error that names its line."""
    members = read_archive(archive)
    lines = members[STATEMENTS].decode().splitlines()
    record = json.loads(lines[1])
    record["structure"] = 9
    lines[1] = json.dumps(record)
    loaded = load_bank(_folder_with_statements(members, lines, tmp_path / "bank"))
    assert loaded.statements[0] is not None
    with pytest.raises(BankFormatError, match=f"{STATEMENTS} line 2: structure must be one of"):
        loaded.statements[1]


def test_statements_out_of_section_order_are_read_whole(bank: MemoryBank, archive: Path, tmp_path: Path) -> None:
    members = read_archive(archive)
    lines = members[STATEMENTS].decode().splitlines()
    graph = len(bank.statements)
    assert bank.constraints, "the fixture bank has constraints"
    reordered = lines[graph:] + lines[:graph]  # constraints first: the indexes still say which is which
    loaded = load_bank(_folder_with_statements(members, reordered, tmp_path / "bank"))
    assert tuple(loaded.statements) == tuple(bank.statements) and tuple(loaded.constraints) == tuple(bank.constraints)


def test_members_of_a_bank_are_stable(bank: MemoryBank) -> None:
    assert bank_members(bank) == bank_members(bank)
