// SPDX-License-Identifier: Apache-2.0
// The CUDA backend when the GPU is nearly full: it fills device memory, so it is a program of its
// own that ctest runs alone (RUN_SERIAL), never beside other GPU tests it would starve. Skips
// itself where no usable CUDA device is present.
#include "aes_gpu/gpu_backend.hpp"
#include "cipher/host_ring.hpp"
#include "support/gpu_fixture.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#ifdef AESGPU_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace aesgpu::test {
namespace {

#ifdef AESGPU_HAVE_CUDA
TEST_F(Gpu, AGpuShortOfMemoryTakesOverACpuRingInPieces) {
    // The CPU start hands the GPU a ring of fixed host buffers (7 x 8 MiB), which cannot shrink.
    // With 24 MiB of device memory left, the GPU must take them in pieces instead of failing.
    constexpr std::size_t kLeft = std::size_t{24} << 20;
    std::vector<void *> filler;
    for (std::size_t step = std::size_t{1} << 30; step >= (std::size_t{2} << 20);) {
        std::size_t free = 0, total = 0;
        ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
        if (free <= kLeft + step) {
            step /= 2;
            continue;
        }
        void *block = nullptr;
        if (cudaMalloc(&block, step) != cudaSuccess) {
            (void)cudaGetLastError();
            step /= 2;
            continue;
        }
        filler.push_back(block);
    }
    const Bytes key = random_bytes(16);
    const HostRing ring(gpu_ring_slots(kDefaultGpuStreams), kGpuFileChunkBytes + kAesBlockBytes);
    const std::vector<std::span<std::byte>> &buffers = ring.buffers();
    std::unique_ptr<CipherBackend> backend;
    EXPECT_NO_THROW(backend = make_gpu_backend_over(key, Direction::encrypt, {}, buffers));
    if (backend) {
        const Bytes plain = random_bytes(kGpuFileChunkBytes);
        Bytes expected;
        ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, false, plain, expected));
        std::memcpy(buffers[3].data(), plain.data(), plain.size());
        backend->submit({3, plain.size()});
        backend->wait(3);
        EXPECT_EQ(std::memcmp(buffers[3].data(), expected.data(), expected.size()), 0);
        backend.reset();
    }
    for (void *block : filler) EXPECT_EQ(cudaFree(block), cudaSuccess);
}
#endif

} // namespace
} // namespace aesgpu::test
