// free_executable(graph) on the simulated torch_musa: the same job as graph_exec_musa.cpp,
// against the simulator's driver table (musa_sim.cpp graph_exec_*).  The simulated graph
// keeps its executable handle in `_exec` (0: none), as MUSAGraph keeps graph_exec_ and
// has_graph_exec_.  Only the Python C API: it builds in about a second.
#include <Python.h>

static PyObject* g_destroy = nullptr;  // torch.ops.musa_sim.graph_exec_destroy

static PyObject* free_executable(PyObject*, PyObject* graph) {
  PyObject* handle = PyObject_GetAttrString(graph, "_exec");
  if (handle == nullptr) return nullptr;
  long long value = PyLong_AsLongLong(handle);
  if (value == -1 && PyErr_Occurred()) {
    Py_DECREF(handle);
    return nullptr;
  }
  if (value == 0) {
    Py_DECREF(handle);
    Py_RETURN_FALSE;
  }
  if (g_destroy == nullptr) {
    PyObject* torch = PyImport_ImportModule("torch");
    if (torch == nullptr) {
      Py_DECREF(handle);
      return nullptr;
    }
    PyObject* ops = PyObject_GetAttrString(torch, "ops");
    Py_DECREF(torch);
    PyObject* ns = ops ? PyObject_GetAttrString(ops, "musa_sim") : nullptr;
    Py_XDECREF(ops);
    g_destroy = ns ? PyObject_GetAttrString(ns, "graph_exec_destroy") : nullptr;
    Py_XDECREF(ns);
    if (g_destroy == nullptr) {
      Py_DECREF(handle);
      return nullptr;
    }
  }
  PyObject* done = PyObject_CallOneArg(g_destroy, handle);
  Py_DECREF(handle);
  if (done == nullptr) return nullptr;
  Py_DECREF(done);
  PyObject* zero = PyLong_FromLong(0);
  int failed = PyObject_SetAttrString(graph, "_exec", zero);
  Py_DECREF(zero);
  if (failed) return nullptr;
  Py_RETURN_TRUE;
}

static PyMethodDef kMethods[] = {
    {"free_executable", free_executable, METH_O,
     "Destroy the graph's executable, keep its template; False if it had none."},
    {nullptr, nullptr, 0, nullptr}};

#define GE_CONCAT2(a, b) a##b
#define GE_CONCAT(a, b) GE_CONCAT2(a, b)
#define GE_STR2(a) #a
#define GE_STR(a) GE_STR2(a)

static PyModuleDef kModule = {PyModuleDef_HEAD_INIT, GE_STR(TORCH_EXTENSION_NAME),
                              nullptr, -1, kMethods};

PyMODINIT_FUNC GE_CONCAT(PyInit_, TORCH_EXTENSION_NAME)(void) {
  return PyModule_Create(&kModule);
}
