// One printer per format over the same result schema (result_schema.h). Each returns the whole
// document; print_html also needs the drill-down detail and plotly.min.js (print_html.h).
#pragma once
#include <string>
#include <vector>

#include "report/result_schema.h"

namespace ptxbench::report {

enum class Format { table, md, csv, json, jsonl, html };
std::string_view to_string(Format f);
// InputError naming the allowed formats when `s` is not one of them.
Format parse_format(const std::string& s, const std::vector<Format>& allowed);

std::string print_table(const Report& r);     // terminal: aligned columns (print_table.cpp)
std::string print_markdown(const Report& r);  // print_markdown.cpp
std::string print_csv(const Report& r);       // every table: a "table" column first, a blank line between tables
std::string print_json(const Report& r);      // to_json(report), indented
std::string print_jsonl(const Report& r);     // one line per row: {"table": name, field: value, ...}

// Only the named tables (InputError naming the report's tables for an unknown one).
Report select_tables(const Report& r, const std::vector<std::string>& names);

}  // namespace ptxbench::report
