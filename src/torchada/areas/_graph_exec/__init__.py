"""Graph executable rotation: live graph executables kept under the driver's per-process cap.

The MUSA driver allows about 2048 live graph executables per process (issue 10). A serving
engine with piecewise graphs (capture sizes x layers) needs more. torch_musa keeps each
graph's template after capture (its ``reinstantiate_graph`` binding, Graph.cpp per the
2.7.1 manifest, rebuilds an executable from it), so an executable can be dropped and rebuilt
later without re-running the forward. This package does that: an LRU of live executables
(``lru``), the compiled extension that frees and restores one (``extension``), the cap's settings and the
optional probe of the real cap (``settings``, ``probe``).
"""
