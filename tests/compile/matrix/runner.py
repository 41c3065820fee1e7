"""Runs the compile matrix in this process and prints one JSON object.

    python tests/compile/matrix/runner.py [--backends eager,aot_eager,inductor] [--only PREFIX]

For each case (tests/compile/matrix/spellings.py) and backend: the function runs eagerly,
then under ``torch.compile(fullgraph=True)`` with a compile counter, on a first input and on
a second one with other values. The result per backend is one of

``ok``          compiled outputs equal eager ones (values, dtypes, devices; random cases:
                shapes, dtypes, devices), one graph, no recompilation on the second input;
``break``       ``fullgraph=True`` refused the function (the detail is Dynamo's reason); the
                same function compiled without fullgraph must still equal eager (else
                ``diverged``);
``mismatch``    compiled and eager outputs differ (the detail says where);
``recompile``   the second input compiled a second graph;
``eager_error`` the eager call itself raised (the spelling does not run here at all);
``n/a``         the backend cannot run this case here (the detail says why).

It runs wherever torch runs: on the simulated MUSA device with torchada active, and on an
NVIDIA machine with torch's own CUDA (torchada importable, inactive), which records what
torch itself does with each spelling (tests/compile/data/).
"""
import argparse
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch._dynamo  # noqa: E402
import torch._dynamo.testing  # noqa: E402

import torchada  # noqa: E402
import spellings  # noqa: E402
from settle import settle_overrides  # noqa: E402


def resolve(qualname):
    obj = torch.cuda
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def simulated():
    try:
        return "musa" in str(torch.ones(1, device="cuda").device)
    except Exception:  # no CUDA device here: the native CPU reference run
        return False


def setup_distributed():
    """A one-process group with the CUDA spelling of the backend."""
    import torch.distributed as dist
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK="0", WORLD_SIZE="1")
    try:
        dist.init_process_group("nccl" if torch.cuda.is_available() or simulated() else "gloo",
                                rank=0, world_size=1)
        return None
    except Exception as exc:  # recorded: the distributed cases then say why
        return "%s: %s" % (type(exc).__name__, exc)


def setup_custom_op():
    """A custom op registered for the CUDA device type, with a fake kernel."""
    @torch.library.custom_op("torchada_matrix::scale", mutates_args=(), device_types="cuda")
    def scale(x: torch.Tensor, k: float) -> torch.Tensor:
        return x * k

    @scale.register_fake
    def _(x, k):
        return torch.empty_like(x)


def make_inputs(kind):
    base = torch.arange(1.0, 7.0).reshape(2, 3)
    if kind == "gpu":
        return base.to("cuda"), (base * 2 + 1).to("cuda")
    return base, base * 2 + 1


def diff(a, b, random, exact):
    """None when a and b are equal for the matrix, else where they differ."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return "tensor vs %s" % type(b if isinstance(a, torch.Tensor) else a).__name__
        if (a.device, a.dtype, tuple(a.shape)) != (b.device, b.dtype, tuple(b.shape)):
            return "%s %s %s vs %s %s %s" % (a.device, a.dtype, tuple(a.shape),
                                             b.device, b.dtype, tuple(b.shape))
        if random:
            return None
        ca, cb = a.detach().cpu(), b.detach().cpu()
        if exact:
            same = torch.equal(ca, cb) or (ca.is_floating_point() and torch.equal(
                torch.nan_to_num(ca, nan=0.5), torch.nan_to_num(cb, nan=0.5)))
            return None if same else "values differ (max %s)" % (
                (ca.double() - cb.double()).abs().max().item())
        try:
            torch.testing.assert_close(ca, cb, equal_nan=True)
        except AssertionError as exc:
            return "values differ: %s" % str(exc).splitlines()[0]
        return None
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if len(a) != len(b):
            return "length %d vs %d" % (len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = diff(x, y, random, exact)
            if d:
                return "[%d] %s" % (i, d)
        return None
    if type(a) is not type(b):
        return "%s vs %s" % (type(a).__name__, type(b).__name__)
    if random:
        return None
    try:
        equal = a == b
    except Exception:
        equal = False
    if equal is True:
        return None
    return None if repr(a) == repr(b) else ("%r vs %r" % (a, b))[:300]


def first_line(exc):
    text = str(exc).strip().splitlines()
    return "%s: %s" % (type(exc).__name__, text[0][:300] if text else "")


def seeded(fn, *args):
    torch.manual_seed(0)
    return fn(*args)


def run_case(case, backend, sim):
    exact = backend != "inductor"
    no_codegen = {"status": "n/a", "detail": "the simulator has no musa code generation for "
                                             "Inductor (docs/compile.md)"}
    if backend == "inductor" and sim and case.inputs == "gpu":
        return no_codegen
    scope = {"torch": torch, "torchada": torchada}
    exec(compile(case.source, "<case %s>" % case.name, "exec"), scope)
    f = scope["f"]
    try:
        x1, x2 = make_inputs(case.inputs)
        ref1 = seeded(f, x1)
        ref2 = seeded(f, x2)
    except Exception as exc:
        return {"status": "eager_error", "detail": first_line(exc)}
    if backend == "inductor" and sim and any(
            t.device.type != "cpu" for t in torch.utils._pytree.tree_leaves(ref1)
            if isinstance(t, torch.Tensor)):
        return no_codegen
    torch._dynamo.reset()
    counter = torch._dynamo.testing.CompileCounterWithBackend(backend)
    compiled = torch.compile(f, backend=counter, fullgraph=True)
    try:
        out1 = seeded(compiled, x1)
    except Exception as exc:
        result = {"status": "break", "detail": first_line(exc)}
        torch._dynamo.reset()
        try:
            loose = torch.compile(f, backend=backend)
            d = diff(seeded(loose, x1), ref1, case.random, exact)
        except Exception as exc2:
            d = "without fullgraph: " + first_line(exc2)
        if d:
            result["status"], result["diverged"] = "diverged", d
        return result
    d = diff(out1, ref1, case.random, exact)
    if d:
        return {"status": "mismatch", "detail": d}
    out2 = seeded(compiled, x2)
    d = diff(out2, ref2, case.random, exact)
    if d:
        return {"status": "mismatch", "detail": "second input: " + d}
    if counter.frame_count != 1:
        return {"status": "recompile", "detail": "%d graphs for two inputs" % counter.frame_count}
    return {"status": "ok"}


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--backends", default="eager,aot_eager,inductor")
    parser.add_argument("--only", default="")
    args = parser.parse_args(argv)
    sim = simulated()
    if sim:
        settle_overrides()
    setup = {"distributed": setup_distributed()}
    try:
        setup_custom_op()
    except Exception as exc:
        setup["custom_op"] = first_line(exc)
    results = {}
    for case in spellings.all_cases(resolve):
        if args.only and not case.name.startswith(args.only):
            continue
        row = results[case.name] = {}
        for backend in args.backends.split(","):
            try:
                row[backend] = run_case(case, backend, sim)
            except Exception as exc:
                row[backend] = {"status": "runner_error", "detail": first_line(exc),
                                "trace": traceback.format_exc()[-800:]}
    meta = {"torch": torch.__version__, "simulated": sim,
            "platform": torchada.detect_platform().name, "setup": setup,
            "device": "simulated musa" if sim else (
                torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu")}
    print(json.dumps({"meta": meta, "results": results}, sort_keys=True))
    if torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
