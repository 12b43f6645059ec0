// The built-in forward pass; see forward_pass.h.
#include "experiments/workloads/forward/forward_pass.h"

#include <cublas_v2.h>

#include <algorithm>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "experiments/workloads/forward/cpu_reference.h"
#include "experiments/workloads/forward/cudnn_api.h"
#include "experiments/workloads/forward/cudnn_object.h"
#include "kernels/forward/elementwise.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect::forward {
namespace {

// Conv algorithms needing more workspace than this are passed over.
constexpr size_t kMaxConvWorkspaceBytes = size_t{1} << 30;
// Device memory left free besides what the pass holds (cuDNN's own, the
// observers').
constexpr size_t kMemoryHeadroomBytes = size_t{256} << 20;

using TensorDesc = CudnnObject<cudnnTensorDescriptor_t>;

absl::StatusOr<TensorDesc> MakeTensorDesc(const CudnnApi& api, const TensorDims& d) {
  DISSECT_ASSIGN_OR_RETURN(TensorDesc desc, MakeCudnnObject(api, api.cudnnCreateTensorDescriptor,
                                                            api.cudnnDestroyTensorDescriptor,
                                                            "cudnnCreateTensorDescriptor"));
  DISSECT_CUDNN_RETURN_IF_ERROR(
      api, api.cudnnSetTensor4dDescriptor(desc.get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, d.n, d.c,
                                          d.h, d.w));
  return desc;
}

absl::Status Upload(const std::vector<float>& host, DeviceBuffer<float>& device) {
  DISSECT_ASSIGN_OR_RETURN(device, DeviceBuffer<float>::Allocate(host.size()));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(device.get(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  return absl::OkStatus();
}

TensorDims Batched(int batch, const Shape& s) { return {batch, s.c, s.h, s.w}; }

absl::Status BlasStatus(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(call, " failed: ", cublasGetStatusString(status),
                                          " (cublasStatus_t ", static_cast<int>(status), ")"));
}

struct BlasDeleter {
  void operator()(cublasHandle_t h) const { cublasDestroy(h); }
};
using BlasHandle = std::unique_ptr<std::remove_pointer_t<cublasHandle_t>, BlasDeleter>;

}  // namespace

class ForwardPass::Impl {
 public:
  // What one layer holds on the device and in cuDNN.
  struct Layer {
    TensorDesc in_desc;
    TensorDesc out_desc;
    int out_buffer = 0;
    // conv
    CudnnObject<cudnnFilterDescriptor_t> filter;
    CudnnObject<cudnnConvolutionDescriptor_t> conv;
    cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    size_t workspace_bytes = 0;
    DeviceBuffer<float> weights;
    // bn
    TensorDesc bn_desc;
    DeviceBuffer<float> bn_mean;
    DeviceBuffer<float> bn_var;
    // maxpool, avgpool
    CudnnObject<cudnnPoolingDescriptor_t> pool;
  };

  absl::Status Init(const NetworkSpec& net, int batch, uint64_t seed, cudaStream_t stream);

  // Init's steps.
  struct Sizes {
    size_t max_elements = 0;     // of the largest activation
    size_t max_channels = 0;     // the most channels of any activation
    size_t weight_elements = 0;  // of all conv and fc weights
  };
  // The cuDNN handle on the stream and the ReLU descriptor.
  absl::Status CreateHandles();
  // Sizes layers_, gives each its buffer, and notes the ReLU names.
  Sizes SizeLayers(const BufferPlan& plan);
  // A layer's descriptors (and the conv's algorithm, the fc's cuBLAS handle).
  absl::Status DescribeLayer(const LayerSpec& l, Layer& layer);
  absl::Status DescribeConv(const LayerSpec& l, Layer& layer);
  // The fastest float32 (FMA) algorithm within the workspace limit; where
  // cuDNN offers none, its fastest algorithm of any math type.
  absl::Status ChooseConvAlgorithm(const LayerSpec& l, Layer& layer);
  // Checks the pass fits the device, then allocates it all once and uploads
  // the input, weights and BN constants.
  absl::Status AllocateAndFill(const BufferPlan& plan, const Sizes& sizes, size_t workspace_bytes,
                               uint64_t seed);
  absl::Status Forward(float threshold, bool calibrate, const ActivationObserver& observer,
                       Observe observe);
  // Forward's concat (per image: the first input's channels, then the
  // second's) and fc layers.
  absl::Status Concat(const LayerSpec& l, const float* x, float* y);
  absl::Status FullyConnected(const LayerSpec& l, const Layer& layer, const float* x, float* y);

  const float* Output(int layer) const {
    return layer == kNetworkInput ? input_.get() : buffers_[layers_[layer].out_buffer].get();
  }

  const CudnnApi* api_ = nullptr;
  NetworkSpec net_;
  int batch_ = 0;
  cudaStream_t stream_ = nullptr;
  CudnnObject<cudnnHandle_t> handle_;
  BlasHandle blas_;  // made only when the network has an fc layer
  CudnnObject<cudnnActivationDescriptor_t> relu_;
  std::vector<Layer> layers_;
  std::vector<DeviceBuffer<float>> buffers_;
  DeviceBuffer<float> input_;
  DeviceBuffer<float> bn_ones_;
  DeviceBuffer<float> bn_zeros_;
  DeviceBuffer<unsigned char> workspace_;
  std::vector<std::string> activation_names_;
  size_t device_bytes_ = 0;
};

absl::Status ForwardPass::Impl::CreateHandles() {
  const CudnnApi& api = *api_;
  DISSECT_ASSIGN_OR_RETURN(handle_,
                           MakeCudnnObject(api, api.cudnnCreate, api.cudnnDestroy, "cudnnCreate"));
  DISSECT_CUDNN_RETURN_IF_ERROR(api, api.cudnnSetStream(handle_.get(), stream_));
  DISSECT_ASSIGN_OR_RETURN(relu_, MakeCudnnObject(api, api.cudnnCreateActivationDescriptor,
                                                  api.cudnnDestroyActivationDescriptor,
                                                  "cudnnCreateActivationDescriptor"));
  DISSECT_CUDNN_RETURN_IF_ERROR(api,
                                api.cudnnSetActivationDescriptor(relu_.get(), CUDNN_ACTIVATION_RELU,
                                                                 CUDNN_NOT_PROPAGATE_NAN, 0.0));
  return absl::OkStatus();
}

ForwardPass::Impl::Sizes ForwardPass::Impl::SizeLayers(const BufferPlan& plan) {
  const int count = static_cast<int>(net_.layers.size());
  layers_.resize(count);
  Sizes sizes;
  sizes.max_channels = static_cast<size_t>(net_.input.c);
  for (int i = 0; i < count; ++i) {
    const LayerSpec& l = net_.layers[i];
    layers_[i].out_buffer = plan.buffer[i];
    sizes.max_elements = std::max(sizes.max_elements, Batched(batch_, l.out).elements());
    sizes.max_channels = std::max(sizes.max_channels, static_cast<size_t>(l.out.c));
    if (l.op == LayerOp::kConv) {
      sizes.weight_elements += static_cast<size_t>(l.k) * l.in.c * l.r * l.s;
    } else if (l.op == LayerOp::kFc) {
      sizes.weight_elements += static_cast<size_t>(l.k) * ShapeElements(l.in);
    }
    if (l.op == LayerOp::kRelu) activation_names_.push_back(l.name);
  }
  return sizes;
}

absl::Status ForwardPass::Impl::DescribeConv(const LayerSpec& l, Layer& layer) {
  const CudnnApi& api = *api_;
  DISSECT_ASSIGN_OR_RETURN(layer.filter, MakeCudnnObject(api, api.cudnnCreateFilterDescriptor,
                                                         api.cudnnDestroyFilterDescriptor,
                                                         "cudnnCreateFilterDescriptor"));
  DISSECT_CUDNN_RETURN_IF_ERROR(
      api, api.cudnnSetFilter4dDescriptor(layer.filter.get(), CUDNN_DATA_FLOAT,
                                          CUDNN_TENSOR_NCHW, l.k, l.in.c, l.r, l.s));
  DISSECT_ASSIGN_OR_RETURN(layer.conv,
                           MakeCudnnObject(api, api.cudnnCreateConvolutionDescriptor,
                                           api.cudnnDestroyConvolutionDescriptor,
                                           "cudnnCreateConvolutionDescriptor"));
  DISSECT_CUDNN_RETURN_IF_ERROR(api, api.cudnnSetConvolution2dDescriptor(
                                         layer.conv.get(), l.pad, l.pad, l.stride, l.stride, 1,
                                         1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  DISSECT_CUDNN_RETURN_IF_ERROR(
      api, api.cudnnSetConvolutionMathType(layer.conv.get(), CUDNN_FMA_MATH));
  TensorDims out;
  DISSECT_CUDNN_RETURN_IF_ERROR(api, api.cudnnGetConvolution2dForwardOutputDim(
                                         layer.conv.get(), layer.in_desc.get(),
                                         layer.filter.get(), &out.n, &out.c, &out.h, &out.w));
  if (out.c != l.out.c || out.h != l.out.h || out.w != l.out.w) {
    return absl::InternalError(absl::StrCat("layer ", l.name, ": cuDNN's output ", out.c, "x",
                                            out.h, "x", out.w, " differs from the network's ",
                                            l.out.c, "x", l.out.h, "x", l.out.w));
  }
  return absl::OkStatus();
}

absl::Status ForwardPass::Impl::ChooseConvAlgorithm(const LayerSpec& l, Layer& layer) {
  const CudnnApi& api = *api_;
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  DISSECT_CUDNN_RETURN_IF_ERROR(
      api, api.cudnnGetConvolutionForwardAlgorithm_v7(
               handle_.get(), layer.in_desc.get(), layer.filter.get(), layer.conv.get(),
               layer.out_desc.get(), CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf));
  // The fastest float32 (FMA) algorithm within the workspace limit; where
  // cuDNN offers none, its fastest algorithm of any math type.
  int chosen = -1;
  for (int p = returned - 1; p >= 0; --p) {
    if (perf[p].status != CUDNN_STATUS_SUCCESS || perf[p].memory > kMaxConvWorkspaceBytes) {
      continue;
    }
    if (chosen < 0 || perf[p].mathType == CUDNN_FMA_MATH ||
        perf[chosen].mathType != CUDNN_FMA_MATH) {
      chosen = p;
    }
  }
  if (chosen < 0) {
    return absl::InternalError(absl::StrCat("layer ", l.name,
                                            ": cuDNN offers no convolution algorithm within ",
                                            kMaxConvWorkspaceBytes >> 20, " MiB of workspace"));
  }
  layer.algo = perf[chosen].algo;
  DISSECT_CUDNN_RETURN_IF_ERROR(
      api, api.cudnnSetConvolutionMathType(layer.conv.get(), perf[chosen].mathType));
  DISSECT_CUDNN_RETURN_IF_ERROR(
      api, api.cudnnGetConvolutionForwardWorkspaceSize(
               handle_.get(), layer.in_desc.get(), layer.filter.get(), layer.conv.get(),
               layer.out_desc.get(), layer.algo, &layer.workspace_bytes));
  return absl::OkStatus();
}

absl::Status ForwardPass::Impl::DescribeLayer(const LayerSpec& l, Layer& layer) {
  const CudnnApi& api = *api_;
  const cudaStream_t stream = stream_;
  DISSECT_ASSIGN_OR_RETURN(layer.in_desc, MakeTensorDesc(api, Batched(batch_, l.in)));
  DISSECT_ASSIGN_OR_RETURN(layer.out_desc, MakeTensorDesc(api, Batched(batch_, l.out)));
  if (l.op == LayerOp::kConv) {
    DISSECT_RETURN_IF_ERROR(DescribeConv(l, layer));
    DISSECT_RETURN_IF_ERROR(ChooseConvAlgorithm(l, layer));
  } else if (l.op == LayerOp::kBatchNorm) {
    DISSECT_ASSIGN_OR_RETURN(layer.bn_desc, MakeCudnnObject(api, api.cudnnCreateTensorDescriptor,
                                                            api.cudnnDestroyTensorDescriptor,
                                                            "cudnnCreateTensorDescriptor"));
    DISSECT_CUDNN_RETURN_IF_ERROR(
        api, api.cudnnDeriveBNTensorDescriptor(layer.bn_desc.get(), layer.in_desc.get(),
                                               CUDNN_BATCHNORM_SPATIAL));
  } else if (l.op == LayerOp::kMaxPool || l.op == LayerOp::kAvgPool) {
    DISSECT_ASSIGN_OR_RETURN(layer.pool, MakeCudnnObject(api, api.cudnnCreatePoolingDescriptor,
                                                         api.cudnnDestroyPoolingDescriptor,
                                                         "cudnnCreatePoolingDescriptor"));
    DISSECT_CUDNN_RETURN_IF_ERROR(
        api, api.cudnnSetPooling2dDescriptor(
                 layer.pool.get(),
                 l.op == LayerOp::kMaxPool ? CUDNN_POOLING_MAX
                                           : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                 CUDNN_NOT_PROPAGATE_NAN, l.r, l.s, l.pad, l.pad, l.stride, l.stride));
  } else if (l.op == LayerOp::kFc && blas_ == nullptr) {
    cublasHandle_t blas = nullptr;
    DISSECT_RETURN_IF_ERROR(BlasStatus(cublasCreate(&blas), "cublasCreate"));
    blas_.reset(blas);
    DISSECT_RETURN_IF_ERROR(BlasStatus(cublasSetStream(blas, stream), "cublasSetStream"));
    // Plain float32 (no TF32), as the CPU reference.
    DISSECT_RETURN_IF_ERROR(
        BlasStatus(cublasSetMathMode(blas, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode"));
  }
  return absl::OkStatus();
}

absl::Status ForwardPass::Impl::AllocateAndFill(const BufferPlan& plan, const Sizes& sizes,
                                                size_t workspace_bytes, uint64_t seed) {
  const NetworkSpec& net = net_;
  const int batch = batch_;
  const int count = static_cast<int>(net.layers.size());
  const size_t max_elements = sizes.max_elements;
  const size_t max_channels = sizes.max_channels;
  const size_t weight_elements = sizes.weight_elements;
  // Device memory: check it fits, then allocate it all once.
  const size_t bn_elements =
      2 * static_cast<size_t>(CountLayers(net, LayerOp::kBatchNorm)) * max_channels;
  const TensorDims input_dims = Batched(batch, net.input);
  device_bytes_ =
      sizeof(float) * (static_cast<size_t>(plan.count) * max_elements + input_dims.elements() +
                       weight_elements + bn_elements + 2 * max_channels) +
      workspace_bytes;
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (device_bytes_ + kMemoryHeadroomBytes > free_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        net.name, " at batch ", batch, " needs ", (device_bytes_ >> 20) + 1,
        " MiB of device memory (", plan.count, " activation buffers of ",
        (max_elements * sizeof(float)) >> 20, " MiB) plus ", kMemoryHeadroomBytes >> 20,
        " MiB headroom; ", free_bytes >> 20, " MiB free: use a smaller batch"));
  }
  buffers_.resize(plan.count);
  for (DeviceBuffer<float>& buffer : buffers_) {
    DISSECT_ASSIGN_OR_RETURN(buffer, DeviceBuffer<float>::Allocate(max_elements));
  }
  DISSECT_ASSIGN_OR_RETURN(workspace_, DeviceBuffer<unsigned char>::Allocate(workspace_bytes));
  DISSECT_RETURN_IF_ERROR(Upload(SyntheticImage(seed, input_dims), input_));
  DISSECT_RETURN_IF_ERROR(Upload(std::vector<float>(max_channels, 1.0f), bn_ones_));
  DISSECT_RETURN_IF_ERROR(Upload(std::vector<float>(max_channels, 0.0f), bn_zeros_));
  for (int i = 0; i < count; ++i) {
    const LayerSpec& l = net.layers[i];
    if (l.op == LayerOp::kConv) {
      DISSECT_RETURN_IF_ERROR(
          Upload(HeWeights(seed, i, l.k, l.in.c, l.r, l.s), layers_[i].weights));
    } else if (l.op == LayerOp::kFc) {
      DISSECT_RETURN_IF_ERROR(
          Upload(HeWeights(seed, i, l.k, static_cast<int>(ShapeElements(l.in)), 1, 1),
                 layers_[i].weights));
    } else if (l.op == LayerOp::kBatchNorm) {
      DISSECT_ASSIGN_OR_RETURN(layers_[i].bn_mean, DeviceBuffer<float>::Allocate(l.in.c));
      DISSECT_ASSIGN_OR_RETURN(layers_[i].bn_var, DeviceBuffer<float>::Allocate(l.in.c));
    }
  }
  return absl::OkStatus();
}

absl::Status ForwardPass::Impl::Init(const NetworkSpec& net, int batch, uint64_t seed,
                                     cudaStream_t stream) {
  net_ = net;
  batch_ = batch;
  stream_ = stream;
  DISSECT_RETURN_IF_ERROR(CreateHandles());
  const BufferPlan plan = PlanBuffers(net);
  const Sizes sizes = SizeLayers(plan);
  // Descriptors and conv algorithms (no device memory yet).
  size_t workspace_bytes = 0;
  for (size_t i = 0; i < layers_.size(); ++i) {
    DISSECT_RETURN_IF_ERROR(DescribeLayer(net.layers[i], layers_[i]));
    workspace_bytes = std::max(workspace_bytes, layers_[i].workspace_bytes);
  }
  DISSECT_RETURN_IF_ERROR(AllocateAndFill(plan, sizes, workspace_bytes, seed));
  // BN calibration: one pass with ReLU, each BN taking its input's batch
  // statistics, synchronized.
  DISSECT_RETURN_IF_ERROR(Forward(0.0f, /*calibrate=*/true, nullptr, Observe::kActivations));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
  return absl::OkStatus();
}

absl::Status ForwardPass::Impl::Concat(const LayerSpec& l, const float* x, float* y) {
  const int second = l.inputs[1];
  const size_t a_bytes = ShapeElements(l.in) * sizeof(float);
  const size_t b_bytes =
      ShapeElements(second == kNetworkInput ? net_.input : net_.layers[second].out) *
      sizeof(float);
  const size_t y_bytes = a_bytes + b_bytes;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy2DAsync(y, y_bytes, x, a_bytes, a_bytes, batch_,
                                                 cudaMemcpyDeviceToDevice, stream_));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy2DAsync(
      reinterpret_cast<unsigned char*>(y) + a_bytes, y_bytes, Output(second), b_bytes,
      b_bytes, batch_, cudaMemcpyDeviceToDevice, stream_));
  return absl::OkStatus();
}

absl::Status ForwardPass::Impl::FullyConnected(const LayerSpec& l, const Layer& layer,
                                               const float* x, float* y) {
  const float one = 1.0f;
  const float zero = 0.0f;
  // Row-major Y[n][k] = sum_f X[n][f] W[k][f]: column-major, with W
  // read as an f x k matrix, Y^T (k x n) = W^T X^T.
  const int features = static_cast<int>(ShapeElements(l.in));
  return BlasStatus(cublasSgemm(blas_.get(), CUBLAS_OP_T, CUBLAS_OP_N, l.k, batch_, features, &one,
                                layer.weights.get(), features, x, features, &zero, y, l.k),
                    "cublasSgemm");
}

absl::Status ForwardPass::Impl::Forward(float threshold, bool calibrate,
                                        const ActivationObserver& observer, Observe observe) {
  const CudnnApi& api = *api_;
  const float one = 1.0f;
  const float zero = 0.0f;
  for (size_t i = 0; i < layers_.size(); ++i) {
    const LayerSpec& l = net_.layers[i];
    Layer& layer = layers_[i];
    const float* x = Output(l.inputs[0]);
    float* y = buffers_[layer.out_buffer].get();
    const TensorDims out_dims = Batched(batch_, l.out);
    switch (l.op) {
      case LayerOp::kConv:
        DISSECT_CUDNN_RETURN_IF_ERROR(
            api, api.cudnnConvolutionForward(
                     handle_.get(), &one, layer.in_desc.get(), x, layer.filter.get(),
                     layer.weights.get(), layer.conv.get(), layer.algo, workspace_.get(),
                     layer.workspace_bytes, &zero, layer.out_desc.get(), y));
        break;
      case LayerOp::kBatchNorm:
        if (calibrate) {
          // This batch's mean and biased variance per channel become the
          // BN's for good.
          DISSECT_CUDA_RETURN_IF_ERROR(
              LaunchChannelMeanVar(x, batch_, l.in.c, static_cast<size_t>(l.in.h) * l.in.w,
                                   layer.bn_mean.get(), layer.bn_var.get(), stream_));
        }
        DISSECT_CUDNN_RETURN_IF_ERROR(
            api, api.cudnnBatchNormalizationForwardInference(
                     handle_.get(), CUDNN_BATCHNORM_SPATIAL, &one, &zero, layer.in_desc.get(), x,
                     layer.out_desc.get(), y, layer.bn_desc.get(), bn_ones_.get(), bn_zeros_.get(),
                     layer.bn_mean.get(), layer.bn_var.get(), kBatchNormEpsilon));
        break;
      case LayerOp::kRelu:
        if (threshold > 0) {
          DISSECT_CUDA_RETURN_IF_ERROR(
              LaunchFatRelu(x, y, out_dims.elements(), threshold, stream_));
        } else {
          DISSECT_CUDNN_RETURN_IF_ERROR(
              api, api.cudnnActivationForward(handle_.get(), relu_.get(), &one, layer.in_desc.get(),
                                              x, &zero, layer.out_desc.get(), y));
        }
        break;
      case LayerOp::kMaxPool:
      case LayerOp::kAvgPool:
        DISSECT_CUDNN_RETURN_IF_ERROR(
            api, api.cudnnPoolingForward(handle_.get(), layer.pool.get(), &one, layer.in_desc.get(),
                                         x, &zero, layer.out_desc.get(), y));
        break;
      case LayerOp::kAdd:
        DISSECT_CUDA_RETURN_IF_ERROR(
            LaunchAdd(x, Output(l.inputs[1]), y, out_dims.elements(), stream_));
        break;
      case LayerOp::kConcat:
        DISSECT_RETURN_IF_ERROR(Concat(l, x, y));
        break;
      case LayerOp::kFc:
        DISSECT_RETURN_IF_ERROR(FullyConnected(l, layer, x, y));
        break;
      case LayerOp::kSoftmax:
        DISSECT_CUDNN_RETURN_IF_ERROR(
            api, api.cudnnSoftmaxForward(handle_.get(), CUDNN_SOFTMAX_ACCURATE,
                                         CUDNN_SOFTMAX_MODE_CHANNEL, &one, layer.in_desc.get(), x,
                                         &zero, layer.out_desc.get(), y));
        break;
    }
    if (observer && (observe == Observe::kEveryLayer || l.op == LayerOp::kRelu)) {
      DISSECT_RETURN_IF_ERROR(observer(l.name, y, out_dims));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ForwardPass>> ForwardPass::Create(const NetworkSpec& net, int batch,
                                                                 uint64_t seed,
                                                                 cudaStream_t stream) {
  if (batch < 1) {
    return absl::InvalidArgumentError(absl::StrCat("batch must be at least 1, not ", batch));
  }
  if (net.layers.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("network ", net.name, " has no layers"));
  }
  auto impl = std::make_unique<Impl>();
  DISSECT_ASSIGN_OR_RETURN(impl->api_, LoadCudnnApi());
  DISSECT_RETURN_IF_ERROR(impl->Init(net, batch, seed, stream));
  return std::unique_ptr<ForwardPass>(new ForwardPass(std::move(impl)));
}

ForwardPass::ForwardPass(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ForwardPass::~ForwardPass() = default;

absl::Status ForwardPass::Run(float fatrelu_threshold, const ActivationObserver& observer,
                              Observe observe) {
  if (!(fatrelu_threshold >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("a FATReLU threshold must be >= 0, not ", fatrelu_threshold));
  }
  return impl_->Forward(fatrelu_threshold, /*calibrate=*/false, observer, observe);
}

const std::vector<std::string>& ForwardPass::ActivationNames() const {
  return impl_->activation_names_;
}
const NetworkSpec& ForwardPass::network() const { return impl_->net_; }
int ForwardPass::batch() const { return impl_->batch_; }
cudaStream_t ForwardPass::stream() const { return impl_->stream_; }
TensorDims ForwardPass::InputDims() const { return Batched(impl_->batch_, impl_->net_.input); }
TensorDims ForwardPass::OutputDims() const {
  return Batched(impl_->batch_, impl_->net_.layers.back().out);
}
size_t ForwardPass::DeviceBytes() const { return impl_->device_bytes_; }

}  // namespace dissect::forward
