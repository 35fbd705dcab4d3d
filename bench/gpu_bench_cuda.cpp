// SPDX-License-Identifier: Apache-2.0
#include "bench/gpu_bench.hpp"

#include "aes_gpu/aes_kernel.hpp"
#include "aes_gpu/cuda_backend.hpp"
#include "aes_gpu/cuda_check.hpp"
#include "aes_gpu/cuda_resources.hpp"
#include "aes_gpu/gcm_kernel.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>

namespace aesgpu {

namespace {

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

class CudaGpuBench final : public GpuBench {
public:
    // Its streams and buffers live on `device`, current while it is made; each call makes it
    // current for as long as it runs.
    CudaGpuBench(std::size_t bytes, int device)
        : device_index_(device), bytes_(bytes), stream_(CudaStream::create()), other_(CudaStream::create()),
          host_(bytes), host_out_(bytes), device_(bytes), device_copy_(bytes) {
        // Any bytes do for copies and kernel timings; these are not all zero.
        std::uint64_t word = 0x9e3779b97f4a7c15u;
        for (std::size_t i = 0; i + 8 <= bytes; i += 8) {
            word ^= word << 13, word ^= word >> 7, word ^= word << 17;
            std::memcpy(host_.span().data() + i, &word, 8);
        }
        AESGPU_CUDA_TRY(cudaMemcpy(device_.get(), host_.get(), bytes, cudaMemcpyHostToDevice));
    }

    GpuCopyCeilings time_copies(int reps) override {
        const DeviceScope scope(device_index_);
        GpuCopyCeilings ceilings;
        ceilings.h2d_seconds = time_on_stream(reps, [&] { h2d(); });
        ceilings.d2h_seconds = time_on_stream(reps, [&] { d2h(); });
        CudaEvent joined = CudaEvent::create();
        ceilings.both_seconds = time_on_stream(reps, [&] {
            // The D2H half runs on a second stream, joined back so that the events time both.
            AESGPU_CUDA_TRY(cudaEventRecord(joined.get(), stream_.get()));
            AESGPU_CUDA_TRY(cudaStreamWaitEvent(other_.get(), joined.get()));
            two_way();
            AESGPU_CUDA_TRY(cudaEventRecord(joined.get(), other_.get()));
            AESGPU_CUDA_TRY(cudaStreamWaitEvent(stream_.get(), joined.get()));
        });
        ceilings.device_copy_seconds = time_on_stream(reps, [&] {
            AESGPU_CUDA_TRY(
                cudaMemcpyAsync(device_copy_.get(), device_.get(), bytes_, cudaMemcpyDeviceToDevice, stream_.get()));
        });
        return ceilings;
    }

    std::vector<std::byte> kernel_output(std::span<const std::uint8_t> key, const CipherSpec &spec,
                                         std::span<const std::byte> input) override {
        const DeviceScope scope(device_index_);
        if (input.size() > bytes_ || input.size() % kAesBlockBytes != 0) {
            throw std::invalid_argument("kernel_output needs whole blocks within the bench's buffers");
        }
        const auto launch = launcher(key, spec);
        std::vector<std::byte> output(input.size());
        AESGPU_CUDA_TRY(
            cudaMemcpyAsync(device_copy_.get(), input.data(), input.size(), cudaMemcpyHostToDevice, stream_.get()));
        launch(device_copy_.get(), input.size());
        AESGPU_CUDA_TRY(
            cudaMemcpyAsync(output.data(), device_copy_.get(), input.size(), cudaMemcpyDeviceToHost, stream_.get()));
        AESGPU_CUDA_TRY(cudaStreamSynchronize(stream_.get()));
        return output;
    }

    double time_kernel(std::span<const std::uint8_t> key, const CipherSpec &spec, int reps) override {
        const DeviceScope scope(device_index_);
        const auto launch = launcher(key, spec);
        return time_on_stream(reps, [&] { launch(device_.get(), bytes_); });
    }

    void start_two_way_copies() override {
        const DeviceScope scope(device_index_);
        two_way();
    }

    void wait_for_copies() override {
        const DeviceScope scope(device_index_);
        AESGPU_CUDA_TRY(cudaStreamSynchronize(stream_.get()));
        AESGPU_CUDA_TRY(cudaStreamSynchronize(other_.get()));
    }

private:
    // H2D on the main stream, D2H on the other, at once.
    void two_way() {
        AESGPU_CUDA_TRY(
            cudaMemcpyAsync(host_out_.get(), device_copy_.get(), bytes_, cudaMemcpyDeviceToHost, other_.get()));
        h2d();
    }

    // The kernel for `spec` over the first `bytes` of device memory: ECB and CTR over whole
    // blocks from block 0, GCM over whole segments (full_segments_job).
    std::function<void(void *, std::size_t)> launcher(std::span<const std::uint8_t> key, const CipherSpec &spec) {
        if (spec.mode != Mode::gcm) {
            auto kernel = std::make_shared<AesKernel>(key, spec);
            return [this, kernel](void *data, std::size_t bytes) {
                kernel->launch(data, bytes / kAesBlockBytes, 0, stream_.get());
            };
        }
        auto kernel = std::make_shared<GcmKernel>(key, spec);
        auto sums = std::make_shared<DeviceBuffer>(kernel->sum_bytes(bytes_ / spec.gcm.geometry.segment_bytes));
        auto failure = std::make_shared<DeviceBuffer>(sizeof(std::uint32_t));
        return [this, kernel, sums, failure, geometry = spec.gcm.geometry](void *data, std::size_t bytes) {
            AESGPU_CUDA_TRY(cudaMemsetAsync(failure->get(), 0xff, sizeof(std::uint32_t), stream_.get()));
            kernel->launch(data, full_segments_job(geometry, 0, bytes), sums->get(),
                           static_cast<std::uint32_t *>(failure->get()), stream_.get());
        };
    }

    void h2d() {
        AESGPU_CUDA_TRY(cudaMemcpyAsync(device_.get(), host_.get(), bytes_, cudaMemcpyHostToDevice, stream_.get()));
    }
    void d2h() {
        AESGPU_CUDA_TRY(cudaMemcpyAsync(host_out_.get(), device_.get(), bytes_, cudaMemcpyDeviceToHost, stream_.get()));
    }

    // Median seconds of `reps` runs of `work` on the stream, timed with CUDA events after one warm-up.
    double time_on_stream(int reps, const std::function<void()> &work) {
        CudaEvent start = CudaEvent::create(true);
        CudaEvent stop = CudaEvent::create(true);
        work();
        AESGPU_CUDA_TRY(cudaStreamSynchronize(stream_.get()));
        std::vector<double> seconds;
        for (int i = 0; i < std::max(reps, 1); ++i) {
            AESGPU_CUDA_TRY(cudaEventRecord(start.get(), stream_.get()));
            work();
            AESGPU_CUDA_TRY(cudaEventRecord(stop.get(), stream_.get()));
            AESGPU_CUDA_TRY(cudaEventSynchronize(stop.get()));
            float ms = 0;
            AESGPU_CUDA_TRY(cudaEventElapsedTime(&ms, start.get(), stop.get()));
            seconds.push_back(ms / 1e3);
        }
        return median(seconds);
    }

    int device_index_;
    std::size_t bytes_;
    CudaStream stream_;
    CudaStream other_;
    PinnedBuffer host_;
    PinnedBuffer host_out_;
    DeviceBuffer device_;
    DeviceBuffer device_copy_;
};

} // namespace

std::unique_ptr<GpuBench> GpuBench::create(std::size_t bytes, int device) {
    require_gpu_device(device);
    const DeviceScope scope(device);
    // A kernel image for the device, checked before any buffer is allocated.
    (void)AesKernel(std::vector<std::uint8_t>(16), Direction::encrypt);
    return std::make_unique<CudaGpuBench>(bytes, device);
}

} // namespace aesgpu
