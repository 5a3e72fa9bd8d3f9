// The metric tables' registry (rank order) and the helpers their rows are made with: groups, rates, intervals.
#include "report/metric_table.h"

#include <algorithm>

#include "core/error.h"

namespace ptxbench::report {
namespace {

struct Entry {
  int rank;
  MetricTableBuilder build;
};

std::vector<Entry>& registry() {
  static std::vector<Entry> r;
  return r;
}

const std::vector<Field>& group_fields() {
  static const std::vector<Field> f = {
      {"group", FieldType::string, "", "the group's label (its grouped dimensions)"},
      {"arch", FieldType::string, "", "target architecture (* = pooled)"},
      {"language", FieldType::string, "", "the candidates' language, cuda or triton (* = pooled)"},
      {"gpu", FieldType::string, "", "GPUs the group's turns ran on"},
      {"model", FieldType::string, "", "PROVIDER:MODEL (* = pooled)"},
      {"knowledge", FieldType::string, "", "prompt knowledge components (* = pooled)"},
      {"run", FieldType::string, "", "run id (* = pooled)"},
      {"split", FieldType::string, "", "train / held-out split (* = pooled; empty = none)"},
      {"problem", FieldType::string, "", "problem (* = pooled)"},
  };
  return f;
}

}  // namespace

MetricTableRegistrar::MetricTableRegistrar(int rank, MetricTableBuilder build) { registry().push_back({rank, build}); }

std::vector<Table> build_metric_tables(const MetricInput& in) {
  std::vector<Entry> ordered = registry();
  std::stable_sort(ordered.begin(), ordered.end(), [](const Entry& a, const Entry& b) { return a.rank < b.rank; });
  std::vector<Table> out;
  for (size_t i = 0; i < ordered.size(); ++i) {
    if (i > 0 && ordered[i].rank == ordered[i - 1].rank)
      throw Error("two tables of the metrics report share rank " + std::to_string(ordered[i].rank) +
                  ": give each its own");
    if (auto t = ordered[i].build(in)) out.push_back(std::move(*t));
  }
  return out;
}

Table plain_table(std::string name, std::string title, std::string description, std::vector<Field> fields) {
  Table t;
  t.name = std::move(name), t.title = std::move(title), t.description = std::move(description);
  t.fields = std::move(fields);
  return t;
}

Table grouped_table(std::string name, std::string title, std::string description, std::vector<Field> fields) {
  Table t = plain_table(std::move(name), std::move(title), std::move(description), group_fields());
  for (auto& f : fields) t.fields.push_back(std::move(f));
  return t;
}

std::vector<Value> with_group(const metrics::Group& g, std::vector<Value> rest) {
  using metrics::Dim;
  std::vector<Value> out = {g.label,
                            g.value(Dim::arch),
                            g.value(Dim::language),
                            g.gpu,
                            g.value(Dim::model),
                            g.value(Dim::knowledge),
                            g.value(Dim::run),
                            g.value(Dim::split),
                            g.value(Dim::problem)};
  for (auto& x : rest) out.push_back(std::move(x));
  return out;
}

Value rate_value(const metrics::Rate& r) { return opt(r.value()); }
Value interval_lo(const std::optional<metrics::Interval>& i) { return i ? Value(i->lo) : Value(); }
Value interval_hi(const std::optional<metrics::Interval>& i) { return i ? Value(i->hi) : Value(); }

}  // namespace ptxbench::report
