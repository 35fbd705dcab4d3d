// SPDX-License-Identifier: Apache-2.0
// The GPU measurements of a build without the CUDA toolkit: there is no GPU to measure.
#include "bench/gpu_bench.hpp"

namespace aesgpu {

std::unique_ptr<GpuBench> GpuBench::create(std::size_t, int) {
    throw GpuUnavailable("this aesgpu was built without CUDA support");
}

} // namespace aesgpu
