// RAII ownership of pinned (page-locked) host memory: freed when the owner
// goes out of scope. The host side of copies that must run at the copy
// engines' speed, and of flags a kernel and the host share (mapped).
#ifndef DISSECT_PROBES_PINNED_BUFFER_H_
#define DISSECT_PROBES_PINNED_BUFFER_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "probes/cuda_status.h"

namespace dissect {

template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      Reset();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~PinnedBuffer() { Reset(); }

  // Allocates `count` elements of T with cudaHostAlloc(`flags`):
  // cudaHostAllocDefault, or cudaHostAllocMapped for memory a kernel reads
  // and writes through cudaHostGetDevicePointer.
  static absl::StatusOr<PinnedBuffer> Allocate(size_t count,
                                               unsigned flags = cudaHostAllocDefault) {
    PinnedBuffer buffer;
    if (count == 0) return buffer;
    void* ptr = nullptr;
    const cudaError_t error = cudaHostAlloc(&ptr, count * sizeof(T), flags);
    if (error != cudaSuccess) {
      return CudaStatus(error, absl::StrCat("cudaHostAlloc(", count * sizeof(T), " B)").c_str(),
                        __FILE__, __LINE__);
    }
    buffer.data_ = static_cast<T*>(ptr);
    buffer.count_ = count;
    return buffer;
  }

  T* get() const { return data_; }
  size_t size() const { return count_; }

 private:
  void Reset() {
    if (data_ != nullptr) cudaFreeHost(data_);
    data_ = nullptr;
    count_ = 0;
  }

  T* data_ = nullptr;
  size_t count_ = 0;
};

}  // namespace dissect

#endif  // DISSECT_PROBES_PINNED_BUFFER_H_
