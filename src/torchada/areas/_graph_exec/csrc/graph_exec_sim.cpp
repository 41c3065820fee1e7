// The rotation's primitives on the simulated torch_musa: the same jobs as
// graph_exec_musa.cpp (free_executable, restore_executable, has_executable) against the
// simulator's driver table (musa_sim.cpp graph_exec_*).  The simulated graph keeps its
// executable handle in `_exec` (0: none) and its template in `_calls` (None: none), as
// MUSAGraph keeps graph_exec_ / has_graph_exec_ and graph_ / has_graph_.  Only the Python
// C API: it builds in about a second.
#include <Python.h>

static PyObject* g_destroy = nullptr;      // torch.ops.musa_sim.graph_exec_destroy
static PyObject* g_instantiate = nullptr;  // torch_musa._sim.graphsim._instantiate

// module.attr, imported once (a new reference kept for the process).
static PyObject* lookup(const char* module, const char* attr) {
  PyObject* mod = PyImport_ImportModule(module);
  if (mod == nullptr) return nullptr;
  PyObject* value = PyObject_GetAttrString(mod, attr);
  Py_DECREF(mod);
  return value;
}

// The graph's executable handle (0: none), or -1 with an exception set.
static long long exec_handle(PyObject* graph) {
  PyObject* handle = PyObject_GetAttrString(graph, "_exec");
  if (handle == nullptr) return -1;
  long long value = PyLong_AsLongLong(handle);
  Py_DECREF(handle);
  return value;
}

static int set_exec(PyObject* graph, PyObject* handle) {
  return PyObject_SetAttrString(graph, "_exec", handle);
}

static PyObject* has_executable(PyObject*, PyObject* graph) {
  long long value = exec_handle(graph);
  if (value == -1 && PyErr_Occurred()) return nullptr;
  return PyBool_FromLong(value != 0);
}

static PyObject* free_executable(PyObject*, PyObject* graph) {
  long long value = exec_handle(graph);
  if (value == -1 && PyErr_Occurred()) return nullptr;
  if (value == 0) Py_RETURN_FALSE;
  if (g_destroy == nullptr) {
    PyObject* ops = lookup("torch", "ops");
    g_destroy = ops ? PyObject_GetAttrString(ops, "musa_sim") : nullptr;
    Py_XDECREF(ops);
    if (g_destroy == nullptr) return nullptr;
    PyObject* fn = PyObject_GetAttrString(g_destroy, "graph_exec_destroy");
    Py_SETREF(g_destroy, fn);
    if (g_destroy == nullptr) return nullptr;
  }
  PyObject* handle = PyLong_FromLongLong(value);
  if (handle == nullptr) return nullptr;
  PyObject* done = PyObject_CallOneArg(g_destroy, handle);
  Py_DECREF(handle);
  if (done == nullptr) return nullptr;
  Py_DECREF(done);
  PyObject* zero = PyLong_FromLong(0);
  int failed = set_exec(graph, zero);
  Py_DECREF(zero);
  if (failed) return nullptr;
  Py_RETURN_TRUE;
}

static PyObject* restore_executable(PyObject*, PyObject* graph) {
  long long value = exec_handle(graph);
  if (value == -1 && PyErr_Occurred()) return nullptr;
  if (value != 0) Py_RETURN_FALSE;
  PyObject* calls = PyObject_GetAttrString(graph, "_calls");
  if (calls == nullptr) return nullptr;
  bool has_template = calls != Py_None;
  Py_DECREF(calls);
  if (!has_template) {
    PyErr_SetString(PyExc_RuntimeError,
                    "this graph has no template to instantiate (it was reset or never captured)");
    return nullptr;
  }
  if (g_instantiate == nullptr) {
    g_instantiate = lookup("torch_musa._sim.graphsim", "_instantiate");
    if (g_instantiate == nullptr) return nullptr;
  }
  PyObject* handle = PyObject_CallNoArgs(g_instantiate);
  if (handle == nullptr) return nullptr;
  int failed = set_exec(graph, handle);
  Py_DECREF(handle);
  if (failed) return nullptr;
  Py_RETURN_TRUE;
}

static PyMethodDef kMethods[] = {
    {"free_executable", free_executable, METH_O,
     "Destroy the graph's executable, keep its template; False if it had none."},
    {"restore_executable", restore_executable, METH_O,
     "Instantiate an executable from the graph's template; False if it had one."},
    {"has_executable", has_executable, METH_O, "Whether the graph holds an executable."},
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
