// Side-by-side comparison of memory hierarchies (memory_hierarchy.h): one
// device measured by dissect and by peer suites whose results were imported
// (analysis/import; context `source`), and the devices next to each other.
// Values of different sources come from different methods; every ratio
// outside [0.9, 1.1] gets a note with the methods' known differences.

#ifndef DISSECT_ANALYSIS_SECTIONS_COMPARE_H_
#define DISSECT_ANALYSIS_SECTIONS_COMPARE_H_

#include <string>
#include <string_view>
#include <vector>

#include "analysis/sections/memory_hierarchy.h"

namespace dissect::analysis {

// One device and the hierarchies of each source that measured it.
struct ComparedDevice {
  std::string name;                // trimmed, as its first hierarchy names it
  std::string compute_capability;  // "" when no source knows it
  std::string sm_count;            // "" when no source knows it
  // dissect first, then the peers in first-seen order; one per source.
  std::vector<const DeviceHierarchy*> hierarchies;
};

// Whether `a` and `b` describe the same device: the names are equal ignoring
// case and surrounding spaces, and the compute capability and SM count agree
// where both know them ("?" or "" is unknown).
bool SameDevice(const DeviceHierarchy& a, const DeviceHierarchy& b);

// Groups `hierarchies` by device (SameDevice), devices in first-seen order.
// A hierarchy joins the first device that it matches (against what that
// device's hierarchies together know) and that has no hierarchy of its
// source yet; otherwise it starts a device of its own.
std::vector<ComparedDevice> MatchDevices(const std::vector<DeviceHierarchy>& hierarchies);

// The suite of a source: the part before '@' ("mt4g@4cc55662a954" -> "mt4g",
// "dissect" -> "dissect").
std::string SourceSuite(std::string_view source);

// A source as tables show it: a commit after '@' shortened to 7 hex digits
// ("gpu-benches@1038c5d0d0f4" -> "gpu-benches@1038c5d"); other versions are
// kept.
std::string ShortSource(std::string_view source);

// What is known about how `suite` measures `quantity` ("latency",
// "capacity" or "bandwidth"), "" when nothing is. From a small table in
// compare.cc.
std::string KnownMethod(std::string_view suite, std::string_view quantity);

// The footprint range of the plateau a row's latency comes from,
// "310 KiB – 26 MiB" ("" when unknown, one size when only one is known or
// both are equal).
std::string FootprintRange(const HierarchyRow& row);

// True when `hierarchies` hold something to compare: a device from two or
// more sources, or two or more devices.
bool HasComparison(const std::vector<DeviceHierarchy>& hierarchies);

// The devices and sources found, for a message: "Synthetic GPU (dissect,
// mt4g@4cc55662a954); A100 (dissect)", or "no memory hierarchy" when empty.
std::string DescribeDevicesAndSources(const std::vector<DeviceHierarchy>& hierarchies);

// The comparison sections: for each device with results of two or more
// sources, "## compare: <device>" with one table per level (rows: sources;
// latency, capacity and bandwidth with their ratio to dissect's or, without
// dissect results, to the first source's) and a note per ratio outside
// [0.9, 1.1] (as printed, two decimals); then, with two or more devices,
// "## compare across devices" with one table per level, devices in
// columns. "" when there is nothing to compare (HasComparison). Otherwise
// deterministic and ends with one newline.
std::string RenderComparison(const std::vector<DeviceHierarchy>& hierarchies);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_COMPARE_H_
