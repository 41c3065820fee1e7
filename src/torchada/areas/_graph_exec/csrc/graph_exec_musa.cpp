// free_executable(graph): destroy a MUSAGraph's executable and keep its template, so that
// reinstantiate_graph() can rebuild it later (torch_musa binds that one, not this).
//
// Only compiled on a MUSA machine; never built or run here (no hardware).  Unknowns, to be
// checked on hardware (docs/graphs.md): the header path (ATen/cuda -> torch_musa/csrc/aten/
// musa per torch_musa's porting map), and that at::musa::MUSAGraph keeps CUDAGraph's
// private fields graph_exec_ / has_graph_exec_ (MUSAGraph ports CUDAGraph).
#include <torch/extension.h>

#include <musa_runtime.h>

#include "torch_musa/csrc/aten/musa/MUSAGraph.h"

namespace {

// Reading a private member through an explicit instantiation: access checks do not apply
// to template arguments there ([temp.explicit]), so no #define-private hack is needed.
template <typename Tag, typename Tag::type Member>
struct Expose {
  friend typename Tag::type field(Tag) { return Member; }
};

struct ExecField {
  using type = musaGraphExec_t at::musa::MUSAGraph::*;
  friend type field(ExecField);
};
struct HasExecField {
  using type = bool at::musa::MUSAGraph::*;
  friend type field(HasExecField);
};

template struct Expose<ExecField, &at::musa::MUSAGraph::graph_exec_>;
template struct Expose<HasExecField, &at::musa::MUSAGraph::has_graph_exec_>;

bool free_executable(py::handle graph) {
  auto& g = py::cast<at::musa::MUSAGraph&>(graph);  // _MUSAGraph is a pybind11 class
  if (!(g.*field(HasExecField{}))) {
    return false;
  }
  musaError_t status = musaGraphExecDestroy(g.*field(ExecField{}));
  TORCH_CHECK(status == musaSuccess, "musaGraphExecDestroy failed: ", musaGetErrorString(status));
  g.*field(HasExecField{}) = false;
  return true;
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("free_executable", &free_executable,
        "Destroy the graph's executable, keep its template; False if it had none.");
}
