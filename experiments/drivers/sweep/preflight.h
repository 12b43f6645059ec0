// What the sweep runner checks before it spends a night, and the plan it
// prints for --dry_run:
//
//   1. each entry's inputs (an activation_sparsity entry that asks for
//      npy_dumps names its --activations), and that the selected entries'
//      time limits fit the night's budget: no GPU needed;
//   2. the CUDA driver and the device the children will get (driver
//      loadable, cuInit succeeds, the --device index visible, the device the
//      operator expects), once, so that a night without a device ends in one
//      line instead of one identical failure per entry.
#ifndef DISSECT_EXPERIMENTS_DRIVERS_SWEEP_PREFLIGHT_H_
#define DISSECT_EXPERIMENTS_DRIVERS_SWEEP_PREFLIGHT_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "experiments/drivers/sweep/device_identity.h"
#include "experiments/drivers/sweep/sweep_config.h"

namespace dissect::sweep {

// The runner's exit status when the device check failed and no entry ran.
inline constexpr int kExitNoDevice = 3;

// An entry whose axes ask for an input file that its args do not give
// (activation_source=npy_dumps without --activations): InvalidArgument
// naming the sweep file, the entry and the flag it needs.
absl::Status CheckEntryInputs(const Sweep& sweep, const std::vector<const SweepEntry*>& selected);

// FailedPrecondition when the selected entries' time limits add up to more
// than the sweep's budget (none when it has none).
absl::Status CheckBudget(const Sweep& sweep, const std::vector<const SweepEntry*>& selected);

// What the CUDA driver says about the machine, without linking CUDA
// (libcuda.so.1 is loaded at run time, as NVML is in device_identity.cc).
struct CudaDriverView {
  std::string query_error;  // why the driver could not be asked (it hung, ...)
  std::string load_error;   // why libcuda.so.1 could not be loaded; empty if it was
  int init_result = 0;      // cuInit's CUresult (0: success)
  std::string init_error;   // its name, e.g. CUDA_ERROR_NO_DEVICE
  int device_count = 0;     // cuDeviceGetCount after a successful cuInit
  int driver_version = 0;   // cuDriverGetVersion, e.g. 13000; 0 if unknown
  std::string device_name;  // cuDeviceGetName of the queried index; empty if none
};

// Asks the CUDA driver about device `index` (as the children will number
// it: the caller sets CUDA_DEVICE_ORDER=PCI_BUS_ID first). The query runs
// in a short-lived child process, stopped after 120 s, so that the runner
// itself never holds a CUDA driver state that its children would inherit
// and a hung driver does not hang the night.
CudaDriverView QueryCudaDriver(int index);

// Why the children cannot use device `index` ("" when they can): the
// driver could not be asked, no driver, cuInit failed (no device visible), the index is not visible, or
// the device is not the one expected (`expected`: a case-insensitive part
// of its name, or its UUID; empty = any device). One line, naming
// CUDA_VISIBLE_DEVICES when it is set.
std::string DeviceProblem(const CudaDriverView& cuda, const DeviceIdentity& nvml, int index,
                          const std::string& expected);

// DeviceProblem of the real driver, NVML and environment.
std::string CheckDevice(int index, const std::string& expected);

// One row of the --dry_run plan.
struct PlanRow {
  std::string entry;
  std::optional<int> points;  // absent when they could not be listed
  std::string points_problem;  // why not
  double time_limit_s = 0;
  bool done = false;  // ok in an earlier run of this folder: will not run
};

// How many points `binary` (a path) lists with the entry's axes and flags
// (`BIN --list ...`, no GPU), or why not.
absl::StatusOr<int> CountPoints(const std::string& binary, const SweepEntry& entry,
                                double cooldown_s);

// The plan as an aligned table: entry, points, time limit, one row each,
// then the total of the entries that will run against the night's budget;
// each row whose points could not be listed is explained below it.
void WritePlan(const std::vector<PlanRow>& rows, std::optional<double> budget_s,
               std::ostream& out);

}  // namespace dissect::sweep

#endif  // DISSECT_EXPERIMENTS_DRIVERS_SWEEP_PREFLIGHT_H_
