"""What this torch's own Dynamo does with each torch.cuda call of the matrix, read from its
rules with torchada inactive: prints {case: reason} for the calls it cannot keep in a
graph on any device.

* a function Dynamo keeps in the graph as a torch function (trace_rules: in-graph) but does
  not fold to a constant (variables/torch.py ``constant_fold_functions``) and that returns no
  tensor: "torch.* op returned non-Tensor" on CUDA as on MUSA;
* a function Dynamo skips (trace_rules: SkipFunctionVariable): "marked as skipped";
* ``torch.cuda.current_stream()`` where Dynamo tracks streams per device
  (``InstructionTranslator.symbolic_stream_state``, torch >= 2.10): the compiled call returns
  the generic ``torch.Stream`` it tracks, eager code the device's Stream class;
* ``Module.to(device)`` of a module built inside a compiled function, tried on the CPU.

    python tests/compile/matrix/torch_rules.py      # torchada inactive (no MUSA, or -X torchada=off)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
from torch._dynamo import trace_rules  # noqa: E402
from torch._dynamo.variables import torch as torch_variables  # noqa: E402

import spellings  # noqa: E402
from runner import resolve  # noqa: E402


def symbolic_streams():
    from torch._dynamo import symbolic_convert

    annotations = getattr(symbolic_convert.InstructionTranslatorBase, "__annotations__", {})
    return "symbolic_stream_state" in annotations


def main():
    folded = torch_variables.constant_fold_functions
    out = {}
    calls = dict(spellings.AREA_CASE_CALLS)
    for case in spellings.all_cases(resolve):
        if case.name.startswith("cuda."):
            calls[case.name] = (case.name[len("cuda."):],)
    for case, names in sorted(calls.items()):
        for qualname in names:
            obj = resolve(qualname)
            if obj is None:
                continue
            rule = trace_rules.lookup(obj)
            name = getattr(rule, "__name__", "")
            if qualname == "current_stream" and symbolic_streams():
                out[case] = {"status": "mismatch", "why": "Dynamo returns the torch.Stream it "
                             "tracks (symbolic_stream_state), eager code torch.cuda.Stream"}
            elif name == "TorchInGraphFunctionVariable" and obj not in folded:
                out[case] = {"status": "break", "why": "torch.cuda.%s: in-graph, not folded, "
                             "returns no tensor" % qualname}
            elif name == "SkipFunctionVariable":
                out[case] = {"status": "break", "why": "torch.cuda.%s: skipped by Dynamo's "
                             "trace rules" % qualname}
    moved = module_to_breaks()
    if moved:
        out["devices.module_to"] = {"status": "break", "why": moved}
    print(json.dumps({"torch": torch.__version__, "rules": out}, sort_keys=True))


def module_to_breaks():
    """Whether this Dynamo breaks on ``Module.to(device)`` of a module built inside the
    function, on the CPU (torch 2.7 / 2.9: ``torch._C._nn._parse_to`` returns no tensor)."""
    def f(x):
        return torch.nn.Identity().to("cpu")(x) + 1

    try:
        torch.compile(f, backend="eager", fullgraph=True)(torch.ones(2))
    except Exception as exc:
        return "Module.to on the CPU: %s" % str(exc).strip().splitlines()[0][:200]
    return None


if __name__ == "__main__":
    main()
