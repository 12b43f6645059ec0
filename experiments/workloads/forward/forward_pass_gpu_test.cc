// Each layer op of the forward pass, and small whole networks, on the GPU
// against the CPU reference (cpu_reference.h) with the same weights and input.
//
// Tolerance: |gpu - cpu| <= kRelTol * max|cpu| of the layer (+ 1e-6). The
// pass runs float32 with CUDNN_FMA_MATH (no TF32), but cuDNN's algorithms
// (implicit GEMM, FFT, Winograd) sum in other orders and, for FFT and
// Winograd, through transforms whose rounding is ~1e-5 of the output's
// magnitude; the CPU sums in double. 1e-3 per layer leaves room for that and
// for BN dividing by small deviations; the whole networks get 5e-3 because
// errors carry through layers. At a FATReLU threshold T a value within the
// tolerance of T may fall on either side, so there 0 against ~T passes.
#include <cuda_runtime_api.h>

#include <cmath>
#include <map>

#include "experiments/workloads/forward/cpu_reference.h"
#include "experiments/workloads/forward/forward_pass.h"
#include "experiments/workloads/forward/network.h"
#include "gtest/gtest.h"

namespace dissect::forward {
namespace {

constexpr double kRelTol = 1e-3;
constexpr double kNetworkRelTol = 5e-3;
constexpr int kBatch = 2;
constexpr uint64_t kSeed = 20;

class Stream {
 public:
  Stream() { cudaStreamCreate(&stream_); }
  ~Stream() { cudaStreamDestroy(stream_); }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

NetworkSpec Parse(const std::string& layers, int c = 3, int hw = 12) {
  const absl::StatusOr<NetworkSpec> net =
      ParseNetwork(R"({"format": "dissect.network.v1", "name": "tiny", "input": {"c": )" +
                       std::to_string(c) + R"(, "h": )" + std::to_string(hw) + R"(, "w": )" +
                       std::to_string(hw) + R"(}, "layers": [)" + layers + "]}",
                   "test");
  EXPECT_TRUE(net.ok()) << net.status();
  return net.ok() ? *net : NetworkSpec{};
}

// Runs `net` on both sides and compares every layer's output.
void ExpectMatchesCpu(const NetworkSpec& net, float threshold, double rel_tol) {
  ASSERT_FALSE(net.layers.empty());
  std::map<std::string, std::vector<float>> cpu;
  ASSERT_TRUE(RunNetworkCpu(net, kBatch, kSeed, threshold,
                            [&](const LayerSpec& l, const std::vector<float>& y, TensorDims) {
                              cpu[l.name] = y;
                            })
                  .ok());
  Stream stream;
  absl::StatusOr<std::unique_ptr<ForwardPass>> pass =
      ForwardPass::Create(net, kBatch, kSeed, stream.get());
  ASSERT_TRUE(pass.ok()) << pass.status();
  std::map<std::string, std::vector<float>> gpu;
  const absl::Status run = (*pass)->Run(
      threshold,
      [&](const std::string& layer, const float* data, TensorDims dims) -> absl::Status {
        std::vector<float>& host = gpu[layer];
        host.resize(dims.elements());
        if (cudaMemcpyAsync(host.data(), data, host.size() * sizeof(float), cudaMemcpyDeviceToHost,
                            stream.get()) != cudaSuccess ||
            cudaStreamSynchronize(stream.get()) != cudaSuccess) {
          return absl::InternalError("copy failed");
        }
        return absl::OkStatus();
      },
      Observe::kEveryLayer);
  ASSERT_TRUE(run.ok()) << run;
  for (const LayerSpec& l : net.layers) {
    const std::vector<float>& want = cpu[l.name];
    const std::vector<float>& got = gpu[l.name];
    ASSERT_EQ(got.size(), want.size()) << l.name;
    double scale = 0;
    for (float v : want) scale = std::max(scale, std::fabs(static_cast<double>(v)));
    const double tol = rel_tol * scale + 1e-6;
    int bad = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      const double diff = std::fabs(static_cast<double>(got[i]) - want[i]);
      const bool at_threshold = l.op == LayerOp::kRelu && std::min(got[i], want[i]) == 0 &&
                                std::fabs(std::max(got[i], want[i]) - threshold) <= tol;
      if (diff > tol && !at_threshold && bad++ < 5) {
        ADD_FAILURE() << l.name << "[" << i << "]: gpu " << got[i] << " cpu " << want[i]
                      << " (tolerance " << tol << ")";
      }
    }
  }
}

TEST(ForwardPassGpuTest, Conv) {
  ExpectMatchesCpu(Parse(R"({"name": "c3", "op": "conv", "k": 8, "r": 3, "s": 3, "pad": 1},
                            {"name": "c3s2", "op": "conv", "k": 16, "r": 3, "s": 3, "stride": 2,
                             "pad": 1},
                            {"name": "c1", "op": "conv", "k": 8, "r": 1, "s": 1},
                            {"name": "c7", "op": "conv", "k": 4, "r": 7, "s": 7, "stride": 2,
                             "pad": 3, "input": "input"})"),
                   0, kRelTol);
}

TEST(ForwardPassGpuTest, BatchNormCalibrated) {
  ExpectMatchesCpu(Parse(R"({"name": "c", "op": "conv", "k": 8, "r": 3, "s": 3, "pad": 1},
                            {"name": "bn", "op": "bn"})"),
                   0, kRelTol);
}

TEST(ForwardPassGpuTest, ReluAndFatRelu) {
  const NetworkSpec net = Parse(R"({"name": "c", "op": "conv", "k": 8, "r": 3, "s": 3, "pad": 1},
                                   {"name": "bn", "op": "bn"}, {"name": "relu", "op": "relu"})");
  ExpectMatchesCpu(net, 0, kRelTol);
  ExpectMatchesCpu(net, 0.5f, kRelTol);
}

TEST(ForwardPassGpuTest, MaxPool) {
  ExpectMatchesCpu(Parse(R"({"name": "c", "op": "conv", "k": 4, "r": 3, "s": 3, "pad": 1},
                            {"name": "p3", "op": "maxpool", "r": 3, "s": 3, "stride": 2, "pad": 1},
                            {"name": "p2", "op": "maxpool", "r": 2, "s": 2, "stride": 2})"),
                   0, kRelTol);
}

TEST(ForwardPassGpuTest, ResidualAdd) {
  ExpectMatchesCpu(Parse(R"({"name": "a", "op": "conv", "k": 8, "r": 3, "s": 3, "pad": 1},
                            {"name": "b", "op": "conv", "k": 8, "r": 1, "s": 1, "input": "input"},
                            {"name": "sum", "op": "add", "inputs": ["a", "b"]},
                            {"name": "relu", "op": "relu"})"),
                   0, kRelTol);
}

// A miniature ResNet: stem, max-pool, one bottleneck with a projection and
// one with an identity shortcut.
constexpr char kTinyResnet[] = R"(
  {"name": "conv1", "op": "conv", "k": 8, "r": 7, "s": 7, "stride": 2, "pad": 3},
  {"name": "bn1", "op": "bn"}, {"name": "relu", "op": "relu"},
  {"name": "maxpool", "op": "maxpool", "r": 3, "s": 3, "stride": 2, "pad": 1},
  {"name": "b0.conv1", "op": "conv", "k": 4, "r": 1, "s": 1}, {"name": "b0.bn1", "op": "bn"},
  {"name": "b0.relu1", "op": "relu"},
  {"name": "b0.conv2", "op": "conv", "k": 4, "r": 3, "s": 3, "stride": 2, "pad": 1},
  {"name": "b0.bn2", "op": "bn"}, {"name": "b0.relu2", "op": "relu"},
  {"name": "b0.conv3", "op": "conv", "k": 16, "r": 1, "s": 1}, {"name": "b0.bn3", "op": "bn"},
  {"name": "b0.down", "op": "conv", "k": 16, "r": 1, "s": 1, "stride": 2, "input": "maxpool"},
  {"name": "b0.downbn", "op": "bn"},
  {"name": "b0.add", "op": "add", "inputs": ["b0.bn3", "b0.downbn"]},
  {"name": "b0.relu3", "op": "relu"},
  {"name": "b1.conv1", "op": "conv", "k": 4, "r": 1, "s": 1}, {"name": "b1.bn1", "op": "bn"},
  {"name": "b1.relu1", "op": "relu"},
  {"name": "b1.conv2", "op": "conv", "k": 16, "r": 3, "s": 3, "pad": 1},
  {"name": "b1.bn2", "op": "bn"},
  {"name": "b1.add", "op": "add", "inputs": ["b1.bn2", "b0.relu3"]},
  {"name": "b1.relu3", "op": "relu"})";

TEST(ForwardPassGpuTest, TinyNetworkEndToEnd) {
  const NetworkSpec net = Parse(kTinyResnet, 3, 32);
  ExpectMatchesCpu(net, 0, kNetworkRelTol);
  ExpectMatchesCpu(net, 0.25f, kNetworkRelTol);
}

TEST(ForwardPassGpuTest, AvgPoolWindowedAndGlobal) {
  ExpectMatchesCpu(Parse(R"({"name": "c", "op": "conv", "k": 4, "r": 3, "s": 3, "pad": 1},
                          {"name": "p", "op": "avgpool", "r": 3, "s": 3, "stride": 2, "pad": 1},
                          {"name": "g", "op": "avgpool", "global": true})"),
                   0, kRelTol);
}

TEST(ForwardPassGpuTest, Concat) {
  ExpectMatchesCpu(Parse(R"({"name": "a", "op": "conv", "k": 5, "r": 3, "s": 3, "pad": 1},
                          {"name": "b", "op": "concat", "inputs": ["a", "input"]},
                          {"name": "c", "op": "conv", "k": 2, "r": 1, "s": 1},
                          {"name": "d", "op": "concat", "inputs": ["b", "c"]})"),
                   0, kRelTol);
}

TEST(ForwardPassGpuTest, FcAndSoftmax) {
  ExpectMatchesCpu(Parse(R"({"name": "c", "op": "conv", "k": 4, "r": 3, "s": 3, "pad": 1},
                          {"name": "f1", "op": "fc", "k": 33},
                          {"name": "r", "op": "relu"},
                          {"name": "f2", "op": "fc", "k": 10},
                          {"name": "s", "op": "softmax"})"),
                   0, kRelTol);
}

// A two-layer dense block, a transition and the DenseNet head.
constexpr char kTinyDensenet[] = R"(
  {"name": "c0", "op": "conv", "k": 8, "r": 3, "s": 3, "stride": 2, "pad": 1},
  {"name": "n0", "op": "bn"}, {"name": "r0", "op": "relu"},
  {"name": "l1.n1", "op": "bn", "input": "r0"}, {"name": "l1.r1", "op": "relu"},
  {"name": "l1.c1", "op": "conv", "k": 16, "r": 1, "s": 1},
  {"name": "l1.n2", "op": "bn"}, {"name": "l1.r2", "op": "relu"},
  {"name": "l1.c2", "op": "conv", "k": 4, "r": 3, "s": 3, "pad": 1},
  {"name": "l1.cat", "op": "concat", "inputs": ["r0", "l1.c2"]},
  {"name": "l2.n1", "op": "bn"}, {"name": "l2.r1", "op": "relu"},
  {"name": "l2.c1", "op": "conv", "k": 16, "r": 1, "s": 1},
  {"name": "l2.n2", "op": "bn"}, {"name": "l2.r2", "op": "relu"},
  {"name": "l2.c2", "op": "conv", "k": 4, "r": 3, "s": 3, "pad": 1},
  {"name": "l2.cat", "op": "concat", "inputs": ["l1.cat", "l2.c2"]},
  {"name": "t.n", "op": "bn"}, {"name": "t.r", "op": "relu"},
  {"name": "t.c", "op": "conv", "k": 8, "r": 1, "s": 1},
  {"name": "t.p", "op": "avgpool", "r": 2, "s": 2, "stride": 2},
  {"name": "n5", "op": "bn"}, {"name": "r5", "op": "relu"},
  {"name": "gap", "op": "avgpool", "global": true},
  {"name": "fc", "op": "fc", "k": 10},
  {"name": "sm", "op": "softmax"})";

TEST(ForwardPassGpuTest, TinyDensenetEndToEnd) {
  const NetworkSpec net = Parse(kTinyDensenet, 3, 32);
  ExpectMatchesCpu(net, 0, kNetworkRelTol);
}

TEST(ForwardPassGpuTest, FullBuiltinNetworksRunEveryLayer) {
  for (const std::string& name : AllBuiltinNetworkNames()) {
    const absl::StatusOr<NetworkSpec> net = BuiltinNetwork(name, NetworkPart::kFull);
    ASSERT_TRUE(net.ok());
    Stream stream;
    absl::StatusOr<std::unique_ptr<ForwardPass>> pass =
        ForwardPass::Create(*net, 2, kSeed, stream.get());
    ASSERT_TRUE(pass.ok()) << name << ": " << pass.status();
    int layers = 0;
    std::vector<float> probabilities(2 * 1000);
    const absl::Status run = (*pass)->Run(
        0,
        [&](const std::string&, const float* data, TensorDims dims) -> absl::Status {
          ++layers;
          if (layers == static_cast<int>(net->layers.size())) {
            EXPECT_EQ(dims.elements(), probabilities.size());
            EXPECT_EQ(
                cudaMemcpyAsync(probabilities.data(), data, probabilities.size() * sizeof(float),
                                cudaMemcpyDeviceToHost, stream.get()),
                cudaSuccess);
          }
          return absl::OkStatus();
        },
        Observe::kEveryLayer);
    ASSERT_TRUE(run.ok()) << run;
    ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
    EXPECT_EQ(layers, static_cast<int>(net->layers.size())) << name;
    // Each image's softmax sums to 1.
    for (int n = 0; n < 2; ++n) {
      double sum = 0;
      for (int k = 0; k < 1000; ++k) sum += probabilities[n * 1000 + k];
      EXPECT_NEAR(sum, 1.0, 1e-4) << name;
    }
  }
}

TEST(ForwardPassGpuTest, BuiltinNetworksRun) {
  for (const std::string& name : AllBuiltinNetworkNames()) {
    const absl::StatusOr<NetworkSpec> net = BuiltinNetwork(name);
    ASSERT_TRUE(net.ok());
    Stream stream;
    absl::StatusOr<std::unique_ptr<ForwardPass>> pass =
        ForwardPass::Create(*net, 1, kSeed, stream.get());
    ASSERT_TRUE(pass.ok()) << pass.status();
    EXPECT_EQ((*pass)->ActivationNames().size(),
              static_cast<size_t>(CountLayers(*net, LayerOp::kRelu)));
    std::vector<std::string> seen;
    const absl::Status run = (*pass)->Run(
        0, [&](const std::string& layer, const float*, TensorDims dims) -> absl::Status {
          seen.push_back(layer);
          EXPECT_EQ(dims.n, 1);
          return absl::OkStatus();
        });
    ASSERT_TRUE(run.ok()) << run;
    EXPECT_EQ(seen, (*pass)->ActivationNames());
    EXPECT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
    EXPECT_EQ((*pass)->Run(-1, nullptr).code(), absl::StatusCode::kInvalidArgument);
    const absl::Status stopped = (*pass)->Run(
        0, [](const std::string&, const float*, TensorDims) { return absl::AbortedError("stop"); });
    EXPECT_EQ(stopped.code(), absl::StatusCode::kAborted);
  }
}

}  // namespace
}  // namespace dissect::forward
