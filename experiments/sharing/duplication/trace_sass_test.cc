// Machine-code test of the line-tracing build of kernels/layers/layers.cu
// (the `trace` variant) against the timed builds, through cuobjdump:
//   - no timed build holds an atomic (RED/ATOM) or a read of the SM id
//     (SR_VIRTUALSMID / SR_SMID, what %smid becomes): the tracing overhead is
//     off every timed variant;
//   - in the trace build every data load (plain LDG.E) has its record: one
//     REDG.E.OR and one bitmap read (LDG.E.STRONG.SYS, the volatile read)
//     per data load, in the innermost loop that holds the load (ptxas must
//     not hoist or drop a record), and the SM id is read.
// ptxas does not unroll the traced kernels' loops (the records make them
// too large), so the trace build has one data LDG per Ld() call where the
// default build has several (e.g. conv 14, gemv 62 on sm_90a with nvcc
// 13.0): tracing changes the schedule, not the lines loaded.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/layers/layers.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

struct KernelLoads {
  const char* name;
  int loads;  // Ld() calls in the source
};
constexpr KernelLoads kKernels[] = {
    {"StreamKernel", 3},  {"GatherKernel", 2}, {"StencilKernel", 5}, {"ConvKernel", 2},
    {"MaxPoolKernel", 1}, {"GemvKernel", 2},   {"SoftmaxKernel", 3},
};

// The functions of build `variant`: its namespace, length-prefixed as the
// Itanium ABI writes it ("13variant_trace").
std::vector<const SassFunction*> FunctionsOf(const std::string& variant) {
  const std::string ns = absl::StrCat("variant_", variant);
  const std::string tag = absl::StrCat(ns.size(), ns);
  std::vector<const SassFunction*> out;
  for (const SassFunction& f : AllSassFunctions()) {
    if (absl::StrContains(f.name, tag)) out.push_back(&f);
  }
  return out;
}

bool IsAtomic(const SassInstruction& in) {
  return in.op == "RED" || in.op == "REDG" || in.op == "ATOM" || in.op == "ATOMG" ||
         in.op == "ATOMS" || in.op == "REDAS";
}

bool ReadsSmId(const SassInstruction& in) {
  for (const std::string& o : in.operands) {
    if (o == "SR_VIRTUALSMID" || o == "SR_SMID") return true;
  }
  return false;
}

bool IsBitmapRead(const SassInstruction& in) {
  return in.op == "LDG" && in.HasModifier("STRONG") && in.HasModifier("SYS");
}

// The default build's loads: LDG with no cache modifier.
bool IsDataLoad(const SassInstruction& in) { return in.op == "LDG" && !in.HasModifier("STRONG"); }

class TraceSassTest : public SassTest {};

TEST_F(TraceSassTest, TimedBuildsCarryNoTracing) {
  int builds = 0;
  for (const layers::CompiledVariant& v : layers::CompiledLayerVariants()) {
    if (v.traced) continue;
    ++builds;
    const std::vector<const SassFunction*> functions = FunctionsOf(v.name);
    EXPECT_EQ(functions.size() % std::size(kKernels), 0u) << v.name;
    EXPECT_FALSE(functions.empty()) << v.name;
    for (const SassFunction* f : functions) {
      for (const SassInstruction& in : f->code) {
        EXPECT_FALSE(IsAtomic(in)) << v.name << " " << f->name << ": " << in.text;
        EXPECT_FALSE(ReadsSmId(in)) << v.name << " " << f->name << ": " << in.text;
      }
    }
  }
  EXPECT_GE(builds, 10);
}

TEST_F(TraceSassTest, TraceRecordsEveryLoadInItsLoop) {
  const std::vector<const SassFunction*> functions = FunctionsOf("trace");
  ASSERT_FALSE(functions.empty());
  for (const KernelLoads& k : kKernels) {
    int found = 0;
    for (const SassFunction* f : functions) {
      if (!absl::StrContains(f->name, k.name)) continue;
      ++found;
      SCOPED_TRACE(absl::StrCat(k.name, " ", f->arch));
      const size_t n = f->code.size();
      const std::vector<size_t> data = IndicesOfOps(*f, 0, n, {"LDG"});
      int data_loads = 0, bitmap_reads = 0;
      for (size_t i : data) {
        data_loads += IsDataLoad(f->code[i]) ? 1 : 0;
        bitmap_reads += IsBitmapRead(f->code[i]) ? 1 : 0;
      }
      const int records = CountOps(*f, 0, n, {"REDG", "RED", "ATOMG", "ATOM"});
      EXPECT_EQ(data_loads, k.loads);
      EXPECT_EQ(records, data_loads);
      EXPECT_EQ(bitmap_reads, data_loads);
      int smid = 0;
      for (const SassInstruction& in : f->code) smid += ReadsSmId(in) ? 1 : 0;
      EXPECT_GE(smid, 2) << "the block's SM and the loads' SM";

      // Each data load's innermost enclosing loop holds as many records as
      // data loads (the region search is a loop of its own, inside it).
      const std::vector<SassLoop> loops = FindLoops(*f);
      for (size_t i : data) {
        if (!IsDataLoad(f->code[i])) continue;
        const SassLoop* inner = nullptr;
        for (const SassLoop& l : loops) {
          if (l.head <= i && i <= l.branch && (inner == nullptr || inner->Contains(l))) {
            inner = &l;
          }
        }
        ASSERT_NE(inner, nullptr) << "data load outside every loop: " << f->code[i].text;
        int loads_in = 0;
        for (size_t j : IndicesOfOps(*f, *inner, {"LDG"})) {
          loads_in += IsDataLoad(f->code[j]) ? 1 : 0;
        }
        EXPECT_EQ(CountOps(*f, *inner, {"REDG", "RED", "ATOMG", "ATOM"}), loads_in)
            << LoopListing(*f, *inner);
      }
    }
    EXPECT_GE(found, 1) << "no SASS of the trace build's " << k.name;
  }
}

}  // namespace
}  // namespace dissect
