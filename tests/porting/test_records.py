"""Revert records (issue 14): one index per run, originals kept by hard link when that is
safe, the older one-file-per-record layout still reverted, a failed run's temporaries
swept, workers included."""
import hashlib
import json
import os

import pytest

from torchada.porting import port_paths, revert_paths
from torchada.porting.records import file_id, list_records, records_dir

CU = b"#include <cuda_runtime.h>\n__global__ void k(cudaStream_t s) { cudaMalloc(0, 0); }\n"


def _tree(root, n=5):
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (root / ("k%d.cu" % i)).write_bytes(CU + b"// %d\n" % i)
    return sorted(root.iterdir())


def _leftovers(*dirs):
    return [name for d in dirs if os.path.isdir(d) for name in os.listdir(d)
            if name.startswith(".torchada-")]


def test_a_run_writes_one_index_and_one_original_per_changed_file(tmp_path):
    files = _tree(tmp_path / "p")
    port_paths([tmp_path / "p"])
    names = sorted(os.listdir(records_dir()))
    assert [n for n in names if n.endswith(".index")] == [n for n in names if n.startswith("run-")]
    assert len([n for n in names if n.endswith(".index")]) == 1
    (index,) = [n for n in names if n.endswith(".index")]
    token = index[:-len(".index")].split("-")[2]
    assert sorted(n for n in names if n.endswith(".orig")) == sorted(
        "%s-%s.orig" % (file_id(str(f)), token) for f in files)
    assert not [n for n in names if n.endswith(".json")]


def test_an_unshared_original_is_recorded_by_a_link_to_its_inode(tmp_path):
    (f,) = _tree(tmp_path / "p", 1)
    inode = os.stat(f).st_ino
    port_paths([tmp_path / "p"])
    (orig,) = [m["_orig"] for m in list_records()]
    assert os.stat(orig).st_ino == inode != os.stat(f).st_ino  # the file is a new inode
    assert open(orig, "rb").read() == CU + b"// 0\n"
    assert revert_paths([tmp_path / "p"])[0] == [str(f)]
    assert f.read_bytes() == CU + b"// 0\n" and os.listdir(records_dir()) == []


def test_a_file_with_another_hard_link_is_recorded_by_a_copy(tmp_path):
    """The other link could be edited in place; the record must not change with it."""
    (f,) = _tree(tmp_path / "p", 1)
    other = tmp_path / "elsewhere.cu"
    os.link(f, other)
    port_paths([tmp_path / "p"])
    (orig,) = [m["_orig"] for m in list_records()]
    assert os.stat(orig).st_ino != os.stat(other).st_ino
    with open(other, "r+b") as fh:  # an in-place edit through the other link
        fh.write(b"XXXX")
    restored, _, conflicts = revert_paths([tmp_path / "p"])
    assert conflicts == [] and restored == [str(f)]
    assert f.read_bytes() == CU + b"// 0\n"


def test_records_written_one_file_each_are_still_reverted(tmp_path):
    """The layout before run indexes: <id>.json + <id>.orig per record."""
    (f,) = _tree(tmp_path / "p", 1)
    original = f.read_bytes()
    ported = original.replace(b"cuda_runtime.h", b"musa_runtime.h")
    f.write_bytes(ported)
    rdir = records_dir(create=True)
    fid = file_id(str(f))
    with open(os.path.join(rdir, fid + ".orig"), "wb") as fh:
        fh.write(original)
    with open(os.path.join(rdir, fid + ".json"), "w") as fh:
        json.dump({"path": str(f), "original_sha256": hashlib.sha256(original).hexdigest(),
                   "ported_sha256": hashlib.sha256(ported).hexdigest(), "created": 0}, fh)
    assert [m["_index"] for m in list_records()] == [None]
    restored, _, conflicts = revert_paths([tmp_path / "p"])
    assert restored == [str(f)] and conflicts == []
    assert f.read_bytes() == original and os.listdir(rdir) == []


def test_porting_again_records_the_edited_content_and_revert_gives_it_back(tmp_path):
    """Port, add a function that calls a CUDA API, port again, revert: the new function
    survives (the content just before the second port comes back, not the first
    original); a second revert refuses (the file is not what the first port wrote) and
    names --force; with --force the first original comes back."""
    (f,) = _tree(tmp_path / "p", 1)
    original = f.read_bytes()
    port_paths([tmp_path / "p"])
    edited = f.read_bytes() + b"void added() { cudaFree(0); }\n"
    f.write_bytes(edited)
    port_paths([tmp_path / "p"])
    assert b"musaFree(0)" in f.read_bytes()
    first, second = list_records()
    assert first["original_sha256"] == hashlib.sha256(original).hexdigest()
    assert second["original_sha256"] == hashlib.sha256(edited).hexdigest()
    assert second["ported_sha256"] == hashlib.sha256(f.read_bytes()).hexdigest()
    result = revert_paths([tmp_path / "p"])
    assert result.restored == [str(f)] and result.conflicts == []
    assert f.read_bytes() == edited  # the added function is there, as the user wrote it
    assert result.earlier == [(str(f), 1)]
    again = revert_paths([tmp_path / "p"])
    assert again.restored == [] and [p for p, _ in again.conflicts] == [str(f)]
    assert "--force" in again.conflicts[0][1] and f.read_bytes() == edited
    forced = revert_paths([tmp_path / "p"], force=True)
    assert forced.restored == [str(f)] and f.read_bytes() == original
    assert os.listdir(records_dir()) == []


def test_two_ports_with_no_edit_between_are_reverted_in_one_go(tmp_path):
    """A record whose ported content is what the next record's original is (the file was
    not edited between the ports) is walked through: one revert reaches the first
    original."""
    (f,) = _tree(tmp_path / "p", 1)
    original = f.read_bytes()
    port_paths([tmp_path / "p"])
    middle = f.read_bytes()
    # as a later torchada with more rules would do: port the ported file once more
    f.write_bytes(middle)
    from torchada.porting.records import Batch

    batch = Batch()
    batch.keep(batch.stage(str(f), middle, middle + b"// more\n", os.stat(f)))
    batch.commit()
    assert len(list_records()) == 2
    result = revert_paths([tmp_path / "p"])
    assert result.restored == [str(f)] and result.earlier == []
    assert f.read_bytes() == original and os.listdir(records_dir()) == []


@pytest.mark.parametrize("workers", [1, 2])
def test_a_run_that_fails_while_staging_leaves_no_temporary_behind(tmp_path, monkeypatch, workers):
    import torchada.porting.records as records
    import torchada.porting.walker as walker

    monkeypatch.setattr(walker, "POOL_MIN_BYTES", 1)
    files = _tree(tmp_path / "p", 40)
    before = {f: f.read_bytes() for f in files}
    kept = []
    real_keep = records.Batch.keep

    def failing_keep(self, staged):
        kept.append(staged)
        if len(kept) == 3:  # the parent fails while workers still stage other files
            raise RuntimeError("stop")
        real_keep(self, staged)

    monkeypatch.setattr(records.Batch, "keep", failing_keep)
    with pytest.raises(RuntimeError, match="stop"):
        port_paths([tmp_path / "p"], workers=workers)
    assert {f: f.read_bytes() for f in files} == before
    assert _leftovers(tmp_path / "p", records_dir()) == []
    assert list_records() == [] and [n for n in os.listdir(records_dir()) if n.endswith(".orig")] == []


def test_where_hard_links_fail_the_original_is_copied(tmp_path, monkeypatch):
    """Another file system (EXDEV) or one without links: the record is a copy, reverted
    the same way."""
    import errno

    def no_link(src, dst, *a, **k):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    (f,) = _tree(tmp_path / "p", 1)
    inode = os.stat(f).st_ino
    monkeypatch.setattr(os, "link", no_link)
    port_paths([tmp_path / "p"])
    (orig,) = [m["_orig"] for m in list_records()]
    assert os.stat(orig).st_ino != inode and open(orig, "rb").read() == CU + b"// 0\n"
    assert os.stat(orig).st_mode & 0o777 == 0o600
    assert revert_paths([tmp_path / "p"])[0] == [str(f)]
    assert f.read_bytes() == CU + b"// 0\n"


def test_an_older_index_entry_without_orig_is_the_bottom_of_the_stack(tmp_path):
    """Index entries of the layout before per-port records (one shared <id>.orig holding
    the first original): a new port on top records the edited content; revert gives that
    back first, then (forced, since the file was edited after the old port) the first
    original."""
    (f,) = _tree(tmp_path / "p", 1)
    original = f.read_bytes()
    ported = original.replace(b"cuda_runtime.h", b"musa_runtime.h")
    f.write_bytes(ported)
    rdir = records_dir(create=True)
    fid = file_id(str(f))
    with open(os.path.join(rdir, fid + ".orig"), "wb") as fh:
        fh.write(original)
    with open(os.path.join(rdir, "run-1000000000000000000-abcdefabcdef.index"), "w") as fh:
        json.dump({fid: {"path": str(f), "original_sha256": hashlib.sha256(original).hexdigest(),
                         "ported_sha256": hashlib.sha256(ported).hexdigest(), "created": 0}}, fh)
    edited = ported + b"cudaFree(0);\n"
    f.write_bytes(edited)
    port_paths([tmp_path / "p"])
    old, new = list_records()
    assert old["_orig"] == os.path.join(rdir, fid + ".orig") and new["_orig"] != old["_orig"]
    result = revert_paths([tmp_path / "p"])
    assert result.restored == [str(f)] and f.read_bytes() == edited
    assert revert_paths([tmp_path / "p"], force=True).restored == [str(f)]
    assert f.read_bytes() == original and os.listdir(rdir) == []
