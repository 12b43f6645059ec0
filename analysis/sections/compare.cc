// Memory hierarchies side by side across sources and devices (see compare.h).

#include "analysis/sections/compare.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/format/format.h"

namespace dissect::analysis {
namespace {

constexpr char kDissect[] = "dissect";

// Ratios (as printed, two decimals) inside these bounds need no note.
constexpr double kLowRatio = 0.9;
constexpr double kHighRatio = 1.1;

// What is known about how each suite measures each quantity. Add a row per
// new suite or quantity; the suite is the part of `source` before '@'.
struct KnownMethodEntry {
  const char* suite;
  const char* quantity;
  const char* text;
  // +1 where the method by itself puts the value above dissect's (with the
  // reason in `bias_reason`), 0 where nothing is known.
  int bias = 0;
  const char* bias_reason = "";
};

constexpr KnownMethodEntry kKnownMethods[] = {
    {"dissect", "latency",
     "in-kernel %clock64 around a dependent 64-bit pointer chase by one thread; cycles per load "
     "from the slope between two timed segments, which removes the fixed cost of a timed "
     "segment"},
    {"mt4g", "latency",
     "the mean of its p-chase samples, including its timing overhead (its p50 is often lower)", +1,
     "its mean includes its timing overhead"},
    {"gpu-benches", "latency",
     "host wall-clock time of a whole launch of >= 1e6 chased loads (launch overhead amortized), "
     "the minimum of 7 runs, converted to cycles at a fixed clock; it chases with 64 threads of "
     "one block"},
    {"dissect", "bandwidth",
     "memory_bandwidth splits the footprint between the SMs and takes the best over bytes in "
     "flight"},
    {"gpu-benches", "bandwidth",
     "gpu-cache has every SM read the same data set (the footprint is per SM); gpu-l2-cache has "
     "the blocks roam the whole footprint"},
    {"mt4g", "bandwidth", "reports GiB/s, converted to GB/s on import"},
    {"dissect", "capacity", "read from where the latency curve steps"},
    {"gpu-benches", "capacity", "read from where the latency curve steps"},
    {"mt4g", "capacity", "from its own p-chase size search, with a confidence"},
};

// Table order of the levels; levels not listed follow in first-seen order.
constexpr const char* kLevelOrder[] = {"shared", "L1",       "L2",  "L2 near", "L2 far",
                                       "DRAM",   "TLB miss", "tex", "ldg",     "const"};

std::string NameKey(const std::string& name) {
  return absl::AsciiStrToLower(absl::StripAsciiWhitespace(name));
}

// "" for an unknown value ("?" or empty), else the trimmed value.
std::string Known(const std::string& value) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(value);
  return trimmed == "?" ? "" : std::string(trimmed);
}

bool Agree(const std::string& a, const std::string& b) {
  const std::string known_a = Known(a);
  const std::string known_b = Known(b);
  return known_a.empty() || known_b.empty() || known_a == known_b;
}

// One value of a quantity in one row.
struct Value {
  double number = 0;
  bool lower_bound = false;  // capacities the curve never left
  std::string unit;          // bandwidth only: ratios need equal units
  std::string text;          // as a cell shows it
};

struct Quantity {
  const char* name;    // "latency", "capacity", "bandwidth" (KnownMethod)
  const char* header;  // column or row header
  const char* suffix;  // after the value in a note, e.g. " cycles"
  std::optional<Value> (*get)(const HierarchyRow& row);
};

std::optional<Value> Latency(const HierarchyRow& row) {
  if (!row.latency_cycles) return std::nullopt;
  return Value{*row.latency_cycles, false, "cycles", FormatNumber(*row.latency_cycles)};
}

std::optional<Value> Capacity(const HierarchyRow& row) {
  if (!row.capacity_bytes) return std::nullopt;
  return Value{
      *row.capacity_bytes, row.capacity_is_lower_bound, "B",
      absl::StrCat(row.capacity_is_lower_bound ? "≥ " : "", FormatBytes(*row.capacity_bytes))};
}

std::optional<Value> Bandwidth(const HierarchyRow& row) {
  if (!row.bandwidth) return std::nullopt;
  return Value{*row.bandwidth, false, row.bandwidth_unit,
               row.bandwidth_unit.empty()
                   ? FormatNumber(*row.bandwidth)
                   : absl::StrCat(FormatNumber(*row.bandwidth), " ", row.bandwidth_unit)};
}

constexpr Quantity kQuantities[] = {
    {"latency", "latency (cycles)", " cycles", &Latency},
    {"capacity", "capacity", "", &Capacity},
    {"bandwidth", "bandwidth", "", &Bandwidth},
};

std::optional<Value> Get(const DeviceHierarchy& h, const std::string& level, const Quantity& q) {
  const HierarchyRow* row = h.Find(level);
  if (row == nullptr) return std::nullopt;
  return q.get(*row);
}

bool HasAnyValue(const DeviceHierarchy& h, const std::string& level) {
  return std::any_of(std::begin(kQuantities), std::end(kQuantities),
                     [&](const Quantity& q) { return Get(h, level, q).has_value(); });
}

// A value over the reference's, rounded to two decimals as printed. A lower
// bound on either side makes it a bound on the ratio.
struct Ratio {
  double value = 0;
  int bound = 0;  // 0: exact, +1: at least `value`, -1: at most `value`
  std::string text;
  // Outside [kLowRatio, kHighRatio] whatever the bounded value is.
  bool outside = false;
};

std::optional<Ratio> RatioOf(const Value& value, const Value& reference) {
  if (value.unit != reference.unit || !(reference.number > 0)) return std::nullopt;
  if (value.lower_bound && reference.lower_bound) return std::nullopt;
  Ratio ratio;
  ratio.value = std::round(value.number / reference.number * 100) / 100;
  ratio.bound = value.lower_bound ? 1 : reference.lower_bound ? -1 : 0;
  constexpr double kSlack = 1e-9;
  const bool low = ratio.value < kLowRatio - kSlack;
  const bool high = ratio.value > kHighRatio + kSlack;
  ratio.outside = ratio.bound > 0 ? high : ratio.bound < 0 ? low : (low || high);
  ratio.text = absl::StrCat(ratio.bound > 0   ? "≥ "
                            : ratio.bound < 0 ? "≤ "
                                              : "",
                            absl::StrFormat("%.2f", ratio.value));
  return ratio;
}

std::vector<std::string> LevelsOf(const std::vector<const DeviceHierarchy*>& hierarchies) {
  std::vector<std::string> levels(std::begin(kLevelOrder), std::end(kLevelOrder));
  for (const DeviceHierarchy* h : hierarchies) {
    for (const HierarchyRow& row : h->rows) {
      if (std::find(levels.begin(), levels.end(), row.level) == levels.end()) {
        levels.push_back(row.level);
      }
    }
  }
  return levels;
}

std::string DeviceLine(const ComparedDevice& device) {
  return absl::StrCat(device.name, " · cc ",
                      device.compute_capability.empty() ? "?" : device.compute_capability, " · ",
                      device.sm_count.empty() ? "?" : device.sm_count, " SMs");
}

// "dissect: <known>. mt4g: <known>." for the suites of `a` and `b` (once
// when they are the same suite).
std::string KnownDifferences(const std::string& quantity, const std::string& a,
                             const std::string& b) {
  std::vector<std::string> suites = {SourceSuite(a)};
  if (SourceSuite(b) != suites.front()) suites.push_back(SourceSuite(b));
  std::vector<std::string> parts;
  for (const std::string& suite : suites) {
    const std::string known = KnownMethod(suite, quantity);
    parts.push_back(known.empty()
                        ? absl::StrCat(suite, ": nothing is noted about its ", quantity, " method")
                        : absl::StrCat(suite, ": ", known));
  }
  return absl::StrCat(absl::StrJoin(parts, ". "), ".");
}

// Whether the difference goes the way `peer`'s known method leads one to
// expect against dissect's: "" when nothing is known.
std::string BiasText(const std::string& quantity, const std::string& reference,
                     const std::string& peer, const Ratio& ratio) {
  if (SourceSuite(reference) != kDissect) return "";
  for (const KnownMethodEntry& entry : kKnownMethods) {
    if (SourceSuite(peer) != entry.suite || quantity != entry.quantity || entry.bias == 0) {
      continue;
    }
    const std::string who = ShortSource(peer);
    if (ratio.value > 1) {
      return absl::StrCat(" ", who, "'s value is above dissect's, the direction its method leads ",
                          "one to expect: ", entry.bias_reason, ".");
    }
    return absl::StrCat(" ", who, "'s value is below dissect's, although ", entry.bias_reason,
                        ", which would raise it: its method does not explain this difference.");
  }
  return "";
}

// How a row's `quantity` was measured: the bandwidth's own method for
// bandwidth, else the latency's.
const std::string& QuantityMethod(const HierarchyRow& row, const std::string& quantity) {
  return quantity == "bandwidth" ? row.bandwidth_method : row.method;
}

std::string RowMethods(const DeviceHierarchy& reference, const DeviceHierarchy& h,
                       const std::string& level, const std::string& quantity) {
  std::vector<std::string> parts;
  for (const DeviceHierarchy* side : {&reference, &h}) {
    const HierarchyRow* row = side->Find(level);
    if (row == nullptr || QuantityMethod(*row, quantity).empty()) continue;
    parts.push_back(absl::StrCat(ShortSource(side->source), ": ", QuantityMethod(*row, quantity)));
  }
  if (parts.empty()) return "";
  return absl::StrCat(" Methods of these rows: ", absl::StrJoin(parts, "; "), ".");
}

// The "## compare: <device>" section.
std::string DeviceSection(const ComparedDevice& device) {
  const DeviceHierarchy& reference = *device.hierarchies.front();
  const bool has_dissect = reference.source == kDissect;
  const std::string reference_name = ShortSource(reference.source);
  std::vector<std::string> blocks;
  blocks.push_back(absl::StrCat(
      "## compare: ", device.name,
      has_dissect ? "" : absl::StrCat(" (no dissect results; reference: ", reference_name, ")"),
      "\n"));
  std::vector<std::string> sources;
  for (const DeviceHierarchy* h : device.hierarchies) {
    sources.push_back(absl::StrCat("`", h->source, "` (", h->files.size(),
                                   h->files.size() == 1 ? " file" : " files", ")"));
  }
  blocks.push_back(absl::StrCat(DeviceLine(device), " · sources: ", absl::StrJoin(sources, ", "),
                                ". `ratio`: the value / ", reference_name,
                                "'s. Each value was measured with its source's own method; "
                                "ratios outside [0.9, 1.1] are explained below their table.\n"));
  bool any_level = false;
  for (const std::string& level : LevelsOf(device.hierarchies)) {
    std::vector<const DeviceHierarchy*> with_values;
    for (const DeviceHierarchy* h : device.hierarchies) {
      if (HasAnyValue(*h, level)) with_values.push_back(h);
    }
    if (with_values.size() < 2) continue;
    any_level = true;
    blocks.push_back(absl::StrCat("### ", level, "\n"));
    MarkdownTable table;
    table.columns.push_back({"source", false});
    for (const Quantity& q : kQuantities) {
      table.columns.push_back({q.header, true});
      table.columns.push_back({"ratio", true});
    }
    table.columns.push_back({"footprints", true});
    table.columns.push_back({"latency method", false});
    table.columns.push_back({"bandwidth method", false});
    std::vector<std::string> notes;
    for (const DeviceHierarchy* h : with_values) {
      std::vector<std::string> cells = {CellText(ShortSource(h->source))};
      for (const Quantity& q : kQuantities) {
        const std::optional<Value> value = Get(*h, level, q);
        const std::optional<Value> ref = Get(reference, level, q);
        cells.push_back(value ? value->text : kEmptyCell);
        if (!value || !ref) {
          cells.push_back(kEmptyCell);
          continue;
        }
        if (h == &reference) {
          cells.push_back("1.00");
          continue;
        }
        const std::optional<Ratio> ratio = RatioOf(*value, *ref);
        cells.push_back(ratio ? ratio->text : kEmptyCell);
        if (!ratio || !ratio->outside) continue;
        notes.push_back(absl::StrCat(
            "- ", q.name, " of ", ShortSource(h->source), ": ", value->text, q.suffix, ", ratio ",
            ratio->text, " to ", reference_name, "'s ", ref->text, q.suffix,
            " (outside [0.9, 1.1]). ", KnownDifferences(q.name, reference.source, h->source),
            BiasText(q.name, reference.source, h->source, *ratio),
            RowMethods(reference, *h, level, q.name), "\n"));
      }
      const HierarchyRow* row = h->Find(level);
      const std::string range = FootprintRange(*row);
      cells.push_back(range.empty() ? kEmptyCell : range);
      for (const char* quantity : {"latency", "bandwidth"}) {
        const std::string& method = QuantityMethod(*row, quantity);
        cells.push_back(method.empty() ? kEmptyCell : CellText(method));
      }
      table.rows.push_back(std::move(cells));
    }
    blocks.push_back(RenderMarkdownTable(table));
    if (!notes.empty()) blocks.push_back(absl::StrJoin(notes, ""));
  }
  if (!any_level) blocks.push_back("_no level has values from two sources_\n");
  return absl::StrJoin(blocks, "\n");
}

// The "## compare across devices" section.
std::string AcrossDevicesSection(const std::vector<ComparedDevice>& devices) {
  std::vector<std::string> blocks;
  blocks.push_back("## compare across devices\n");
  // Column headers: the device name, with cc and SM count where two devices
  // share a name.
  std::vector<std::string> headers;
  std::vector<std::string> device_lines;
  std::vector<const DeviceHierarchy*> all;
  std::vector<std::string> sources;  // dissect first, then first-seen
  sources.push_back(kDissect);
  for (const ComparedDevice& device : devices) {
    const bool shared_name =
        std::count_if(devices.begin(), devices.end(), [&](const ComparedDevice& other) {
          return NameKey(other.name) == NameKey(device.name);
        }) > 1;
    headers.push_back(CellText(
        shared_name
            ? absl::StrCat(device.name, " (cc ",
                           device.compute_capability.empty() ? "?" : device.compute_capability,
                           ", ", device.sm_count.empty() ? "?" : device.sm_count, " SMs)")
            : device.name));
    std::vector<std::string> names;
    for (const DeviceHierarchy* h : device.hierarchies) {
      all.push_back(h);
      names.push_back(ShortSource(h->source));
      if (std::find(sources.begin(), sources.end(), h->source) == sources.end()) {
        sources.push_back(h->source);
      }
    }
    device_lines.push_back(
        absl::StrCat("- ", DeviceLine(device), " (", absl::StrJoin(names, ", "), ")\n"));
  }
  blocks.push_back(absl::StrCat("One column per device:\n\n", absl::StrJoin(device_lines, "")));
  for (const std::string& level : LevelsOf(all)) {
    MarkdownTable table;
    table.columns.push_back({"quantity · source", false});
    for (const std::string& header : headers) table.columns.push_back({header, true});
    for (const Quantity& q : kQuantities) {
      for (const std::string& source : sources) {
        std::vector<std::string> cells = {
            CellText(absl::StrCat(q.header, " · ", ShortSource(source)))};
        bool any = false;
        for (const ComparedDevice& device : devices) {
          std::optional<Value> value;
          for (const DeviceHierarchy* h : device.hierarchies) {
            if (h->source == source) value = Get(*h, level, q);
          }
          any = any || value.has_value();
          cells.push_back(value ? value->text : kEmptyCell);
        }
        if (any) table.rows.push_back(std::move(cells));
      }
    }
    if (table.rows.empty()) continue;
    blocks.push_back(absl::StrCat("### ", level, "\n"));
    blocks.push_back(RenderMarkdownTable(table));
  }
  blocks.push_back(
      "Values of different sources come from different methods (see each source's notes "
      "above): compare a row across the devices rather than one source's row with "
      "another's.\n");
  return absl::StrJoin(blocks, "\n");
}

}  // namespace

bool SameDevice(const DeviceHierarchy& a, const DeviceHierarchy& b) {
  return NameKey(a.device_name) == NameKey(b.device_name) &&
         Agree(a.compute_capability, b.compute_capability) && Agree(a.sm_count, b.sm_count);
}

std::vector<ComparedDevice> MatchDevices(const std::vector<DeviceHierarchy>& hierarchies) {
  std::vector<ComparedDevice> devices;
  for (const DeviceHierarchy& h : hierarchies) {
    auto it = std::find_if(devices.begin(), devices.end(), [&](const ComparedDevice& device) {
      return NameKey(device.name) == NameKey(h.device_name) &&
             Agree(device.compute_capability, h.compute_capability) &&
             Agree(device.sm_count, h.sm_count) &&
             std::none_of(device.hierarchies.begin(), device.hierarchies.end(),
                          [&](const DeviceHierarchy* other) { return other->source == h.source; });
    });
    if (it == devices.end()) {
      it = devices.insert(devices.end(), ComparedDevice{});
      it->name = std::string(absl::StripAsciiWhitespace(h.device_name));
    }
    if (it->compute_capability.empty()) it->compute_capability = Known(h.compute_capability);
    if (it->sm_count.empty()) it->sm_count = Known(h.sm_count);
    it->hierarchies.push_back(&h);
  }
  for (ComparedDevice& device : devices) {
    std::stable_partition(device.hierarchies.begin(), device.hierarchies.end(),
                          [](const DeviceHierarchy* h) { return h->source == kDissect; });
    device.name = std::string(absl::StripAsciiWhitespace(device.hierarchies.front()->device_name));
  }
  return devices;
}

std::string SourceSuite(std::string_view source) {
  return std::string(source.substr(0, source.find('@')));
}

std::string ShortSource(std::string_view source) {
  const size_t at = source.find('@');
  if (at == std::string_view::npos) return std::string(source);
  const std::string_view version = source.substr(at + 1);
  const bool commit = version.size() > 7 && std::all_of(version.begin(), version.end(), [](char c) {
                        return std::isxdigit(static_cast<unsigned char>(c)) != 0;
                      });
  return commit ? std::string(source.substr(0, at + 1 + 7)) : std::string(source);
}

std::string KnownMethod(std::string_view suite, std::string_view quantity) {
  for (const KnownMethodEntry& entry : kKnownMethods) {
    if (suite == entry.suite && quantity == entry.quantity) return entry.text;
  }
  return "";
}

std::string FootprintRange(const HierarchyRow& row) {
  if (row.footprint_first && row.footprint_last && *row.footprint_first != *row.footprint_last) {
    return absl::StrCat(FormatBytes(*row.footprint_first), " – ", FormatBytes(*row.footprint_last));
  }
  if (row.footprint_first) return FormatBytes(*row.footprint_first);
  if (row.footprint_last) return FormatBytes(*row.footprint_last);
  return "";
}

bool HasComparison(const std::vector<DeviceHierarchy>& hierarchies) {
  const std::vector<ComparedDevice> devices = MatchDevices(hierarchies);
  return devices.size() >= 2 || (devices.size() == 1 && devices.front().hierarchies.size() >= 2);
}

std::string DescribeDevicesAndSources(const std::vector<DeviceHierarchy>& hierarchies) {
  const std::vector<ComparedDevice> devices = MatchDevices(hierarchies);
  if (devices.empty()) return "no memory hierarchy";
  std::vector<std::string> parts;
  for (const ComparedDevice& device : devices) {
    std::vector<std::string> sources;
    for (const DeviceHierarchy* h : device.hierarchies) sources.push_back(h->source);
    parts.push_back(absl::StrCat(device.name, " (", absl::StrJoin(sources, ", "), ")"));
  }
  return absl::StrJoin(parts, "; ");
}

std::string RenderComparison(const std::vector<DeviceHierarchy>& hierarchies) {
  const std::vector<ComparedDevice> devices = MatchDevices(hierarchies);
  std::vector<std::string> sections;
  for (const ComparedDevice& device : devices) {
    if (device.hierarchies.size() >= 2) sections.push_back(DeviceSection(device));
  }
  if (devices.size() >= 2) sections.push_back(AcrossDevicesSection(devices));
  return absl::StrJoin(sections, "\n");
}

}  // namespace dissect::analysis
