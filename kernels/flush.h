// Host interface of the L2 read-flush kernel (kernels/flush.cu): the read
// pass of the cold-cache flush (L2Flusher, probes/event_timer.h).
#ifndef DISSECT_KERNELS_FLUSH_H_
#define DISSECT_KERNELS_FLUSH_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace dissect {

// Loads every 16-byte word of `data` (`bytes`, a multiple of 16, 16-byte
// aligned) once, so that its lines take L2's place with clean lines. The
// loaded words are OR-folded per thread; a thread writes its fold to `*sink`
// only if it is not zero, so the loads cannot be optimized away, and a
// buffer of zeros (what L2Flusher reads) makes the pass write nothing at all.
cudaError_t LaunchL2ReadFlush(const void* data, size_t bytes, uint32_t* sink, cudaStream_t stream);

}  // namespace dissect

#endif  // DISSECT_KERNELS_FLUSH_H_
