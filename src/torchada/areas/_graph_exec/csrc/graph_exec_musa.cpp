// The rotation's primitives on a MUSAGraph: free_executable(graph) destroys the executable
// and keeps the template; restore_executable(graph) instantiates a new one from the
// template; has_executable(graph) says which of the two states it is in.
//
// Cited from torch_musa's source at the v2.7.1 tag (0bc05bf; the newest commit, 8b583b3,
// changed README.md only) and v2.7.0, read, not compiled: no MUSA toolkit here, so mcc
// has never compiled this file (its CUDA twin is compiled and run, docs/native_twin.md):
// * at::musa::MUSAGraph is declared in torch_musa/csrc/aten/musa/MUSAGraph.h:24 (shipped
//   by MANIFEST.in:6); graph_ (line 47), graph_exec_ (48), has_graph_ (56) and
//   has_graph_exec_ (58) are protected members, read here through an explicit-instantiation
//   member pointer.
// * MUSAGraph::capture_end keeps the template: it instantiates (MUSAGraph.cpp:187) and never
//   destroys graph_ (lines 203-214), so it lives until reset() (lines 291-295).
// * torch_musa's own reinstantiate_graph (MUSAGraph.cpp:217-226, bound in
//   csrc/core/Graph.cpp since v2.7.1; v2.7.0 has neither) refuses a graph without an
//   executable (line 219 checks graph_exec_ != NULL && has_graph_exec_), so an evicted
//   graph cannot come back through it: restore_executable does the instantiation itself,
//   with the call torch_musa makes (musaGraphInstantiate, five arguments, line 225).
// * replay() checks has_graph_exec_ (line 229) and reset() destroys graph_exec_ only when
//   has_graph_exec_ (line 296): freeing clears both the handle and the flag, so neither
//   ever sees a destroyed executable.
// * _MUSAGraph is a pybind11 class held by shared_ptr (csrc/core/Graph.cpp:15), so
//   py::cast reaches the C++ object from torch.musa.MUSAGraph.
// The CUDA twin compiles this file through cuda_twin.h against torch's CUDAGraph
// (docs/native_twin.md).
#include <torch/extension.h>

#ifndef TORCHADA_CUDA_TWIN
#include <musa_runtime.h>  // musaGraphExecDestroy, musaGraphInstantiate, musaGetErrorString

#include "torch_musa/csrc/aten/musa/MUSAGraph.h"
#endif

namespace {

// Reading a protected member through an explicit instantiation: access checks do not apply
// to template arguments there ([temp.explicit]), so no #define-private hack is needed.
template <typename Tag, typename Tag::type Member>
struct Expose {
  friend typename Tag::type field(Tag) { return Member; }
};

struct GraphField {
  using type = musaGraph_t at::musa::MUSAGraph::*;
  friend type field(GraphField);
};
struct HasGraphField {
  using type = bool at::musa::MUSAGraph::*;
  friend type field(HasGraphField);
};
struct ExecField {
  using type = musaGraphExec_t at::musa::MUSAGraph::*;
  friend type field(ExecField);
};
struct HasExecField {
  using type = bool at::musa::MUSAGraph::*;
  friend type field(HasExecField);
};

template struct Expose<GraphField, &at::musa::MUSAGraph::graph_>;
template struct Expose<HasGraphField, &at::musa::MUSAGraph::has_graph_>;
template struct Expose<ExecField, &at::musa::MUSAGraph::graph_exec_>;
template struct Expose<HasExecField, &at::musa::MUSAGraph::has_graph_exec_>;

// The rotation frees an executable while the next graph's capture is still open
// (capture_end makes room before the capture ends), and a capture in the global mode
// refuses such calls from its thread: relax the mode for the call, as torch's own
// CUDAGraph::reset does around cudaGraphExecDestroy.  c10::musa::MUSAStreamCaptureModeGuard:
// torch_musa/csrc/core/MUSAGraphsC10Utils.h:18 (included by MUSAGraph.h:7).
struct RelaxedCapture {
  c10::musa::MUSAStreamCaptureModeGuard guard{musaStreamCaptureModeRelaxed};
};

at::musa::MUSAGraph& graph_of(py::handle graph) {
  return py::cast<at::musa::MUSAGraph&>(graph);
}

bool has_executable(py::handle graph) {
  return graph_of(graph).*field(HasExecField{});
}

bool free_executable(py::handle graph) {
  auto& g = graph_of(graph);
  if (!(g.*field(HasExecField{}))) {
    return false;
  }
  RelaxedCapture relaxed;
  musaError_t status = musaGraphExecDestroy(g.*field(ExecField{}));
  TORCH_CHECK(status == musaSuccess, "musaGraphExecDestroy failed: ", musaGetErrorString(status));
  g.*field(ExecField{}) = nullptr;
  g.*field(HasExecField{}) = false;
  return true;
}

bool restore_executable(py::handle graph) {
  auto& g = graph_of(graph);
  if (g.*field(HasExecField{})) {
    return false;
  }
  TORCH_CHECK(g.*field(HasGraphField{}) && g.*field(GraphField{}) != nullptr,
              "this graph has no template to instantiate (it was reset or never captured)");
  RelaxedCapture relaxed;
  musaGraphExec_t exec = nullptr;
  musaError_t status = musaGraphInstantiate(&exec, g.*field(GraphField{}), NULL, NULL, 0);
  TORCH_CHECK(status == musaSuccess, "musaGraphInstantiate failed: ", musaGetErrorString(status));
  g.*field(ExecField{}) = exec;
  g.*field(HasExecField{}) = true;
  return true;
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("free_executable", &free_executable,
        "Destroy the graph's executable, keep its template; False if it had none.");
  m.def("restore_executable", &restore_executable,
        "Instantiate an executable from the graph's template; False if it had one.");
  m.def("has_executable", &has_executable, "Whether the graph holds an executable.");
}
