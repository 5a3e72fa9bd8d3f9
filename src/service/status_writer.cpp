// Writes a running engine's state to <workspace>/service/status.json every second.
#include "service/status_writer.h"

#include <unistd.h>

#include <fstream>

#include "core/timestamp.h"
#include "service/health/nvml_library.h"

namespace ptxbench {
namespace fs = std::filesystem;

fs::path service_status_file(const fs::path& workspace) { return workspace / "service" / "status.json"; }

ServiceStatusWriter::ServiceStatusWriter(fs::path workspace, std::vector<int> devices, std::function<json()> snapshot)
    : workspace_(std::move(workspace)), devices_(std::move(devices)), snapshot_(std::move(snapshot)) {
  thread_ = std::thread([this] { loop(); });
}

ServiceStatusWriter::~ServiceStatusWriter() {
  stop_ = true;
  thread_.join();
  write_now();
}

json ServiceStatusWriter::nvml_busy() const {
  std::lock_guard lock(mu_);
  json out = json::object();
  for (const auto& [d, v] : util_)
    out[std::to_string(d)] = {{"mean_utilization", v.second ? v.first / v.second / 100.0 : 0.0}, {"samples", v.second}};
  return out;
}

void ServiceStatusWriter::write_now() {
  json s = snapshot_();
  s["pid"] = getpid();
  s["written_at"] = utc_timestamp_ms();
  s["nvml_busy"] = nvml_busy();
  if (!NvmlLibrary::instance().available()) s["nvml"] = NvmlLibrary::instance().error();
  std::error_code ec;
  const fs::path file = service_status_file(workspace_);
  fs::create_directories(file.parent_path(), ec);
  const fs::path tmp = file.string() + ".tmp-" + std::to_string(getpid());
  {
    std::ofstream out(tmp);
    out << s.dump(2) << "\n";
  }
  fs::rename(tmp, file, ec);
}

void ServiceStatusWriter::loop() {
  int tick = 0;
  while (!stop_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    for (int d : devices_)
      if (auto u = NvmlLibrary::instance().gpu_utilization_percent(static_cast<unsigned>(d))) {
        std::lock_guard lock(mu_);
        util_[d].first += *u;
        ++util_[d].second;
      }
    if (++tick % 4 == 0) write_now();
  }
}

}  // namespace ptxbench
