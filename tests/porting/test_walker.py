"""Files on disk: exclusions, symlinks, bad input, atomic in-place writes, revert."""
import os
import stat

import pytest

from torchada.porting import PortError, parse_exclude_dirs, port_paths, revert_paths
from torchada.porting.records import list_records, records_dir

CU = b"#include <cuda_runtime.h>\n__global__ void k(cudaStream_t s) { cudaMalloc(0, 0); }\n"


def make_tree(root):
    files = {
        "csrc/kernel.cu": CU,
        "csrc/kernel.cuh": b"#pragma once\ncudaError_t check();\n",
        "csrc/ops.cpp": b"#include <ATen/cuda/CUDAContext.h>\nauto s = at::cuda::getCurrentCUDAStream();\n",
        "csrc/native.mu": b"musaStream_t s; cudaStream_t untouched;\n",
        "csrc/native.muh": b"cudaMalloc\n",
        "csrc/plain.cpp": b"int main() { return 0; }\n",
        "csrc/latin1.cu": b"// caf\xe9\ncudaFree(p);\r\n",
        "setup.py": b"# cudaMalloc in python is not touched\n",
        "README.md": b"cudaMalloc\n",
        "third_party/lib/x.cuh": b"cudaStream_t t;\n",
        "build/gen.cu": b"cudaStream_t t;\n",
    }
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return files


def snapshot(root):
    out = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = (fh.read(), stat.S_IMODE(os.lstat(p).st_mode))
    return out


def test_port_in_place_keeps_names_and_revert_restores_bytes(tmp_path):
    root = tmp_path / "proj"
    make_tree(root)
    os.chmod(root / "csrc/kernel.cu", 0o640)
    before = snapshot(root)
    report = port_paths([root], exclude=(frozenset(), frozenset({"third_party", "build"})))
    after = snapshot(root)
    assert set(after) == set(before)  # no mirror directory, no new files, names kept
    assert b"musaMalloc" in after["csrc/kernel.cu"][0]
    assert after["csrc/kernel.cu"][1] == 0o640  # permissions kept
    assert b"torch_musa/csrc/aten/musa/MUSAContext.h" in after["csrc/ops.cpp"][0]
    assert after["csrc/latin1.cu"][0] == b"// caf\xe9\nmusaFree(p);\r\n"  # bytes round-trip
    for same in ("csrc/native.mu", "csrc/native.muh", "csrc/plain.cpp", "setup.py", "README.md",
                 "third_party/lib/x.cuh", "build/gen.cu"):
        assert after[same] == before[same], same
    assert len(report.changed) == 4
    # idempotent: a second pass changes nothing
    again = port_paths([root], exclude=(frozenset(), frozenset({"third_party", "build"})))
    assert again.changed == [] and snapshot(root) == after
    restored, untouched, conflicts = revert_paths([root])
    assert len(restored) == 4 and conflicts == []
    assert snapshot(root) == before
    assert os.listdir(records_dir()) == []


def test_record_lives_outside_the_tree_in_a_private_cache(tmp_path, _private_cache):
    root = tmp_path / "p"
    make_tree(root)
    port_paths([root])
    rdir = records_dir()
    assert rdir.startswith(str(_private_cache))
    assert stat.S_IMODE(os.stat(rdir).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(os.path.dirname(rdir)).st_mode) == 0o700


def test_dry_run_writes_nothing(tmp_path, _private_cache):
    root = tmp_path / "p"
    make_tree(root)
    before = snapshot(root)
    report = port_paths([root], dry_run=True)
    assert report.changed and snapshot(root) == before
    assert not os.path.exists(records_dir())


def test_exclude_dirs_value_parsing(tmp_path):
    paths, names = parse_exclude_dirs("third_party%s%s/vendor, build ,," % (os.pathsep, tmp_path),
                                      cwd=str(tmp_path))
    assert names == {"third_party", "build"}
    assert paths == {os.path.realpath(str(tmp_path / "vendor"))}
    for bad in ("*.cu", "..", "a\0b"):
        with pytest.raises(PortError) as err:
            parse_exclude_dirs(bad)
        assert "TORCHADA_EXCLUDE_DIRS" in str(err.value)


def test_exclusion_from_environment_name_and_path(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    make_tree(root)
    monkeypatch.setenv("TORCHADA_EXCLUDE_DIRS", "lib,%s" % (root / "build"))
    report = port_paths([root], dry_run=True)
    ported = {os.path.relpath(f.path, root) for f in report.changed}
    assert "third_party/lib/x.cuh" not in ported and "build/gen.cu" not in ported
    # a name matches a whole component only: "lib" does not exclude "libfoo"
    (root / "libfoo").mkdir()
    (root / "libfoo" / "a.cu").write_bytes(CU)
    report = port_paths([root], dry_run=True)
    assert "libfoo/a.cu" in {os.path.relpath(f.path, root) for f in report.changed}


def test_explicit_directory_stays_eligible(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    make_tree(root)
    monkeypatch.setenv("TORCHADA_EXCLUDE_DIRS", "third_party")
    report = port_paths([root / "third_party"], dry_run=True)
    assert [os.path.basename(f.path) for f in report.changed] == ["x.cuh"]


def test_malformed_env_is_a_clear_error_and_nothing_changes(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    make_tree(root)
    before = snapshot(root)
    monkeypatch.setenv("TORCHADA_EXCLUDE_DIRS", "third_*")
    with pytest.raises(PortError, match="glob"):
        port_paths([root])
    assert snapshot(root) == before


def test_missing_path_is_a_clear_error(tmp_path):
    with pytest.raises(PortError, match="does not exist"):
        port_paths([tmp_path / "nope"])


def test_symlinked_root_and_sources_are_refused(tmp_path):
    root = tmp_path / "proj"
    make_tree(root)
    outside = tmp_path / "outside.cu"
    outside.write_bytes(CU)
    link_root = tmp_path / "link"
    link_root.symlink_to(root)
    with pytest.raises(PortError, match="symbolic link"):
        port_paths([link_root])
    (root / "csrc" / "linked.cu").symlink_to(outside)
    before = snapshot(root)
    with pytest.raises(PortError, match="symbolic links"):
        port_paths([root])
    assert snapshot(root) == before and outside.read_bytes() == CU


def test_symlinked_directories_are_not_followed(tmp_path):
    root = tmp_path / "proj"
    make_tree(root)
    other = tmp_path / "other"
    other.mkdir()
    (other / "o.cu").write_bytes(CU)
    (root / "csrc" / "otherlink").symlink_to(other, target_is_directory=True)
    report = port_paths([root])
    assert (other / "o.cu").read_bytes() == CU
    assert any("not followed" in reason for _, reason in report.skipped)


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores permission bits")
def test_read_only_file_is_a_clear_error_and_nothing_changes(tmp_path):
    root = tmp_path / "proj"
    make_tree(root)
    os.chmod(root / "csrc" / "ops.cpp", 0o444)
    before = snapshot(root)
    with pytest.raises(PortError, match="read-only"):
        port_paths([root])
    assert snapshot(root) == before


def test_read_only_file_detection_without_permission_bits(tmp_path, monkeypatch):
    """Same rule, independent of the user (root bypasses mode bits)."""
    import torchada.porting.walker as walker

    root = tmp_path / "proj"
    make_tree(root)
    target = str(root / "csrc" / "ops.cpp")
    real_access = os.access
    monkeypatch.setattr(walker.os, "access",
                        lambda p, m: False if p == target else real_access(p, m))
    before = snapshot(root)
    with pytest.raises(PortError, match="read-only"):
        port_paths([root])
    assert snapshot(root) == before


def test_system_include_roots_are_protected():
    import sysconfig

    with pytest.raises(PortError, match="never modifies"):
        port_paths([sysconfig.get_paths()["purelib"]], dry_run=True)


def test_revert_refuses_files_edited_after_porting(tmp_path):
    root = tmp_path / "proj"
    make_tree(root)
    port_paths([root])
    (root / "csrc" / "kernel.cu").write_bytes(b"edited\n")
    restored, _, conflicts = revert_paths([root])
    assert [os.path.basename(p) for p, _ in conflicts] == ["kernel.cu"]
    assert (root / "csrc" / "kernel.cu").read_bytes() == b"edited\n"
    restored, _, conflicts = revert_paths([root], force=True)
    assert (root / "csrc" / "kernel.cu").read_bytes() == CU and conflicts == []


def test_revert_keeps_first_originals_across_repeated_ports(tmp_path):
    root = tmp_path / "proj"
    make_tree(root)
    before = snapshot(root)
    port_paths([root / "csrc"])
    port_paths([root])  # overlapping second port
    revert_paths([root])
    assert snapshot(root) == before


def test_findings_and_unmapped_are_listed_with_lines(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "k.cu").write_bytes(b"int x;\nasm volatile(\"nop\");\ncudnnHandle_t h;\n")
    report = port_paths([root], dry_run=True)
    assert [(line, f.kind) for _, line, f in report.findings()] == [(2, "inline-ptx")]
    assert report.unmapped["cudnnHandle_t"][2] == 3


def test_worker_pool_gives_the_serial_report_and_files(tmp_path, monkeypatch):
    """The command's fork pool: same report (files, edits, findings, unmapped with their
    first path and line) and same bytes on disk as one process, in the same order."""
    import torchada.porting.walker as walker

    monkeypatch.setattr(walker, "POOL_MIN_BYTES", 1)  # a small tree goes through the pool too
    trees = {}
    for mode in ("serial", "pool"):
        root = tmp_path / mode
        make_tree(root)
        for i in range(12):  # enough files for several chunks, unmapped names repeated
            (root / "csrc" / ("extra%02d.cu" % i)).write_bytes(
                b"asm volatile(\"nop\");\ncudnnHandle_t h%d;\n__shfl_sync(0xffffffff, v, 0);\n" % i)
        report = port_paths([root], workers=1 if mode == "serial" else 2)
        trees[mode] = (snapshot(root), report)
    (serial_files, serial), (pool_files, pool) = trees["serial"], trees["pool"]
    assert pool_files == serial_files
    assert [os.path.relpath(f.path, tmp_path / "pool") for f in pool.files] == \
        [os.path.relpath(f.path, tmp_path / "serial") for f in serial.files]
    strip = lambda r, base: {k: (v[0], os.path.relpath(v[1], base), v[2]) for k, v in r.unmapped.items()}
    assert strip(pool, tmp_path / "pool") == strip(serial, tmp_path / "serial")
    assert pool.unmapped["cudnnHandle_t"][0] == 12
    assert [(os.path.basename(p), l, f.kind) for p, l, f in pool.findings()] == \
        [(os.path.basename(p), l, f.kind) for p, l, f in serial.findings()]
    assert len(pool.findings()) == 24 and pool.domain_counts() == serial.domain_counts()


@pytest.mark.parametrize("workers", [1, 2])
def test_late_read_only_file_leaves_no_temp_and_no_record(tmp_path, monkeypatch, workers, _private_cache):
    """Writes are staged while files are ported: a read-only file found after others were
    staged must still leave the tree byte for byte (no temporary file) and no record."""
    import torchada.porting.walker as walker

    monkeypatch.setattr(walker, "POOL_MIN_BYTES", 1)
    root = tmp_path / "p"
    for i in range(10):
        (root / "d").mkdir(parents=True, exist_ok=True)
        (root / "d" / ("k%02d.cu" % i)).write_bytes(CU)
    before = snapshot(root)
    real_access = os.access
    with monkeypatch.context() as m:  # k07.cu read-only, whoever runs the test (root too)
        m.setattr(os, "access", lambda p, mode: real_access(p, mode) and not str(p).endswith("k07.cu"))
        with pytest.raises(PortError, match="k07.cu"):
            port_paths([root], workers=workers)
    assert snapshot(root) == before and list_records() == []


def test_aborted_port_keeps_the_records_of_an_earlier_one(tmp_path, monkeypatch, _private_cache):
    """An earlier port's record must survive a later aborted run unchanged (its hash of the
    ported content is what revert compares)."""
    root = tmp_path / "p"
    make_tree(root)
    port_paths([root])
    records_before = {m["_id"]: m for m in list_records()}
    (root / "csrc" / "new.cu").write_bytes(CU)
    real_access = os.access
    with monkeypatch.context() as m:
        m.setattr(os, "access", lambda p, mode: real_access(p, mode) and not str(p).endswith("new.cu"))
        with pytest.raises(PortError):
            port_paths([root])
    assert {m["_id"]: m for m in list_records()} == records_before
    restored, _, conflicts = revert_paths([root])
    assert conflicts == [] and len(restored) == len(records_before)


def test_the_commands_light_report_from_workers_has_the_same_edits(tmp_path, monkeypatch):
    """``detail=False`` (the command without --diff): no texts kept, edits brought back from
    the workers as plain tuples, equal to the serial run's Edit namedtuples."""
    import torchada.porting.walker as walker

    monkeypatch.setattr(walker, "POOL_MIN_BYTES", 1)
    reports = {}
    for mode, workers, detail in (("serial", 1, True), ("light", 2, False)):
        root = tmp_path / mode
        make_tree(root)
        reports[mode] = port_paths([root], workers=workers, detail=detail)
    serial, light = reports["serial"], reports["light"]
    assert [f.edits for f in light.files] == [f.edits for f in serial.files]
    assert sum(len(f.edits) for f in light.files) > 0
    assert all(f.original is None and f.ported is None for f in light.files)
    assert all(f.original is not None for f in serial.changed)
