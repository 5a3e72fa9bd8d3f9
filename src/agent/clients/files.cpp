// files:DIR answers each turn with a candidate file from DIR: DIR/<problem>/<trajectory>/<turn>.cu,
// trajectory and turn numbered from 0 (as everywhere in the run store), e.g. DIR/gemm/0/1.cu is
// the second turn of the first GEMM trajectory. The file comes back as the reply's only code
// block. A <turn>.md instead is the whole reply as written (prose and fenced code: a model, or a
// Fixit teacher, that explains its kernel). A folder DIR/<problem>/all/ answers every trajectory
// of the problem that has no folder of its own. A missing <turn> file in an existing trajectory
// folder is a reply without code (the turn is counted with state no_code); a missing problem or
// trajectory folder is an error that stops the run, naming the folder.
// Arguments: latency_ms=N (wait before answering, to stand in for a model's latency).
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "agent/clients/client_args.h"
#include "core/code_fence.h"

namespace ptxbench {
namespace {
namespace fs = std::filesystem;

class FilesClient final : public ModelClient {
 public:
  explicit FilesClient(const ClientConfig& c) : dir_(c.model) {
    require_known_args(c, {"latency_ms"});
    latency_ms_ = millis_arg(c, "latency_ms");
    if (!fs::is_directory(dir_))
      throw InputError("files:" + dir_.string() +
                       ": not a folder (expected DIR/<problem>/<trajectory>/<turn>.cu, numbered from 0)");
  }

  std::string provider() const override { return "files"; }
  std::string model() const override { return dir_.string(); }

  ChatReply complete(const ChatRequest& request, const StatusFn&) override {
    const auto t0 = std::chrono::steady_clock::now();
    if (latency_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(latency_ms_));
    fs::path folder = dir_ / request.at.problem / std::to_string(request.at.trajectory);
    if (!fs::is_directory(folder) && fs::is_directory(dir_ / request.at.problem / "all"))
      folder = dir_ / request.at.problem / "all";
    if (!fs::is_directory(folder))
      throw InputError("files:" + dir_.string() + ": no folder " + folder.string() + " for problem " +
                       request.at.problem + ", trajectory " + std::to_string(request.at.trajectory) +
                       " (the layout is DIR/<problem>/<trajectory>/<turn>.cu, numbered from 0)");
    const fs::path markdown = folder / (std::to_string(request.at.turn) + ".md");
    const bool as_written = fs::is_regular_file(markdown);
    // <turn>.cu is answered in a cuda block, <turn>.py (a Triton candidate) in a python block.
    fs::path file = as_written ? markdown : folder / (std::to_string(request.at.turn) + ".cu");
    if (!as_written && !fs::exists(file) && fs::is_regular_file(folder / (std::to_string(request.at.turn) + ".py")))
      file = folder / (std::to_string(request.at.turn) + ".py");
    const std::string tag = file.extension() == ".py" ? "python" : "cuda";
    ChatReply reply;
    reply.outcome = ProviderOutcome::ok;
    reply.finish_reason = "stop";
    reply.model = "files";
    reply.attempts = 1;
    if (!fs::is_regular_file(file)) {
      reply.content = "(files: there is no " + file.string() + " for this turn)\n";
    } else {
      std::ifstream in(file, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      std::string text = ss.str();
      if (!text.empty() && text.back() != '\n') text += '\n';
      const std::string fence = code_fence_for(text);
      reply.content = as_written ? text
                                 : "Candidate file " + file.filename().string() + ":\n\n" + fence + tag + "\n" + text +
                                       fence + "\n";
    }
    reply.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return reply;
  }

  ValidateResult validate() override {
    std::string problems;
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.is_directory()) problems += (problems.empty() ? "" : ", ") + e.path().filename().string();
    return {true, "files: " + dir_.string() + " holds folders for: " + (problems.empty() ? "nothing" : problems)};
  }

 private:
  fs::path dir_;
  long long latency_ms_ = 0;
};

std::unique_ptr<ModelClient> make_files_client(const ClientConfig& c) { return std::make_unique<FilesClient>(c); }

}  // namespace

PTXBENCH_REGISTER_CLIENT("files", make_files_client);

}  // namespace ptxbench
