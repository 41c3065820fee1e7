"""benchmarks/README.md, generated from this table and history.jsonl (a test keeps it current):

    .venv/bin/python benchmarks/readme.py > benchmarks/README.md

One section per benchmark: what it measures, how to rerun it, and the figures of its latest
run in history.jsonl (older runs stay there; each script appends one line per run). A new
benchmark adds a row to BENCHMARKS; a new run only needs the README regenerated.
"""
import fnmatch
import json
import textwrap
from collections import namedtuple
from pathlib import Path

HERE = Path(__file__).parent
HISTORY = HERE / "history.jsonl"

# name (history.jsonl "benchmark", None: the script records nothing), script, rerun command,
# what it measures and its target, figures shown (patterns over the flattened result keys)
Bench = namedtuple("Bench", "name script rerun what figures")

BENCHMARKS = [
    Bench("startup", "startup.py", "benchmarks/startup.py --runs 30 [--musa]",
          "Start-up cost of the `.pth` hook off MUSA: `python -c pass` with the hook and with "
          "it renamed away, interleaved, in a throwaway venv built from the wheel (a bare venv, "
          "and one with another executable `.pth`). Target: < 300 µs added, no module imported.",
          ["*.added_us_wall", "*.site_added_us", "*.modules_added_by_hook"]),
    Bench("activation_share", "startup.py --musa",
          "benchmarks/startup.py --runs 15 --musa",
          "Activation on the simulated device as a share of `import torch, torch_musa`, "
          "measured in the child (the sum of the applied areas' own times in "
          "`torchada.status()`): the whole-process difference is within the noise of two "
          "~1.3 s imports. Goal: < 2 %. Nothing of torch._inductor or torch._dynamo is "
          "imported at start (tests/compile).",
          ["activation_ms", "import_torch_torch_musa_ms", "share_percent*", "devices_area_ms"]),
    Bench("pth_floor", "pth_floor.py", "benchmarks/pth_floor.py --runs 40 --wall-runs 300",
          "The hook's line against the cheapest possible `.pth` lines, piece by piece, in one "
          "child and whole-process (how far the 300 µs target can go with the checks the hook "
          "needs).", ["in_child_us.*", "whole_process.typical.added_us.*"]),
    Bench("pth_precheck", "pth_precheck.py", "benchmarks/pth_precheck.py OLD_REV [NEW_REV]",
          "The `.pth` pre-check line of two revisions, paired in one process (prints; the "
          "run below, with the site-directory lookup, was recorded by hand).",
          ["added_us_per_start.*"]),
    Bench("revisions", "revisions.py",
          "benchmarks/revisions.py --before REV [--after REV] [--runs 15]",
          "Before/after a restructuring: the hook off MUSA and activation on the simulated "
          "device, two revisions as git worktrees, runs alternated.",
          ["revisions.*", "hook_us.*", "activation_ms.*"]),
    Bench("percall", "percall.py",
          "benchmarks/percall.py --upstream DIR --number 10000 --repeat 5 --rounds 3",
          "Per-call cost of translated hot paths on the simulated device: native torch_musa "
          "spelling, torchada (C prefilter route), the Python wrappers, and the upstream peer "
          "(`pip install --no-deps --target DIR torchada==0.1.103`). Overheads in ns against "
          "native (the peer's are in history.jsonl).", ["*.torchada_overhead"]),
    Bench("cpu_call_cost", "cpu_call_cost.py",
          "benchmarks/cpu_call_cost.py --number 20000 --rounds 15",
          "CPU-only calls with torchada active on the simulated device, paired in one child "
          "with the callable torchada wrapped (interleaved rounds, medians). Bar on the C "
          "prefilter route: added <= 10 ns + 3 % of the wrapped call; the Python route is "
          "shown without a bar.", ["c_route.*.added_ns", "c_route.*.ratio",
                                   "python_route.*.added_ns"]),
    Bench("nvidia_inert", "nvidia_inert.py",
          "benchmarks/nvidia_inert.py --wheel dist/torchada-*.whl --extra-wheels DIR --out DIR",
          "Inert and free on NVIDIA (run on a CUDA machine): torch's objects identical with "
          "and without torchada, start-up and per-call ratios against an A/A control, the "
          "CUDA programs of tests/programs unchanged (results/nvidia_h200_inert.json).",
          ["gpu", "identity.snapshot_equal", "identity.meta_path_equal", "startup_ms.*.ratio",
           "percall_ns.*.ratio"]),
    Bench("sim_overhead", "sim_overhead.py", "benchmarks/sim_overhead.py [--iters 20000]",
          "What the simulated device adds per op over the same op on the CPU (the simulator's "
          "cost, not torchada's).", ["mean_added_us", "worst_added_us"]),
    Bench("sim_build_time", "sim_build_time.py", "benchmarks/sim_build_time.py",
          "The simulator's C++ backend: a cold build and a cached load.",
          ["cold_build_s", "cached_load_ms"]),
    Bench("custom_ops_profiler", "custom_ops_profiler.py",
          "benchmarks/custom_ops_profiler.py [--rounds 25] [--calls 2000]",
          "Custom ops registered for CUDA, the profiler with CUDA activities and ctypes CUDA "
          "symbols, each against its MUSA spelling (ratio 1.0: free).",
          ["*.ratio"]),
    Bench("distributed_cost", "distributed_cost.py",
          "benchmarks/distributed_cost.py [--rounds 31] [--calls 500]",
          "`backend='nccl'` against `backend='mccl'` on the simulated device: group creation "
          "and all_reduce (the collective is torch's own object).",
          ["*.ratio", "all_reduce_is_torchs"]),
    Bench("env_warning_cost", "env_warning_cost.py",
          "benchmarks/env_warning_cost.py [--rounds 31] [--calls 2000]",
          "What the warnings for CUDA variables with no effect on MUSA add to an activation "
          "when none is set (env_mirror area; paired against an empty call, in the child). "
          "Target: < 20 µs.", ["added_us", "check_us", "environ_size"]),
    Bench("graph_rotation", "graph_rotation.py", "benchmarks/graph_rotation.py [--rounds 7]",
          "Graph executable rotation: replay below the cap (torch_musa's own replay), the "
          "tracking cost, and a replay when every replay misses.",
          ["below_cap.ratio", "tracking.overhead_ns", "miss.ms_per_reinstantiate",
           "memory.rotation_bytes_per_graph"]),
    Bench("operator_fixes_cost", "operator_fixes_cost.py",
          "benchmarks/operator_fixes_cost.py [--rounds 15] [--calls 2000] [--pairs 3]",
          "Each operator fix unit on against off, per call, on musa and on the CPU (CPU calls "
          "never reach a fix: ratio ~1.0).", ["*.ratio"]),
    Bench("cpu_fallback_cost", "cpu_fallback_cost.py",
          "benchmarks/cpu_fallback_cost.py [--rounds 15] [--calls 2000]",
          "Ops torch_musa has kernels for (add, mul_, sum, mm, relu on small musa tensors) "
          "with the cpu_fallback area applied against it reverted, alternating in one child "
          "(goal: ratio 1.00 within noise); a missing op through the fallback against the same "
          "op on CPU tensors, and the covered ops under verify's dispatch mode (what "
          "TORCHADA_VERIFY=1 costs; off it installs nothing). ns per 5-op step, medians.",
          ["covered.*", "missing.*", "verify.*"]),
    Bench("cpu_fallback_startup", "cpu_fallback_startup.py",
          "benchmarks/cpu_fallback_startup.py --before 28bf805 [--runs 9]",
          "The cpu_fallback area's own activation time on the simulated device (its time in "
          "`torchada.status()`, in the child): before = the working tree with the area's files "
          "at the given revision (an uncached scan of the CPU / composite registrations, a "
          "CpuKernel made per missing operator), after = its scan cached per torch / torch_musa "
          "build and kernels made at their first call; children alternate, medians in ms "
          "(after_cold: the cached scan deleted first).",
          ["before", "after", "after_cold", "paired_saving_ms", "ratio"]),
    Bench("cold_first_call", "cold_first_call.py",
          "benchmarks/cold_first_call.py [--processes 7]",
          "The first multinomial / log / isfinite call on musa tensors in a fresh process, "
          "timed in the child around the call: cold cache (the compiled overrides not built; "
          "the compiler is tests/fixtures/test_cxx.sh in its slow mode, which sleeps instead "
          "of using the CPU), warm cache (`torchada build` first) and off (operator_fixes "
          "switched off). torch_musa 2.11.0.post1 label, medians over the processes, in ms. "
          "Goal: cold within 1 ms of warm (before the background build, a cold first call "
          "waited for the compiler: about 26 s on the machine of issue 16).",
          ["*.cold_ms", "*.warm_ms", "*.off_ms", "*.cold_minus_warm_ms"]),
    Bench("short_processes_build", "short_processes_build.py",
          "benchmarks/short_processes_build.py [--processes 20]",
          "Twenty short processes in a row on a cold private cache (simulator, torch_musa "
          "2.11.0.post1), each calling torch.log once on a cuda tensor and exiting: how many "
          "detached builders started and compiled, compilers seen working in the cache "
          "without a live builder owning them (checked after each process and until the build "
          "ends), `.build-*` folders left, whether the library checks out. Goal: one build, "
          "no orphan, no folder left (before issue 22 part 1 a stream of short processes never "
          "finished the build and left compilers of three generations running).",
          ["builders_started", "builds_compiled", "builds_failed", "build_s",
           "library_ok", "orphan_compilers_seen", "build_folders_left", "processes",
           "process_wall_s_median"]),
    Bench("lint_throughput", "lint_throughput.py",
          "benchmarks/lint_throughput.py [--runs 5] [--package NAME==VERSION ...]",
          "`torchada lint` over real projects' Python sources.",
          ["*.files_per_s", "*.seconds"]),
    Bench("serving_areas", "serving_areas.py", "benchmarks/serving_areas.py --runs 21",
          "Import time added by the serving areas (flash_attn, triton_extra, moe_configs) to "
          "the packages they patch.", ["*.added_ms"]),
    Bench("porter_throughput", "porter_throughput.py",
          "benchmarks/porter_throughput.py [--package NAME==VERSION ...] [--repeat 5]",
          "The source porter on real CUDA projects against the upstream peer: speed, edits, "
          "and every difference classified.",
          ["*.ours.mb_per_s_on_disk", "*.upstream.mb_per_s_on_disk", "*.speed_ratio_on_disk",
           "*.diff.verdicts.*"]),
    Bench("porter_command", "porter_command.py", "benchmarks/porter_command.py --rounds 3",
          "`torchada port` on a large corpus (six CUDA projects) against the peer.",
          ["files", "ours_mb_per_s", "peer_mb_per_s", "ratio", "ours_summary"]),
    Bench("dispatch_route_probe", "dispatch_route_probe.py",
          "benchmarks/dispatch_route_probe.py [--python .venv-torch-2.7.1/bin/python]",
          "Probe of a dispatcher-level route instead of the factory wrappers: a Python boxed "
          "fallback at the CUDA key (which CUDA spellings it reaches, what a call costs). Not "
          "built: the C prefilter was (percall), which works the same on CUDA wheels. The "
          "script prints; the run below was recorded by hand.",
          ["*.zeros_*", "*.reaches_musa"]),
    Bench("trace_cost", "trace_cost.py", "benchmarks/trace_cost.py [--number 20000] "
          "[--repeat 5] [--rounds 5]",
          "Per-call cost of the translation report on the simulated device: native spelling "
          "with the areas off, CUDA spelling with TORCHADA_TRACE off (the default) and on. "
          "Off, no counting wrapper is installed (counting_wrappers.off is 0 of 5 objects "
          "checked; a test asserts the installed objects are the areas' own), so the per-call "
          "path is the one measured before the report existed; on is a diagnostic mode.",
          ["counting_wrappers.*", "ns.*.off", "ns.*.on_minus_off"]),
    Bench(None, "musa_twin.py", "benchmarks/musa_twin.py [--out FILE]",
          "The CUDA twin of torchada's MUSA native code, compiled unchanged with "
          "cuda_twin.h and checked on an NVIDIA GPU (needs nvcc and CUDA torch); prints one "
          "JSON, not recorded here: the H200 result is results/musa_twin_h200.json, and "
          "docs/native_twin.md says when to rerun it.", []),
]

# Helpers beside the scripts, not benchmarks themselves.
NOT_BENCHMARKS = {"history.py", "readme.py", "suite.py"}


def latest(history=HISTORY):
    """{benchmark: its newest record}, and the newest ``suite`` record per torch version."""
    runs, suites = {}, {}
    for line in history.read_text().splitlines():
        record = json.loads(line)
        if record["benchmark"] == "suite":
            suites[record["torch_version"]] = record
        else:
            runs[record["benchmark"]] = record
    return runs, suites


def flatten(value, prefix=""):
    if isinstance(value, dict):
        for key in value:
            yield from flatten(value[key], "%s.%s" % (prefix, key) if prefix else str(key))
    else:
        yield prefix, value


def _fmt(value):
    if isinstance(value, float):
        return "%.4g" % value if abs(value) < 100 else "%.0f" % value
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "none"
    return str(value)


def section(bench, record):
    lines = ["## `%s`" % bench.script if bench.script.endswith(".py")
             else "## `%s` (%s)" % (bench.script, bench.name), ""] + textwrap.wrap(bench.what, 92)
    lines += ["", "```", ".venv/bin/python " + bench.rerun, "```", ""]
    if record is None:
        return lines
    run = "Latest run: %s, commit %s, %s CPUs, Python %s%s." % (
        record["date"][:10], record.get("commit") or "?", record.get("cpus", "?"),
        record.get("python", "?"), ", torch %s" % record["torch"] if record.get("torch") else "")
    if record.get("host_note"):
        run += " Host: %s." % record["host_note"]
    lines += textwrap.wrap(run, 92) + ["", "| figure | value |", "|---|---|"]
    for key, value in flatten(record["results"]):
        if any(fnmatch.fnmatchcase(key, pattern) for pattern in bench.figures):
            lines.append("| %s | %s |" % (key.replace("|", "\\|"), _fmt(value)))
    return lines + [""]


def render(history=HISTORY):
    runs, suites = latest(history)
    out = ["# Benchmarks", "",
           "Generated by `benchmarks/readme.py` from `history.jsonl`; do not edit by hand. Every",
           "script appends one JSON line per run (host, CPUs, Python, versions, commit) through",
           "`history.py`; this page shows each benchmark's latest run, `history.jsonl` all of",
           "them. Speed targets live here, never in timed tests. Figures are medians of",
           "interleaved runs on a shared 2-core VM unless the section says otherwise.", "",
           "## Test suite on other torch releases", "",
           "```", ".ci/run-torch-version 2.7.1 2>&1 | tee benchmarks/results/torch-2.7.1-suite.log",
           ".venv/bin/python benchmarks/suite.py benchmarks/results/torch-2.7.1-suite.log "
           "--commit REV", "```", "",
           "`benchmarks/results/` keeps the latest log per torch version; `suite.py` records",
           "each run in `history.jsonl` and names the older logs to remove.", "",
           "| torch | tested commit | date | passed | failed | skipped | minutes | log |",
           "|---|---|---|---|---|---|---|---|"]
    for version in sorted(suites, key=lambda v: [int(p) for p in v.split(".")]):
        record = suites[version]
        r = record["results"]
        out.append("| %s | %s | %s | %d | %d | %d | %.0f | `results/%s` |" % (
            version, record.get("commit") or "?", record["date"][:10], r["passed"],
            r["failed"], r["skipped"], r["seconds"] / 60,
            record["log"] if (HERE / "results" / record["log"]).exists()
            else "torch-%s-suite.log" % version))
    out.append("")
    for bench in BENCHMARKS:
        out += section(bench, runs.get(bench.name) if bench.name else None)
    return "\n".join(out).rstrip("\n") + "\n"


if __name__ == "__main__":
    import sys

    sys.stdout.write(render())
