// Ownership of cuDNN handles and descriptors created through a CudnnApi
// (cudnn_api.h): CudnnObject destroys its object with the matching Destroy
// function of the table.
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_CUDNN_OBJECT_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_CUDNN_OBJECT_H_

#include <cudnn.h>

#include <utility>

#include "absl/status/statusor.h"
#include "experiments/workloads/forward/cudnn_api.h"

namespace dissect::forward {

// Owns one cuDNN object (a handle or a descriptor) and destroys it.
template <typename T>
class CudnnObject {
 public:
  using Destroy = cudnnStatus_t (*)(T);
  CudnnObject() = default;
  CudnnObject(T object, Destroy destroy) : object_(object), destroy_(destroy) {}
  CudnnObject(const CudnnObject&) = delete;
  CudnnObject& operator=(const CudnnObject&) = delete;
  CudnnObject(CudnnObject&& other) noexcept
      : object_(std::exchange(other.object_, nullptr)), destroy_(other.destroy_) {}
  CudnnObject& operator=(CudnnObject&& other) noexcept {
    if (this != &other) {
      Reset();
      object_ = std::exchange(other.object_, nullptr);
      destroy_ = other.destroy_;
    }
    return *this;
  }
  ~CudnnObject() { Reset(); }
  T get() const { return object_; }

 private:
  void Reset() {
    if (object_ != nullptr) destroy_(object_);
    object_ = nullptr;
  }
  T object_ = nullptr;
  Destroy destroy_ = nullptr;
};

// Creates an object with `create` (e.g. api.cudnnCreateTensorDescriptor),
// owned with `destroy`; a failure is CudnnStatus naming `what`.
template <typename T>
absl::StatusOr<CudnnObject<T>> MakeCudnnObject(const CudnnApi& api, cudnnStatus_t (*create)(T*),
                                               cudnnStatus_t (*destroy)(T), const char* what) {
  T object = nullptr;
  const cudnnStatus_t status = create(&object);
  if (status != CUDNN_STATUS_SUCCESS) return CudnnStatus(api, status, what);
  return CudnnObject<T>(object, destroy);
}

}  // namespace dissect::forward

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_CUDNN_OBJECT_H_
