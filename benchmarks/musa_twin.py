"""The CUDA twin of torchada's MUSA native code, built and checked on an NVIDIA GPU.

    python benchmarks/musa_twin.py [--out FILE]      (needs a CUDA GPU, nvcc and CUDA torch)

kernels_musa.mu (copied to a .cu), op_overrides.cpp and graph_exec_musa.cpp are compiled
unchanged with benchmarks/cuda_twin.h force-included (MUSA names spelled as the CUDA / ATen
names torch_musa mirrors; names only), then:

* multinomial with and without replacement against its probabilities (chi-square over
  more than a million draws), torch's rejections of zero / inf / nan / negative rows,
  fresh draws per call, repeats after a reseed, fresh draws per CUDA-graph replay;
* float64 log / log_ on strided views and isfinite on every floating dtype, equal to
  torch's own CUDA kernels (run first, before the twin's are registered);
* the rotation (torchada.areas._graph_exec: install.py, lru.py) on real graph
  executables: 200 captured graphs of a small model, cap 8, 2000 replays in random order.

Prints one JSON (and writes it to --out). docs/native_twin.md says when to rerun it.
"""
import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "src"))
TWIN_H = os.path.join(HERE, "cuda_twin.h")
OPS_CSRC = os.path.join(ROOT, "src", "torchada", "areas", "_op_overrides", "csrc")
GRAPH_CSRC = os.path.join(ROOT, "src", "torchada", "areas", "_graph_exec", "csrc")
OPS = ["log", "log_", "multinomial", "isfinite"]


def build(torch, work):
    from torch.utils import cpp_extension

    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "%d.%d" % torch.cuda.get_device_capability())
    kernels = os.path.join(work, "kernels_musa_twin.cu")
    shutil.copyfile(os.path.join(OPS_CSRC, "kernels_musa.mu"), kernels)
    forced = ["-include", TWIN_H, "-O2"]
    started = time.perf_counter()
    ops = cpp_extension.load(
        "torchada_ops_twin", [os.path.join(OPS_CSRC, "op_overrides.cpp"), kernels],
        extra_cflags=forced, extra_cuda_cflags=forced, extra_include_paths=[OPS_CSRC],
        build_directory=_mkdir(work, "ops"), with_cuda=True, verbose=False)
    graph_exec = cpp_extension.load(
        "torchada_graph_exec_twin", [os.path.join(GRAPH_CSRC, "graph_exec_musa.cpp")],
        extra_cflags=forced, build_directory=_mkdir(work, "graph_exec"), with_cuda=True,
        verbose=False)
    return ops, graph_exec, time.perf_counter() - started


# The simulator's host loop over sampling.h (kernels_sim.cpp's, on plain CPU tensors): the
# twin's device draws must equal it for the same seed and offset.
HOST_DRAW = r"""
#include <torch/extension.h>
#include <vector>
#include "sampling.h"
at::Tensor host_draw(const at::Tensor& weights, int64_t samples, bool replacement,
                     int64_t seed, int64_t offset) {
  at::Tensor w = weights.contiguous();
  const int64_t rows = w.size(0), categories = w.size(1);
  at::Tensor out = at::empty({rows, samples}, at::kLong);
  std::vector<char> taken(categories);
  for (int64_t r = 0; r < rows; ++r) {
    std::fill(taken.begin(), taken.end(), 0);
    torchada_ops::sampling::sample_row(w.data_ptr<float>() + r * categories, categories,
                                       samples, replacement, uint64_t(seed), uint64_t(offset),
                                       r, taken.data(), out.data_ptr<int64_t>() + r * samples);
  }
  return out;
}
"""


def build_host_draw(work):
    from torch.utils import cpp_extension

    return cpp_extension.load_inline(
        "torchada_sampling_host", cpp_sources=HOST_DRAW, functions=["host_draw"],
        extra_include_paths=[OPS_CSRC], extra_cflags=["-O2"],
        build_directory=_mkdir(work, "host_draw"), verbose=False)


def _mkdir(base, name):
    path = os.path.join(base, name)
    os.makedirs(path, exist_ok=True)
    return path


# -- references from torch's own CUDA kernels (before the twin registers) ------------------
def special_values(torch, dtype):
    info = torch.finfo(dtype)
    return torch.tensor([0.0, -0.0, 1.0, -1.0, float("inf"), -float("inf"), float("nan"),
                         info.max, -info.max, info.tiny, info.tiny / 4, info.eps, 2.5, -3.5],
                        dtype=torch.float64).to(dtype)


def float_dtypes(torch):
    names = ["float16", "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2",
             "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]
    return [getattr(torch, n) for n in names if hasattr(torch, n)]


def isfinite_inputs(torch, gen):
    out = {}
    for dtype in float_dtypes(torch):
        try:
            base = (torch.randn(257, dtype=torch.float64, generator=gen) * 100)
            values = torch.cat([base, special_values(torch, torch.float32).double()])
            out[dtype] = values.to(dtype).cuda()
        except (RuntimeError, TypeError):
            continue
    return out


def run_or_error(fn):
    try:
        return ("ok", fn())
    except Exception as exc:
        return ("error", "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0] if str(exc) else ""))


def log_inputs(torch, gen):
    base = torch.rand(96, 80, dtype=torch.float64, generator=gen) * 20 - 2  # some negatives
    base.view(-1)[:14] = special_values(torch, torch.float64)
    return base.cuda()


def log_cases(torch, base):
    """(name, function of a fresh copy of base) pairs, each on a strided view."""
    views = {
        "transposed": lambda b: b.t(),
        "every_other_column": lambda b: b[:, ::2],
        "stepped_block": lambda b: b[3::3, 1::5],
        "negative_stride_free_flip": lambda b: b.t()[::2],
    }
    cases = []
    for name, view in views.items():
        cases.append(("log/" + name, lambda b, v=view: torch.log(v(b))))

        def inplace(b, v=view):
            target = v(b)
            ptr = target.data_ptr()
            result = target.log_()
            assert result is target and target.data_ptr() == ptr, "log_ did not write in place"
            return b  # the whole base: untouched elements must stay untouched
        cases.append(("log_/" + name, inplace))
    return cases


def same(torch, a, b):
    """Equal values (NaN where NaN, the sign of zero kept), dtype and shape; strides may
    differ (the override returns contiguous results, torch keeps the view's layout)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.is_floating_point():
        nan = a.isnan() & b.isnan()
        eq = (a == b) & (torch.signbit(a) == torch.signbit(b))
        return bool((eq | nan).all())
    return bool(torch.equal(a, b))


BAD_ROWS = {"zeros": [0.0, 0.0, 0.0, 0.0], "inf": [1.0, float("inf"), 1.0, 1.0],
            "nan": [1.0, float("nan"), 1.0, 1.0], "negative": [1.0, -0.5, 1.0, 1.0]}


def rejection_messages(torch, device):
    """multinomial's messages for bad rows where torch checks before drawing (one sample, or
    without replacement). The reference is torch's CPU kernel: from torch 2.10 on, torch's
    CUDA kernel checks these rows with a device assert (_assert_async), which ends the
    process's CUDA context, so it cannot be asked in-process; torch 2.7 (torch_musa 2.7.1's
    torch) raised the same messages from the host on every device."""
    out = {}
    for name, row in BAD_ROWS.items():
        w = torch.tensor([[1.0, 2.0, 3.0, 4.0], row], device=device)
        for replacement, n in ((False, 1), (False, 2), (True, 1)):
            out[(name, replacement, n)] = run_or_error(
                lambda: torch.multinomial(w, n, replacement=replacement))
    return out


# -- statistics ----------------------------------------------------------------------------
def chi2_p(torch, observed, expected):
    observed = torch.as_tensor(observed, dtype=torch.float64)
    expected = torch.as_tensor(expected, dtype=torch.float64)
    stat = float(((observed - expected) ** 2 / expected).sum())
    dof = observed.numel() - 1
    p = float(torch.special.gammaincc(torch.tensor(dof / 2.0, dtype=torch.float64),
                                      torch.tensor(stat / 2.0, dtype=torch.float64)))
    return stat, dof, p


def multinomial_checks(torch, torch_messages, host_draw=None):
    out = {}
    if host_draw is not None:  # the same seed and offset: device kernel == simulator loop
        w = torch.rand(300, 40, generator=torch.Generator().manual_seed(3)) + 0.01
        w[::7, ::3] = 0.0
        same_draws = []
        for replacement in (True, False):
            for seed in (1, 99, 2**40 + 5):
                g = torch.Generator(device="cuda").manual_seed(seed)
                device = torch.multinomial(w.cuda(), 12, replacement=replacement,
                                           generator=g).cpu()
                host = host_draw.host_draw(w, 12, replacement, seed, 0)
                same_draws.append(bool(torch.equal(device, host)))
        out["device_equals_simulator_arithmetic"] = all(same_draws)
    probs = torch.tensor([0.02, 0.05, 0.08, 0.10, 0.12, 0.13, 0.15, 0.15, 0.10, 0.10],
                         dtype=torch.float64)
    k = probs.numel()
    # with replacement: 1000 rows x 1000 samples of the same distribution (float32 weights,
    # unnormalised, so the kernel's own normalisation is part of the test)
    torch.manual_seed(2026)
    rows, samples = 1000, 1000
    weights = (probs * 7.0).float().cuda().expand(rows, k).contiguous()
    draws = torch.multinomial(weights, samples, replacement=True)
    counts = torch.bincount(draws.flatten(), minlength=k).cpu()
    stat, dof, p = chi2_p(torch, counts, probs * rows * samples)
    out["draws_replacement"] = rows * samples
    out["chi2_replacement"], out["chi2_dof_replacement"] = round(stat, 3), dof
    out["chi2_p_replacement"] = p
    # a zero weight is never drawn
    zw = torch.tensor([[1.0, 0.0, 2.0, 3.0]], device="cuda").expand(1000, 4).contiguous()
    out["zero_weight_never_drawn"] = bool((torch.multinomial(zw, 200, True) != 1).all())

    # without replacement: 1e6 rows x 2 draws from 6 categories; the ordered pair (i, j) has
    # probability p_i p_j / (1 - p_i)
    p6 = torch.tensor([0.05, 0.10, 0.15, 0.20, 0.22, 0.28], dtype=torch.float64)
    rows = 1_000_000
    w6 = (p6 * 3.0).cuda().expand(rows, 6).contiguous()       # float64 weights
    pairs = torch.multinomial(w6, 2, replacement=False)
    distinct = bool((pairs[:, 0] != pairs[:, 1]).all())
    cells = torch.bincount((pairs[:, 0] * 6 + pairs[:, 1]).flatten(), minlength=36).cpu().double()
    expected = torch.zeros(36, dtype=torch.float64)
    for i in range(6):
        for j in range(6):
            if i != j:
                expected[i * 6 + j] = p6[i] * p6[j] / (1 - p6[i]) * rows
    keep = expected > 0
    out["no_replacement_distinct"] = distinct and float(cells[~keep].sum()) == 0.0
    stat, dof, p = chi2_p(torch, cells[keep], expected[keep])
    out["draws_no_replacement"] = rows * 2
    out["chi2_no_replacement"], out["chi2_dof_no_replacement"] = round(stat, 3), dof
    out["chi2_p_no_replacement"] = p
    # every category exactly once when all are drawn
    full = torch.multinomial(w6[:1000], 6, replacement=False).sort(dim=1).values.cpu()
    out["full_draw_is_permutation"] = bool((full == torch.arange(6)).all())

    # rejections: the twin's messages against torch's own (CPU: see rejection_messages)
    twin = rejection_messages(torch, "cuda")
    agree = {}
    for key, (kind, message) in torch_messages.items():
        agree["%s/replacement=%s/n=%d" % key] = twin[key] == (kind, message) and kind == "error"
    for name, row in BAD_ROWS.items():  # torch draws first here (CPU) or asserts (CUDA)
        w = torch.tensor([[1.0, 2.0, 3.0, 4.0], row], device="cuda")
        kind, message = run_or_error(lambda: torch.multinomial(w, 3, replacement=True))
        expected_message = torch_messages[(name, False, 1)][1]
        agree["%s/replacement=True/n=3" % name] = (kind, message) == ("error", expected_message)
    out["rejections"] = agree
    out["rejections_as_torch"] = all(agree.values())
    out["torch_messages"] = sorted({m for kind, m in torch_messages.values()})

    # two calls differ; a reseed repeats (default generator and a private one)
    w = torch.rand(64, 50, device="cuda") + 0.01
    a, b = torch.multinomial(w, 20), torch.multinomial(w, 20)
    torch.manual_seed(7)
    c = torch.multinomial(w, 20, replacement=True)
    torch.manual_seed(7)
    d = torch.multinomial(w, 20, replacement=True)
    g1 = torch.Generator(device="cuda").manual_seed(11)
    g2 = torch.Generator(device="cuda").manual_seed(11)
    e, f = torch.multinomial(w, 20, generator=g1), torch.multinomial(w, 20, generator=g2)
    out["two_calls_differ"] = not torch.equal(a, b)
    out["reseed_repeats"] = bool(torch.equal(c, d) and torch.equal(e, f))

    # CUDA-graph capture: each replay draws fresh samples (the Philox offset advances)
    static_w = torch.rand(4, 16, device="cuda") + 0.05
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.multinomial(static_w, 8)                  # warm-up outside capture
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = torch.multinomial(static_w, 8)
    generator = torch.cuda.default_generators[torch.cuda.current_device()]
    offset_before = generator.get_offset()
    seen = []
    for _ in range(20):
        graph.replay()
        seen.append(tuple(captured.flatten().tolist()))
    offset_after = generator.get_offset()
    rows_ok = all(len(set(row)) == 8 for s in seen for row in
                  torch.tensor(s).view(4, 8).tolist())
    out["graph_replays"] = len(seen)
    out["graph_replays_distinct"] = len(set(seen)) == len(seen) and rows_ok
    out["graph_offset_advance"] = offset_after - offset_before
    return out


# -- the rotation on real graph executables -----------------------------------------------
def rotation_checks(torch, graph_exec, graphs=200, cap=8, replays=2000, seed=5):
    os.environ["TORCHADA_GRAPH_EXEC_CAP"] = str(cap)
    os.environ["TORCHADA_GRAPH_AUTOPROBE"] = "0"
    from torchada.areas._graph_exec import extension, install

    extension._module[:] = [graph_exec]          # the twin's primitives stand for the MUSA build
    try:  # the extension is prepared off the hot path where the rotation does that
        from torchada.areas._graph_exec import prepare

        prepare.start()
        prepare.build().wait(60)
    except ImportError:
        pass

    class TwinGraph(torch.cuda.CUDAGraph):
        """CUDAGraph shaped like torch_musa's MUSAGraph: the template is kept
        (keep_graph), capture_end instantiates at once (MUSAGraph.cpp:187), replay needs an
        executable (line 229: torch's own would instantiate one itself), and
        reinstantiate_graph refuses a graph without one (line 219)."""

        def __new__(cls):
            return super().__new__(cls, True)

        def __init__(self):
            super().__init__(True)                 # keep_graph

        def capture_end(self):
            super().capture_end()
            self.instantiate()

        def replay(self):
            if not graph_exec.has_executable(self):
                raise RuntimeError("Called MUSAGraph::replay without a preceding successful capture.")
            super().replay()

        def reinstantiate_graph(self):
            if not graph_exec.has_executable(self):
                raise RuntimeError("The graph_ and graph_exec_ musa have been created in the "
                                   "graph capture stage")
            self.instantiate()

    notes, journal = [], []
    ctx = types.SimpleNamespace(
        torch=torch, musa=types.SimpleNamespace(MUSAGraph=TwinGraph), note=notes.append,
        setattr=lambda obj, name, value: (journal.append((obj, name, getattr(obj, name))),
                                          setattr(obj, name, value)),
        on_revert=lambda fn: None, journal=types.SimpleNamespace(on_revert=lambda fn: None))
    rotation = install.install(ctx)
    assert rotation is not None, notes

    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(),
                                torch.nn.Linear(128, 64)).cuda().eval()
    inputs = [torch.randn(1 + i % 16, 64, device="cuda") for i in range(graphs)]
    eager, outputs, captured = [], [], []
    side = torch.cuda.Stream()
    with torch.inference_mode():
        for x in inputs:
            eager.append(model(x).clone())
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for x in inputs[:16]:
                model(x)                                   # warm-up per shape
        torch.cuda.current_stream().wait_stream(side)
        for x in inputs:
            g = TwinGraph()
            with torch.cuda.graph(g):
                y = model(x)
            captured.append(g)
            outputs.append(y)
    torch.cuda.synchronize()
    live_after_capture = sum(graph_exec.has_executable(g) for g in captured)

    # every graph replayed replays/graphs times, in random order
    order = list(range(graphs)) * (replays // graphs)
    random.Random(seed).shuffle(order)
    free_start = torch.cuda.mem_get_info()[0]
    allocated_start = torch.cuda.memory_allocated()
    worst_diff, free_low, max_live = 0.0, free_start, live_after_capture
    started = time.perf_counter()
    with torch.inference_mode():
        for step, i in enumerate(order):
            outputs[i].fill_(float("nan"))           # poison: the replay must write it
            captured[i].replay()
            diff = (outputs[i] - eager[i]).abs().max()
            worst_diff = max(worst_diff, float(diff) if not diff.isnan() else float("inf"))
            if step % 50 == 0 or step == len(order) - 1:
                torch.cuda.synchronize()
                free_low = min(free_low, torch.cuda.mem_get_info()[0])
                max_live = max(max_live, sum(graph_exec.has_executable(g) for g in captured))
    torch.cuda.synchronize()
    seconds = time.perf_counter() - started
    bit_equal = all(torch.equal(o, e) for o, e in zip(outputs, eager)) and worst_diff == 0.0
    return {
        "graphs": graphs, "cap": rotation.cap, "replays": len(order),
        "evictions": rotation.evictions, "reinstantiations": rotation.reinstantiations,
        "live_after_capture": live_after_capture, "max_live_executables": max_live,
        "max_abs_diff": worst_diff, "bit_equal_to_eager": bit_equal,
        "mem_growth_bytes": max(0, free_start - free_low),
        "allocated_growth_bytes": torch.cuda.memory_allocated() - allocated_start,
        "ms_per_replay": round(seconds / replays * 1e3, 4),
        "ms_per_reinstantiate": round(rotation.reinstantiate_seconds /
                                      max(1, rotation.reinstantiations) * 1e3, 4),
        "summary": rotation.summary(), "notes": notes,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args()

    import torch

    result = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
              "cuda": torch.version.cuda, "device_capability": list(torch.cuda.get_device_capability())}
    gen = torch.Generator().manual_seed(1234)
    # torch's own answers first
    fin_inputs = isfinite_inputs(torch, gen)
    fin_ref = {d: run_or_error(lambda x=x: torch.isfinite(x)) for d, x in fin_inputs.items()}
    log_base = log_inputs(torch, gen)
    log_ref = {name: run_or_error(lambda f=f: f(log_base.clone())) for name, f in log_cases(torch, log_base)}
    torch_messages = rejection_messages(torch, "cpu")

    work = tempfile.mkdtemp(prefix="torchada_twin_")
    ops, graph_exec, build_s = build(torch, work)
    result["build_seconds"] = round(build_s, 1)
    result["registered"] = ops.install(OPS, False)

    fin_twin = {d: run_or_error(lambda x=x: torch.isfinite(x)) for d, x in fin_inputs.items()}
    per_dtype = {}
    for dtype, ref in fin_ref.items():
        twin = fin_twin[dtype]
        per_dtype[str(dtype)] = (twin[0] == ref[0] and
                                 (same(torch, twin[1], ref[1]) if ref[0] == "ok" else twin[1] == ref[1]))
    result["isfinite_per_dtype"] = per_dtype
    result["isfinite_equal"] = all(per_dtype.values()) and len(per_dtype) >= 4

    per_case = {}
    for name, f in log_cases(torch, log_base):
        twin = run_or_error(lambda f=f: f(log_base.clone()))
        ref = log_ref[name]
        per_case[name] = twin[0] == ref[0] == "ok" and same(torch, twin[1], ref[1])
    result["log_per_case"] = per_case
    result["log_equal"] = all(per_case.values())

    try:
        host_draw = build_host_draw(work)
    except Exception:
        host_draw, result["host_draw_error"] = None, traceback.format_exc()[-1500:]
    for name, fn in (("multinomial", lambda: multinomial_checks(torch, torch_messages, host_draw)),
                     ("rotation", lambda: rotation_checks(torch, graph_exec))):
        try:
            result[name] = fn()
        except Exception:
            result[name] = {"error": traceback.format_exc()[-2000:]}
    ops.uninstall(OPS)
    multinomial, rotation = result["multinomial"], result["rotation"]
    result["done"] = bool(
        multinomial.get("chi2_p_replacement", 0) > 1e-3 and
        multinomial.get("chi2_p_no_replacement", 0) > 1e-3 and
        multinomial.get("graph_replays_distinct") and multinomial.get("rejections_as_torch") and
        multinomial.get("two_calls_differ") and multinomial.get("reseed_repeats") and
        multinomial.get("device_equals_simulator_arithmetic") and
        result["log_equal"] and result["isfinite_equal"] and
        rotation.get("evictions", 0) > 0 and rotation.get("max_abs_diff") == 0.0 and
        rotation.get("max_live_executables", 99) <= rotation.get("cap", 0))
    text = json.dumps(result, indent=1, sort_keys=True, default=str)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0 if result["done"] else 1


if __name__ == "__main__":
    sys.exit(main())
