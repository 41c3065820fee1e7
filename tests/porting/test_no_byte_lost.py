"""The porter never loses a byte (issue 16, part 5): what is read is what is recorded,
only regular text files are rewritten, every file left alone is named with the reason, and
revert gives back the newest content the user had before each port, mode and mtime
included. Each case failed on the porter before this issue."""
import hashlib
import os
import socket
import stat

from tests._fresh import clean_env, run_argv
from torchada.porting import port_paths, revert_paths
from torchada.porting.records import list_records, records_dir

CU = b"#include <cuda_runtime.h>\n__global__ void k(cudaStream_t s) { cudaMalloc(0, 0); }\n"
ADDED = b"void added(void* p) { cudaFree(p); }\n"


def cli(args, cwd, timeout=60, check=False):
    """``python -m torchada.porting`` in a fresh interpreter; a hang is a timeout (the child
    is killed), never a stuck suite."""
    return run_argv(["-m", "torchada.porting", *args], cwd=cwd, check=check, timeout=timeout,
                    env=clean_env())


def project(tmp_path, files=None):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "k.cu").write_bytes(CU)
    for name, data in (files or {}).items():
        (root / name).write_bytes(data)
    return root


# -- what is read ---------------------------------------------------------------------------

def test_a_fifo_named_like_a_source_is_reported_and_never_blocks_the_run(tmp_path):
    root = project(tmp_path)
    os.mkfifo(root / "pipe.cu")
    proc = cli(["proj"], cwd=tmp_path, timeout=60)  # the old porter blocked here for ever
    assert proc.returncode == 0, proc.stderr
    assert "not ported proj/pipe.cu: a FIFO, not a regular file" in proc.stderr
    assert b"musaMalloc" in (root / "k.cu").read_bytes()
    assert "changed 1 of 1 source files" in proc.stdout and "1 not ported" in proc.stdout
    # named explicitly, too
    proc = cli(["proj/pipe.cu"], cwd=tmp_path, timeout=60)
    assert proc.returncode == 0 and "not ported proj/pipe.cu: a FIFO" in proc.stderr
    assert stat.S_ISFIFO(os.lstat(root / "pipe.cu").st_mode)


def test_a_socket_named_like_a_source_is_reported_and_skipped(tmp_path, monkeypatch):
    root = project(tmp_path)
    monkeypatch.chdir(root)  # a relative bind: socket paths are limited to ~108 bytes
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind("sock.cuh")
        report = port_paths([root])
    finally:
        sock.close()
    assert [(os.path.basename(p), r.split(",")[0]) for p, r in report.not_ported] == [
        ("sock.cuh", "a socket")]
    assert [os.path.basename(f.path) for f in report.changed] == ["k.cu"]


def test_a_binary_file_holding_a_cuda_name_is_never_rewritten(tmp_path):
    blob = b"\x7fELF\x02\x01\x01\x00\x00\x00cudaMalloc\x00cudaStream_t\x00\xff\xfe"
    root = project(tmp_path, {"blob.cu": blob})
    report = port_paths([root])
    assert (root / "blob.cu").read_bytes() == blob
    ((path, reason),) = report.not_ported
    assert path == str(root / "blob.cu") and reason.startswith("binary (a NUL byte at offset 7)")
    assert all(m["path"] != path for m in list_records())


def test_utf16_sources_are_reported_by_name_with_the_fix(tmp_path):
    text = "#include <cuda_runtime.h>\ncudaStream_t s;\n"
    root = project(tmp_path, {"wide.cu": text.encode("utf-16"),        # with a BOM
                              "wide32.cuh": text.encode("utf-32")})
    before = {n: (root / n).read_bytes() for n in ("wide.cu", "wide32.cuh")}
    proc = cli(["proj"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert ("not ported proj/wide.cu: UTF-16 text, not ported: convert it to UTF-8"
            in proc.stderr)
    assert "not ported proj/wide32.cuh: UTF-32 text" in proc.stderr
    assert {n: (root / n).read_bytes() for n in before} == before
    # without a BOM the NUL bytes show; the reason names the conversion too
    (root / "bare16.cu").write_bytes(text.encode("utf-16-le"))
    report = port_paths([root / "bare16.cu"])
    ((_, reason),) = report.not_ported
    assert "binary" in reason and "UTF-16" in reason


def test_a_source_that_is_not_utf8_is_ported_and_named_in_a_note(tmp_path):
    latin1 = b"// caf\xe9\ncudaFree(p);\n"
    root = project(tmp_path, {"latin1.cu": latin1})
    proc = cli(["proj"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (root / "latin1.cu").read_bytes() == b"// caf\xe9\nmusaFree(p);\n"
    assert "note proj/latin1.cu: not valid UTF-8 (first at line 1, offset 6)" in proc.stderr


# -- what is recorded -----------------------------------------------------------------------

def _replace(path, data):
    """What an editor's save does: new content in a new inode, renamed over the name."""
    tmp = str(path) + ".swp"
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def test_a_file_replaced_between_the_read_and_the_record_link_is_left_alone(tmp_path, monkeypatch):
    """The record must hold what was read; the user's new content must stay in the tree."""
    root = project(tmp_path)
    target = str(root / "k.cu")
    users_new = CU + b"// saved by the editor while the port ran\n"
    real_link = os.link

    def replaced_first(src, dst, *args, **kwargs):
        if os.fspath(src) == target:
            _replace(target, users_new)
        return real_link(src, dst, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(os, "link", replaced_first)
        report = port_paths([root])
    assert (root / "k.cu").read_bytes() == users_new  # not overwritten by the stale port
    assert [p for p, _ in report.not_ported] == [target]
    assert "changed while it was being ported" in report.not_ported[0][1]
    assert list_records() == []
    assert [n for n in os.listdir(root) if n.startswith(".torchada-")] == []
    port_paths([root])  # ported again, from what is there now
    assert revert_paths([root]).restored == [target]
    assert (root / "k.cu").read_bytes() == users_new


def test_a_file_edited_in_place_after_it_was_staged_is_left_alone(tmp_path, monkeypatch):
    """An in-place write just before the commit (same inode, new size and mtime): the port
    of the stale read is not written over it, and its record is dropped."""
    root = project(tmp_path)
    (root / "other.cu").write_bytes(CU)
    target = str(root / "k.cu")
    real_replace = os.replace
    edits = []

    def edit_before_the_index(src, dst, *args, **kwargs):
        if os.fspath(dst).endswith(".index") and not edits:
            edits.append(dst)
            with open(target, "ab") as fh:
                fh.write(ADDED)
        return real_replace(src, dst, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", edit_before_the_index)
        report = port_paths([root])
    assert len(edits) == 1
    assert (root / "k.cu").read_bytes() == CU + ADDED
    assert [p for p, _ in report.not_ported] == [target]
    assert [m["path"] for m in list_records()] == [str(root / "other.cu")]
    assert revert_paths([root]).restored == [str(root / "other.cu")]
    assert (root / "other.cu").read_bytes() == CU and os.listdir(records_dir()) == []


# -- revert ---------------------------------------------------------------------------------

def test_port_edit_port_revert_keeps_the_new_function(tmp_path):
    """The issue's case, as a user runs it."""
    root = project(tmp_path)
    assert cli(["proj"], cwd=tmp_path).returncode == 0
    edited = (root / "k.cu").read_bytes() + ADDED
    (root / "k.cu").write_bytes(edited)
    assert cli(["proj"], cwd=tmp_path).returncode == 0
    assert b"musaFree(p)" in (root / "k.cu").read_bytes()
    proc = cli(["--revert", "proj"], cwd=tmp_path)
    assert proc.returncode == 0 and "1 restored" in proc.stdout
    assert (root / "k.cu").read_bytes() == edited
    assert "kept 1 earlier port record of proj/k.cu" in proc.stdout
    proc = cli(["--revert", "proj"], cwd=tmp_path)  # not what the first port wrote: refused
    assert proc.returncode == 1 and "--force" in proc.stderr and "proj/k.cu" in proc.stderr
    assert (root / "k.cu").read_bytes() == edited


def test_revert_with_nothing_recorded_fails_with_a_clear_message(tmp_path):
    project(tmp_path)
    proc = cli(["--revert", "proj"], cwd=tmp_path)
    assert proc.returncode == 1
    assert "nothing to revert under proj: no port of it is recorded" in proc.stderr
    assert "0 restored" in proc.stdout


def test_revert_restores_mode_and_mtime(tmp_path):
    root = project(tmp_path)
    f = root / "k.cu"
    os.chmod(f, 0o751)
    os.utime(f, ns=(1_000_000_000_123_456_789, 1_000_000_000_987_654_321))
    port_paths([root])
    os.chmod(f, 0o600)  # changed after the port: revert gives back what the port found
    restored, _, conflicts = revert_paths([root])
    assert restored == [str(f)] and conflicts == []
    st = os.stat(f)
    assert f.read_bytes() == CU
    assert stat.S_IMODE(st.st_mode) == 0o751
    assert st.st_mtime_ns == 1_000_000_000_987_654_321


def test_force_restores_the_newest_record_only(tmp_path):
    """--force overwrites edits made after the last port with the content before it, and
    goes no further in one run."""
    root = project(tmp_path)
    f = root / "k.cu"
    port_paths([root])
    edited = f.read_bytes() + ADDED
    f.write_bytes(edited)
    port_paths([root])
    f.write_bytes(b"scratch\n")
    assert revert_paths([root]).conflicts[0][0] == str(f)
    assert f.read_bytes() == b"scratch\n"
    result = revert_paths([root], force=True)
    assert result.restored == [str(f)] and f.read_bytes() == edited
    assert result.earlier == [(str(f), 1)]


# -- durability -----------------------------------------------------------------------------

def test_commit_syncs_each_file_and_folder_never_the_whole_system(tmp_path, monkeypatch):
    """No os.sync (it flushes every file system of the machine); the new contents, the
    recorded originals and their folders are fsynced one by one."""
    def no_global_sync():
        raise AssertionError("os.sync called")

    synced = []
    real_fsync = os.fsync

    def recording_fsync(fd):
        st = os.fstat(fd)
        synced.append((st.st_dev, st.st_ino))
        return real_fsync(fd)

    root = project(tmp_path)
    for i in range(20):  # enough files for the threaded sync too
        (root / ("k%02d.cu" % i)).write_bytes(CU + b"// %d\n" % i)
    monkeypatch.setattr(os, "sync", no_global_sync)
    monkeypatch.setattr(os, "fsync", recording_fsync)
    report = port_paths([root])
    assert len(report.changed) == 21
    ident = lambda p: (os.stat(p).st_dev, os.stat(p).st_ino)
    for f in report.changed:
        assert ident(f.path) in synced, f.path
    for meta in list_records():
        assert ident(meta["_orig"]) in synced
    assert ident(root) in synced and ident(records_dir()) in synced
    index = [n for n in os.listdir(records_dir()) if n.endswith(".index")]
    assert ident(os.path.join(records_dir(), index[0])) in synced
    # revert syncs the same way
    synced.clear()
    assert len(revert_paths([root]).restored) == 21
    assert ident(root / "k.cu") in synced and ident(root) in synced


def test_the_record_holds_exactly_the_bytes_read(tmp_path):
    """Checked independently of the porter: the SHA-256 of each recorded original equals
    that of the file before the port."""
    root = project(tmp_path, {"b.cuh": b"cudaError_t e;\n"})
    before = {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in root.iterdir()}
    port_paths([root])
    for meta in list_records():
        with open(meta["_orig"], "rb") as fh:
            assert hashlib.sha256(fh.read()).hexdigest() == before[meta["path"]]
