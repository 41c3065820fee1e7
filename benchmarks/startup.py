"""Start-up cost of torchada's hook on a machine without MUSA (issue 01).

Builds the wheel, installs it (no deps) into a throwaway venv, then times, interleaved:
  with    : `python -c pass` with torchada_autoload.pth in site-packages
  without : the same venv with the .pth renamed away
and reads `python -X importtime -c pass` to list what the hook imports and its own cost.
With --musa it also measures activation on the simulated MUSA device as a fraction of
`import torch; import torch_musa` (needs torch in the venv running this script).

Rerun:  .venv/bin/python benchmarks/startup.py [--runs 40] [--musa]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import history  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CLEAN = {k: v for k, v in os.environ.items() if not k.startswith("TORCHADA_") and k != "PYTHONPATH"}


def build_venv(tmp):
    dist = tmp / "dist"
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o", str(dist), str(ROOT)],
                   check=True, capture_output=True)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    "--target", str(site), str(next(dist.glob("*.whl")))], check=True)
    return python, site / "torchada_autoload.pth"


def wall(cmd, env):
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True)
    return time.perf_counter() - start


def importtime(python, env):
    """name -> self µs; "site" self time includes the processing of .pth files."""
    err = subprocess.run([python, "-X", "importtime", "-c", "pass"], env=env, capture_output=True,
                         text=True, check=True).stderr
    rows = [line.split("|") for line in err.splitlines() if line.startswith("import time:") and "|" in line]
    return {r[2].strip(): int(r[0].split(":")[1]) for r in rows[1:]}


def startup(runs, other_pth=False):
    """other_pth: the venv already has an executable .pth line (as setuptools' own
    distutils-precedence.pth gives most venvs), so only torchada's share is measured."""
    with tempfile.TemporaryDirectory() as tmp:
        python, pth = build_venv(Path(tmp))
        if other_pth:
            pth.with_name("aaa_other.pth").write_text("import sys\n")
        off = pth.with_suffix(".disabled")
        cmd = [str(python), "-c", "pass"]
        with_s, without_s, with_imp, without_imp = [], [], [], []
        for _ in range(3):  # warm the page cache and .pyc files
            wall(cmd, CLEAN)
        for _ in range(runs):  # interleaved so drift hits both sides alike
            with_s.append(wall(cmd, CLEAN))
            with_imp.append(importtime(python, CLEAN))
            pth.rename(off)
            without_s.append(wall(cmd, CLEAN))
            without_imp.append(importtime(python, CLEAN))
            off.rename(pth)
    added_modules = sorted(set().union(*with_imp) - set().union(*without_imp))
    boot_us = statistics.median(d.get("torchada_boot", 0) for d in with_imp)
    med_with, med_without = statistics.median(with_s), statistics.median(without_s)
    return {
        "runs": runs,
        "python_c_pass_median_ms_with": round(med_with * 1e3, 3),
        "python_c_pass_median_ms_without": round(med_without * 1e3, 3),
        "added_us_wall": round((med_with - med_without) * 1e6, 1),
        "ratio_wall": round(med_with / med_without, 4),
        "importtime_total_self_us_with": statistics.median(sum(d.values()) for d in with_imp),
        "importtime_total_self_us_without": statistics.median(sum(d.values()) for d in without_imp),
        "importtime_torchada_boot_self_us": boot_us,
        "site_self_us_with": statistics.median(d["site"] for d in with_imp),
        "site_self_us_without": statistics.median(d["site"] for d in without_imp),
        "site_added_us": statistics.median(d["site"] for d in with_imp)
        - statistics.median(d["site"] for d in without_imp),
        "modules_added_by_hook": added_modules,
    }


def musa_activation(runs):
    """Activation cost on the simulated device, as a share of import torch + torch_musa."""
    sim = ROOT / "src" / "torchada" / "testing" / "_simroot"
    code = ("import time; t=time.perf_counter(); import torch, torch_musa; "
            "print(time.perf_counter()-t)")
    on_env = dict(CLEAN, TORCHADA_SIMULATE_MUSA="1")
    off_env = dict(CLEAN, TORCHADA_PLATFORM="off", PYTHONPATH=str(sim))
    on, off = [], []
    for _ in range(runs):
        on.append(float(subprocess.run([sys.executable, "-c", code], env=on_env, capture_output=True,
                                       text=True, check=True).stdout))
        off.append(float(subprocess.run([sys.executable, "-c", code], env=off_env, capture_output=True,
                                        text=True, check=True).stdout))
    m_on, m_off = statistics.median(on), statistics.median(off)
    return {"runs": runs, "import_torch_musa_ms_hook_off": round(m_off * 1e3, 1),
            "import_torch_musa_ms_hook_on": round(m_on * 1e3, 1),
            "activation_ms": round((m_on - m_off) * 1e3, 1),
            "activation_fraction": round((m_on - m_off) / m_off, 4)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--musa", action="store_true", help="also measure activation on the simulator")
    args = parser.parse_args()
    results = {"no_musa_bare_venv": startup(args.runs),
               "no_musa_venv_with_other_pth": startup(args.runs, other_pth=True)}
    if args.musa:
        results["simulated_musa"] = musa_activation(max(5, args.runs // 4))
    for section, numbers in results.items():
        print("[%s]" % section)
        for key, value in numbers.items():
            print("  %-38s %s" % (key, value))
    history.append("startup", results)


if __name__ == "__main__":
    main()
