// A problem's statement for a Triton candidate. problems/<name>/triton/prompt.md when the problem
// has one (placeholders as prompt.md's, plus {{triton_signature}}, {{triton_arguments}} and
// {{triton_rules}}); otherwise derived from the CUDA prompt.md, so the problem's prose (the math,
// layouts, constraints, target, shapes) is written once: its C signature block becomes the Python
// signature with the arguments, its "Rules:" list the Triton rules, and its cudaMalloc sentence the
// buffers' description. A prompt.md whose signature block or rules list is missing is an InputError
// naming the file: a Triton prompt is never half CUDA.
#include <regex>
#include <sstream>

#include "agent/problem_prompt.h"
#include "core/error.h"
#include "problems/triton_abi.h"

namespace ptxbench {
namespace {

std::string signature_block(const ProblemSpec& p, const TritonAbi& abi) {
  return "```python\ndef " + abi.signature(p.entry) + ":\n    ...\n```\n";
}

std::string arguments_text(const ProblemSpec& p, const TritonAbi& abi) {
  std::ostringstream o;
  o << "The arguments, in this order:\n\n";
  for (const auto& a : abi.arguments) {
    if (a.is_buffer()) {
      std::string shape;
      for (const auto& d : a.shape) shape += (shape.empty() ? "" : ", ") + d;
      o << "- `" << a.name << "`: a device buffer of `" << a.dtype << "`, shape `[" << shape
        << "]`, contiguous and row-major" << (a.output ? " (an output)" : "") << "\n";
    } else {
      o << "- `" << a.name << "`: a Python int" << (a.value.empty() ? "" : " (" + a.value + ")") << "\n";
    }
  }
  o << "- `stream`: the CUDA stream as an int; the harness makes it the current stream, so launch with "
       "`kernel[grid](...)` and never pick another\n\n"
       "A device buffer can be passed to a `@triton.jit` kernel as a pointer; it also has `.shape`, `.stride(i)`, "
       "`.dtype`, `.data_ptr()` and `.numel()`. It is not a torch tensor: no tensor operations.\n";
  (void)p;
  return o.str();
}

std::string rules_text() {
  return "Rules:\n"
         "- All the work is done by your own `@triton.jit` kernels, launched from the entry function on the current "
         "stream.\n"
         "- Import only `triton`, `triton.language`, `math` and `typing`; of `triton` use only `triton.jit`, "
         "`triton.cdiv`, `triton.next_power_of_2` and `triton.language` (no torch, numpy, ctypes or other modules; no "
         "autotuning, no `triton.runtime`, `triton.compiler`, `triton.testing` or allocator setting).\n"
         "- The file is read by an allowlist: in the entry and helper functions use only your parameters' `.shape`, "
         "`.dtype`, `.stride()`, `.size()`, `.numel()`, `.element_size()`, `.data_ptr()`, the names of `triton`, "
         "`triton.language` and `math`, your own names, and the builtins `abs`, `bool`, `float`, `int`, `len`, `max`, "
         "`min`, `print`, `range`, `str`; module-level names hold constants only; no classes, `with`, `try`, "
         "comprehensions, decorators other than `@triton.jit`, dunder names, string subscripts (but `meta[\"NAME\"]` "
         "in a grid lambda), or attribute/item assignment; launch only as a `kernel[grid](...)` statement.\n"
         "- Do not keep results between calls; the inputs must be left unchanged.\n"
         "- The file is compiled by Triton's compiler for the target below; set `num_warps` and `num_stages` at the "
         "launch as you need.\n";
}

// The C signature block: "Write a CUDA C++ file that implements\n\n```c\n...\n```\n".
const std::regex& c_signature() {
  static const std::regex r(R"(Write a CUDA C\+\+ file that implements\s*```c\n[\s\S]*?\n```\n)");
  return r;
}
// The rules list: "Rules:\n" and its "- " items (with indented continuation lines).
const std::regex& rules_list() {
  static const std::regex r(R"(Rules:\n(?:(?:- |  )[^\n]*\n)+)");
  return r;
}

}  // namespace

std::string render_triton_problem_prompt(const ProblemSpec& p, const std::string& arch) {
  const auto abi = load_triton_abi(p);
  if (!abi)
    throw InputError("problem '" + p.name + "' has no Triton interface (problems/" + p.name + "/triton/abi.toml)");
  const std::map<std::string, std::string> more{{"triton_signature", signature_block(p, *abi)},
                                                {"triton_arguments", arguments_text(p, *abi)},
                                                {"triton_rules", rules_text()}};
  const auto own = p.dir / "triton" / "prompt.md";
  if (std::filesystem::exists(own)) return render_prompt_template(read_prompt_file(own), own, p, arch, more);

  std::string text = read_prompt_file(p.prompt_file());
  const std::string where =
      p.prompt_file().string() + " (deriving the Triton prompt; or write problems/" + p.name + "/triton/prompt.md)";
  if (!std::regex_search(text, c_signature()))
    throw InputError(where + ": no \"Write a CUDA C++ file that implements\" signature block");
  if (!std::regex_search(text, rules_list())) throw InputError(where + ": no \"Rules:\" list");
  text = std::regex_replace(text, c_signature(),
                            "Write one Python file with Triton kernels that implements\n\n{{triton_signature}}",
                            std::regex_constants::format_first_only);
  text = std::regex_replace(text, rules_list(), "{{triton_rules}}", std::regex_constants::format_first_only);
  text = std::regex_replace(text, std::regex(R"(Pointers are device pointers from\s+`cudaMalloc`\.)"),
                            "Buffers are device memory, given as described below.");
  // The arguments go after the problem's prose, before the rules.
  const size_t rules = text.find("{{triton_rules}}");
  text.insert(rules, "{{triton_arguments}}\n");
  return render_prompt_template(text, p.prompt_file(), p, arch, more);
}

}  // namespace ptxbench
