// What the teacher is asked, versioned (the version is stored with every teacher call and record,
// so records made under different prompts are never mixed unknowingly):
//   fixit-teacher/1  fix: the problem as the model saw it, the failed reply, the harness's exact
//                    feedback; on a retry also the teacher's previous fix and its feedback. Asked for
//                    an explanation of what was wrong, then the complete fixed file in one block.
//   fixit-explain/1  explain a fix already verified (the trajectory's own later turn, or a correct
//                    kernel for KernelGen): the explanation alone; code in the reply is ignored.
// The teacher's system text is its role, then the system text the model saw (its knowledge pack),
// so the teacher knows the helpers the kernel may include.
#pragma once
#include <string>
#include <vector>

#include "agent/clients/model_client.h"

namespace ptxbench::fixit {

inline constexpr const char* kTeacherPromptVersion = "fixit-teacher/1";
inline constexpr const char* kExplainPromptVersion = "fixit-explain/1";

struct FixAttemptMemory {
  std::string reply;     // the teacher's earlier reply
  std::string feedback;  // the harness's feedback on its fix
};

struct TeacherContext {
  std::string student_system;  // the system text the model saw ("" when unknown)
  std::string problem_prompt;  // the problem statement as the model saw it
  std::string failed_reply;    // the model's reply holding the failing kernel
  std::string feedback;        // the feedback it got
  std::string error_class;     // e.g. "incorrect", for the teacher's instructions
};

ChatRequest fix_request(const TeacherContext& c, const std::vector<FixAttemptMemory>& earlier);
// `fixed_kernel` verified; `feedback_on_fix` what the harness said about it. KernelGen: failed_reply empty.
ChatRequest explain_request(const TeacherContext& c, const std::string& fixed_kernel,
                            const std::string& feedback_on_fix);

// A reply's explanation and kernel (the extractor's rule, agent/extractor.h).
struct TeacherAnswer {
  bool has_code = false;
  std::string kernel;         // the chosen block
  std::string explanation;    // the prose outside every code block
  std::string why_malformed;  // "" when usable
};
TeacherAnswer read_fix_reply(const std::string& content, const std::string& entry_symbol);

}  // namespace ptxbench::fixit
