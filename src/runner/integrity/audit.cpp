// Audits what the worker observed of the GPU while a candidate was loaded against the integrity rules.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

#include "runner/integrity/observations.h"

namespace ptxbench {

std::string_view to_string(Actor a) {
  switch (a) {
    case Actor::harness: return "harness";
    case Actor::baseline: return "baseline";
    case Actor::candidate_load: return "candidate_load";
    case Actor::candidate_call: return "candidate_call";
    case Actor::candidate_thread: return "candidate_thread";
  }
  return "harness";
}

bool harness_created(const CreatedStream& c) {
  // On the harness's thread outside candidate code: in a section it marked, or in no API call at
  // all (CUPTI's or the driver's own work for the harness). On any other thread: never.
  return c.harness_thread && !is_candidate(c.actor) && (c.marked || c.api.empty());
}

namespace {

constexpr size_t kMaxPerRule = 3;  // enough to say what happened; the count says the rest

// Records of work that never ran (e.g. operations recorded into a graph during stream capture)
// carry no timestamps: they take no part in the timing rules.
bool timed(const DeviceWork& w) { return w.start != 0 && w.end >= w.start; }

struct Index {
  const Observations& o;
  std::unordered_map<uint32_t, const Launch*> launch_of;
  std::map<int, const CallInfo*> call_of;
  std::set<std::string> candidate_functions, foreign_functions;
  std::set<std::pair<uint32_t, uint32_t>> candidate_streams;  // (context, stream) ids of streams the candidate created
  uint64_t t0 = 0;
  // Contexts are compared only where the records bear the given stream's context out (some record
  // on the given stream's id carries it): a context id misread turns the comparison off, never on.
  bool contexts_agree = false;

  explicit Index(const Observations& obs) : o(obs) {
    for (const auto& w : o.work)
      contexts_agree = contexts_agree ||
                       (o.candidate_context != 0 && w.stream == o.candidate_stream && w.context == o.candidate_context);
    for (const auto& c : o.created)
      if (!c.context && c.stream && !harness_created(c)) candidate_streams.insert({c.stream_context, c.stream});
    for (const auto& l : o.launches) launch_of.emplace(l.correlation, &l);
    for (const auto& c : o.calls) call_of.emplace(c.index, &c);
    for (const auto& m : o.modules)
      for (const auto& f : m.functions) (m.candidate_image ? candidate_functions : foreign_functions).insert(f);
    t0 = UINT64_MAX;
    for (const auto& w : o.work)
      if (timed(w)) t0 = std::min(t0, w.start);
    if (t0 == UINT64_MAX) t0 = 0;
  }
  const Launch* launch(uint32_t c) const {
    auto it = launch_of.find(c);
    return it == launch_of.end() ? nullptr : it->second;
  }
  // Who made a call: the harness's call `index`, or a thread of the candidate's own.
  std::string during(Actor actor, int index) const {
    if (actor == Actor::candidate_thread) return "on a thread of the candidate's own, outside the harness's calls";
    return "during " + call_name(index);
  }
  std::string call_name(int index) const {
    auto it = call_of.find(index);
    if (it == call_of.end()) return index < 0 ? "outside any call" : "call #" + std::to_string(index);
    const CallInfo& c = *it->second;
    return std::string(c.actor == Actor::baseline ? "baseline sample" : "candidate call") + " #" +
           std::to_string(c.index) + " (" + c.what + (c.shape.empty() ? "" : ", " + c.shape) + ")";
  }
  std::string at(uint64_t ns) const {
    char b[48];
    std::snprintf(b, sizeof b, "+%.3f ms", (ns - t0) / 1e6);
    return b;
  }
  std::string describe(const DeviceWork& w) const {
    std::string what = w.kind == DeviceWork::Kind::kernel   ? "kernel " + w.name
                       : w.kind == DeviceWork::Kind::memcpy ? std::string("a memory copy")
                                                            : std::string("a memory set");
    return what + " on stream " + std::to_string(w.stream) + " at " + at(w.start) + " for " +
           std::to_string((w.end - w.start) / 1000) + " us";
  }
  // On the given stream: its id, within its context where both are known (stream ids are compared
  // by id, as the records give them, never by handle).
  bool on_given_stream(const DeviceWork& w) const {
    return w.stream == o.candidate_stream && (!contexts_agree || w.context == 0 || w.context == o.candidate_context);
  }
  bool on_candidate_stream(const DeviceWork& w) const {
    for (const auto& [ctx, id] : candidate_streams)
      if (id == w.stream && (ctx == 0 || w.context == 0 || ctx == w.context)) return true;
    return false;
  }
  bool is_candidate_work(const DeviceWork& w) const {
    const Launch* l = launch(w.correlation);
    if (l && is_candidate(l->actor)) return true;
    return w.kind == DeviceWork::Kind::kernel && candidate_functions.count(w.name) && !foreign_functions.count(w.name);
  }
};

class Collector {
 public:
  void add(const std::string& rule, std::string message) {
    auto& n = counts_[rule];
    if (n++ < kMaxPerRule) out_.push_back({rule, std::move(message)});
  }
  std::vector<Violation> finish() {
    for (auto& v : out_) {
      const size_t n = counts_[v.rule];
      if (n > kMaxPerRule &&
          &v == &*std::find_if(out_.begin(), out_.end(), [&](const Violation& x) { return x.rule == v.rule; }))
        v.message += " (and " + std::to_string(n - kMaxPerRule) + " more like it)";
    }
    return std::move(out_);
  }

 private:
  std::vector<Violation> out_;
  std::map<std::string, size_t> counts_;
};

}  // namespace

std::vector<Violation> audit(const Observations& o) {
  Collector v;
  if (!o.active) return {};
  const Index ix(o);

  // Modules: a candidate may only get its own cubins loaded.
  for (const auto& m : o.modules)
    if (is_candidate(m.actor) && !m.candidate_image) {
      std::string fns;
      for (size_t i = 0; i < m.functions.size() && i < 3; ++i) fns += (i ? ", " : "") + m.functions[i];
      v.add("hidden_module", "a module of " + std::to_string(m.bytes) +
                                 " bytes that is not in the candidate's shared object was loaded during " +
                                 ix.call_name(m.call) + (fns.empty() ? "" : " (kernels: " + fns + ")") +
                                 ": code loaded at run time is not the code that was inspected");
    }

  // Work the candidate enqueued, and candidate kernels enqueued by anyone.
  std::set<uint32_t> seen;
  for (const auto& w : o.work) {
    seen.insert(w.correlation);
    const Launch* l = ix.launch(w.correlation);
    // Enqueued while loading, or by a thread of the candidate's own: judged from the launch below.
    if (l && (l->actor == Actor::candidate_load || l->actor == Actor::candidate_thread)) continue;
    if (l && l->actor == Actor::candidate_call) {
      if (!ix.on_given_stream(w))
        v.add("foreign_stream", ix.describe(w) + ", enqueued during " + ix.call_name(l->call) +
                                    ", is not on the given stream " + std::to_string(o.candidate_stream));
      if (w.kind == DeviceWork::Kind::kernel) {
        if (!ix.candidate_functions.count(w.name))
          v.add("foreign_kernel", ix.describe(w) + ", launched during " + ix.call_name(l->call) +
                                      ", is not a kernel of the candidate's own code (a library's or the harness's)");
        else if (ix.foreign_functions.count(w.name))
          v.add("foreign_kernel", ix.describe(w) + ", launched during " + ix.call_name(l->call) +
                                      ", has the name of a kernel that a library or the harness also defines");
      }
      continue;
    }
    // Work no candidate call enqueued, as far as the callbacks could tell who did: on a stream the
    // candidate created, or a kernel of the candidate's own, it is the candidate's all the same.
    const std::string by = l ? "by the " + std::string(to_string(l->actor)) + " (" + l->api + ")"
                             : std::string("by no call the harness saw");
    const bool own_kernel = w.kind == DeviceWork::Kind::kernel && ix.candidate_functions.count(w.name) &&
                            !ix.foreign_functions.count(w.name);
    if (ix.on_candidate_stream(w))
      v.add("foreign_stream", ix.describe(w) + ", enqueued " + by + ", ran on a stream the candidate created");
    else if (own_kernel && !ix.on_given_stream(w))
      v.add("foreign_stream", ix.describe(w) + ", enqueued " + by +
                                  ", is the candidate's kernel on a stream other than the given one " +
                                  std::to_string(o.candidate_stream));
    if (own_kernel)
      v.add("ran_outside_call",
            ix.describe(w) + " is the candidate's kernel but was enqueued " + by + ", not inside a candidate call");
  }

  // Launches: counted calls are judged from the callback (no activity records then); every other
  // kernel launch must have produced its record (otherwise tracing was disabled or lost).
  for (const auto& l : o.launches) {
    const std::string what = l.api + (l.function.empty() ? "" : " of " + l.function);
    if (l.actor == Actor::candidate_load) {
      v.add("gpu_work_at_load",
            what + " was called while the candidate's library was being loaded (GPU work outside any call)");
      continue;
    }
    if (l.actor == Actor::candidate_thread) {
      // Whatever the harness's thread was doing then (a call of the candidate's, a baseline
      // sample, its own work): not a call the harness made.
      v.add("ran_outside_call", what +
                                    " was called on a thread of the candidate's own, not in a call the harness "
                                    "made: GPU work outside any call");
      if (!l.on_given_stream)
        v.add("foreign_stream", what +
                                    " on a thread of the candidate's own enqueued work on a stream other than the "
                                    "given one");
    } else if (is_candidate(l.actor) && !l.on_given_stream && !seen.count(l.correlation)) {
      // Seen at the call, so also work that leaves no activity record (a prefetch, a counted
      // launch) or that would run after the call returned (a record was judged above).
      v.add("foreign_stream",
            what + " during " + ix.call_name(l.call) + " enqueued work on a stream other than the given one");
    }
    if (l.kernel_launch && !l.counted && !seen.count(l.correlation) && o.dropped_records == 0)
      v.add("unaccounted_launch", what + " by the " + std::string(to_string(l.actor)) + " (" + ix.call_name(l.call) +
                                      ") produced no activity record: GPU tracing was disabled or tampered with");
  }

  // Nothing of the candidate's may run while a baseline sample runs.
  struct Span {
    uint64_t start, end;
    int call;
  };
  std::map<int, Span> baseline_spans;
  for (const auto& w : o.work) {
    const Launch* l = ix.launch(w.correlation);
    if (!l || l->actor != Actor::baseline || !timed(w)) continue;
    auto [it, fresh] = baseline_spans.try_emplace(l->call, Span{w.start, w.end, l->call});
    if (!fresh)
      it->second.start = std::min(it->second.start, w.start), it->second.end = std::max(it->second.end, w.end);
  }
  if (!baseline_spans.empty()) {
    std::vector<Span> spans;
    for (auto& [k, s] : baseline_spans) spans.push_back(s);
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
    for (const auto& w : o.work) {
      if (!ix.is_candidate_work(w) || !timed(w)) continue;
      auto it =
          std::upper_bound(spans.begin(), spans.end(), w.end, [](uint64_t t, const Span& s) { return t < s.start; });
      // Spans starting before w ends; the latest of them may overlap, and so may earlier long ones.
      for (auto s = spans.begin(); s != it; ++s)
        if (s->end > w.start) {
          v.add("overlaps_baseline", ix.describe(w) + " ran during " + ix.call_name(s->call) + " (" + ix.at(s->start) +
                                         " to " + ix.at(s->end) +
                                         "): the library's time would include the candidate's work");
          break;
        }
    }
  }

  // API calls that ran although forbidden (refused entry points are reported, not violations).
  for (const auto& e : o.api_events)
    if (!e.refused) v.add("forbidden_api", e.api + " was called by the candidate " + ix.during(e.actor, e.call));

  // Streams and contexts, however created (the resource callback sees every route), unless the
  // harness created them itself.
  for (const auto& c : o.created) {
    if (harness_created(c)) continue;
    const std::string what = c.context ? std::string("a context")
                                       : "a stream" + (c.stream ? " (stream " + std::to_string(c.stream) + ")" : "");
    const std::string who = c.actor == Actor::candidate_thread ? "on a thread of the candidate's own"
                            : is_candidate(c.actor)
                                ? "by the candidate during " + ix.call_name(c.call)
                                : "on the harness's thread outside any section where the harness creates "
                                  "its own (candidate code outside a call: a signal handler, a destructor)";
    v.add("forbidden_api", what + " was created (" + (c.api.empty() ? "in no API call" : "in " + c.api) + ") " + who +
                               ": the candidate may create no stream or context, by any route");
  }

  // The kernels a counted call ran must be those the timed calls of the same shape ran.
  std::map<int, std::set<std::string>> kernels_of_call;
  for (const auto& c : o.calls)
    if (c.counted) kernels_of_call[c.index].insert(c.counted_kernels.begin(), c.counted_kernels.end());
  for (const auto& w : o.work) {
    const Launch* l = ix.launch(w.correlation);
    if (l && l->actor == Actor::candidate_call && w.kind == DeviceWork::Kind::kernel)
      kernels_of_call[l->call].insert(w.name);
  }
  auto list = [](const std::set<std::string>& s) {
    std::string out;
    for (const auto& k : s) out += (out.empty() ? "" : ", ") + k;
    return out.empty() ? std::string("none") : out;
  };
  // A timed call of `shape` that ran other kernels than the counted call (of this worker, or of the
  // job's first worker: `where`) is a violation; the first one found is named.
  auto compare = [&](const std::string& shape, const std::set<std::string>& want, const std::string& where) {
    for (const auto& timed : o.calls) {
      if (timed.counted || timed.what != "timing" || timed.shape != shape || timed.actor != Actor::candidate_call)
        continue;
      const auto& got = kernels_of_call[timed.index];
      if (got == want) continue;
      v.add("counted_call_differs", "on " + shape + " the call whose instructions were counted" + where + " ran {" +
                                        list(want) + "} but timed call #" + std::to_string(timed.index) + " ran {" +
                                        list(got) + "}");
      return;
    }
  };
  for (const auto& counted : o.calls)
    if (counted.counted) compare(counted.shape, kernels_of_call[counted.index], "");
  for (const auto& counted : o.earlier_counted)
    compare(counted.shape, {counted.kernels.begin(), counted.kernels.end()}, " (in the first worker)");
  return v.finish();
}

}  // namespace ptxbench
