// The runner's checks before a night, on the CPU: entry inputs, the budget,
// the device verdict from what the driver and NVML say (and the real driver
// of this machine with no device visible), the points an entry lists, and
// the --dry_run plan table.
#include "experiments/drivers/sweep/preflight.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::sweep {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

SweepEntry Entry(const std::string& id, double limit_s) {
  SweepEntry e;
  e.id = id;
  e.experiment = "activation_sparsity";
  e.binary = "experiments/sparsity/activation_sparsity";
  e.time_limit_s = limit_s;
  return e;
}

std::vector<const SweepEntry*> All(const Sweep& sweep) {
  std::vector<const SweepEntry*> all;
  for (const SweepEntry& e : sweep.entries) all.push_back(&e);
  return all;
}

TEST(CheckEntryInputsTest, NpyDumpsNeedsActivations) {
  Sweep sweep;
  sweep.path = "night.json";
  sweep.entries = {Entry("default_axes", 10), Entry("dumps", 10)};
  EXPECT_TRUE(CheckEntryInputs(sweep, All(sweep)).ok());

  for (const char* values : {"npy_dumps", "synthetic_weights,npy_dumps"}) {
    sweep.entries[1].axes = {{"activation_source", values}};
    absl::Status s = CheckEntryInputs(sweep, All(sweep));
    ASSERT_FALSE(s.ok()) << values;
    EXPECT_EQ(s.message(),
              "night.json: entry \"dumps\" asks for activation_source=npy_dumps but gives no "
              "--activations=PATH in its \"args\" (the points would be skipped)");
  }
  sweep.entries[1].args = {"--activations="};
  EXPECT_FALSE(CheckEntryInputs(sweep, All(sweep)).ok());
  sweep.entries[1].args = {"--activations=/data/resnet50_relu"};
  EXPECT_TRUE(CheckEntryInputs(sweep, All(sweep)).ok());
  // Entries left out by --only are not checked.
  sweep.entries[1].args.clear();
  EXPECT_TRUE(CheckEntryInputs(sweep, {&sweep.entries[0]}).ok());
}

TEST(CheckBudgetTest, SelectedLimitsAgainstTheBudget) {
  Sweep sweep;
  sweep.name = "nightly";
  sweep.entries = {Entry("a", 300), Entry("b", 250.5)};
  EXPECT_TRUE(CheckBudget(sweep, All(sweep)).ok());  // no budget
  sweep.budget_s = 600;
  EXPECT_TRUE(CheckBudget(sweep, All(sweep)).ok());
  sweep.budget_s = 500;
  absl::Status s = CheckBudget(sweep, All(sweep));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "the time limits of sweep nightly's 2 entries add up to 550.5 s, over the night's "
            "budget of 500 s: select fewer entries (--only) or raise the budget (--budget_s)");
  EXPECT_TRUE(CheckBudget(sweep, {&sweep.entries[0]}).ok());
}

CudaDriverView OneH100() {
  CudaDriverView cuda;
  cuda.device_count = 1;
  cuda.driver_version = 13000;
  cuda.device_name = "NVIDIA H100 80GB HBM3";
  return cuda;
}

TEST(DeviceProblemTest, EachWayANightHasNoDevice) {
  const DeviceIdentity nvml;
  unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(DeviceProblem(OneH100(), nvml, 0, ""), "");

  CudaDriverView hung;
  hung.query_error = "the CUDA driver gave no answer within 120 s";
  EXPECT_EQ(DeviceProblem(hung, nvml, 0, ""),
            "cannot ask the CUDA driver: the CUDA driver gave no answer within 120 s");

  CudaDriverView no_driver;
  no_driver.load_error = "libcuda.so.1: cannot open shared object file";
  EXPECT_EQ(DeviceProblem(no_driver, nvml, 0, ""),
            "no NVIDIA driver: libcuda.so.1: cannot open shared object file");

  CudaDriverView no_device = OneH100();
  no_device.init_result = 100;
  no_device.init_error = "CUDA_ERROR_NO_DEVICE";
  no_device.device_count = 0;
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  EXPECT_EQ(DeviceProblem(no_device, nvml, 0, ""),
            "no CUDA device visible: cuInit: CUDA_ERROR_NO_DEVICE (100; driver CUDA 13.0) "
            "(CUDA_VISIBLE_DEVICES='')");
  unsetenv("CUDA_VISIBLE_DEVICES");

  CudaDriverView old_driver = OneH100();
  old_driver.init_result = 35;
  old_driver.init_error = "CUDA_ERROR_INSUFFICIENT_DRIVER";
  EXPECT_THAT(DeviceProblem(old_driver, nvml, 0, ""),
              StartsWith("CUDA driver failed: cuInit: CUDA_ERROR_INSUFFICIENT_DRIVER (35;"));

  EXPECT_EQ(DeviceProblem(OneH100(), nvml, 1, ""),
            "--device=1 but only 1 CUDA device(s) are visible");
}

TEST(DeviceProblemTest, TheExpectedDevice) {
  DeviceIdentity nvml;
  nvml.name = "NVIDIA H100 80GB HBM3";
  nvml.uuid = "GPU-1234";
  unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(DeviceProblem(OneH100(), nvml, 0, "h100"), "");
  EXPECT_EQ(DeviceProblem(OneH100(), nvml, 0, "GPU-1234"), "");
  EXPECT_EQ(DeviceProblem(OneH100(), nvml, 0, "A100"),
            "device 0 is NVIDIA H100 80GB HBM3 (GPU-1234), not the expected 'A100' "
            "(--expect_device)");
  // A part of the UUID is not the UUID.
  EXPECT_NE(DeviceProblem(OneH100(), nvml, 0, "GPU-12"), "");
}

// The real driver query with no device visible: on this machine without a
// GPU (no driver: cannot load), and on a GPU machine alike (cuInit sees no
// device).
TEST(CheckDeviceTest, NoDeviceVisibleIsOneLine) {
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  const std::string problem = CheckDevice(0, "");
  unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_THAT(problem, ::testing::AnyOf(StartsWith("no NVIDIA driver: libcuda.so.1"),
                                        StartsWith("no CUDA device visible: cuInit")));
  EXPECT_EQ(problem.find('\n'), std::string::npos) << problem;
}

std::string Script(const std::string& name, const std::string& body) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

TEST(CountPointsTest, CountsTheListedPointsOfTheExperiment) {
  SweepEntry e = Entry("e", 5);
  e.axes = {{"batch", "1,2"}};
  const std::string lists = Script(
      "lists.sh",
      "[ \"$1\" = --list ] || exit 9\n"
      "echo activation_sparsity/batch:1; echo activation_sparsity/batch:2; echo noise");
  absl::StatusOr<int> points = CountPoints(lists, e, 0);
  ASSERT_TRUE(points.ok()) << points.status();
  EXPECT_EQ(*points, 2);

  const std::string refuses = Script("refuses.sh", "echo 'x: unknown axis batch' >&2; exit 2");
  points = CountPoints(refuses, e, 0);
  ASSERT_FALSE(points.ok());
  EXPECT_EQ(points.status().message(), "--list exited 2: x: unknown axis batch");
}

TEST(WritePlanTest, AlignedColumnsAndTheTotalAgainstTheBudget) {
  std::vector<PlanRow> rows(4);
  rows[0] = {"shared_latency", 1, "", 15, false};
  rows[1] = {"memory_bandwidth", 120, "", 60, false};
  rows[2] = {"gone", std::nullopt, "binary experiments/gone not found", 7.5, false};
  rows[3] = {"l1", 4, "", 20, true};
  std::ostringstream out;
  WritePlan(rows, 100, out);
  EXPECT_EQ(out.str(),
            "entry             points  time limit\n"
            "shared_latency         1        15 s\n"
            "memory_bandwidth     120        60 s\n"
            "gone                   ?       7.5 s\n"
            "l1                     4        done\n"
            "total (3 to run)    121+      82.5 s  of the night's budget of 100 s (17.5 s to "
            "spare)\n"
            "? gone: binary experiments/gone not found\n");

  std::ostringstream over;
  WritePlan(rows, 80, over);
  EXPECT_THAT(over.str(), HasSubstr("82.5 s  OVER the night's budget of 80 s by 2.5 s\n"));
  std::ostringstream none;
  WritePlan(rows, std::nullopt, none);
  EXPECT_THAT(none.str(), HasSubstr("(no budget: give the sweep file a \"budget_s\" or pass "
                                    "--budget_s)"));
}

}  // namespace
}  // namespace dissect::sweep
