// aesgpu_gpu_bench: the CUDA backend against the hardware's own limits, on one GPU.
//   ceilings: pinned H2D, pinned D2H, both at once, device-to-device copy
//   kernel:   AES-ECB in place on device-resident data, every key size and direction
//   pipeline: pinned host -> GPU -> pinned host through CudaBackend's ring of streams
// Outputs are checked against OpenSSL before anything is timed. Each figure is the median of
// several timed repetitions after a warm-up. Usage: aesgpu_gpu_bench [MiB of device data] [reps]
#include "aes_cpu/evp_cipher.hpp"
#include "aes_gpu/cuda_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace aesgpu;

// Fast deterministic filler (splitmix64): random-looking data without a slow generator.
void fill(std::span<std::byte> bytes, std::uint64_t seed) {
    std::uint64_t state = seed;
    for (std::size_t i = 0; i + 8 <= bytes.size(); i += 8) {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        std::memcpy(bytes.data() + i, &z, 8);
    }
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// Median seconds of `reps` runs of `work` on `stream`, timed with CUDA events after one warm-up.
double time_on_stream(cudaStream_t stream, int reps, const std::function<void()> &work) {
    CudaEvent start = CudaEvent::create(true);
    CudaEvent stop = CudaEvent::create(true);
    work();
    AESGPU_CUDA_TRY(cudaStreamSynchronize(stream));
    std::vector<double> seconds;
    for (int i = 0; i < reps; ++i) {
        AESGPU_CUDA_TRY(cudaEventRecord(start.get(), stream));
        work();
        AESGPU_CUDA_TRY(cudaEventRecord(stop.get(), stream));
        AESGPU_CUDA_TRY(cudaEventSynchronize(stop.get()));
        float ms = 0;
        AESGPU_CUDA_TRY(cudaEventElapsedTime(&ms, start.get(), stop.get()));
        seconds.push_back(ms / 1e3);
    }
    return median(seconds);
}

void report(const char *stage, const std::string &what, double bytes, double seconds, const std::string &note = "") {
    std::printf("%-9s %-22s %9.1f GB/s  %s\n", stage, what.c_str(), bytes / seconds / 1e9, note.c_str());
}

bool equal_to_openssl(std::span<const std::uint8_t> key, Direction direction, std::span<const std::byte> in,
                      std::span<const std::byte> out) {
    std::vector<std::byte> expected(in.size());
    EvpEcbCipher(key, direction).transform(in, expected);
    return std::memcmp(expected.data(), out.data(), in.size()) == 0;
}

} // namespace

int main(int argc, char **argv) try {
    const std::size_t bytes = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2048) << 20;
    const int reps = argc > 2 ? std::atoi(argv[2]) : 7;
    cudaDeviceProp properties{};
    AESGPU_CUDA_TRY(cudaGetDeviceProperties(&properties, 0));
    std::printf("%s, %d SMs; %zu MiB of data, median of %d\n", properties.name, properties.multiProcessorCount,
                bytes >> 20, reps);

    CudaStream stream = CudaStream::create();
    CudaStream other = CudaStream::create();
    PinnedBuffer host(bytes);
    PinnedBuffer host_out(bytes);
    DeviceBuffer device(bytes);
    DeviceBuffer device_copy(bytes);
    fill(host.span(), 1);

    // Ceilings.
    const auto h2d = [&] {
        AESGPU_CUDA_TRY(cudaMemcpyAsync(device.get(), host.get(), bytes, cudaMemcpyHostToDevice, stream.get()));
    };
    const auto d2h = [&] {
        AESGPU_CUDA_TRY(cudaMemcpyAsync(host_out.get(), device.get(), bytes, cudaMemcpyDeviceToHost, stream.get()));
    };
    const double h2d_s = time_on_stream(stream.get(), reps, h2d);
    const double d2h_s = time_on_stream(stream.get(), reps, d2h);
    CudaEvent joined = CudaEvent::create();
    const double both_s = time_on_stream(stream.get(), reps, [&] {
        // The D2H half runs on a second stream, joined back so the events time both.
        AESGPU_CUDA_TRY(cudaEventRecord(joined.get(), stream.get()));
        AESGPU_CUDA_TRY(cudaStreamWaitEvent(other.get(), joined.get()));
        AESGPU_CUDA_TRY(cudaMemcpyAsync(host_out.get(), device_copy.get(), bytes, cudaMemcpyDeviceToHost, other.get()));
        h2d();
        AESGPU_CUDA_TRY(cudaEventRecord(joined.get(), other.get()));
        AESGPU_CUDA_TRY(cudaStreamWaitEvent(stream.get(), joined.get()));
    });
    const double d2d_s = time_on_stream(stream.get(), reps, [&] {
        AESGPU_CUDA_TRY(
            cudaMemcpyAsync(device_copy.get(), device.get(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
    });
    report("ceiling", "pinned H2D", double(bytes), h2d_s);
    report("ceiling", "pinned D2H", double(bytes), d2h_s);
    const double two_way = 2.0 * double(bytes) / both_s;
    report("ceiling", "pinned H2D+D2H", 2.0 * double(bytes), both_s, "(sum of both directions)");
    report("ceiling", "device copy", 2.0 * double(bytes), d2d_s, "(read + write)");

    // Kernels, verified on the whole buffer first.
    for (const std::size_t key_bytes : {16u, 24u, 32u}) {
        std::vector<std::uint8_t> key(key_bytes);
        fill(std::as_writable_bytes(std::span(key)), key_bytes);
        for (const Direction direction : {Direction::encrypt, Direction::decrypt}) {
            CudaBackend backend(key, direction, {0, 1});
            h2d();
            backend.run_kernel(device.get(), bytes / 16, stream.get());
            d2h();
            AESGPU_CUDA_TRY(cudaStreamSynchronize(stream.get()));
            const std::string name =
                "AES-" + std::to_string(key_bytes * 8) + (direction == Direction::encrypt ? " encrypt" : " decrypt");
            if (!equal_to_openssl(key, direction, host.span(), host_out.span())) {
                std::printf("kernel    %-22s MISMATCH against OpenSSL\n", name.c_str());
                return 1;
            }
            const double s =
                time_on_stream(stream.get(), reps, [&] { backend.run_kernel(device.get(), bytes / 16, stream.get()); });
            report("kernel", name, double(bytes), s);
        }
    }

    // The pipeline from pinned host to pinned host at default settings: each submit is H2D,
    // kernel and D2H of one chunk on one of the streams; a slot is resubmitted once its event is done.
    {
        std::vector<std::uint8_t> key(16);
        fill(std::as_writable_bytes(std::span(key)), 16);
        CudaBackend backend(key, Direction::encrypt, {0, kDefaultGpuStreams});
        const std::size_t chunk = kGpuFileChunkBytes;
        const std::size_t slots = gpu_ring_slots(kDefaultGpuStreams);
        backend.configure_slots(slots, chunk);
        std::vector<std::byte> original(chunk);
        fill(original, 7);
        std::memcpy(backend.slot_buffer(0).data(), original.data(), chunk);
        backend.submit(0, chunk);
        backend.wait(0);
        if (!equal_to_openssl(key, Direction::encrypt, original, backend.slot_buffer(0))) {
            std::printf("pipeline MISMATCH against OpenSSL\n");
            return 1;
        }
        for (std::size_t s = 0; s < slots; ++s) fill(backend.slot_buffer(s), s);
        const std::size_t chunks = std::max<std::size_t>(4 * bytes / chunk, 4 * slots);
        std::vector<double> seconds;
        for (int rep = 0; rep <= reps; ++rep) {
            const auto start = std::chrono::steady_clock::now();
            for (std::size_t i = 0; i < chunks; ++i) {
                if (i >= slots) backend.wait(i % slots);
                backend.submit(i % slots, chunk);
            }
            for (std::size_t s = 0; s < slots; ++s) backend.wait(s);
            if (rep > 0)
                seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        const double s = median(seconds);
        const double rate = double(chunks * chunk) / s;
        char note[128];
        std::snprintf(note, sizeof note, "(%.0f%% of half the two-way rate; %zu MiB chunks, %u streams, %zu slots)",
                      100.0 * rate / (two_way / 2), chunk >> 20, kDefaultGpuStreams, slots);
        report("pipeline", "AES-128 encrypt", double(chunks * chunk), s, note);
    }
    return 0;
} catch (const std::exception &e) {
    std::fprintf(stderr, "aesgpu_gpu_bench: %s\n", e.what());
    return 1;
}
