"""`torchada run [--simulate]`: fresh interpreter, argv/exit status kept, summary at exit."""
import os
import sys

from tests._fresh import SRC, clean_env, run_argv

PROG = r'''
import sys, torch
print("argv", sys.argv[1:])
print("musa", torch.musa.device_count(), torch.ones(2, device="musa").sum().item())
sys.exit(3)
'''


def _run(args, **env):
    return run_argv(["-m", "torchada", "run", *args], env=clean_env(PYTHONPATH=SRC, **env),
                    check=False, timeout=600)


def test_run_simulated_program(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(PROG)
    proc = _run(["--simulate", str(prog), "--flag", "x"])
    assert proc.returncode == 3, proc.stderr
    assert "argv ['--flag', 'x']" in proc.stdout
    assert "musa 2 2.0" in proc.stdout
    assert "torchada summary" in proc.stderr and "platform : musa" in proc.stderr
    assert "MTT S5000" in proc.stderr


def test_run_errors_are_clear(tmp_path):
    proc = _run(["--simulate", str(tmp_path / "missing.py")])
    assert proc.returncode == 2 and "not found" in proc.stderr
    proc = _run(["--example", "nope"])
    assert proc.returncode == 2 and "train_cuda" in proc.stderr


def test_run_refuses_to_shadow_real_torch_musa(tmp_path):
    fake = tmp_path / "site" / "torch_musa"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('fake')\n")
    prog = tmp_path / "p.py"
    prog.write_text("print('ran')\n")
    proc = run_argv(["-m", "torchada", "run", "--simulate", prog], check=False,
                    env=clean_env(PYTHONPATH=os.pathsep.join([str(SRC), str(tmp_path / "site")])))
    assert proc.returncode == 2 and "--force-simulate" in proc.stderr, proc.stderr


def test_bundled_example_runs_on_simulator():
    proc = _run(["--simulate", "--example", "train_cuda", "--steps", "6"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "torchada summary" in proc.stderr and "platform : musa" in proc.stderr, proc.stderr
    assert "loss" in proc.stdout and "accuracy" in proc.stdout
    applied = [l for l in proc.stderr.splitlines() if "applied  :" in l][0]
    assert "devices" in applied and "cuda_namespace" in applied and "amp" in applied


def test_run_reports_cuda_available_unless_told_not_to(tmp_path):
    prog = tmp_path / "avail.py"
    prog.write_text("import torch; print('available', torch.cuda.is_available())\n")
    assert "available True" in _run(["--simulate", "--no-summary", str(prog)]).stdout
    assert "available False" in _run(["--simulate", "--cuda-unavailable", str(prog)]).stdout
    # an explicit user setting wins over run's default
    out = _run(["--simulate", str(prog)], TORCHADA_FORCE_CUDA_AVAILABLE="0").stdout
    assert "available False" in out


def test_child_pythonpath_never_puts_a_site_directory_first(tmp_path):
    from torchada.run_cmd import child_pythonpath

    site_dir, src = str(tmp_path / "site-packages"), str(tmp_path / "src")
    # installed (non-editable): torchada's parent is the site directory itself
    assert child_pythonpath(site_dir, "", [site_dir]) == ""
    assert child_pythonpath(site_dir, "/a", [site_dir]) == "/a"
    # a source checkout goes first, once
    assert child_pythonpath(src, "/a", [site_dir]) == os.pathsep.join([src, "/a"])
    assert child_pythonpath(src, os.pathsep.join(["/a", src]), [site_dir]) == \
        os.pathsep.join(["/a", src])


def test_run_child_sees_the_standard_library_before_site_packages(tmp_path):
    prog = tmp_path / "order.py"
    prog.write_text("import os, sys, sysconfig\n"
                    "std = sysconfig.get_paths()['stdlib']\n"
                    "i_std = sys.path.index(std)\n"
                    "sites = [i for i, p in enumerate(sys.path) if p.endswith('site-packages')]\n"
                    "print('ORDER', i_std, min(sites) if sites else 'none')\n")
    proc = _run(["--no-summary", str(prog)], TORCHADA_PLATFORM="cpu")
    assert proc.returncode == 0, proc.stderr
    line = [l for l in proc.stdout.splitlines() if l.startswith("ORDER")][0]
    _, i_std, i_site = line.split()
    assert i_site == "none" or int(i_std) < int(i_site), line
