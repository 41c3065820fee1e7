"""The free-executable primitive (built by the kit's native builder).

torch_musa binds ``reinstantiate_graph`` (an executable from the kept template) but nothing
that drops an executable and keeps the template (Graph.cpp per the 2.7.1 manifest), so a
small extension does it. On MUSA it is compiled against torch_musa's headers
(``csrc/graph_exec_musa.cpp``); on the simulator against the simulated driver
(``csrc/graph_exec_sim.cpp``, which calls the simulator backend's musaGraphExecDestroy).
"""
import os

from torchada.areas._kit import native

CSRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "csrc")


def load():
    """``free_executable(graph) -> bool`` (False: the graph had no executable).

    Raises NativeUnavailable with the reason when it cannot be built or loaded."""
    source = "graph_exec_sim.cpp" if native.simulated() else "graph_exec_musa.cpp"
    module = native.build("torchada_graph_exec", [os.path.join(CSRC, source)],
                          "the graph executable extension")
    return module.free_executable
