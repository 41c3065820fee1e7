"""The free-executable primitive, built once per torch / source with the shared JIT lock.

torch_musa binds ``reinstantiate_graph`` (an executable from the kept template) but nothing
that drops an executable and keeps the template (Graph.cpp per the 2.7.1 manifest), so a
small extension does it. On MUSA it is compiled against torch_musa's headers
(``csrc/graph_exec_musa.cpp``); on the simulator against the simulated driver
(``csrc/graph_exec_sim.cpp``, which calls the simulator backend's musaGraphExecDestroy).
"""
import hashlib
import os
import sys

from torchada.areas._graph_exec.lru import NativeUnavailable

CSRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "csrc")
VERBOSE_VAR = "TORCHADA_CPP_OPS_VERBOSE"


def simulated():
    return getattr(sys.modules.get("torch_musa"), "_sim", None) is not None


def _build_name(source, torch_version):
    with open(source, "rb") as f:
        digest = hashlib.sha256(f.read() + torch_version.encode()).hexdigest()[:12]
    return "torchada_graph_exec_%s" % digest


def _musa_build_flags():
    from torchada.porting import toolkit

    includes = toolkit.musa_include_paths()
    libraries = ["-L%s" % path for path in toolkit.musa_library_paths()]
    return includes, libraries + ["-lmusart"]


def load():
    """``free_executable(graph) -> bool`` (False: the graph had no executable).

    Raises NativeUnavailable with the reason when it cannot be built or loaded."""
    import torch
    from torch.utils import cpp_extension

    from torchada._core.files import private_dir
    from torchada.porting.jit_lock import build_lock

    on_simulator = simulated()
    source = os.path.join(CSRC, "graph_exec_sim.cpp" if on_simulator else "graph_exec_musa.cpp")
    name = _build_name(source, torch.__version__)
    includes, ldflags = ([], []) if on_simulator else _musa_build_flags()
    # The cpp_extension area may wrap load with this same lock: take torch's own function,
    # or the second flock of the same file in this process would wait for ever.
    load_extension = getattr(cpp_extension.load, "__torchada_wrapped__", cpp_extension.load)
    try:
        build_directory = private_dir("build", name, create=True)
        with build_lock(name, build_directory):
            module = load_extension(name, [source], build_directory=build_directory,
                                    extra_include_paths=includes, extra_ldflags=ldflags,
                                    verbose=os.environ.get(VERBOSE_VAR) == "1")
    except Exception as exc:  # a compiler, header or loader failure: rotation reports it
        first = str(exc).strip().splitlines()[:1] or [type(exc).__name__]
        raise NativeUnavailable("the graph executable extension did not build: %s: %s"
                                % (type(exc).__name__, first[0][:300])) from exc
    return module.free_executable
