// SPDX-License-Identifier: Apache-2.0
// GCM segment kernels (Tink's AES-GCM-HKDF streaming segments). The first runs CTR and GHASH
// together: the grid has one row of CUDA blocks per segment, each thread takes kGcmRunBlocks
// blocks, encrypts their counters with the shared per-lane AES tables, XORs the data in registers
// (GHASH always over the ciphertext, before decrypting overwrites it) and folds them into a
// running sum by Horner's rule with H's 4-bit table, also replicated per lane; the sum is then
// weighted by its run's power of H and the block's sums are XORed together. The second kernel
// adds a segment's partial sums and its length block and writes the tag (encrypt) or compares it
// (decrypt), recording the first segment that fails.
#include "aes_gpu/aes_block.cuh"
#include "aes_gpu/gcm_block.cuh"
#include "aes_gpu/gcm_kernels.hpp"
#include "aes_gpu/shared_tables.cuh"

namespace aesgpu {

namespace {

constexpr unsigned kTagBytes = 16;
// H's table after the AES tables: 16 entries x 4 words, each word replicated for the 32 lanes;
// then the 16 reduction constants (reduce_4bit's top 32 bits), likewise. A lookup there costs one
// load where computing the constant costs a dozen instructions, and the data picks the entry.
constexpr unsigned kHashWords = 16 * 4 * kLanes;
constexpr unsigned kReduceWords = 16 * kLanes;
constexpr std::size_t kGcmSharedBytes = (kTableWords + kHashWords + kReduceWords) * sizeof(std::uint32_t);

struct LaneHashTable {
    const std::uint32_t *words;   // word w of entry n for this lane: words[(n * 4 + w) * kLanes]
    const std::uint32_t *reduces; // reduce_4bit(rem) >> 32 for this lane: reduces[rem * kLanes]
    __device__ __forceinline__ gcm::Block128 entry(unsigned n) const {
        const std::uint32_t *e = words + n * 4 * kLanes;
        return {std::uint64_t{e[0]} << 32 | e[kLanes], std::uint64_t{e[2 * kLanes]} << 32 | e[3 * kLanes]};
    }
    __device__ __forceinline__ std::uint64_t reduce(unsigned rem) const {
        return std::uint64_t{reduces[rem * kLanes]} << 32;
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
// 32-bit big-endian counter.
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

__device__ __forceinline__ gcm::Block128 shuffle_xor(gcm::Block128 v, int lane_mask) {
    return {__shfl_xor_sync(0xffffffffu, v.hi, lane_mask), __shfl_xor_sync(0xffffffffu, v.lo, lane_mask)};
}

template <int Rounds>
__global__ void __launch_bounds__(kGcmThreadsPerBlock)
    gcm_segments_kernel(const __grid_constant__ GcmKernelParams p, std::uint8_t *data, GcmJobShape job,
                        const gcm::Block128 *weights, gcm::Block128 *partials) {
    extern __shared__ std::uint32_t shared[];
    fill_shared_tables(shared, p.te0, p.te2);
    std::uint32_t *hash_words = shared + kTableWords;
    for (unsigned i = threadIdx.x; i < kHashWords; i += blockDim.x) {
        const unsigned word = i / kLanes; // entry * 4 + w
        const std::uint64_t half = word % 4 < 2 ? p.hash_table_hi[word / 4] : p.hash_table_lo[word / 4];
        hash_words[i] = static_cast<std::uint32_t>(word % 2 == 0 ? half >> 32 : half);
    }
    std::uint32_t *reduce_words = hash_words + kHashWords;
    for (unsigned i = threadIdx.x; i < kReduceWords; i += blockDim.x) {
        reduce_words[i] = static_cast<std::uint32_t>(gcm::reduce_4bit(i / kLanes) >> 32);
    }
    __syncthreads();
    const unsigned lane = threadIdx.x % kLanes;
    const SharedTables tables{reinterpret_cast<const char *>(shared), lane * 4};
    const LaneHashTable hash{hash_words + lane, reduce_words + lane};

    const SegmentPlace segment = place_of(p, job, blockIdx.y);
    const std::uint64_t text_bytes = segment.ciphertext_bytes - kTagBytes;
    const std::uint64_t blocks = (text_bytes + 15) / 16;
    const std::uint64_t run = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; // 0: the segment's end
    std::uint8_t *base = data + segment.offset;
    const bool aligned = (reinterpret_cast<std::uintptr_t>(base) & 15) == 0;

    gcm::Block128 sum;
    if (run * kGcmRunBlocks < blocks) {
        const std::uint64_t end = blocks - run * kGcmRunBlocks;
        const std::uint64_t start = end > kGcmRunBlocks ? end - kGcmRunBlocks : 0;
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
        sum = gcm::multiply(y, weights[run]);
    }
    // E(J0) goes into the tag once per segment: with the sum of the segment's last run.
    if (run == 0)
        sum = sum ^ gcm::from_state(block::encrypt<Rounds>(counter_state(p, segment, 1), p.round_keys, tables));

    for (int mask = kLanes / 2; mask > 0; mask /= 2) sum = sum ^ shuffle_xor(sum, mask);
    __shared__ gcm::Block128 warp_sums[kGcmThreadsPerBlock / kLanes];
    if (lane == 0) warp_sums[threadIdx.x / kLanes] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        gcm::Block128 total;
        for (unsigned w = 0; w < blockDim.x / kLanes; ++w) total = total ^ warp_sums[w];
        partials[std::uint64_t{blockIdx.y} * gridDim.x + blockIdx.x] = total;
    }
}

__global__ void gcm_finish_kernel(const __grid_constant__ GcmKernelParams p, std::uint8_t *data, GcmJobShape job,
                                  const gcm::Block128 *partials, unsigned parts, std::uint32_t *first_failure) {
    const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= job.segments) return;
    const SegmentPlace segment = place_of(p, job, k);
    const std::uint64_t text_bytes = segment.ciphertext_bytes - kTagBytes;
    gcm::Block128 tag;
    for (unsigned part = 0; part < parts; ++part) tag = tag ^ partials[std::uint64_t{k} * parts + part];
    const gcm::Block128 h{p.hash_table_hi[8], p.hash_table_lo[8]};
    tag = tag ^ gcm::multiply(gcm::Block128{0, text_bytes * 8}, h); // the length block, public
    std::uint8_t *at = data + segment.offset + text_bytes;
    if (!p.decrypt) {
        store_bytes(at, gcm::to_state(tag), 16);
        return;
    }
    const block::State stored = load_bytes(at, 16);
    const gcm::Block128 given = gcm::from_state(stored);
    if (((given.hi ^ tag.hi) | (given.lo ^ tag.lo)) != 0)
        atomicMin(first_failure, static_cast<std::uint32_t>(segment.number));
}

using SegmentsKernel = void (*)(GcmKernelParams, std::uint8_t *, GcmJobShape, const gcm::Block128 *, gcm::Block128 *);

SegmentsKernel pick_kernel(int rounds) {
    switch (rounds) {
    case 10: return gcm_segments_kernel<10>;
    case 12: return gcm_segments_kernel<12>;
    case 14: return gcm_segments_kernel<14>;
    default: return nullptr;
    }
}

} // namespace

std::size_t gcm_runs_per_segment(std::size_t segment_bytes) {
    const std::size_t blocks = (segment_bytes - kTagBytes + 15) / 16;
    return (blocks + kGcmRunBlocks - 1) / kGcmRunBlocks;
}

std::size_t gcm_parts_per_segment(std::size_t segment_bytes) {
    return (gcm_runs_per_segment(segment_bytes) + kGcmThreadsPerBlock - 1) / kGcmThreadsPerBlock;
}

cudaError_t prepare_gcm_launch(const GcmKernelParams &params) {
    const SegmentsKernel kernel = pick_kernel(params.rounds);
    if (!kernel) return cudaErrorInvalidValue;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kGcmSharedBytes));
}

cudaError_t launch_gcm(const GcmKernelParams &params, void *data, const GcmJobShape &job, const void *weights,
                       void *partials, std::uint32_t *first_failure, cudaStream_t stream) {
    const SegmentsKernel kernel = pick_kernel(params.rounds);
    if (!kernel) return cudaErrorInvalidValue;
    if (job.segments == 0) return cudaSuccess;
    const auto parts = static_cast<unsigned>(gcm_parts_per_segment(params.segment_bytes));
    kernel<<<dim3(parts, job.segments), kGcmThreadsPerBlock, kGcmSharedBytes, stream>>>(
        params, static_cast<std::uint8_t *>(data), job, static_cast<const gcm::Block128 *>(weights),
        static_cast<gcm::Block128 *>(partials));
    cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) return status;
    constexpr unsigned kFinishThreads = 128;
    gcm_finish_kernel<<<(job.segments + kFinishThreads - 1) / kFinishThreads, kFinishThreads, 0, stream>>>(
        params, static_cast<std::uint8_t *>(data), job, static_cast<const gcm::Block128 *>(partials), parts,
        first_failure);
    return cudaGetLastError();
}

} // namespace aesgpu
