// Our two-stage convolution's arithmetic (kernels/two_stage_conv/
// two_stage_conv_math.h, the very functions its kernels call) run on the
// host and checked against the CPU reference of conv_algorithms
// (ConvOutputAt) with the experiment's own check (PassesCheck, math=fma):
// exhaustively on small padded, strided and non-square shapes, and on the
// experiment's sampled outputs of every distinct conv layer of AlexNet,
// VGG-16 and ResNet-50. Broken decompositions (a filter row's partials
// lost, the filter read as K x C x S x R) must fail the same check.
#include <cudnn.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/conv_algos/conv_check.h"
#include "experiments/conv_algos/conv_layers.h"
#include "experiments/workloads/forward/network.h"
#include "gtest/gtest.h"
#include "kernels/two_stage_conv/two_stage_conv_math.h"

namespace dissect::conv_algos {
namespace {

using two_stage_conv::ConvDims;

ConvDims DimsOf(const forward::LayerSpec& l, int batch) {
  return {batch, l.in.c, l.in.h, l.in.w, l.k, l.r, l.s, l.stride, l.pad};
}

forward::LayerSpec Layer(int c, int h, int w, int k, int r, int s, int stride, int pad) {
  forward::LayerSpec l;
  l.op = forward::LayerOp::kConv;
  l.in = {c, h, w};
  l.k = k;
  l.r = r;
  l.s = s;
  l.stride = stride;
  l.pad = pad;
  l.out = {k, (h + 2 * pad - r) / stride + 1, (w + 2 * pad - s) / stride + 1};
  return l;
}

// `elements` values of `pattern` repeated, as the experiment tiles it on the
// device.
std::vector<float> Tiled(const std::vector<float>& pattern, size_t elements) {
  std::vector<float> out(elements);
  for (size_t i = 0; i < elements; ++i) out[i] = pattern[i % pattern.size()];
  return out;
}

// The tensors of layer `l` at `batch` from the experiment's patterns.
struct Tensors {
  std::vector<float> x_pattern = InputPattern();
  std::vector<float> w_pattern;
  std::vector<float> x;
  std::vector<float> w;
};

Tensors TensorsOf(const forward::LayerSpec& l, int batch) {
  Tensors t;
  t.w_pattern = WeightPattern(l);
  t.x = Tiled(t.x_pattern, static_cast<size_t>(batch) * l.in.c * l.in.h * l.in.w);
  t.w = Tiled(t.w_pattern, static_cast<size_t>(l.k) * l.in.c * l.r * l.s);
  return t;
}

// Output i by both stages on the host: stage 1 fills the workspace slots of
// output i (one per filter row), stage 2 sums them. `lost_row` >= 0 zeroes
// that row's partial (a broken stage 1).
float TwoStageOutput(const Tensors& t, const ConvDims& d, std::vector<float>& workspace, size_t i,
                     int lost_row = -1) {
  const size_t nkpq = two_stage_conv::OutputElements(d);
  for (int r = 0; r < d.r; ++r) {
    const size_t slot = r * nkpq + i;
    workspace[slot] =
        r == lost_row ? 0.0f : two_stage_conv::RowPartial(t.x.data(), t.w.data(), d, slot);
  }
  return two_stage_conv::SumOfRowPartials(workspace.data(), d, i);
}

// Outputs (NKPQ index) that fail the fma check, as "(n k p q) got vs want".
std::vector<std::string> FailuresAt(const forward::LayerSpec& l, int batch, const Tensors& t,
                                    const std::vector<size_t>& outputs, int lost_row = -1) {
  const ConvDims d = DimsOf(l, batch);
  std::vector<float> workspace(two_stage_conv::WorkspaceElements(d));
  std::vector<std::string> failures;
  const int p_count = l.out.h, q_count = l.out.w;
  for (size_t i : outputs) {
    const int q = static_cast<int>(i % q_count);
    const int p = static_cast<int>(i / q_count % p_count);
    const int k = static_cast<int>(i / (static_cast<size_t>(q_count) * p_count) % l.k);
    const int n = static_cast<int>(i / (static_cast<size_t>(q_count) * p_count * l.k));
    const float got = TwoStageOutput(t, d, workspace, i, lost_row);
    const ReferenceValue want = ConvOutputAt(l, t.x_pattern, t.w_pattern, n, k, p, q);
    if (!PassesCheck(got, want, CUDNN_FMA_MATH)) {
      failures.push_back(
          absl::StrCat("(", n, " ", k, " ", p, " ", q, ") ", got, " vs ", want.value));
    }
  }
  return failures;
}

std::vector<size_t> EveryOutput(const forward::LayerSpec& l, int batch) {
  std::vector<size_t> all(two_stage_conv::OutputElements(DimsOf(l, batch)));
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

std::vector<size_t> CheckedOutputs(const forward::LayerSpec& l, int batch) {
  std::vector<size_t> out;
  for (int i = 0; i < kCheckedOutputs; ++i) out.push_back(CheckedOutput(l, batch, i).index);
  return out;
}

// Small shapes, every output: padding wider than a tap's reach (rows and
// columns wholly in the padding), strides 1 to 3, R != S, non-square inputs,
// 1x1.
const std::vector<forward::LayerSpec>& SmallShapes() {
  static const auto* const shapes = new std::vector<forward::LayerSpec>{
      Layer(3, 7, 6, 4, 3, 2, 2, 1),   Layer(5, 9, 9, 3, 3, 3, 1, 1), Layer(2, 5, 8, 3, 5, 3, 1, 2),
      Layer(4, 11, 10, 2, 7, 7, 3, 3), Layer(6, 6, 6, 5, 1, 1, 2, 0), Layer(3, 4, 4, 2, 3, 3, 1, 2),
  };
  return *shapes;
}

TEST(TwoStageReferenceTest, EveryOutputOfSmallShapesMatchesTheReference) {
  for (const forward::LayerSpec& l : SmallShapes()) {
    const int batch = 3;
    const Tensors t = TensorsOf(l, batch);
    const std::vector<std::string> failures = FailuresAt(l, batch, t, EveryOutput(l, batch));
    EXPECT_TRUE(failures.empty()) << l.in.c << "x" << l.in.h << "x" << l.in.w << " k" << l.k << " "
                                  << l.r << "x" << l.s << "/" << l.stride << " pad " << l.pad
                                  << ": " << failures.size() << " wrong, first "
                                  << failures.front();
  }
}

// The experiment's own check (its 256 sampled outputs) on every layer it
// runs by default, at batch 1: what the GPU must pass.
TEST(TwoStageReferenceTest, SampledOutputsOfEveryPaperLayerMatchTheReference) {
  const absl::StatusOr<std::vector<ConvLayer>> layers = AllConvLayers();
  ASSERT_TRUE(layers.ok()) << layers.status();
  const std::vector<std::string> names =
      DistinctShapeNames(*layers, {"alexnet", "vgg16", "resnet50"});
  ASSERT_GT(names.size(), 30u);
  int checked = 0;
  for (const ConvLayer& layer : *layers) {
    if (std::find(names.begin(), names.end(), layer.name) == names.end()) continue;
    const Tensors t = TensorsOf(layer.spec, 1);
    const std::vector<std::string> failures =
        FailuresAt(layer.spec, 1, t, CheckedOutputs(layer.spec, 1));
    EXPECT_TRUE(failures.empty()) << layer.name << ": " << failures.size() << " wrong, first "
                                  << failures.front();
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(names.size()));
}

// The check can fail: a stage 1 that loses one filter row's partials (any
// row, on a padded strided shape) fails it.
TEST(TwoStageReferenceTest, LosingAFilterRowFailsTheCheck) {
  const forward::LayerSpec l = Layer(4, 11, 10, 2, 7, 7, 3, 3);
  const Tensors t = TensorsOf(l, 2);
  for (int row = 0; row < l.r; ++row) {
    EXPECT_FALSE(FailuresAt(l, 2, t, EveryOutput(l, 2), row).empty()) << "row " << row;
  }
}

// The check can fail: weights read as K x C x S x R (rows and columns of the
// filter swapped) fail it on a 3x3 layer.
TEST(TwoStageReferenceTest, TransposedFilterFailsTheCheck) {
  const forward::LayerSpec l = Layer(5, 9, 9, 3, 3, 3, 1, 1);
  Tensors t = TensorsOf(l, 1);
  std::vector<float> transposed(t.w.size());
  for (size_t kc = 0; kc < t.w.size() / 9; ++kc) {
    for (int r = 0; r < 3; ++r) {
      for (int s = 0; s < 3; ++s) transposed[kc * 9 + s * 3 + r] = t.w[kc * 9 + r * 3 + s];
    }
  }
  t.w = transposed;
  EXPECT_FALSE(FailuresAt(l, 1, t, EveryOutput(l, 1)).empty());
}

TEST(TwoStageReferenceTest, WorkspaceIsOneOutputPerFilterRow) {
  // ResNet-50's stem: 7 rows x 64 x 112 x 112 floats per image.
  const ConvDims d = DimsOf(Layer(3, 224, 224, 64, 7, 7, 2, 3), 2);
  EXPECT_EQ(d.OutH(), 112);
  EXPECT_EQ(two_stage_conv::OutputElements(d), size_t{2} * 64 * 112 * 112);
  EXPECT_EQ(two_stage_conv::WorkspaceElements(d), size_t{7} * 2 * 64 * 112 * 112);
}

}  // namespace
}  // namespace dissect::conv_algos
