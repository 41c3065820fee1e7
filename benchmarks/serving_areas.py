"""What the serving areas (triton_extra, flash_attn, moe_configs) cost, issue 12.

    .venv/bin/python benchmarks/serving_areas.py [--runs 21]

Each sample is a fresh child on the simulated device that has already imported torch (so
activation and torch_musa are done) and times one import with ``time.perf_counter`` inside the
child: the area applies inside that import statement (at the end of the trigger's body), so
the difference is the area's whole cost. "off" children set TORCHADA_DISABLE_AREAS=<area>;
on and off alternate; medians. Imports timed:
- ``import triton`` of PyPI's triton (no MUSA namespace: the area looks and leaves it);
- ``import triton`` of the MUSA Triton stand-in (tests/fixtures/musa_triton: the namespace is
  built; its own import is tiny, so the area's share shows in full);
- ``import flash_attn_interface`` (the stand-in provider: only_qv wrapping, the adapter), and
  then ``from sgl_kernel.flash_attn import ...`` (the supplied stub package and alias; with
  the area off that import fails, so "off" is the cost of the failing import);
- ``import vllm`` (tests/fixtures/serving: the two variables set).
Start-up and activation with the areas registered but their libraries absent are measured by
``revisions.py`` (before = the commit before the areas, after = with them).
"""
import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import history  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
CHILD = r'''
import sys, time
import torch, torchada
t = time.perf_counter()
%s
print((time.perf_counter() - t) * 1e3)
'''
CASES = {
    "triton (PyPI, no MUSA namespace)": ("triton_extra", "import triton", None),
    "triton (MUSA Triton stand-in)": ("triton_extra", "import triton",
                                      FIXTURES / "musa_triton"),
    "flash_attn_interface": ("flash_attn", "import flash_attn_interface", FIXTURES / "musa_fa3"),
    # off: the import fails (nothing supplies sgl_kernel), so "off" times that failure
    "flash_attn_interface + sgl_kernel.flash_attn": (
        "flash_attn", "import flash_attn_interface\ntry:\n    from sgl_kernel.flash_attn "
        "import flash_attn_with_kvcache\nexcept ImportError:\n    pass", FIXTURES / "musa_fa3"),
    "vllm (stand-in)": ("moe_configs", "import vllm", FIXTURES / "serving"),
}


def env_for(area, path, on):
    # no PYTHONDONTWRITEBYTECODE: installed code is byte-compiled; the warm-up writes .pyc
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TORCHADA_") and k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    env["TORCHADA_SIMULATE_MUSA"] = "1"
    if path is not None:
        env["PYTHONPATH"] = str(path)
    if not on:
        env["TORCHADA_DISABLE_AREAS"] = area
    return env


def sample(code, env):
    out = subprocess.run([sys.executable, "-c", CHILD % code], env=env, capture_output=True,
                         text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args()
    results = {}
    for label, (area, code, path) in CASES.items():
        if area == "triton_extra" and path is None:
            try:
                import importlib.util
                if importlib.util.find_spec("triton") is None:
                    print("skip %s: triton not installed" % label)
                    continue
            except ImportError:
                continue
        sample(code, env_for(area, path, True))  # warm caches (bytecode, page cache)
        on, off = [], []
        for i in range(args.runs):
            for flag in ((True, False) if i % 2 == 0 else (False, True)):
                (on if flag else off).append(sample(code, env_for(area, path, flag)))
        m_on, m_off = statistics.median(on), statistics.median(off)
        results[label] = {"on_ms": round(m_on, 3), "off_ms": round(m_off, 3),
                          "added_ms": round(m_on - m_off, 3),
                          "ratio": round(m_on / m_off, 3) if m_off else None}
        print("%-46s on %8.3f ms  off %8.3f ms  added %+7.3f ms" % (label, m_on, m_off, m_on - m_off))
    results["runs"] = args.runs
    if not args.no_history:
        history.append("serving_areas", results)


if __name__ == "__main__":
    main()
