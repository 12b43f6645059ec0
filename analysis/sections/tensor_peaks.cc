// The ceilings file; see tensor_peaks.h.

#include "analysis/sections/tensor_peaks.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis {
namespace {

using Json = nlohmann::json;

absl::string_view Sv(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

absl::Status Error(std::string_view path, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(Sv(path), ": ", what));
}

// A required non-empty string member.
absl::StatusOr<std::string> String(const Json& j, const char* key,
                                   std::string_view path,
                                   const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string() || it->get<std::string>().empty()) {
    return Error(
        path, absl::StrCat(where, " needs a non-empty string \"", key, "\""));
  }
  return it->get<std::string>();
}

absl::StatusOr<double> Number(const Json& j, const char* key,
                              std::string_view path, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number() || it->get<double>() < 0) {
    return Error(path,
                 absl::StrCat(where, " needs a number \"", key, "\" >= 0"));
  }
  return it->get<double>();
}

bool IsDtype(const std::string& dtype) {
  const auto& known = TensorDtypes();
  return std::find(known.begin(), known.end(), dtype) != known.end();
}

absl::Status ParseSources(const Json& j, std::string_view path,
                          TensorPeaks& peaks) {
  if (!j.contains("sources") || !j["sources"].is_array()) {
    return Error(path, "\"sources\" must be an array");
  }
  for (const Json& s : j["sources"]) {
    TensorSource source;
    const std::string where = absl::StrCat("source ", peaks.sources.size() + 1);
    for (auto [field, key] : {std::pair{&source.key, "key"},
                              {&source.title, "title"},
                              {&source.publisher, "publisher"},
                              {&source.where, "where"},
                              {&source.url, "url"}}) {
      absl::StatusOr<std::string> v = String(s, key, path, where);
      if (!v.ok()) return v.status();
      *field = *v;
    }
    absl::StatusOr<double> year = Number(s, "year", path, where);
    if (!year.ok()) return year.status();
    source.year = static_cast<int>(*year);
    peaks.sources.push_back(std::move(source));
  }
  return absl::OkStatus();
}

// The "rates" array of architecture `a` (may be empty: no per-SM rate is
// published for it), into arch.rates.
absl::Status ParseRates(const Json& a, std::string_view path,
                        const std::string& where, const TensorPeaks& peaks,
                        TensorArchitecture& arch) {
  if (!a.contains("rates") || !a["rates"].is_array()) {
    return Error(path, absl::StrCat(where, " needs an array \"rates\""));
  }
  for (const Json& r : a["rates"]) {
    TensorRate rate;
    const std::string rwhere =
        absl::StrCat(where, " rate ", arch.rates.size() + 1);
    for (auto [field, key] : {std::pair{&rate.dtype, "dtype"},
                              {&rate.source, "source"},
                              {&rate.note, "note"}}) {
      absl::StatusOr<std::string> v = String(r, key, path, rwhere);
      if (!v.ok()) return v.status();
      *field = *v;
    }
    if (!IsDtype(rate.dtype)) {
      return Error(path, absl::StrCat(rwhere, ": unknown dtype \"", rate.dtype,
                                      "\" (one of ",
                                      absl::StrJoin(TensorDtypes(), ", "), ")"));
    }
    if (peaks.Source(rate.source) == nullptr) {
      return Error(path, absl::StrCat(rwhere, ": unknown source \"",
                                      rate.source, "\""));
    }
    absl::StatusOr<double> dense = Number(r, "dense", path, rwhere);
    if (!dense.ok()) return dense.status();
    absl::StatusOr<double> sparse = Number(r, "sparse", path, rwhere);
    if (!sparse.ok()) return sparse.status();
    if (*dense <= 0)
      return Error(path, absl::StrCat(rwhere, ": \"dense\" must be > 0"));
    rate.dense = *dense;
    rate.sparse = *sparse;
    arch.rates.push_back(std::move(rate));
  }
  return absl::OkStatus();
}

// One published figure: a number > 0 (from `default_source`, "" where a
// number alone is not allowed), {"value": n, "source": key, "note": text}
// or {"unknown": reason}.
absl::StatusOr<PublishedFigure> ParseFigure(const Json& v,
                                            const std::string& default_source,
                                            std::string_view path,
                                            const std::string& where,
                                            const TensorPeaks& peaks) {
  PublishedFigure figure;
  if (v.is_number() && !default_source.empty()) {
    if (v.get<double>() <= 0)
      return Error(path, absl::StrCat(where, " must be > 0"));
    figure.value = v.get<double>();
    figure.source = default_source;
    return figure;
  }
  const std::string shape =
      " must be {\"value\": n, \"source\": key} or {\"unknown\": reason}";
  if (!v.is_object()) return Error(path, absl::StrCat(where, shape));
  if (v.contains("unknown")) {
    absl::StatusOr<std::string> why = String(v, "unknown", path, where);
    if (!why.ok()) return why.status();
    if (v.size() != 1) return Error(path, absl::StrCat(where, shape));
    figure.unknown = *why;
    return figure;
  }
  absl::StatusOr<double> value = Number(v, "value", path, where);
  if (!value.ok()) return value.status();
  if (*value <= 0) return Error(path, absl::StrCat(where, " must be > 0"));
  absl::StatusOr<std::string> source = String(v, "source", path, where);
  if (!source.ok()) return source.status();
  if (peaks.Source(*source) == nullptr) {
    return Error(path,
                 absl::StrCat(where, ": unknown source \"", *source, "\""));
  }
  figure.value = *value;
  figure.source = *source;
  figure.note = v.value("note", "");
  return figure;
}

// The object `key` of product `j`: exactly the keys `required`, each a
// figure.
absl::StatusOr<std::map<std::string, PublishedFigure>> ParseFigures(
    const Json& j, const char* key, const std::vector<std::string>& required,
    const std::string& default_source, std::string_view path,
    const std::string& where, const TensorPeaks& peaks) {
  const auto object = j.find(key);
  if (object == j.end() || !object->is_object()) {
    return Error(path, absl::StrCat(where, " needs an object \"", key, "\""));
  }
  std::map<std::string, PublishedFigure> figures;
  for (const auto& [name, v] : object->items()) {
    if (std::find(required.begin(), required.end(), name) == required.end()) {
      return Error(path, absl::StrCat(where, ": \"", key, "\" names \"", name,
                                      "\" (one of ",
                                      absl::StrJoin(required, ", "), ")"));
    }
    absl::StatusOr<PublishedFigure> figure =
        ParseFigure(v, default_source, path,
                    absl::StrCat(where, ": \"", key, "\" of ", name), peaks);
    if (!figure.ok()) return figure.status();
    figures[name] = *std::move(figure);
  }
  for (const std::string& name : required) {
    if (figures.count(name) == 0) {
      return Error(path, absl::StrCat(where, ": \"", key, "\" lacks ", name,
                                      " (give {\"unknown\": reason} where no "
                                      "source states it)"));
    }
  }
  return figures;
}

absl::StatusOr<TensorProduct> ParseProduct(const Json& j, std::string_view path,
                                           const std::string& where,
                                           const TensorPeaks& peaks) {
  TensorProduct product;
  for (auto [field, key] : {std::pair{&product.name, "name"},
                            {&product.source, "source"},
                            {&product.note, "note"}}) {
    absl::StatusOr<std::string> v = String(j, key, path, where);
    if (!v.ok()) return v.status();
    *field = *v;
  }
  if (peaks.Source(product.source) == nullptr) {
    return Error(path, absl::StrCat(where, ": unknown source \"",
                                    product.source, "\""));
  }
  for (auto [field, key] :
       {std::pair{&product.device_name_contains, "device_name_contains"},
        {&product.device_name_excludes, "device_name_excludes"}}) {
    const bool required = field == &product.device_name_contains;
    const Json& names = j.value(key, Json::array());
    if (!names.is_array() || (required && names.empty())) {
      return Error(path, absl::StrCat(where,
                                      required ? " needs a non-empty array \""
                                               : " needs an array \"",
                                      key, "\""));
    }
    for (const Json& n : names) {
      if (!n.is_string() || n.get<std::string>().empty()) {
        return Error(path, absl::StrCat(where, ": \"", key,
                                        "\" holds non-empty strings"));
      }
      field->push_back(n.get<std::string>());
    }
  }
  absl::StatusOr<std::map<std::string, PublishedFigure>> tflops =
      ParseFigures(j, "dense_tflops", TensorDtypes(), product.source, path,
                   where, peaks);
  if (!tflops.ok()) return tflops.status();
  product.dense_tflops = *std::move(tflops);
  absl::StatusOr<std::map<std::string, PublishedFigure>> specs = ParseFigures(
      j, "specs",
      std::vector<std::string>(std::begin(kProductSpecKeys),
                               std::end(kProductSpecKeys)),
      "", path, where, peaks);
  if (!specs.ok()) return specs.status();
  product.specs = *std::move(specs);
  if (const std::optional<double> sms = product.specs["sm_count"].value) {
    product.sm_count = static_cast<int>(*sms);
  }
  return product;
}

}  // namespace

const TensorRate* TensorArchitecture::Find(std::string_view dtype) const {
  for (const TensorRate& r : rates) {
    if (r.dtype == dtype) return &r;
  }
  return nullptr;
}

std::optional<double> TensorProduct::DenseTflops(std::string_view dtype) const {
  const auto it = dense_tflops.find(std::string(dtype));
  return it == dense_tflops.end() ? std::nullopt : it->second.value;
}

const PublishedFigure* TensorProduct::Spec(std::string_view key) const {
  const auto it = specs.find(std::string(key));
  return it == specs.end() ? nullptr : &it->second;
}

const TensorProduct* TensorArchitecture::ProductFor(
    std::string_view device_name, int sm_count) const {
  for (const TensorProduct& p : products) {
    if (p.sm_count != 0 && p.sm_count != sm_count) continue;
    const bool excluded = std::any_of(
        p.device_name_excludes.begin(), p.device_name_excludes.end(),
        [&](const std::string& part) {
          return absl::StrContains(Sv(device_name), part);
        });
    if (excluded) continue;
    for (const std::string& part : p.device_name_contains) {
      if (absl::StrContains(Sv(device_name), part)) return &p;
    }
  }
  return nullptr;
}

const TensorArchitecture* TensorPeaks::ForComputeCapability(
    std::string_view cc) const {
  for (const TensorArchitecture& a : architectures) {
    if (a.compute_capability == cc) return &a;
  }
  return nullptr;
}

const TensorSource* TensorPeaks::Source(std::string_view key) const {
  for (const TensorSource& s : sources) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

const std::vector<std::string>& TensorDtypes() {
  static const auto* dtypes = new std::vector<std::string>{
      "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp64"};
  return *dtypes;
}

std::string ProductMatch(const TensorArchitecture& arch,
                         const TensorProduct& product,
                         std::string_view device_name) {
  std::string part;
  for (const std::string& p : product.device_name_contains) {
    if (absl::StrContains(Sv(device_name), p)) {
      part = p;
      break;
    }
  }
  return absl::StrCat(
      product.name, " (compute capability ", arch.compute_capability,
      ", name contains \"", part, "\", ",
      product.sm_count > 0 ? absl::StrCat(product.sm_count, " SMs")
                           : std::string("SM count not published"),
      ")");
}

std::string SourceCitation(const TensorSource& source) {
  return absl::StrCat(source.publisher, ": \"", source.title, "\", ",
                      source.year, ", ", source.where, ". ", source.url);
}

absl::StatusOr<TensorPeaks> ParseTensorPeaksJson(std::string_view text,
                                                 std::string_view path) {
  const Json j = Json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Error(path, "not a JSON object");
  if (j.value("format", "") != kTensorPeaksFormat) {
    return Error(path, absl::StrCat("\"format\" must be \"",
                                    Sv(kTensorPeaksFormat), "\""));
  }
  TensorPeaks peaks;
  if (absl::Status s = ParseSources(j, path, peaks); !s.ok()) return s;
  if (!j.contains("architectures") || !j["architectures"].is_array()) {
    return Error(path, "\"architectures\" must be an array");
  }
  for (const Json& a : j["architectures"]) {
    TensorArchitecture arch;
    const std::string where =
        absl::StrCat("architecture ", peaks.architectures.size() + 1);
    absl::StatusOr<std::string> name = String(a, "name", path, where);
    if (!name.ok()) return name.status();
    absl::StatusOr<std::string> cc =
        String(a, "compute_capability", path, where);
    if (!cc.ok()) return cc.status();
    arch.name = *name;
    arch.compute_capability = *cc;
    if (absl::Status s = ParseRates(a, path, where, peaks, arch); !s.ok()) {
      return s;
    }
    const Json& products = a.value("products", Json::array());
    if (!products.is_array()) {
      return Error(path, absl::StrCat(where, ": \"products\" must be an array"));
    }
    for (const Json& p : products) {
      absl::StatusOr<TensorProduct> product = ParseProduct(
          p, path, absl::StrCat(where, " product ", arch.products.size() + 1),
          peaks);
      if (!product.ok()) return product.status();
      arch.products.push_back(*std::move(product));
    }
    if (arch.rates.empty() && arch.products.empty()) {
      return Error(path, absl::StrCat(where, " has neither rates nor products"));
    }
    peaks.architectures.push_back(std::move(arch));
  }
  return peaks;
}

}  // namespace dissect::analysis
