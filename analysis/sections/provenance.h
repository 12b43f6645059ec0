// Where the numbers of a result file came from, in words a reader can
// follow: which program measured its rows, and who gave each device fact
// (the driver, a flag of //analysis:import, or the peer's own file).

#ifndef DISSECT_ANALYSIS_SECTIONS_PROVENANCE_H_
#define DISSECT_ANALYSIS_SECTIONS_PROVENANCE_H_

#include <string>
#include <string_view>

#include "analysis/results/results.h"

namespace dissect::analysis {

// The program that measured `file`'s rows: "dissect memory_latency" for our
// own files; for imported ones (context `source`) the suite and, where it
// differs from the suite, the program that wrote the peer's file:
// "gpu-benches gpu-l2-cache", "mt4g".
std::string MeasuringProgram(const ResultFile& file);

// Who gave the device fact `key` (e.g. device_l2_bytes) of `file`, for a
// sentence such as "device_l2_bytes is 50 MiB, <origin>": "reported by the
// driver"; "from the driver's memory clock and bus width" for our
// device_dram_peak_gbps; for imported files "given to //analysis:import by
// a flag" (keys listed in context device_facts_from_flags), "read from the
// mt4g file" for the others, or "given by a flag of //analysis:import or
// read from the peer's file" for imports that predate that key.
std::string DeviceFactOrigin(const ResultFile& file, std::string_view key);

// The `method: ...` part of an imported row's label (`source: <source>;
// method: <how>`, SCHEMA.md), "" if it has none.
std::string LabelMethod(const Row& row);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_PROVENANCE_H_
