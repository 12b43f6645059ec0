// cuDNN 9 loaded at run time (dlopen of libcudnn.so.9), like CUPTI
// (probes/cupti_api.h): no binary links libcudnn, so every binary starts
// where cuDNN is missing (the GPU machines have it only as a Python wheel)
// and only the forward pass needs it.
//
// Where it looks, in order: the dynamic loader's own search (LD_LIBRARY_PATH,
// ld.so.cache), then CudnnSearchPatterns(): $CUDA_PATH/lib64, /usr/local/cuda/lib64
// and the nvidia-cudnn wheel's folders (site- and dist-packages of
// /usr/local/lib/python3*, /usr/lib/python3 and ~/.local/lib/python3*).
// libcudnn.so.9 loads its sub-libraries (libcudnn_ops, libcudnn_cnn, ...) by
// name; they are preloaded from its folder so that they are found even when
// that folder is on no search path.
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_CUDNN_API_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_CUDNN_API_H_

#include <cudnn.h>

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Every cuDNN function dissect calls.
#define DISSECT_CUDNN_FUNCTIONS(X)           \
  X(cudnnGetVersion)                         \
  X(cudnnGetErrorString)                     \
  X(cudnnCreate)                             \
  X(cudnnDestroy)                            \
  X(cudnnSetStream)                          \
  X(cudnnCreateTensorDescriptor)             \
  X(cudnnDestroyTensorDescriptor)            \
  X(cudnnSetTensor4dDescriptor)              \
  X(cudnnCreateFilterDescriptor)             \
  X(cudnnDestroyFilterDescriptor)            \
  X(cudnnSetFilter4dDescriptor)              \
  X(cudnnCreateConvolutionDescriptor)        \
  X(cudnnDestroyConvolutionDescriptor)       \
  X(cudnnSetConvolution2dDescriptor)         \
  X(cudnnSetConvolutionMathType)             \
  X(cudnnGetConvolution2dForwardOutputDim)   \
  X(cudnnGetConvolutionForwardAlgorithm_v7)  \
  X(cudnnGetConvolutionForwardWorkspaceSize) \
  X(cudnnConvolutionForward)                 \
  X(cudnnCreateActivationDescriptor)         \
  X(cudnnDestroyActivationDescriptor)        \
  X(cudnnSetActivationDescriptor)            \
  X(cudnnActivationForward)                  \
  X(cudnnCreatePoolingDescriptor)            \
  X(cudnnDestroyPoolingDescriptor)           \
  X(cudnnSetPooling2dDescriptor)             \
  X(cudnnPoolingForward)                     \
  X(cudnnDeriveBNTensorDescriptor)           \
  X(cudnnBatchNormalizationForwardInference) \
  X(cudnnSoftmaxForward)

namespace dissect::forward {

// One pointer per function, named as the function: api.cudnnCreate(&h).
struct CudnnApi {
#define DISSECT_CUDNN_DECLARE_(fn) decltype(&::fn) fn = nullptr;
  DISSECT_CUDNN_FUNCTIONS(DISSECT_CUDNN_DECLARE_)
#undef DISSECT_CUDNN_DECLARE_
  std::string path;  // the libcudnn that was loaded
};

// The folders tried after the loader's own search, as glob patterns (the
// wheel's python3* folders). `cuda_path` and `home` are $CUDA_PATH and $HOME
// (empty: not set).
std::vector<std::string> CudnnSearchPatterns(std::string_view cuda_path, std::string_view home);

// Tries each candidate (a bare file name for the loader's search, or a path)
// in order and resolves every function. A miss is NotFound, starting
// "cuDNN not found: " and listing what was tried; a library without one of
// the functions or older than cuDNN 9 is FailedPrecondition naming it.
absl::StatusOr<const CudnnApi*> LoadCudnnFrom(const std::vector<std::string>& candidates);

// Loads cuDNN once per process from "libcudnn.so.9" and then each folder
// CudnnSearchPatterns($CUDA_PATH, $HOME) matches; later calls return the same
// table or the same error, which also lists the patterns that matched no
// folder.
absl::StatusOr<const CudnnApi*> LoadCudnnApi();

// A cuDNN failure as a status naming the call and cudnnGetErrorString's text.
absl::Status CudnnStatus(const CudnnApi& api, cudnnStatus_t status, const char* call);

}  // namespace dissect::forward

// Returns from the enclosing function if `call` (an expression on `api`,
// e.g. api.cudnnCreate(&h)) fails.
#define DISSECT_CUDNN_RETURN_IF_ERROR(api, call)                                   \
  do {                                                                             \
    const cudnnStatus_t dissect_cudnn_status_ = (call);                            \
    if (dissect_cudnn_status_ != CUDNN_STATUS_SUCCESS) {                           \
      return ::dissect::forward::CudnnStatus((api), dissect_cudnn_status_, #call); \
    }                                                                              \
  } while (0)

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_CUDNN_API_H_
