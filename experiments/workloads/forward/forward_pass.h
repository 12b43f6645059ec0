// A built-in forward pass through a network on the GPU with cuDNN (loaded at
// run time, cudnn_api.h) and cuBLAS: conv -> BN -> ReLU stacks, max- and
// average pools, residual adds, channel concatenations (two strided
// device-to-device copies), FC layers (cublasSgemm, float32 without TF32)
// and softmax, as the NetworkSpec (network.h) says.
//
// What it computes (the activation_source "synthetic_weights"):
//  - conv weights He-initialised from a fixed seed (HeWeights,
//    cpu_reference.h): normal, std sqrt(2 / (c*r*s)), no bias; fc weights
//    the same with c*h*w input features and a 1x1 window;
//  - the input a deterministic image-like tensor (SyntheticImage,
//    cpu_reference.h): smooth gradients plus noise, 3 channels;
//  - BN with gamma 1, beta 0 and each channel's mean and variance
//    calibrated once, in Create, on the synthetic batch: BN normalizes each
//    channel of the synthetic batch, as a freshly initialized network's BN
//    would in training mode. The calibration pass uses plain ReLU, so a
//    FATReLU threshold given to Run changes the activations of a fixed
//    network;
//  - conv in float32, preferring CUDNN_FMA_MATH algorithms (no TF32) so that
//    the CPU reference agrees to float32 rounding; where cuDNN offers no FMA
//    algorithm within 1 GiB of workspace, its fastest of any math type.
// It is NOT a trained network: its activations show the pipeline and what
// ReLU does to He-initialised layers, not the sparsity of a trained model.
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_FORWARD_PASS_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_FORWARD_PASS_H_

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "experiments/workloads/forward/network.h"

namespace dissect::forward {

// Called by Run, on the host, right after a layer's work has been enqueued on
// the pass's stream (Run does not synchronize): `device_data` is the layer's
// output, NCHW float32, `dims` its dimensions. The observer must enqueue what
// reads it on the same stream (kernels, cudaMemcpyAsync, then a
// cudaStreamSynchronize if it needs the values on the host): the buffer is
// reused by later layers. A non-OK status stops Run and is returned.
using ActivationObserver = std::function<absl::Status(const std::string& layer,
                                                      const float* device_data, TensorDims dims)>;

// Which layers' outputs Run shows the observer.
enum class Observe {
  kActivations,  // every relu layer (ReLU or FATReLU), in order
  kEveryLayer,   // every layer, in order (tests; per-layer timing)
};

class ForwardPass {
 public:
  // Loads cuDNN, makes the weights and the input, allocates every device
  // buffer once (activation buffers reused as the layer graph allows,
  // PlanBuffers in network.h, all of the largest layer's size), picks each
  // conv's algorithm (cudnnGetConvolutionForwardAlgorithm_v7) and calibrates
  // BN (one pass, synchronized). Weights and input are made on the host
  // (about a second for ResNet-50). Errors: cuDNN missing (the message starts
  // "cuDNN not found"), batch < 1, not enough free device memory (says how
  // much is needed), any CUDA or cuDNN failure (names the call).
  static absl::StatusOr<std::unique_ptr<ForwardPass>> Create(const NetworkSpec& net, int batch,
                                                             uint64_t seed, cudaStream_t stream);

  ~ForwardPass();
  ForwardPass(const ForwardPass&) = delete;
  ForwardPass& operator=(const ForwardPass&) = delete;

  // One forward pass of the batch; only device work on the stream, no
  // synchronization. `fatrelu_threshold` 0: plain ReLU (cuDNN); > 0: every
  // relu layer is FATReLU, y = x > T ? x : 0 (our kernel); < 0 is an error.
  // `observer` may be empty.
  absl::Status Run(float fatrelu_threshold, const ActivationObserver& observer,
                   Observe observe = Observe::kActivations);

  // The relu layers' names, in the order Run shows them.
  const std::vector<std::string>& ActivationNames() const;

  const NetworkSpec& network() const;
  int batch() const;
  cudaStream_t stream() const;
  TensorDims InputDims() const;
  TensorDims OutputDims() const;
  // Device memory the pass holds (weights, activations, BN, workspace).
  size_t DeviceBytes() const;

  class Impl;

 private:
  explicit ForwardPass(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dissect::forward

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_FORWARD_PASS_H_
