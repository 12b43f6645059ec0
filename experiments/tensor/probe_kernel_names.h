// The mangled-name fragments of the tensor-core probe kernels
// (kernels/tensor/mma_sync.cu, wgmma.cu), so that the compiled-code tests
// (PTX and SASS) find the kernel of one form, mode and shape.
#ifndef DISSECT_EXPERIMENTS_TENSOR_PROBE_KERNEL_NAMES_H_
#define DISSECT_EXPERIMENTS_TENSOR_PROBE_KERNEL_NAMES_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/tensor/mma_sync.h"
#include "kernels/tensor/wgmma.h"

namespace dissect {

struct MmaKernelTrait {
  MmaForm form;
  const char* trait;  // the trait's name as mangled in the kernel's name
};

inline constexpr MmaKernelTrait kMmaKernelTraits[] = {
    {MmaForm::kF16F32, "6F16F32"},       {MmaForm::kF16F16, "6F16F16"},
    {MmaForm::kBf16F32, "7Bf16F32"},     {MmaForm::kTf32F32, "7Tf32F32"},
    {MmaForm::kS8S32, "5S8S32"},         {MmaForm::kE4m3F32, "7E4m3F32"},
    {MmaForm::kE5m2F32, "7E5m2F32"},     {MmaForm::kSpF16F32, "8SpF16F32"},
    {MmaForm::kSpBf16F32, "9SpBf16F32"}, {MmaForm::kSpTf32F32, "9SpTf32F32"},
    {MmaForm::kSpS8S32, "7SpS8S32"},     {MmaForm::kSpE4m3F32, "9SpE4m3F32"},
};

// "MmaSyncKernelINS0_6F16F32ELi1ELi1EE": MmaSyncKernel<F16F32, 1, 1>, the
// last argument the A/B fragments its timed loop cycles through (1:
// constant operands; kCyclingFragments).
inline std::string MmaKernelName(const MmaKernelTrait& t, int chains, int fragments = 1) {
  return absl::StrCat("MmaSyncKernelINS0_", t.trait, "ELi", chains, "ELi", fragments, "EE");
}

struct WgmmaKernelTrait {
  WgmmaForm form;
  const char* trait;
};

inline constexpr WgmmaKernelTrait kWgmmaKernelTraits[] = {
    {WgmmaForm::kF16F32, "8WgF16F32"},        {WgmmaForm::kBf16F32, "9WgBf16F32"},
    {WgmmaForm::kTf32F32, "9WgTf32F32"},      {WgmmaForm::kE4m3F32, "9WgE4m3F32"},
    {WgmmaForm::kE5m2F32, "9WgE5m2F32"},      {WgmmaForm::kS8S32, "7WgS8S32"},
    {WgmmaForm::kSpF16F32, "10WgSpF16F32"},   {WgmmaForm::kSpBf16F32, "11WgSpBf16F32"},
    {WgmmaForm::kSpTf32F32, "11WgSpTf32F32"}, {WgmmaForm::kSpE4m3F32, "11WgSpE4m3F32"},
    {WgmmaForm::kSpS8S32, "9WgSpS8S32"},
};

// WgmmaKernel<Form, N, kARegs, kChains, kLatency, kFragments>.
inline std::string WgmmaKernelName(const WgmmaKernelTrait& t, int n, bool a_from_registers,
                                   int chains, bool latency, int fragments = 1) {
  return absl::StrCat("WgmmaKernelINS0_", t.trait, "ELi", n, "ELb", a_from_registers ? 1 : 0, "ELi",
                      chains, "ELb", latency ? 1 : 0, "ELi", fragments, "EE");
}

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_TENSOR_PROBE_KERNEL_NAMES_H_
