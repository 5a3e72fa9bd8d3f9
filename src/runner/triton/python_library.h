// The Python interpreter of the Triton toolchain, loaded into the worker at run time (dlopen of its
// libpython with RTLD_GLOBAL, so Triton's C extensions resolve against it): the worker links no
// Python, and one worker binary serves whichever Python 3 has Triton on the host. Only the few
// functions of the stable C API the Triton session needs are looked up.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace ptxbench {

using PyObject = void;

struct PythonLibrary {
  // Loads `library` (e.g. .../libpython3.12.so.1.0) and starts the interpreter with `home` as its
  // prefix (PYTHONHOME) and `path` as sys.path, without signal handlers and without the user's
  // site folder. Throws Error naming the library and what is missing, or when this process already
  // runs an interpreter (one per process). The GIL is released on return.
  PythonLibrary(const std::filesystem::path& library, const std::string& home, const std::vector<std::string>& path);

  // The attribute `name` of module `module` (a new reference); throws Error with Python's message.
  PyObject* function(const std::string& module, const std::string& name);
  // Calls `fn` with one string; the result as text ("" for None). Throws Error with Python's message.
  std::string call_text(PyObject* fn, const std::string& argument);
  // Calls `fn` with one tuple of unsigned integers; "" for None, else the text it returned.
  std::string call_integers(PyObject* fn, const unsigned long long* values, int count);
  // Calls `fn` with two unsigned integers; throws Error with Python's message.
  void call_two(PyObject* fn, unsigned long long a, unsigned long long b);

  struct Api;
  Api* api = nullptr;
};

}  // namespace ptxbench
