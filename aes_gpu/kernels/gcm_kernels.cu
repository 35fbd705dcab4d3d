// SPDX-License-Identifier: Apache-2.0
// GCM segment kernels (Tink's AES-GCM-HKDF streaming segments). The first runs CTR and GHASH
// together: each thread takes one run of up to R blocks (gcm_kernels.hpp) of one segment (a CUDA block
// may span several short segments), encrypts their counters with the shared per-lane AES tables,
// XORs the data in registers (GHASH always over the ciphertext, before decrypting overwrites it)
// and folds them into a running sum by Horner's rule with H's table (8- or 4-bit pieces), also
// replicated per lane; the sum, weighted by its run's power of H, joins its segment's sum. The
// second kernel adds a segment's length block and writes the tag (encrypt) or compares it
// (decrypt), recording the first segment that fails.
#include "aes_gpu/kernels/aes_block.cuh"
#include "aes_gpu/kernels/gcm_block.cuh"
#include "aes_gpu/kernels/gcm_kernels.hpp"
#include "aes_gpu/kernels/shared_tables.cuh"

#include <limits>

namespace aesgpu {

namespace {

constexpr unsigned kTagBytes = 16;
// H's table after the AES tables: entry n for lane l is 16 bytes at n * 512 + l * 16, read with
// one 128-bit load. Lanes l, l + 8, l + 16 and l + 24 share banks 4(l % 8)..4(l % 8) + 3, but
// always at four different addresses (their own copies), so every load takes the same four
// passes whichever entries the data picks.
constexpr unsigned kHashEntryBytes = 16;
constexpr unsigned kHashRowBytes = kLanes * kHashEntryBytes; // 512: entry n's row
// 8 KiB for 4-bit pieces, 128 KiB for 8-bit.
template <int Bits>
constexpr std::size_t kHashBytes = (std::size_t{1} << Bits) * kHashRowBytes;
template <int Bits>
constexpr std::size_t kSharedBytes = kAesTableBytes + kHashBytes<Bits>;

template <int Bits>
struct LaneHashTable {
    static constexpr int kBits = Bits;
    const char *lane_base; // this lane's entry 0
    // (the piece of `word` at bit `shift`) * H.
    __device__ __forceinline__ gcm::Words128 entry(std::uint32_t word, unsigned shift) const {
        const std::uint32_t piece = (word >> shift) & ((1u << Bits) - 1);
        const uint4 v = *reinterpret_cast<const uint4 *>(lane_base + piece * kHashRowBytes);
        return {v.x, v.y, v.z, v.w};
    }
};

// Where segment k of the job sits, and how long it is.
struct SegmentPlace {
    std::uint64_t number;
    std::uint64_t offset;
    std::uint64_t ciphertext_bytes; // tag included
    bool last;
};

__device__ __forceinline__ SegmentPlace place_of(const GcmKernelParams &p, const GcmJobShape &job, unsigned k) {
    const auto capacity = [&p](std::uint64_t number) {
        return number == 0 ? p.segment_bytes - p.header_bytes : p.segment_bytes;
    };
    const std::uint64_t number = job.first_segment + k;
    const std::uint64_t offset = k == 0 ? 0 : capacity(job.first_segment) + (k - 1) * p.segment_bytes;
    const bool job_last = k + 1 == job.segments;
    return {number, offset, job_last ? job.bytes - offset : capacity(number), job_last && job.holds_last};
}

// Counter block `counter` of segment `number`: the nonce (prefix, number, last byte), then the
// 32-bit big-endian counter. Every backend's submit refuses numbers from 2^32 (check_job_size), so
// the 32 bits kept here are the whole number.
__device__ __forceinline__ block::State counter_state(const GcmKernelParams &p, const SegmentPlace &s,
                                                      std::uint32_t counter) {
    const std::uint8_t *n = p.nonce_prefix;
    const auto number = static_cast<std::uint32_t>(s.number);
    const std::uint32_t c0 = n[0] | n[1] << 8 | n[2] << 16 | std::uint32_t{n[3]} << 24;
    const std::uint32_t c1 = n[4] | n[5] << 8 | n[6] << 16 | (number >> 24) << 24;
    const std::uint32_t c2 = ((number >> 16) & 0xff) | ((number >> 8) & 0xff) << 8 | (number & 0xff) << 16 |
                             std::uint32_t{s.last ? 1u : 0u} << 24;
    return {c0, c1, c2, block::byte_swap(counter)};
}

// Up to 16 bytes at `p` (any alignment) as a State, zeros after `valid`.
__device__ __forceinline__ block::State load_bytes(const std::uint8_t *p, unsigned valid) {
    std::uint32_t w[4] = {0, 0, 0, 0};
    for (unsigned b = 0; b < 16; ++b) {
        if (b < valid) w[b / 4] |= std::uint32_t{p[b]} << (8 * (b % 4));
    }
    return {w[0], w[1], w[2], w[3]};
}

__device__ __forceinline__ void store_bytes(std::uint8_t *p, const block::State &s, unsigned valid) {
    const std::uint32_t w[4] = {s.c0, s.c1, s.c2, s.c3};
    for (unsigned b = 0; b < 16; ++b) {
        if (b < valid) p[b] = static_cast<std::uint8_t>(w[b / 4] >> (8 * (b % 4)));
    }
}

__device__ __forceinline__ gcm::Block128 shuffle_down(gcm::Block128 v, unsigned delta) {
    return {__shfl_down_sync(0xffffffffu, v.hi, delta), __shfl_down_sync(0xffffffffu, v.lo, delta)};
}

// A launch's runs: blocks per run, runs per segment, and the step through the weights.
struct GcmRuns {
    std::uint32_t blocks;
    std::uint32_t per_segment;
    std::uint32_t weight_stride; // blocks / kGcmMinRunBlocks
};

template <int Rounds, int Bits>
__global__ void __launch_bounds__(kGcmThreadsPerBlock)
    gcm_segments_kernel(const __grid_constant__ GcmKernelParams p, std::uint8_t *data, GcmJobShape job,
                        const gcm::Block128 *hash_data, std::uint32_t *sums, GcmRuns runs) {
    extern __shared__ std::uint32_t shared[];
    fill_shared_tables(shared, p.te0, p.te2);
    auto *hash_words = reinterpret_cast<std::uint32_t *>(reinterpret_cast<char *>(shared) + kAesTableBytes);
    // Word w of an entry is word w ^ 1 of its Block128 (two little-endian 64-bit halves).
    const auto *table_words = reinterpret_cast<const std::uint32_t *>(hash_data);
    for (unsigned i = threadIdx.x; i < kHashBytes<Bits> / sizeof(std::uint32_t); i += blockDim.x) {
        const unsigned n = i / (kHashRowBytes / sizeof(std::uint32_t)), w = i % 4;
        hash_words[i] = table_words[n * 4 + (w ^ 1)];
    }
    __syncthreads();
    const unsigned lane = threadIdx.x % kLanes;
    const SharedTables tables{reinterpret_cast<const char *>(shared), lane * 4};
    const LaneHashTable<Bits> hash{reinterpret_cast<const char *>(hash_words) + lane * kHashEntryBytes};
    const gcm::Block128 *weights = hash_data + (1u << Bits);

    // Thread g takes run g % runs of the job's segment g / runs (run 0 ends the segment), so a
    // CUDA block may span several short segments; threads past the job hold segment `segments`.
    const std::uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
    const bool active = g < job.segments * runs.per_segment;
    const std::uint32_t k = active ? g / runs.per_segment : job.segments;
    const std::uint64_t run = g % runs.per_segment;
    const SegmentPlace segment = place_of(p, job, active ? k : 0);
    const std::uint64_t text_bytes = segment.ciphertext_bytes - kTagBytes;
    const std::uint64_t blocks = (text_bytes + 15) / 16;
    std::uint8_t *base = data + segment.offset;
    const bool aligned = (reinterpret_cast<std::uintptr_t>(base) & 15) == 0;

    gcm::Block128 sum;
    if (active && run * runs.blocks < blocks) {
        const std::uint64_t end = blocks - run * runs.blocks;
        const std::uint64_t start = end > runs.blocks ? end - runs.blocks : 0;
        gcm::Block128 y;
        for (std::uint64_t i = start; i < end; ++i) {
            const block::State keystream = block::encrypt<Rounds>(
                counter_state(p, segment, static_cast<std::uint32_t>(i + 2)), p.round_keys, tables);
            const unsigned valid = static_cast<unsigned>(text_bytes - 16 * i < 16 ? text_bytes - 16 * i : 16);
            std::uint8_t *at = base + 16 * i;
            block::State in;
            if (aligned && valid == 16) {
                const uint4 v = *reinterpret_cast<const uint4 *>(at);
                in = {v.x, v.y, v.z, v.w};
            } else {
                in = load_bytes(at, valid);
            }
            block::State out{in.c0 ^ keystream.c0, in.c1 ^ keystream.c1, in.c2 ^ keystream.c2, in.c3 ^ keystream.c3};
            if (valid < 16) {
                // Only the block's first `valid` bytes exist: the rest of its ciphertext is zero for GHASH.
                std::uint8_t bytes[16];
                store_bytes(bytes, out, 16);
                out = load_bytes(bytes, valid);
            }
            const block::State &ciphertext = p.decrypt ? in : out;
            y = gcm::multiply_by_h(y ^ gcm::from_state(ciphertext), hash);
            if (aligned && valid == 16) {
                *reinterpret_cast<uint4 *>(at) = make_uint4(out.c0, out.c1, out.c2, out.c3);
            } else {
                store_bytes(at, out, valid);
            }
        }
        sum = gcm::multiply(y, weights[run * runs.weight_stride]);
    }
    // E(J0) goes into the tag once per segment: with the sum of the segment's last run.
    if (active && run == 0)
        sum = sum ^ gcm::from_state(block::encrypt<Rounds>(counter_state(p, segment, 1), p.round_keys, tables));

    // XOR the sums of each segment's lanes in this warp (lanes of a segment are contiguous): after
    // the steps, a segment's first lane holds its whole share, which goes into the segment's sum
    // with four atomic XORs (the order does not change the result).
    for (unsigned d = 1; d < kLanes; d *= 2) {
        const gcm::Block128 other = shuffle_down(sum, d);
        const std::uint32_t other_k = __shfl_down_sync(0xffffffffu, k, d);
        if (lane + d < kLanes && other_k == k) sum = sum ^ other;
    }
    const std::uint32_t previous_k = __shfl_up_sync(0xffffffffu, k, 1);
    if (active && (lane == 0 || previous_k != k)) {
        const gcm::Words128 words = gcm::to_words(sum);
        std::uint32_t *at = sums + std::uint64_t{k} * 4;
        atomicXor(at, words.w0);
        atomicXor(at + 1, words.w1);
        atomicXor(at + 2, words.w2);
        atomicXor(at + 3, words.w3);
    }
}

__global__ void gcm_finish_kernel(const __grid_constant__ GcmKernelParams p, std::uint8_t *data, GcmJobShape job,
                                  const gcm::Block128 *hash_data, const std::uint32_t *sums,
                                  std::uint32_t *first_failure) {
    const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= job.segments) return;
    const SegmentPlace segment = place_of(p, job, k);
    const std::uint64_t text_bytes = segment.ciphertext_bytes - kTagBytes;
    const std::uint32_t *sum = sums + std::uint64_t{k} * 4;
    gcm::Block128 tag = gcm::from_words({sum[0], sum[1], sum[2], sum[3]});
    const gcm::Block128 h = hash_data[1u << (p.table_bits - 1)];    // the piece 100..0 is x^0
    tag = tag ^ gcm::multiply(gcm::Block128{0, text_bytes * 8}, h); // the length block, public
    std::uint8_t *at = data + segment.offset + text_bytes;
    if (!p.decrypt) {
        store_bytes(at, gcm::to_state(tag), 16);
        return;
    }
    const block::State stored = load_bytes(at, 16);
    const gcm::Block128 given = gcm::from_state(stored);
    // The job's own index, not the stream's number: segment 2^32 - 1 would read as 0xffffffff, "none".
    if (((given.hi ^ tag.hi) | (given.lo ^ tag.lo)) != 0) atomicMin(first_failure, k);
}

// Weight j = H^(j kGcmMinRunBlocks + 1) by square and multiply over the exponent's bits, which
// are public; the multiplications take the same steps whatever H is.
__global__ void gcm_weights_kernel(gcm::Block128 h, gcm::Block128 *weights, std::uint64_t count) {
    const std::uint64_t j = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (j >= count) return;
    const std::uint64_t exponent = j * kGcmMinRunBlocks + 1;
    gcm::Block128 power = h;
    for (int bit = 62 - __clzll(static_cast<long long>(exponent)); bit >= 0; --bit) {
        power = gcm::multiply(power, power);
        if ((exponent >> bit) & 1) power = gcm::multiply(power, h);
    }
    weights[j] = power;
}

using SegmentsKernel = void (*)(GcmKernelParams, std::uint8_t *, GcmJobShape, const gcm::Block128 *, std::uint32_t *,
                                GcmRuns);

template <int Bits>
SegmentsKernel pick_kernel(int rounds) {
    switch (rounds) {
    case 10: return gcm_segments_kernel<10, Bits>;
    case 12: return gcm_segments_kernel<12, Bits>;
    case 14: return gcm_segments_kernel<14, Bits>;
    default: return nullptr;
    }
}

SegmentsKernel pick_kernel(const GcmKernelParams &params) {
    switch (params.table_bits) {
    case 4: return pick_kernel<4>(params.rounds);
    case 8: return pick_kernel<8>(params.rounds);
    default: return nullptr;
    }
}

std::size_t shared_bytes(int table_bits) {
    return table_bits == 8 ? kSharedBytes<8> : kSharedBytes<4>;
}

} // namespace

std::size_t gcm_runs_per_segment(std::size_t segment_bytes, unsigned run_blocks) {
    const std::size_t blocks = (segment_bytes - kTagBytes + 15) / 16;
    return (blocks + run_blocks - 1) / run_blocks;
}

cudaError_t gcm_table_bits(int *bits) {
    int device = 0;
    int limit = 0;
    cudaError_t status = cudaGetDevice(&device);
    if (status == cudaSuccess) status = cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (status != cudaSuccess) return status;
    *bits = static_cast<std::size_t>(limit) >= kSharedBytes<8> ? 8 : 4;
    return cudaSuccess;
}

std::size_t gcm_sum_bytes(std::size_t segments) {
    return std::max<std::size_t>(segments, 1) * 4 * sizeof(std::uint32_t);
}

std::size_t gcm_hash_values(int table_bits, std::size_t segment_bytes) {
    return (std::size_t{1} << table_bits) + gcm_runs_per_segment(segment_bytes, kGcmMinRunBlocks);
}

cudaError_t prepare_gcm_launch(GcmKernelParams *params) {
    const SegmentsKernel kernel = pick_kernel(*params);
    if (!kernel) return cudaErrorInvalidValue;
    const auto shared = static_cast<int>(shared_bytes(params->table_bits));
    cudaError_t status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared);
    int device = 0, multiprocessors = 0, per_multiprocessor = 0;
    if (status == cudaSuccess) status = cudaGetDevice(&device);
    if (status == cudaSuccess)
        status = cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device);
    if (status == cudaSuccess)
        status =
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, kGcmThreadsPerBlock, shared);
    if (status != cudaSuccess) return status;
    if (per_multiprocessor < 1) return cudaErrorInvalidConfiguration;
    params->resident_blocks = static_cast<std::uint32_t>(multiprocessors * per_multiprocessor);
    return cudaSuccess;
}

cudaError_t compute_gcm_weights(const GcmKernelParams &params, void *hash_data, std::uint64_t h_hi, std::uint64_t h_lo,
                                cudaStream_t stream) {
    const std::uint64_t count = gcm_runs_per_segment(params.segment_bytes, kGcmMinRunBlocks);
    constexpr unsigned kThreads = 256;
    auto *weights = static_cast<gcm::Block128 *>(hash_data) + (std::size_t{1} << params.table_bits);
    gcm_weights_kernel<<<static_cast<unsigned>((count + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
        gcm::Block128{h_hi, h_lo}, weights, count);
    return cudaGetLastError();
}

// The longest runs that still give the job's kernel most of the GPU: three quarters of the CUDA
// blocks it can hold at once (a launch's tail and the next stream's kernel fill the rest).
GcmRuns runs_for(const GcmKernelParams &params, const GcmJobShape &job) {
    unsigned blocks = kGcmMaxRunBlocks;
    const auto runs_with = [&](unsigned run_blocks) {
        return std::uint64_t{job.segments} * gcm_runs_per_segment(params.segment_bytes, run_blocks);
    };
    const std::uint64_t wanted_threads = std::uint64_t{params.resident_blocks} * kGcmThreadsPerBlock * 3 / 4;
    while (blocks > kGcmMinRunBlocks && runs_with(blocks) < wanted_threads) blocks /= 2;
    return {blocks, static_cast<std::uint32_t>(gcm_runs_per_segment(params.segment_bytes, blocks)),
            blocks / kGcmMinRunBlocks};
}

cudaError_t launch_gcm(const GcmKernelParams &params, void *data, const GcmJobShape &job, const void *hash_data,
                       void *sums, std::uint32_t *first_failure, cudaStream_t stream) {
    const SegmentsKernel kernel = pick_kernel(params);
    if (!kernel) return cudaErrorInvalidValue;
    if (job.segments == 0) return cudaSuccess;
    cudaError_t status = cudaMemsetAsync(sums, 0, gcm_sum_bytes(job.segments), stream);
    if (status != cudaSuccess) return status;
    const GcmRuns runs = runs_for(params, job);
    const std::uint64_t threads = std::uint64_t{job.segments} * runs.per_segment;
    if (threads > std::numeric_limits<std::uint32_t>::max()) return cudaErrorInvalidValue;
    const auto blocks = static_cast<unsigned>((threads + kGcmThreadsPerBlock - 1) / kGcmThreadsPerBlock);
    const auto *hash = static_cast<const gcm::Block128 *>(hash_data);
    auto *segment_sums = static_cast<std::uint32_t *>(sums);
    kernel<<<blocks, kGcmThreadsPerBlock, shared_bytes(params.table_bits), stream>>>(
        params, static_cast<std::uint8_t *>(data), job, hash, segment_sums, runs);
    status = cudaGetLastError();
    if (status != cudaSuccess) return status;
    constexpr unsigned kFinishThreads = 128;
    gcm_finish_kernel<<<(job.segments + kFinishThreads - 1) / kFinishThreads, kFinishThreads, 0, stream>>>(
        params, static_cast<std::uint8_t *>(data), job, hash, segment_sums, first_failure);
    return cudaGetLastError();
}

} // namespace aesgpu
