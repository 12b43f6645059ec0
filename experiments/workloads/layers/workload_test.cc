// Which kernel runs on which layer, with which tensors, and how the
// working-set axis resizes a layer.
#include "experiments/workloads/layers/workload.h"

#include <cstdlib>

#include "gtest/gtest.h"

namespace dissect::l1_bypass {
namespace {

using layers::LayerKernel;

LayerShape Conv() {  // vgg16.conv3_1
  LayerShape l;
  l.name = "conv";
  l.type = LayerType::kConv;
  l.c = 128;
  l.h = l.w = 56;
  l.k = 256;
  l.r = l.s = 3;
  l.pad = 1;
  return l;
}

LayerShape Pool() {  // alexnet.pool1
  LayerShape l;
  l.name = "pool";
  l.type = LayerType::kPool;
  l.c = 96;
  l.h = l.w = 55;
  l.r = l.s = 3;
  l.stride = 2;
  return l;
}

LayerShape Fc() {  // vgg16.fc6
  LayerShape l;
  l.name = "fc";
  l.type = LayerType::kFc;
  l.c = 25088;
  l.k = 4096;
  return l;
}

TEST(WorkloadTest, KernelNamesRoundTrip) {
  for (const std::string& name : KernelNames()) {
    auto k = ParseKernel(name);
    ASSERT_TRUE(k.ok()) << name;
    EXPECT_EQ(KernelName(*k), name);
  }
  EXPECT_EQ(KernelNames().size(), 7u);
  EXPECT_FALSE(ParseKernel("fft").ok());
}

TEST(WorkloadTest, KernelsRunOnTheirLayerTypes) {
  for (LayerKernel k : {LayerKernel::kStream, LayerKernel::kGather, LayerKernel::kSoftmax}) {
    EXPECT_EQ(NotApplicable(k, Conv()), "");
    EXPECT_EQ(NotApplicable(k, Pool()), "");
    EXPECT_EQ(NotApplicable(k, Fc()), "");
  }
  EXPECT_EQ(NotApplicable(LayerKernel::kStencil, Pool()), "");
  EXPECT_NE(NotApplicable(LayerKernel::kStencil, Fc()), "");
  EXPECT_EQ(NotApplicable(LayerKernel::kConv, Conv()), "");
  EXPECT_NE(NotApplicable(LayerKernel::kConv, Pool()), "");
  EXPECT_EQ(NotApplicable(LayerKernel::kMaxPool, Pool()), "");
  EXPECT_NE(NotApplicable(LayerKernel::kMaxPool, Conv()), "");
  EXPECT_EQ(NotApplicable(LayerKernel::kGemv, Fc()), "");
  EXPECT_EQ(NotApplicable(LayerKernel::kGemv, Conv()), "gemv does not run on conv layers (conv)");
}

TEST(WorkloadTest, TensorsOfEachKernel) {
  const Workload conv = MakeWorkload(LayerKernel::kConv, Conv(), 0);
  EXPECT_EQ(conv.x_elements, 128u * 56 * 56);
  EXPECT_EQ(conv.weight_elements, 256u * 128 * 9);
  EXPECT_EQ(conv.y_elements, 256u * 56 * 56);
  EXPECT_EQ(conv.BytesMoved(), 4 * int64_t(128 * 56 * 56 + 256 * 128 * 9 + 256 * 56 * 56));

  const Workload pool = MakeWorkload(LayerKernel::kMaxPool, Pool(), 0);
  EXPECT_EQ(pool.y_elements, 96u * 27 * 27);

  const Workload gather = MakeWorkload(LayerKernel::kGather, Pool(), 0);
  EXPECT_EQ(gather.index_elements, gather.x_elements);
  EXPECT_EQ(gather.BytesMoved(), 3 * 4 * int64_t(gather.x_elements));

  const Workload stream = MakeWorkload(LayerKernel::kStream, Conv(), 0);
  EXPECT_EQ(stream.weight_elements, 2u * 128);

  const Workload gemv = MakeWorkload(LayerKernel::kGemv, Fc(), 0);
  EXPECT_EQ(gemv.x_elements, 25088u);
  EXPECT_EQ(gemv.weight_elements, 25088u * 4096);
  EXPECT_EQ(gemv.y_elements, 4096u);

  // Softmax: the classifier's outputs of a fc layer; each H x W plane of a
  // conv layer.
  const Workload fc_softmax = MakeWorkload(LayerKernel::kSoftmax, Fc(), 0);
  EXPECT_EQ(fc_softmax.dims.w, 4096);
  EXPECT_EQ(fc_softmax.x_elements, 4096u);
  const Workload plane_softmax = MakeWorkload(LayerKernel::kSoftmax, Conv(), 0);
  EXPECT_EQ(plane_softmax.dims.w, 56 * 56);
  EXPECT_EQ(size_t(plane_softmax.dims.n) * plane_softmax.dims.c * plane_softmax.dims.h, 128u);
}

TEST(WorkloadTest, BatchScalesEveryTensorButTheWeights) {
  LayerShape conv = Conv();
  conv.n = 32;
  const Workload wl = MakeWorkload(LayerKernel::kConv, conv, 0);
  EXPECT_EQ(wl.images, 32);
  EXPECT_EQ(wl.x_elements, 32u * 128 * 56 * 56);
  EXPECT_EQ(wl.weight_elements, 256u * 128 * 9);
  EXPECT_EQ(wl.y_elements, 32u * 256 * 56 * 56);
  LayerShape fc = Fc();
  fc.n = 8;
  const Workload gemv = MakeWorkload(LayerKernel::kGemv, fc, 0);
  EXPECT_EQ(gemv.x_elements, 8u * 25088);
  EXPECT_EQ(gemv.weight_elements, 25088u * 4096);
  EXPECT_EQ(gemv.y_elements, 8u * 4096);
  // A working set is the whole batch's input.
  const Workload sized = MakeWorkload(LayerKernel::kStream, conv, int64_t{64} << 20);
  EXPECT_NEAR(double(sized.InputBytes()) / (int64_t{64} << 20), 1.0, 0.1);
}

TEST(WorkloadTest, WorkingSetResizesTheInput) {
  for (LayerKernel k : {LayerKernel::kConv, LayerKernel::kStencil, LayerKernel::kStream}) {
    int64_t last = 0;
    for (int64_t ws = int64_t{64} << 10; ws <= int64_t{256} << 20; ws *= 4) {
      const Workload wl = MakeWorkload(k, Conv(), ws);
      // Square planes of C = 128 channels, the side rounded: within 10%.
      EXPECT_NEAR(double(wl.InputBytes()) / ws, 1.0, 0.1) << KernelName(k) << " " << ws;
      EXPECT_GT(wl.InputBytes(), last);
      EXPECT_EQ(wl.dims.c, 128);
      last = wl.InputBytes();
    }
  }
  // Far below one plane of the window: the smallest valid layer.
  const Workload tiny = MakeWorkload(LayerKernel::kMaxPool, Pool(), 64);
  EXPECT_EQ(tiny.dims.h, 3);
  EXPECT_EQ(tiny.y_elements, 96u);
  // gemv: x grows, the weight matrix keeps about K x C elements.
  const Workload gemv = MakeWorkload(LayerKernel::kGemv, Fc(), 1 << 20);
  EXPECT_EQ(gemv.x_elements, 1u << 18);
  EXPECT_NEAR(double(gemv.weight_elements) / (25088.0 * 4096), 1.0, 0.01);
  const Workload softmax = MakeWorkload(LayerKernel::kSoftmax, Fc(), 4096);
  EXPECT_EQ(softmax.dims.w, 1024);
}

}  // namespace
}  // namespace dissect::l1_bypass
