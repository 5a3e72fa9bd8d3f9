// Loads the Triton toolchain's Python interpreter into the worker at run time (dlopen of libpython).
#include "runner/triton/python_library.h"

#include <dlfcn.h>

#include <cstdlib>

#include "core/error.h"

namespace ptxbench {

// The stable C API's declarations, as function pointer types (Python.h is not needed to build the
// worker). PyGILState_STATE is an enum, passed as int.
struct PythonLibrary::Api {
  void* lib = nullptr;
  void (*Py_InitializeEx)(int) = nullptr;
  int (*Py_IsInitialized)() = nullptr;
  void* (*PyEval_SaveThread)() = nullptr;
  int (*PyGILState_Ensure)() = nullptr;
  void (*PyGILState_Release)(int) = nullptr;
  PyObject* (*PyImport_ImportModule)(const char*) = nullptr;
  PyObject* (*PyObject_GetAttrString)(PyObject*, const char*) = nullptr;
  PyObject* (*PyObject_CallObject)(PyObject*, PyObject*) = nullptr;
  PyObject* (*PyTuple_New)(long) = nullptr;
  int (*PyTuple_SetItem)(PyObject*, long, PyObject*) = nullptr;
  PyObject* (*PyList_New)(long) = nullptr;
  int (*PyList_Append)(PyObject*, PyObject*) = nullptr;
  int (*PySys_SetObject)(const char*, PyObject*) = nullptr;
  PyObject* (*PyLong_FromUnsignedLongLong)(unsigned long long) = nullptr;
  PyObject* (*PyUnicode_FromString)(const char*) = nullptr;
  const char* (*PyUnicode_AsUTF8)(PyObject*) = nullptr;
  void (*Py_DecRef)(PyObject*) = nullptr;
  void (*PyErr_Fetch)(PyObject**, PyObject**, PyObject**) = nullptr;
  PyObject* (*PyObject_Str)(PyObject*) = nullptr;
  PyObject* none = nullptr;  // _Py_NoneStruct
};

namespace {

template <class F>
void bind(void* lib, F& f, const char* name, const std::string& where) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) fail(where + " lacks " + name + " (not a CPython 3 library?)");
}

// The pending Python exception as one line, cleared.
std::string python_error(PythonLibrary::Api& a) {
  PyObject *type = nullptr, *value = nullptr, *trace = nullptr;
  a.PyErr_Fetch(&type, &value, &trace);
  std::string text = "unknown Python error";
  if (PyObject* s = value ? a.PyObject_Str(value) : nullptr) {
    if (const char* c = a.PyUnicode_AsUTF8(s)) text = c;
    a.Py_DecRef(s);
  }
  for (PyObject* o : {type, value, trace})
    if (o) a.Py_DecRef(o);
  return text;
}

class Gil {
 public:
  explicit Gil(PythonLibrary::Api& a) : a_(a), state_(a.PyGILState_Ensure()) {}
  ~Gil() { a_.PyGILState_Release(state_); }
  Gil(const Gil&) = delete;
  Gil& operator=(const Gil&) = delete;

 private:
  PythonLibrary::Api& a_;
  int state_;
};

}  // namespace

PythonLibrary::PythonLibrary(const std::filesystem::path& library, const std::string& home,
                             const std::vector<std::string>& path) {
  api = new Api;  // lives as long as the process: the interpreter is never finalized
  Api& a = *api;
  const std::string where = "the Triton toolchain's Python library " + library.string();
  a.lib = dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!a.lib) fail("cannot load " + where + ": " + dlerror());
  bind(a.lib, a.Py_InitializeEx, "Py_InitializeEx", where);
  bind(a.lib, a.Py_IsInitialized, "Py_IsInitialized", where);
  // One interpreter per process: a second start would take a GIL it never released.
  if (a.Py_IsInitialized()) fail("a Python interpreter is already running in this process (" + where + ")");
  bind(a.lib, a.PyEval_SaveThread, "PyEval_SaveThread", where);
  bind(a.lib, a.PyGILState_Ensure, "PyGILState_Ensure", where);
  bind(a.lib, a.PyGILState_Release, "PyGILState_Release", where);
  bind(a.lib, a.PyImport_ImportModule, "PyImport_ImportModule", where);
  bind(a.lib, a.PyObject_GetAttrString, "PyObject_GetAttrString", where);
  bind(a.lib, a.PyObject_CallObject, "PyObject_CallObject", where);
  bind(a.lib, a.PyTuple_New, "PyTuple_New", where);
  bind(a.lib, a.PyTuple_SetItem, "PyTuple_SetItem", where);
  bind(a.lib, a.PyList_New, "PyList_New", where);
  bind(a.lib, a.PyList_Append, "PyList_Append", where);
  bind(a.lib, a.PySys_SetObject, "PySys_SetObject", where);
  bind(a.lib, a.PyLong_FromUnsignedLongLong, "PyLong_FromUnsignedLongLong", where);
  bind(a.lib, a.PyUnicode_FromString, "PyUnicode_FromString", where);
  bind(a.lib, a.PyUnicode_AsUTF8, "PyUnicode_AsUTF8", where);
  bind(a.lib, a.Py_DecRef, "Py_DecRef", where);
  bind(a.lib, a.PyErr_Fetch, "PyErr_Fetch", where);
  bind(a.lib, a.PyObject_Str, "PyObject_Str", where);
  bind(a.lib, a.none, "_Py_NoneStruct", where);
  // The interpreter's prefix and nothing from the environment the worker was given.
  setenv("PYTHONHOME", home.c_str(), 1);
  setenv("PYTHONNOUSERSITE", "1", 1);
  setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
  a.Py_InitializeEx(0);  // 0: Python installs no signal handlers (the worker's stay)
  PyObject* list = a.PyList_New(0);
  for (const auto& p : path) {
    PyObject* s = a.PyUnicode_FromString(p.c_str());
    a.PyList_Append(list, s);
    a.Py_DecRef(s);
  }
  a.PySys_SetObject("path", list);
  a.Py_DecRef(list);
  a.PyEval_SaveThread();
}

PyObject* PythonLibrary::function(const std::string& module, const std::string& name) {
  Api& a = *api;
  Gil gil(a);
  PyObject* m = a.PyImport_ImportModule(module.c_str());
  if (!m) fail("cannot import " + module + ": " + python_error(a));
  PyObject* f = a.PyObject_GetAttrString(m, name.c_str());
  a.Py_DecRef(m);
  if (!f) fail(module + " has no " + name + ": " + python_error(a));
  return f;
}

namespace {

// The result of a call as text: "" for None, the string otherwise; null result -> the error.
std::string result_text(PythonLibrary::Api& a, PyObject* result, const char* what) {
  if (!result) fail(std::string(what) + " raised: " + python_error(a));
  std::string text;
  if (result != a.none) {
    const char* c = a.PyUnicode_AsUTF8(result);
    text = c ? c : "(a result that is not text)";
  }
  a.Py_DecRef(result);
  return text;
}

}  // namespace

std::string PythonLibrary::call_text(PyObject* fn, const std::string& argument) {
  Api& a = *api;
  Gil gil(a);
  PyObject* args = a.PyTuple_New(1);
  a.PyTuple_SetItem(args, 0, a.PyUnicode_FromString(argument.c_str()));  // steals the reference
  PyObject* r = a.PyObject_CallObject(fn, args);
  a.Py_DecRef(args);
  return result_text(a, r, "the Triton session");
}

std::string PythonLibrary::call_integers(PyObject* fn, const unsigned long long* values, int count) {
  Api& a = *api;
  Gil gil(a);
  PyObject* tuple = a.PyTuple_New(count);
  for (int i = 0; i < count; ++i) a.PyTuple_SetItem(tuple, i, a.PyLong_FromUnsignedLongLong(values[i]));
  PyObject* args = a.PyTuple_New(1);
  a.PyTuple_SetItem(args, 0, tuple);
  PyObject* r = a.PyObject_CallObject(fn, args);
  a.Py_DecRef(args);
  return result_text(a, r, "the Triton entry");
}

void PythonLibrary::call_two(PyObject* fn, unsigned long long x, unsigned long long y) {
  Api& a = *api;
  Gil gil(a);
  PyObject* args = a.PyTuple_New(2);
  a.PyTuple_SetItem(args, 0, a.PyLong_FromUnsignedLongLong(x));
  a.PyTuple_SetItem(args, 1, a.PyLong_FromUnsignedLongLong(y));
  PyObject* r = a.PyObject_CallObject(fn, args);
  a.Py_DecRef(args);
  result_text(a, r, "the Triton session");
}

}  // namespace ptxbench
