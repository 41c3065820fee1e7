"""``torchada port`` / ``python -m torchada.porting`` in fresh interpreters (no torch)."""
import json
import os

from tests._fresh import clean_env, run_argv, run_python

CU = b"#include <cuda_runtime.h>\ncudaStream_t s;\nasm volatile(\"nop\");\ncudnnHandle_t h;\n"


def run(args, cwd, env_extra=None, check=True):
    return run_argv(["-m", "torchada.porting", *args], cwd=cwd, check=check, timeout=120,
                    env=clean_env(**(env_extra or {})))


def tree(tmp_path):
    root = tmp_path / "proj"
    (root / "csrc").mkdir(parents=True)
    (root / "csrc" / "k.cu").write_bytes(CU)
    return root


def test_dry_run_diff_stats(tmp_path):
    root = tree(tmp_path)
    proc = run(["proj", "--dry-run", "--diff", "--stats"], cwd=tmp_path)
    assert "-cudaStream_t s;" in proc.stdout and "+musaStream_t s;" in proc.stdout
    assert "--- a/proj/csrc/k.cu" in proc.stdout
    assert "cuda_runtime" in proc.stdout and "would change 1 of 1" in proc.stdout
    assert "proj/csrc/k.cu:3: inline-ptx" in proc.stdout
    assert "cudnnHandle_t" in proc.stdout  # unmapped scan
    assert (root / "csrc" / "k.cu").read_bytes() == CU


def test_port_then_revert_round_trip(tmp_path):
    root = tree(tmp_path)
    run(["proj"], cwd=tmp_path)
    assert b"musaStream_t" in (root / "csrc" / "k.cu").read_bytes()
    proc = run(["--revert", "proj"], cwd=tmp_path)
    assert "1 restored" in proc.stdout
    assert (root / "csrc" / "k.cu").read_bytes() == CU
    assert sorted(os.listdir(root / "csrc")) == ["k.cu"]


def test_json_report(tmp_path):
    tree(tmp_path)
    data = json.loads(run(["proj", "--dry-run", "--json"], cwd=tmp_path).stdout)
    assert data["changed"] == 1 and data["domains"]["cuda_runtime"] == 2
    assert data["findings"][0]["kind"] == "inline-ptx"


def test_errors_name_the_thing_and_the_fix(tmp_path):
    proc = run(["missing_dir"], cwd=tmp_path, check=False)
    assert proc.returncode == 2 and "missing_dir does not exist" in proc.stderr
    tree(tmp_path)
    proc = run(["proj"], cwd=tmp_path, env_extra={"TORCHADA_EXCLUDE_DIRS": "a*"}, check=False)
    assert proc.returncode == 2 and "TORCHADA_EXCLUDE_DIRS" in proc.stderr


def test_port_does_not_import_torch(tmp_path):
    tree(tmp_path)
    code = ("import sys; from torchada.porting.cli import main; rc = main(['proj', '--dry-run', '-q']);"
            "assert 'torch' not in sys.modules, 'torch imported'; sys.exit(rc)")
    proc = run_python(code, cwd=tmp_path, timeout=120)


def test_top_level_cli_dispatches_port(tmp_path):
    tree(tmp_path)
    code = "import sys; from torchada.cli import main; sys.exit(main(['port', 'proj', '--dry-run']))"
    proc = run_python(code, cwd=tmp_path, timeout=120)
    assert "would change 1 of 1" in proc.stdout
