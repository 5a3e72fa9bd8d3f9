// The Fixit tables of the result schema (builds, records, items) read from the workspace's Fixit store.
#include "report/fixit_tables.h"

#include <map>
#include <tuple>

#include "core/error.h"
#include "report/paper_layout.h"
#include "store/fixit_record.h"

namespace ptxbench::report {

DbStatus add_fixit_tables(FixitStore& store, const std::vector<std::string>& wanted, bool items_table, Report* out) {
  std::vector<FixitBuildRow> builds;
  if (wanted.empty()) {
    if (auto s = store.list_builds(&builds); !s.ok) return s;
  } else {
    for (const auto& id : wanted) {
      FixitBuildRow b;
      if (auto s = store.get_build(id, &b); !s.ok) return s;
      builds.push_back(std::move(b));
    }
  }
  Table tb{
      "fixit_builds", "Fixit builds", "one row per build: what it read, what it made, what its teacher cost", {}, {}};
  tb.fields = {{"build", FieldType::string, "", "the build's id"},
               {"recipe", FieldType::string, "", "the recipe (recipes/<name>.toml)"},
               {"template", FieldType::string, "", "fixit or kernelgen"},
               {"teacher", FieldType::string, "", "PROVIDER:MODEL, or empty for trajectory fixes only"},
               {"status", FieldType::string, "", "complete, stopped (resumable) or running"},
               {"turns_read", FieldType::integer, "turns", "turns read from the sources"},
               {"items", FieldType::integer, "items", "turns the selection looked at"},
               {"pending", FieldType::integer, "items", "not fixed yet (run the build again)"},
               {"records", FieldType::integer, "records", "judged fixes kept as records"},
               {"in_dataset", FieldType::integer, "records", "records post-balancing kept (what export writes)"},
               {"dropped", FieldType::integer, "items", "no fix found within the recipe's attempts"},
               {"refused", FieldType::integer, "items", "held out by the suite"},
               {"skipped", FieldType::integer, "items", "outside the recipe, duplicates, per-trajectory limit, caps"},
               {"teacher_calls", FieldType::integer, "calls",
                "teacher calls behind the build, retries and explanations included"},
               {"teacher_cost_usd", FieldType::number, "USD", "their cost (null without prices)"},
               {"created_at", FieldType::string, "", "when the build was first run"}};
  Table tr{"fixit_records",
           "Fixit records",
           "records per build, problem, error class, fix source and teacher (Fig. 4)",
           {},
           {}};
  tr.fields = {{"build", FieldType::string, "", "the build's id"},
               {"recipe", FieldType::string, "", "the recipe"},
               {"problem", FieldType::string, "", "the problem"},
               {"split", FieldType::string, "", "the problem's split in the recipe's suite"},
               {"error_class", FieldType::string, "", "the failing turn's class (kernelgen for KernelGen records)"},
               {"fix_source", FieldType::string, "", "trajectory (a later turn) or teacher"},
               {"teacher", FieldType::string, "", "the teacher model and prompt version, or none"},
               {"records", FieldType::integer, "records", "records"},
               {"in_dataset", FieldType::integer, "records", "of those, kept by post-balancing"}};
  Table ti{"fixit_items", "Fixit items", "items per build, problem, status and reason", {}, {}};
  ti.fields = {{"build", FieldType::string, "", "the build's id"},
               {"problem", FieldType::string, "", "the problem"},
               {"status", FieldType::string, "", "pending, record, dropped, refused, skipped"},
               {"reason", FieldType::string, "", "the reason's kind (held_out, duplicate, no fix, teacher, ...)"},
               {"items", FieldType::integer, "items", "items"}};
  for (const auto& b : builds) {
    std::vector<FixitItemRow> items;
    if (auto s = store.load_items(b.id, &items); !s.ok) return s;
    std::vector<FixitRecordRow> records;
    if (auto s = store.load_records(b.id, &records); !s.ok) return s;
    std::vector<FixitAttemptRow> attempts;
    if (auto s = store.load_all_attempts(b.id, &attempts); !s.ok) return s;
    std::map<std::string, long long> status;
    std::map<std::tuple<std::string, std::string, std::string>, long long> item_rows;
    for (const auto& i : items) {
      ++status[i.status];
      std::string why = i.reason.substr(0, i.reason.find(':'));
      ++item_rows[{i.problem, i.status, why}];
    }
    long long calls = 0, in_dataset = 0;
    std::optional<double> cost;
    for (const auto& a : attempts)
      if (a.kind != "trajectory") {
        ++calls;
        if (a.cost_usd) cost = cost.value_or(0) + *a.cost_usd;
      }
    std::map<std::tuple<std::string, std::string, std::string, std::string, std::string>,
             std::pair<long long, long long>>
        rec_rows;
    for (const auto& r : records) {
      in_dataset += r.in_dataset;
      FixitRecord f;
      try {
        f = fixit_record_from_json(r.record, "record " + r.item_key);
      } catch (const InputError&) {
        f = FixitRecord{};  // a malformed record is counted, its fields blank
      }
      auto& row = rec_rows[{f.problem, f.split, f.error_class.value_or("kernelgen"), f.fix_source,
                            f.teacher_model ? *f.teacher_model + " (" + f.teacher_prompt_version.value_or("") + ")"
                                            : std::string("none")}];
      ++row.first;
      row.second += r.in_dataset;
    }
    tb.add({b.id, b.recipe_name, b.template_kind, b.teacher, b.status, b.config.value("turns_read", 0LL),
            static_cast<long long>(items.size()), status["pending"], static_cast<long long>(records.size()), in_dataset,
            status["dropped"], status["refused"], status["skipped"], calls, opt(cost), b.created_at});
    for (const auto& [k, v] : rec_rows)
      tr.add({b.id, b.recipe_name, std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), std::get<4>(k),
              v.first, v.second});
    for (const auto& [k, n] : item_rows) ti.add({b.id, std::get<0>(k), std::get<1>(k), std::get<2>(k), n});
  }
  out->add(std::move(tb));
  out->add(std::move(tr));
  if (items_table) out->add(std::move(ti));
  return {};
}

namespace {

// The Fixit builds among a report's inputs (cli/cmd_report.cpp adds them): shown as they are.
std::vector<Grid> fixit_grids(const Report& r) {
  std::vector<Grid> out;
  for (const char* name : {"fixit_builds", "fixit_records"})
    if (const Table* t = r.table(name)) out.push_back(plain_grid(*t, {}));
  return out;
}

PTXBENCH_REGISTER_TEXT_SECTION(120, fixit_grids);

}  // namespace

}  // namespace ptxbench::report
