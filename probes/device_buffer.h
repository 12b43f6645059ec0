// RAII ownership of device memory: freed when the owner goes out of scope.
#ifndef DISSECT_PROBES_DEVICE_BUFFER_H_
#define DISSECT_PROBES_DEVICE_BUFFER_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "probes/cuda_status.h"

namespace dissect {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      Reset();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { Reset(); }

  // Allocates `count` elements of T with cudaMalloc (never managed memory).
  static absl::StatusOr<DeviceBuffer> Allocate(size_t count) {
    DeviceBuffer buffer;
    if (count == 0) return buffer;
    void* ptr = nullptr;
    const cudaError_t error = cudaMalloc(&ptr, count * sizeof(T));
    if (error != cudaSuccess) {
      return CudaStatus(error,
                        absl::StrCat("cudaMalloc(", count * sizeof(T), " B)")
                            .c_str(),
                        __FILE__, __LINE__);
    }
    buffer.data_ = static_cast<T*>(ptr);
    buffer.count_ = count;
    return buffer;
  }

  T* get() const { return data_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

 private:
  void Reset() {
    if (data_ != nullptr) cudaFree(data_);
    data_ = nullptr;
    count_ = 0;
  }

  T* data_ = nullptr;
  size_t count_ = 0;
};

}  // namespace dissect

#endif  // DISSECT_PROBES_DEVICE_BUFFER_H_
