// The teacher's prompts (fixit-teacher/1, fixit-explain/1): the failed reply, the feedback, prior fixes.
#include "fixit/teacher_prompt.h"

#include "agent/extractor.h"
#include "core/code_fence.h"

namespace ptxbench::fixit {
namespace {

std::string quoted(const std::string& text) {
  const std::string f = code_fence_for(text);
  return f + "text\n" + text + (text.ends_with("\n") ? "" : "\n") + f + "\n";
}

std::string system_text(const TeacherContext& c, const char* task) {
  std::string s =
      std::string("You are an expert GPU kernel engineer and a patient teacher. ") + task +
      " The kernel must follow the problem's C ABI exactly, use only the CUDA runtime and driver (no cuBLAS, "
      "cuDNN or other libraries), run all its work on the given stream, and use the target instructions the "
      "problem names.";
  if (!c.student_system.empty()) s += "\n\nThe model you are teaching was given this context:\n\n" + c.student_system;
  return s;
}

std::string situation(const TeacherContext& c) {
  std::string u = "## The problem, as the model saw it\n\n" + c.problem_prompt + "\n\n";
  if (!c.failed_reply.empty()) {
    u += "## The model's reply (it failed)\n\n" + quoted(c.failed_reply) + "\n";
    u += "## The harness's feedback on it (error class: " + c.error_class + ")\n\n" + quoted(c.feedback) + "\n";
  }
  return u;
}

}  // namespace

ChatRequest fix_request(const TeacherContext& c, const std::vector<FixAttemptMemory>& earlier) {
  ChatRequest r;
  r.system = system_text(c, "You explain why a model's CUDA kernel failed and write the corrected kernel.");
  std::string u = situation(c);
  u +=
      "## Your task\n\nFirst explain, in a few short paragraphs, what was wrong with the model's kernel and how to fix "
      "it: "
      "name the cause the feedback points to, not only the symptom. Then give the complete corrected file (every line, "
      "ready to compile) in one ```cuda block. Write nothing after the block.\n";
  r.messages.push_back({"user", u});
  for (const auto& e : earlier) {
    r.messages.push_back({"assistant", e.reply});
    r.messages.push_back(
        {"user", "The harness judged your corrected file:\n\n" + quoted(e.feedback) +
                     "\nIt is not fixed yet. Explain what was still wrong, then give the complete corrected "
                     "file in one ```cuda block.\n"});
  }
  return r;
}

ChatRequest explain_request(const TeacherContext& c, const std::string& fixed_kernel,
                            const std::string& feedback_on_fix) {
  ChatRequest r;
  const bool kernelgen = c.failed_reply.empty();
  r.system =
      system_text(c, kernelgen ? "You explain how a verified CUDA kernel solves a problem."
                               : "You explain why a model's CUDA kernel failed and how a verified fix corrects it.");
  std::string u = situation(c);
  u += std::string(kernelgen ? "## A verified kernel for this problem\n\n"
                             : "## A verified fix (the harness judged it correct)\n\n") +
       "```cuda\n" + fixed_kernel + (fixed_kernel.ends_with("\n") ? "" : "\n") +
       "```\n\n## The harness's judgment of it\n\n" + quoted(feedback_on_fix) + "\n## Your task\n\n" +
       (kernelgen
            ? "Explain, in a few short paragraphs, how this kernel computes the result and why its use of the target "
              "instructions is correct and fast. Write no code."
            : "Explain, in a few short paragraphs, what was wrong with the model's kernel and what the verified fix "
              "changes to correct it: name the cause the feedback points to, not only the symptom. Write no code.") +
       "\n";
  r.messages.push_back({"user", u});
  return r;
}

TeacherAnswer read_fix_reply(const std::string& content, const std::string& entry_symbol) {
  TeacherAnswer a;
  const ExtractedCode code = extract_code(content, entry_symbol);
  a.explanation = code.prose;
  if (!code.found) {
    a.why_malformed = "no code block in the teacher's reply (" + code.rule + ")";
    return a;
  }
  a.has_code = true;
  a.kernel = code.code;  // an unclosed block (a cut-off reply) is judged like any other: the harness decides
  return a;
}

}  // namespace ptxbench::fixit
