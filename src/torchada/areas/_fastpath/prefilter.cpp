// A C prefilter in front of torchada's Python device wrappers (issue 14: calls that name no
// CUDA device cost about +0).  The Python wrappers (areas/devices.py) stay the only place
// that translates; this object only decides whether a call may need them: when the
// device argument is absent, not of a class that can name CUDA, or a name the device map
// already knows to be untouched, it calls torch's original directly (vectorcall, no Python
// frame); otherwise it calls the Python wrapper with the same arguments.  Only the Python C
// API: it builds in about a second, with no torch headers.  (C++ only because torch's
// extension loader compiles .cpp.)
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

typedef struct {
  PyObject_HEAD
  PyObject* orig;     // torch's callable
  PyObject* slow;     // the Python wrapper that translates
  PyObject* dmap;     // dict: device spelling -> translated (the same object when untouched)
  PyObject* types;    // tuple of classes that may name a CUDA device
  int positional;     // 1: the first argument after self may be the device (Tensor.to)
  PyObject* dict;     // __dict__ (functools.update_wrapper writes __wrapped__, __name__, ...)
  vectorcallfunc vectorcall;
} Prefilter;

static PyObject* g_device = NULL;  // interned "device"

// 1 when `value` may name a CUDA device, 0 when torch's own call is right, -1 on error.
static int may_translate(Prefilter* self, PyObject* value) {
  if (value == NULL) return 0;
  PyObject* cls = (PyObject*)Py_TYPE(value);
  Py_ssize_t n = PyTuple_GET_SIZE(self->types);
  int listed = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (PyTuple_GET_ITEM(self->types, i) == cls) {
      listed = 1;
      break;
    }
  }
  if (!listed) return 0;
  PyObject* known = PyDict_GetItemWithError(self->dmap, value);  // borrowed; no __missing__
  if (known == NULL) return PyErr_Occurred() ? -1 : 1;
  if (known == value) return 0;
  if (PyUnicode_CheckExact(known) && PyUnicode_CheckExact(value)) {  // an equal, untouched name
    int same = PyUnicode_Compare(known, value) == 0;
    if (PyErr_Occurred()) return -1;
    return same ? 0 : 1;
  }
  return 1;
}

static PyObject* keyword_device(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (kwnames == NULL) return NULL;
  Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, i);
    if (key == g_device || PyUnicode_Compare(key, g_device) == 0) return args[nargs + i];
  }
  return NULL;
}

static PyObject* prefilter_vectorcall(PyObject* callable, PyObject* const* args, size_t nargsf,
                                      PyObject* kwnames) {
  Prefilter* self = (Prefilter*)callable;
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  PyObject* device;
  if (self->positional && nargs >= 2) {
    device = args[1];  // Tensor.to(self, device_or_dtype_or_tensor, ...)
  } else {
    device = keyword_device(args, nargs, kwnames);
  }
  int needed = may_translate(self, device);
  if (needed < 0) return NULL;
  return PyObject_Vectorcall(needed ? self->slow : self->orig, args, nargsf, kwnames);
}

static PyObject* prefilter_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  static const char* names[] = {"orig", "slow", "dmap", "types", "positional", NULL};
  PyObject *orig, *slow, *dmap, *types;
  int positional = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO!O!|p", const_cast<char**>(names), &orig,
                                   &slow, &PyDict_Type,
                                   &dmap, &PyTuple_Type, &types, &positional)) {
    return NULL;
  }
  Prefilter* self = (Prefilter*)type->tp_alloc(type, 0);
  if (self == NULL) return NULL;
  Py_INCREF(orig);
  Py_INCREF(slow);
  Py_INCREF(dmap);
  Py_INCREF(types);
  self->orig = orig;
  self->slow = slow;
  self->dmap = dmap;
  self->types = types;
  self->positional = positional;
  self->dict = PyDict_New();
  self->vectorcall = prefilter_vectorcall;
  if (self->dict == NULL) {
    Py_DECREF(self);
    return NULL;
  }
  return (PyObject*)self;
}

static int prefilter_traverse(Prefilter* self, visitproc visit, void* arg) {
  Py_VISIT(self->orig);
  Py_VISIT(self->slow);
  Py_VISIT(self->dmap);
  Py_VISIT(self->types);
  Py_VISIT(self->dict);
  return 0;
}

static int prefilter_clear(Prefilter* self) {
  Py_CLEAR(self->orig);
  Py_CLEAR(self->slow);
  Py_CLEAR(self->dmap);
  Py_CLEAR(self->types);
  Py_CLEAR(self->dict);
  return 0;
}

static void prefilter_dealloc(Prefilter* self) {
  PyTypeObject* type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  prefilter_clear(self);
  type->tp_free((PyObject*)self);
  Py_DECREF(type);  // a heap type: each instance holds a reference to it
}

// Bound like a function when looked up on an instance (Tensor.new_zeros, Tensor.to).
static PyObject* prefilter_get(PyObject* self, PyObject* obj, PyObject* type) {
  if (obj == NULL || obj == Py_None) {
    Py_INCREF(self);
    return self;
  }
  return PyMethod_New(self, obj);
}

// Pickled by name, as the builtin it stands for (torch.zeros).
static PyObject* prefilter_reduce(Prefilter* self, PyObject* unused) {
  PyObject* name = PyDict_GetItemString(self->dict, "__name__");  // module.name: torch.zeros
  if (name == NULL) {
    PyErr_SetString(PyExc_TypeError, "cannot pickle a torchada prefilter without a name");
    return NULL;
  }
  Py_INCREF(name);
  return name;
}

static PyMethodDef prefilter_methods[] = {
    {"__reduce__", (PyCFunction)(void (*)(void))prefilter_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyMemberDef prefilter_members[] = {
    {"__torchada_slow__", T_OBJECT, offsetof(Prefilter, slow), READONLY,
     "the Python wrapper that translates"},
    {"__dictoffset__", T_PYSSIZET, offsetof(Prefilter, dict), READONLY, NULL},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(Prefilter, vectorcall), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};

static PyGetSetDef prefilter_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot prefilter_slots[] = {
    {Py_tp_dealloc, (void*)prefilter_dealloc},
    {Py_tp_call, (void*)PyVectorcall_Call},
    {Py_tp_getattro, (void*)PyObject_GenericGetAttr},
    {Py_tp_setattro, (void*)PyObject_GenericSetAttr},
    {Py_tp_doc, (void*)"torch's callable, with torchada's device translation only where a "
                       "call may need it"},
    {Py_tp_traverse, (void*)prefilter_traverse},
    {Py_tp_clear, (void*)prefilter_clear},
    {Py_tp_methods, (void*)prefilter_methods},
    {Py_tp_members, (void*)prefilter_members},
    {Py_tp_getset, (void*)prefilter_getset},
    {Py_tp_descr_get, (void*)prefilter_get},
    {Py_tp_new, (void*)prefilter_new},
    {0, NULL}};

static PyType_Spec prefilter_spec = {
    "torchada_prefilter.Prefilter", sizeof(Prefilter), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
        Py_TPFLAGS_METHOD_DESCRIPTOR,
    prefilter_slots};

#define PF_CONCAT2(a, b) a##b
#define PF_CONCAT(a, b) PF_CONCAT2(a, b)
#define PF_STR2(a) #a
#define PF_STR(a) PF_STR2(a)

static PyModuleDef kModule = {PyModuleDef_HEAD_INIT, PF_STR(TORCH_EXTENSION_NAME), NULL, -1,
                              NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PF_CONCAT(PyInit_, TORCH_EXTENSION_NAME)(void) {
  g_device = PyUnicode_InternFromString("device");
  if (g_device == NULL) return NULL;
  PyObject* type = PyType_FromSpec(&prefilter_spec);
  if (type == NULL) return NULL;
  PyObject* module = PyModule_Create(&kModule);
  if (module == NULL || PyModule_AddObject(module, "Prefilter", type) < 0) {
    Py_DECREF(type);
    Py_XDECREF(module);
    return NULL;
  }
  return module;
}
