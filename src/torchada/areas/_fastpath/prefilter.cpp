// A C prefilter in front of torchada's Python device wrappers (issue 14: calls that name no
// CUDA device cost about +0).  The device map and the Python wrappers (areas/_devices/)
// decide every translation; this object only reads the map: when the device argument is
// absent, not of a class that can name CUDA, or a name the map knows to be untouched, it
// calls torch's original directly (vectorcall, no Python frame); when the map already holds
// the translation, it calls torch with it; otherwise (a spelling not seen yet, or an error)
// it calls the Python wrapper with the original arguments.  Only the Python C
// API, no torch headers: it is compiled when the package is built (setup.py), never at
// run time.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

typedef struct {
  PyObject_HEAD
  PyObject* orig;     // torch's callable
  PyObject* slow;     // the Python wrapper that translates
  PyObject* dmap;     // dict: device spelling -> translated (the same object when untouched)
  PyObject* types;    // tuple of classes that may name a CUDA device
  PyObject* translated;  // called with a translated device (orig, or a faster entry)
  int positional;     // 1: the first argument after self may be the device (Tensor.to)
  PyObject* dict;     // __dict__ (functools.update_wrapper writes __wrapped__, __name__, ...)
  vectorcallfunc vectorcall;
} Prefilter;

static PyObject* g_device = NULL;  // interned "device"

// What to do with a device argument: KEEP (torch's call is right as it is), SLOW (ask the
// Python wrapper: a spelling the device map has not seen), or SWAP (*mapped: the cached
// translation).  -1 on error.
enum { KEEP = 0, SLOW = 1, SWAP = 2 };

static int decide(Prefilter* self, PyObject* value, PyObject** mapped) {
  if (value == NULL) return KEEP;
  PyObject* cls = (PyObject*)Py_TYPE(value);
  Py_ssize_t n = PyTuple_GET_SIZE(self->types);
  int listed = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (PyTuple_GET_ITEM(self->types, i) == cls) {
      listed = 1;
      break;
    }
  }
  if (!listed) return KEEP;
  PyObject* known = PyDict_GetItemWithError(self->dmap, value);  // borrowed; no __missing__
  if (known == NULL) return PyErr_Occurred() ? -1 : SLOW;
  if (known == value) return KEEP;
  if (PyUnicode_CheckExact(known) && PyUnicode_CheckExact(value)) {  // an equal, untouched name
    int same = PyUnicode_Compare(known, value) == 0;
    if (PyErr_Occurred()) return -1;
    if (same) return KEEP;
  }
  *mapped = known;
  return SWAP;
}

// Index in the vectorcall array of the device argument, or -1.
static Py_ssize_t device_index(Prefilter* self, Py_ssize_t nargs, PyObject* kwnames) {
  if (self->positional && nargs >= 2) return 1;  // Tensor.to(self, device_or_dtype_or_tensor, ...)
  if (kwnames == NULL) return -1;
  Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, i);
    if (key == g_device || PyUnicode_Compare(key, g_device) == 0) return nargs + i;
  }
  return -1;
}

static PyObject* prefilter_vectorcall(PyObject* callable, PyObject* const* args, size_t nargsf,
                                      PyObject* kwnames) {
  Prefilter* self = (Prefilter*)callable;
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  Py_ssize_t at = device_index(self, nargs, kwnames);
  PyObject* mapped = NULL;
  int what = decide(self, at < 0 ? NULL : args[at], &mapped);
  if (what < 0) return NULL;
  if (what == KEEP) return PyObject_Vectorcall(self->orig, args, nargsf, kwnames);
  if (what == SWAP) {
    // The cached translation in place of the device, straight to torch.  An error goes to
    // the Python wrapper instead, which reruns the call and words the error for CUDA.
    Py_ssize_t total = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    PyObject* small[16];
    PyObject** copy = total <= 16 ? small : (PyObject**)PyMem_Malloc(total * sizeof(PyObject*));
    if (copy == NULL) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < total; ++i) copy[i] = args[i];
    copy[at] = mapped;
    PyObject* result = PyObject_Vectorcall(self->translated, copy, nargs, kwnames);
    if (copy != small) PyMem_Free(copy);
    if (result != NULL) return result;
    if (!PyErr_ExceptionMatches(PyExc_Exception)) return NULL;  // KeyboardInterrupt & co.
    PyErr_Clear();
  }
  return PyObject_Vectorcall(self->slow, args, nargsf, kwnames);
}

static PyObject* prefilter_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  static const char* names[] = {"orig", "slow", "dmap", "types", "positional", "translated",
                                NULL};
  PyObject *orig, *slow, *dmap, *types, *translated = NULL;
  int positional = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO!O!|pO", const_cast<char**>(names), &orig,
                                   &slow, &PyDict_Type, &dmap, &PyTuple_Type, &types,
                                   &positional, &translated)) {
    return NULL;
  }
  if (translated == NULL || translated == Py_None) translated = orig;
  Prefilter* self = (Prefilter*)type->tp_alloc(type, 0);
  if (self == NULL) return NULL;
  Py_INCREF(orig);
  Py_INCREF(slow);
  Py_INCREF(dmap);
  Py_INCREF(types);
  Py_INCREF(translated);
  self->translated = translated;
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
  Py_VISIT(self->translated);
  Py_VISIT(self->dict);
  return 0;
}

static int prefilter_clear(Prefilter* self) {
  Py_CLEAR(self->orig);
  Py_CLEAR(self->slow);
  Py_CLEAR(self->dmap);
  Py_CLEAR(self->types);
  Py_CLEAR(self->translated);
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
    "torchada.areas._fastpath._prefilter.Prefilter", sizeof(Prefilter), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
        Py_TPFLAGS_METHOD_DESCRIPTOR,
    prefilter_slots};

static PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "torchada.areas._fastpath._prefilter",
                              NULL, -1, NULL, NULL, NULL, NULL, NULL};

// Compiled when the package is built (setup.py): torchada.areas._fastpath._prefilter.
PyMODINIT_FUNC PyInit__prefilter(void) {
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
