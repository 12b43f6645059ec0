#include "analysis/papers/reused/paradnn_fc.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "analysis/format/format.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis::papers::reused {
namespace {

// A cell is framework-bound when its examples/s is within 15 % of the
// file's largest examples/s. The cap is one number for the whole file, not
// per width: in the authors' V100 file, cells of every width from 32 to 8192
// and every depth reach 30,000-34,000 examples/s, and at widths up to 2048
// from batch 1024 up they stay there whatever the batch (the input pipeline
// and framework set the ceiling, not the GEMMs). The values have no gap to
// cut at (they run continuously from 26,000 to 34,000, with one 35,732 at the
// top), so the boundary is a choice: 85 % of the maximum (30,372) is the
// lower edge of that plateau and marks 86 of the 176 cells, mostly batch
// 1024 and up; 10 % would mark only the plateau's top (batch 4096 and up),
// 20 % cells at batch 64-128 that are not yet on it. It marks, it does not
// measure.
constexpr double kFrameworkBoundFraction = 0.85;

void MarkFrameworkBound(std::vector<ParaDnnFcCell> &cells) {
  double cap = 0;
  for (const ParaDnnFcCell &c : cells) cap = std::max(cap, c.examples_per_s);
  for (ParaDnnFcCell &c : cells)
    c.framework_bound = c.examples_per_s >= kFrameworkBoundFraction * cap;
}

absl::Status Bad(const std::string &origin, const std::string &what) {
  return absl::InvalidArgumentError(absl::StrCat(origin, ": ", what));
}

}  // namespace

absl::StatusOr<std::vector<ParaDnnFcCell>> ParseParaDnnFc(const std::string &text,
                                                          const std::string &origin) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Bad(origin, "not a JSON object");
  const auto list = [&](const char *key) -> const nlohmann::json * {
    const auto it = doc.find(key);
    return it == doc.end() || !it->is_array() ? nullptr : &*it;
  };
  const nlohmann::json *labels = list("labels");
  const nlohmann::json *flops = list("flops");
  const nlohmann::json *examples = list("example_per_sec");
  if (!labels || !flops || !examples) {
    return Bad(origin, "needs the lists labels, flops and example_per_sec");
  }
  if (flops->size() != labels->size() || examples->size() != labels->size()) {
    return Bad(origin, "flops and example_per_sec must have one entry per label");
  }
  std::vector<ParaDnnFcCell> cells;
  for (size_t i = 0; i < labels->size(); ++i) {
    const nlohmann::json &label = (*labels)[i];
    ParaDnnFcCell c;
    long long layers = 0, width = 0, batch = 0;
    int used = 0;
    const std::string s = label.is_string() ? label.get<std::string>() : "";
    if (std::sscanf(s.c_str(), "layer_%lld-node_%lld-input_%*d-output_%*d-bs_%lld%n", &layers,
                    &width, &batch, &used) != 3 ||
        used != static_cast<int>(s.size()) || layers <= 0 || width <= 0 || batch <= 0) {
      return Bad(origin,
                 absl::StrCat("labels[", i, "] is not layer_L-node_N-input_I-output_O-bs_B"));
    }
    if (!(*flops)[i].is_number() || !(*examples)[i].is_number()) {
      return Bad(origin,
                 absl::StrCat("flops[", i, "] and example_per_sec[", i, "] must be numbers"));
    }
    c.layers = layers;
    c.width = width;
    c.batch = batch;
    c.gflops = (*flops)[i].get<double>();
    c.examples_per_s = (*examples)[i].get<double>();
    cells.push_back(c);
  }
  if (cells.empty()) return Bad(origin, "has no finished models (labels is empty)");
  MarkFrameworkBound(cells);
  return cells;
}

absl::StatusOr<std::vector<ParaDnnFcCell>> ReadParaDnnFc(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot be opened"));
  std::ostringstream text;
  text << in.rdbuf();
  return ParseParaDnnFc(text.str(), path);
}

std::string ParaDnnFcCellText(const ParaDnnFcCell &cell) {
  const std::string text =
      absl::StrCat(FormatNumber(cell.gflops), " (", FormatNumber(cell.examples_per_s), ")");
  return cell.framework_bound ? absl::StrCat("**", text, "**") : text;
}

std::string ParaDnnFcMarkdown(const std::vector<ParaDnnFcCell> &cells) {
  std::map<std::tuple<int64_t, int64_t, int64_t>, const ParaDnnFcCell *> at;
  std::vector<int64_t> layers, widths, batches;
  for (const ParaDnnFcCell &c : cells) {
    at.emplace(std::make_tuple(c.layers, c.batch, c.width), &c);
    layers.push_back(c.layers);
    widths.push_back(c.width);
    batches.push_back(c.batch);
  }
  for (std::vector<int64_t> *v : {&layers, &widths, &batches}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  std::string out =
      "GFLOP/s of a whole TensorFlow training step (examples/s); "
      "**bold**: framework-bound "
      "(examples/s within 15 % of the file's largest, the "
      "input-pipeline cap); — no finished "
      "model.\n\n";
  for (int64_t l : layers) {
    MarkdownTable table;
    table.columns.push_back({"batch \\ width", false});
    for (int64_t w : widths) table.columns.push_back({absl::StrCat(w), true});
    for (int64_t b : batches) {
      std::vector<std::string> row{absl::StrCat(b)};
      for (int64_t w : widths) {
        const auto it = at.find(std::make_tuple(l, b, w));
        if (it == at.end()) {
          row.push_back(kEmptyCell);
          continue;
        }
        row.push_back(ParaDnnFcCellText(*it->second));
      }
      table.rows.push_back(std::move(row));
    }
    absl::StrAppend(&out, "#### ", l, " hidden layers\n\n", RenderMarkdownTable(table), "\n");
  }
  return out;
}

}  // namespace dissect::analysis::papers::reused
