// The published instruction rates; see instruction_rates.h.

#include "analysis/sections/instruction_rates.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis {
namespace {

using Json = nlohmann::json;

// Collects the first problem of a parse; every reader below returns a
// default value once there is one, and the caller reports it.
class Problems {
 public:
  explicit Problems(std::string_view path) : path_(path) {}
  void Add(const std::string& where, const std::string& what) {
    if (first_.empty()) first_ = absl::StrCat(path_, ": ", where, " ", what);
  }
  bool ok() const { return first_.empty(); }
  absl::Status status() const { return absl::InvalidArgumentError(first_); }

  // Member `key` of `j` as a non-empty string; "" (and a problem when
  // `required`) where it is absent.
  std::string Text(const Json& j, const char* key, const std::string& where, bool required) {
    const auto it = j.find(key);
    if (it == j.end()) {
      if (required) Add(where, absl::StrCat("needs a non-empty string \"", key, "\""));
      return "";
    }
    if (!it->is_string() || it->get<std::string>().empty()) {
      Add(where, absl::StrCat("\"", key, "\" must be a non-empty string"));
      return "";
    }
    return it->get<std::string>();
  }

  // Member `key` of `j` as an array, empty (with a problem) otherwise.
  const Json& Array(const Json& j, const char* key, const std::string& where) {
    static const Json* const kEmpty = new Json(Json::array());
    const auto it = j.find(key);
    if (it == j.end() || !it->is_array() || it->empty()) {
      Add(where, absl::StrCat("needs a non-empty array \"", key, "\""));
      return *kEmpty;
    }
    return *it;
  }

 private:
  std::string path_;
  std::string first_;
};

// The first of `items` whose `field` is `value`, nullptr if none.
template <class T>
const T* FindBy(const std::vector<T>& items, std::string T::*field, std::string_view value) {
  for (const T& item : items) {
    if (item.*field == value) return &item;
  }
  return nullptr;
}

void ParseSources(const Json& j, Problems& problems, InstructionRates& rates) {
  for (const Json& s : problems.Array(j, "sources", "the file")) {
    const std::string where = absl::StrCat("source ", rates.sources.size() + 1);
    InstructionRateSource source;
    for (auto [field, key] : {std::pair{&source.key, "key"},
                              {&source.publisher, "publisher"},
                              {&source.title, "title"},
                              {&source.where, "where"},
                              {&source.url, "url"},
                              {&source.transcription, "transcription"}}) {
      *field = problems.Text(s, key, where, true);
    }
    rates.sources.push_back(std::move(source));
  }
}

void ParseRows(const Json& j, Problems& problems, InstructionRates& rates) {
  for (const Json& r : problems.Array(j, "rows", "the file")) {
    const std::string where = absl::StrCat("row ", rates.rows.size() + 1);
    InstructionRateRow row;
    row.id = problems.Text(r, "id", where, true);
    row.row = problems.Text(r, "row", where, true);
    row.source = problems.Text(r, "source", where, true);
    if (!row.source.empty() && rates.Source(row.source) == nullptr) {
      problems.Add(where, absl::StrCat("names unknown source \"", row.source, "\""));
    }
    if (rates.Row(row.id) != nullptr) problems.Add(where, absl::StrCat("repeats id ", row.id));
    const auto columns = r.find("rates");
    if (columns == r.end() || !columns->is_object() || columns->empty()) {
      problems.Add(where, "needs an object \"rates\" of compute capability: results per clock");
    } else {
      for (const auto& [cc, value] : columns->items()) {
        if (!value.is_number() || value.get<double>() <= 0) {
          problems.Add(where, absl::StrCat("rate of ", cc, " must be a number > 0"));
        } else {
          row.rates[cc] = value.get<double>();
        }
      }
    }
    rates.rows.push_back(std::move(row));
  }
}

void ParseOps(const Json& j, Problems& problems, InstructionRates& rates) {
  for (const Json& o : problems.Array(j, "ops", "the file")) {
    const std::string where = absl::StrCat("op ", rates.ops.size() + 1);
    InstructionOpRate op;
    op.op = problems.Text(o, "op", where, true);
    op.row = problems.Text(o, "row", where, false);
    op.note = problems.Text(o, "note", where, false);
    op.none_published = problems.Text(o, "none_published", where, false);
    if (rates.Op(op.op) != nullptr) problems.Add(where, absl::StrCat("repeats op ", op.op));
    if (op.row.empty() == op.none_published.empty()) {
      problems.Add(where, "needs exactly one of \"row\" and \"none_published\" (why none is)");
    } else if (!op.row.empty() && rates.Row(op.row) == nullptr) {
      problems.Add(where, absl::StrCat("names unknown row \"", op.row, "\""));
    }
    if (const auto per = o.find("results_per_op"); per != o.end()) {
      if (!per->is_number() || per->get<double>() <= 0 || op.row.empty()) {
        problems.Add(where, "\"results_per_op\" must be a number > 0, with a \"row\"");
      } else {
        op.results_per_op = per->get<double>();
      }
    }
    rates.ops.push_back(std::move(op));
  }
}

}  // namespace

const InstructionRateSource* InstructionRates::Source(std::string_view key) const {
  return FindBy(sources, &InstructionRateSource::key, key);
}

const InstructionRateRow* InstructionRates::Row(std::string_view id) const {
  return FindBy(rows, &InstructionRateRow::id, id);
}

const InstructionOpRate* InstructionRates::Op(std::string_view op) const {
  return FindBy(ops, &InstructionOpRate::op, op);
}

PublishedOpRate InstructionRates::For(std::string_view op,
                                      std::string_view compute_capability) const {
  PublishedOpRate out;
  const InstructionOpRate* entry = Op(op);
  if (entry == nullptr) {
    out.none = "none published";
    out.why = absl::StrCat(origin.empty() ? "the rates table" : origin, " has no such op");
    return out;
  }
  if (!entry->none_published.empty()) {
    out.none = "none published";
    out.why = entry->none_published;
    return out;
  }
  out.row = Row(entry->row);
  out.source = Source(out.row->source);
  out.results_per_op = entry->results_per_op;
  const auto it = out.row->rates.find(std::string(compute_capability));
  if (it == out.row->rates.end()) {
    out.none = absl::StrCat("none published for cc ", std::string(compute_capability));
    out.why = absl::StrCat("the row \"", out.row->row, "\" has no column for compute capability ",
                           std::string(compute_capability), " in ",
                           origin.empty() ? "the rates table" : origin);
    return out;
  }
  out.results_per_clock_per_sm = it->second;
  return out;
}

absl::StatusOr<InstructionRates> ParseInstructionRatesJson(std::string_view text,
                                                           std::string_view path) {
  Problems problems(path);
  const Json j = Json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    problems.Add("the file", "is not a JSON object");
    return problems.status();
  }
  if (j.value("format", "") != kInstructionRatesFormat) {
    problems.Add("the file",
                 absl::StrCat("needs \"format\": \"", std::string(kInstructionRatesFormat), "\""));
    return problems.status();
  }
  InstructionRates rates;
  rates.origin = std::string(path);
  ParseSources(j, problems, rates);
  ParseRows(j, problems, rates);
  ParseOps(j, problems, rates);
  if (!problems.ok()) return problems.status();
  return rates;
}

std::string InstructionRateCitation(const InstructionRateSource& source) {
  return absl::StrCat(source.publisher, ": \"", source.title, "\", ", source.where, ". ",
                      source.url);
}

}  // namespace dissect::analysis
