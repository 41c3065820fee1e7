"""The graph executable extension: the compiled primitives that free and restore a graph's
executable (built by the kit's native builder).

torch_musa binds ``reinstantiate_graph`` but nothing that drops an executable and keeps the
template, and its ``reinstantiate_graph`` refuses a graph without an executable (v2.7.1
csrc/aten/musa/MUSAGraph.cpp:219; v2.7.0 has none), so a small extension does both:
``free_executable(graph)`` and ``restore_executable(graph)`` (plus ``has_executable``).
On MUSA it is compiled against torch_musa's headers (``csrc/graph_exec_musa.cpp``, whose
names are cited from torch_musa's v2.7.1 source but which has never been compiled by mcc:
no MUSA toolkit here; its CUDA twin runs it on an NVIDIA GPU, docs/native_twin.md); on the simulator against the
simulated driver (``csrc/graph_exec_sim.cpp``).
"""
import os
import threading

from torchada.areas._kit import extension_builder

CSRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "csrc")

_module = []
_lock = threading.Lock()


def load_module(force=False, detach="graph_exec"):
    """The built extension (once per process). Raises NativeUnavailable with the reason.
    A cold cache is compiled by the detached builder (``_kit.detached``), which outlives
    this process; a failed build is not retried with the same key until ``force``
    (``torchada build``)."""
    with _lock:
        if not _module:
            simulated = extension_builder.simulated()
            source = "graph_exec_sim.cpp" if simulated else "graph_exec_musa.cpp"
            _module.append(extension_builder.build(
                "torchada_graph_exec", [os.path.join(CSRC, source)],
                "the graph executable extension", detach=None if force else detach,
                remember_failure=True, force=force))
        return _module[0]


def build_in_builder():
    """The detached builder's work: compile here, under the build lock."""
    import torch  # noqa: F401

    try:
        import torch_musa  # noqa: F401  (the build's key and sources depend on it)
    except ImportError:
        pass
    before = set(extension_builder.COMPILED)
    load_module(detach=None)
    return "built" if set(extension_builder.COMPILED) - before else "already built"


def load():
    """``free_executable(graph) -> bool`` (False: the graph had no executable)."""
    return load_module().free_executable


def restore(graph):
    """A new executable from ``graph``'s template (False: it had one already)."""
    return load_module().restore_executable(graph)
