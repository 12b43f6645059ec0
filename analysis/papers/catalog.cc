#include "analysis/papers/catalog.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dissect::analysis::papers {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

absl::Status Bad(std::string_view path, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(std::string(path), ": ", what));
}

// A required non-empty string member.
absl::StatusOr<std::string> Text(const Json& obj, const char* key, std::string_view path,
                                 std::string_view where) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_string() || it->get<std::string>().empty()) {
    return Bad(path, absl::StrCat(std::string(where), key, ": missing or not a non-empty string"));
  }
  return it->get<std::string>();
}

// "<where><key>: unknown field" for the first member of `obj` not in
// `known`; OK when every member is known.
absl::Status OnlyKnownFields(const Json& obj, std::initializer_list<std::string_view> known,
                             std::string_view path, const std::string& where) {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return Bad(path, absl::StrCat(where, key, ": unknown field"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<PublishedValue> ParsePublished(const Json& v, std::string_view path, size_t i) {
  const std::string where = absl::StrCat("published[", i, "].");
  if (!v.is_object()) return Bad(path, absl::StrCat("published[", i, "]: not an object"));
  PublishedValue p;
  if (absl::Status s = OnlyKnownFields(v, {"key", "quantity", "value", "unit", "source", "why"},
                                       path, where);
      !s.ok()) {
    return s;
  }
  auto key = Text(v, "key", path, where);
  if (!key.ok()) return key.status();
  p.key = *key;
  auto quantity = Text(v, "quantity", path, where);
  if (!quantity.ok()) return quantity.status();
  p.quantity = *quantity;
  if (v.contains("unit")) {
    if (!v["unit"].is_string()) return Bad(path, where + "unit: not a string");
    p.unit = v["unit"].get<std::string>();
  }
  const auto value = v.find("value");
  if (value == v.end()) return Bad(path, where + "value: missing (a number, [lo, hi] or \"unknown\")");
  if (value->is_number()) {
    p.lo = p.hi = value->get<double>();
  } else if (value->is_array() && value->size() == 2 && (*value)[0].is_number() &&
             (*value)[1].is_number() && (*value)[0].get<double>() <= (*value)[1].get<double>()) {
    p.lo = (*value)[0].get<double>();
    p.hi = (*value)[1].get<double>();
  } else if (value->is_string() && value->get<std::string>() == "unknown") {
    auto why = Text(v, "why", path, where);
    if (!why.ok()) return Bad(path, where + "why: an unknown value needs the reason");
    p.why = *why;
  } else {
    return Bad(path, where + "value: not a number, [lo, hi] with lo <= hi, or \"unknown\"");
  }
  if (p.known()) {
    auto source = Text(v, "source", path, where);
    if (!source.ok()) {
      return Bad(path, where + "source: a published number needs where it comes from");
    }
    p.source = *source;
    if (v.contains("why")) return Bad(path, where + "why: only for unknown values");
  }
  return p;
}

}  // namespace

const PublishedValue* CatalogEntry::FindPublished(std::string_view key) const {
  for (const PublishedValue& p : published) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

CatalogEntry CatalogEntry::InSetting(const AnalysisSetting& setting) const {
  CatalogEntry in_setting = *this;
  for (const auto& [key, value] : setting.params.items()) in_setting.params[key] = value;
  return in_setting;
}

nlohmann::ordered_json CatalogEntry::SweepDocument() const {
  Json doc;
  doc["format"] = "dissect.sweep.v1";
  doc["name"] = id;
  doc["description"] = absl::StrCat("reproduces ", title, " (", year, "), ", figure, ": ", claim);
  if (sweep.contains("defaults")) doc["defaults"] = sweep["defaults"];
  // An entry that runs no GPU experiment (the tests' selftest entries) says
  // so, and the runner's device check is not asked.
  if (sweep.contains("needs_gpu")) doc["needs_gpu"] = sweep["needs_gpu"];
  doc["entries"] = sweep.contains("entries") ? sweep["entries"] : Json::array();
  return doc;
}

namespace {

// The entry's "paper" object (key, title, authors, venue, year) into `e`;
// the file name must start with the paper's key.
absl::Status ParsePaper(const Json& doc, std::string_view path, CatalogEntry& e) {
  const auto paper = doc.find("paper");
  if (paper == doc.end() || !paper->is_object()) return Bad(path, "paper: missing or not an object");
  for (auto [field, out] : {std::pair{"key", &e.paper_key}, std::pair{"title", &e.title},
                            std::pair{"authors", &e.authors}, std::pair{"venue", &e.venue}}) {
    auto value = Text(*paper, field, path, "paper.");
    if (!value.ok()) return value.status();
    *out = *value;
  }
  // "unknown" where no source gives the year (a blog post, a paper known only
  // by its title); e.year stays 0.
  const bool year_unknown = paper->contains("year") && (*paper)["year"] == "unknown";
  if (!year_unknown && (!paper->contains("year") || !(*paper)["year"].is_number_integer() ||
                        (*paper)["year"].get<int>() < 1990 || (*paper)["year"].get<int>() > 2100)) {
    return Bad(path, "paper.year: missing or not a year (\"unknown\" where no source gives it)");
  }
  if (!year_unknown) e.year = (*paper)["year"].get<int>();
  if (paper->contains("reading_list_item")) {
    const Json& item = (*paper)["reading_list_item"];
    if (!item.is_number_integer() || item.get<int>() < 1) {
      return Bad(path, "paper.reading_list_item: not an item number (1, 2, ...)");
    }
    e.reading_list_item = item.get<int>();
  }
  if (e.id != e.paper_key && e.id.rfind(e.paper_key + "_", 0) != 0) {
    return Bad(path, absl::StrCat("the file name must start with paper.key '", e.paper_key, "'"));
  }
  return absl::OkStatus();
}

// "analysis.settings" into `e`: a list of {"id", "label", "params"}.
absl::Status ParseSettings(const Json& analysis, std::string_view path, CatalogEntry& e) {
  const auto settings = analysis.find("settings");
  if (settings == analysis.end()) return absl::OkStatus();
  if (!settings->is_array()) return Bad(path, "analysis.settings: not a list");
  for (size_t i = 0; i < settings->size(); ++i) {
    const Json& s = (*settings)[i];
    const std::string where = absl::StrCat("analysis.settings[", i, "].");
    if (!s.is_object()) return Bad(path, absl::StrCat("analysis.settings[", i, "]: not an object"));
    if (absl::Status known = OnlyKnownFields(s, {"id", "label", "params"}, path, where);
        !known.ok()) {
      return known;
    }
    AnalysisSetting setting;
    for (auto [field, out] : {std::pair{"id", &setting.id}, std::pair{"label", &setting.label}}) {
      auto value = Text(s, field, path, where);
      if (!value.ok()) return value.status();
      *out = *value;
    }
    if (setting.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") !=
        std::string::npos) {
      return Bad(path, where + "id: only a-z, 0-9 and _ (it names the figures' subfolder)");
    }
    for (const AnalysisSetting& other : e.settings) {
      if (other.id == setting.id) {
        return Bad(path, absl::StrCat(where, "id: '", setting.id, "' appears twice"));
      }
    }
    if (!s.contains("params") || !s["params"].is_object() || s["params"].empty()) {
      return Bad(path, where + "params: missing or not a non-empty object");
    }
    setting.params = s["params"];
    e.settings.push_back(std::move(setting));
  }
  return absl::OkStatus();
}

// The entry's "published" list into `e`, each key once.
absl::Status ParsePublishedList(const Json& doc, std::string_view path, CatalogEntry& e) {
  const auto published = doc.find("published");
  if (published == doc.end() || !published->is_array()) {
    return Bad(path, "published: missing (a list; [] if the paper states no number)");
  }
  for (size_t i = 0; i < published->size(); ++i) {
    auto p = ParsePublished((*published)[i], path, i);
    if (!p.ok()) return p.status();
    if (e.FindPublished(p->key) != nullptr) {
      return Bad(path, absl::StrCat("published[", i, "].key: '", p->key, "' appears twice"));
    }
    e.published.push_back(*std::move(p));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CatalogEntry> ParseCatalogEntry(std::string_view text, std::string_view path) {
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Bad(path, "not valid JSON");
  if (!doc.is_object()) return Bad(path, "not a JSON object");
  if (absl::Status s = OnlyKnownFields(
          doc,
          {"format", "paper", "figure", "claim", "status", "pending", "expected_signature",
           "expected_differences", "sweep", "analysis", "published"},
          path, "");
      !s.ok()) {
    return s;
  }
  CatalogEntry e;
  e.path = std::string(path);
  e.id = fs::path(std::string(path)).stem().string();
  if (!doc.contains("format") || doc["format"] != kPaperFormat) {
    return Bad(path, absl::StrCat("format: must be \"", kPaperFormat, "\""));
  }
  if (absl::Status s = ParsePaper(doc, path, e); !s.ok()) return s;
  for (auto [field, out] :
       {std::pair{"figure", &e.figure}, std::pair{"claim", &e.claim},
        std::pair{"expected_signature", &e.expected_signature},
        std::pair{"expected_differences", &e.expected_differences},
        std::pair{"status", &e.status}}) {
    auto value = Text(doc, field, path, "");
    if (!value.ok()) return value.status();
    *out = *value;
  }
  if (e.status != "ready" && e.status != "pending") {
    return Bad(path, "status: must be \"ready\" or \"pending\"");
  }
  if (e.status == "pending") {
    auto pending = Text(doc, "pending", path, "");
    if (!pending.ok()) return Bad(path, "pending: a pending entry says what is missing");
    e.pending = *pending;
  } else if (doc.contains("pending")) {
    return Bad(path, "pending: only for status \"pending\"");
  }
  const auto sweep = doc.find("sweep");
  if (sweep == doc.end() || !sweep->is_object() || !sweep->contains("entries") ||
      !(*sweep)["entries"].is_array()) {
    return Bad(path, "sweep: missing, or without \"entries\" (dissect.sweep.v1 entries)");
  }
  if ((*sweep)["entries"].empty() && e.status == "ready") {
    return Bad(path, "sweep.entries: a ready entry needs at least one (only pending ones may have none)");
  }
  e.sweep = *sweep;
  const auto analysis = doc.find("analysis");
  // A pending entry whose experiment is not built yet may have no analysis.
  if (analysis != doc.end() || e.status != "pending") {
    if (analysis == doc.end() || !analysis->is_object()) {
      return Bad(path, "analysis: missing or not an object (only a pending entry may have none)");
    }
    auto generator = Text(*analysis, "generator", path, "analysis.");
    if (!generator.ok()) return generator.status();
    e.generator = *generator;
    e.params = analysis->contains("params") ? (*analysis)["params"] : Json::object();
    if (!e.params.is_object()) return Bad(path, "analysis.params: not an object");
    if (absl::Status s = ParseSettings(*analysis, path, e); !s.ok()) return s;
  }
  if (absl::Status s = ParsePublishedList(doc, path, e); !s.ok()) return s;
  return e;
}

absl::StatusOr<std::vector<CatalogEntry>> LoadCatalog(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return absl::NotFoundError(absl::StrCat(dir, ": not a folder"));
  std::vector<fs::path> paths;
  for (const fs::directory_entry& f : fs::directory_iterator(dir, ec)) {
    if (f.path().extension() == ".json") paths.push_back(f.path());
  }
  std::sort(paths.begin(), paths.end());
  if (paths.empty()) return absl::NotFoundError(absl::StrCat(dir, ": no catalog entries (*.json)"));
  std::vector<CatalogEntry> catalog;
  for (const fs::path& p : paths) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) return absl::NotFoundError(absl::StrCat(p.string(), ": cannot be read"));
    auto entry = ParseCatalogEntry(text.str(), p.string());
    if (!entry.ok()) return entry.status();
    catalog.push_back(*std::move(entry));
  }
  return catalog;
}

absl::StatusOr<std::vector<const CatalogEntry*>> SelectEntries(
    const std::vector<CatalogEntry>& catalog, std::string_view selector) {
  std::vector<const CatalogEntry*> selected;
  for (const CatalogEntry& e : catalog) {
    if (e.id == selector) return std::vector<const CatalogEntry*>{&e};
  }
  for (const CatalogEntry& e : catalog) {
    if (e.paper_key == selector) selected.push_back(&e);
  }
  if (selected.empty()) {
    std::vector<std::string> ids;
    for (const CatalogEntry& e : catalog) ids.push_back(e.id);
    return absl::InvalidArgumentError(absl::StrCat("unknown paper '", std::string(selector),
                                                   "' (known: ", absl::StrJoin(ids, ", "), ")"));
  }
  return selected;
}

}  // namespace dissect::analysis::papers
