// SPDX-License-Identifier: Apache-2.0
#include "aes_gpu/gcm_kernel.hpp"

#include "aes_gpu/aes_block.cuh"
#include "aes_gpu/aes_tables.hpp"
#include "aes_gpu/cuda_check.hpp"
#include "aes_gpu/gcm_block.cuh"
#include "aes_gpu/gpu_backend.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace aesgpu {

namespace {

// The encryption tables as the host reads them, for H = E_K(0).
struct HostEncryptTables {
    template <int Byte>
    std::uint32_t primary(std::uint32_t w) const {
        return tables::kTe0[(w >> (8 * Byte)) & 0xff];
    }
    template <int Byte>
    std::uint32_t secondary(std::uint32_t w) const {
        return tables::kTe2[(w >> (8 * Byte)) & 0xff];
    }
};

block::State encrypt_on_host(const RoundKeys &keys, block::State s) {
    switch (keys->rounds) {
    case 10: return block::encrypt<10>(s, keys->words, HostEncryptTables{});
    case 12: return block::encrypt<12>(s, keys->words, HostEncryptTables{});
    default: return block::encrypt<14>(s, keys->words, HostEncryptTables{});
    }
}

} // namespace

GcmKernel::GcmKernel(std::span<const std::uint8_t> key, const CipherSpec &spec) {
    if (spec.mode != Mode::gcm) throw std::invalid_argument("GcmKernel needs a GCM spec");
    const RoundKeys keys = expand_encryption_key(key);
    params_->rounds = keys->rounds;
    std::copy(std::begin(keys->words), std::end(keys->words), params_->round_keys);
    std::copy(tables::kTe0.begin(), tables::kTe0.end(), params_->te0);
    std::copy(tables::kTe2.begin(), tables::kTe2.end(), params_->te2);
    params_->decrypt = spec.direction == Direction::decrypt;
    params_->segment_bytes = spec.gcm.geometry.segment_bytes;
    params_->header_bytes = spec.gcm.geometry.header_bytes;
    std::copy(spec.gcm.nonce_prefix.begin(), spec.gcm.nonce_prefix.end(), params_->nonce_prefix);

    // H = E_K(0), its 4-bit table, and the weight of every run of a segment.
    Secret<gcm::HashTable> table;
    const gcm::Block128 h = gcm::from_state(encrypt_on_host(keys, block::State{0, 0, 0, 0}));
    *table = gcm::make_hash_table(h);
    for (int n = 0; n < 16; ++n) {
        params_->hash_table_hi[n] = table->entry[n].hi;
        params_->hash_table_lo[n] = table->entry[n].lo;
    }
    const std::size_t runs = gcm_runs_per_segment(spec.gcm.geometry.segment_bytes);
    gcm::Block128 step = h; // H^kGcmRunBlocks
    for (unsigned i = 1; i < kGcmRunBlocks; ++i) step = gcm::multiply(step, h);
    std::vector<gcm::Block128> weights(runs);
    gcm::Block128 weight = h; // H^(j * kGcmRunBlocks + 1)
    for (std::size_t j = 0; j < runs; ++j) {
        weights[j] = weight;
        weight = gcm::multiply(weight, step);
    }
    try {
        AESGPU_CUDA_TRY(prepare_gcm_launch(*params_));
    } catch (const CudaError &e) {
        throw GpuUnavailable(std::string("cannot run the GCM kernels: ") + cudaGetErrorString(e.code()));
    }
    weights_ = DeviceBuffer(runs * sizeof(gcm::Block128));
    AESGPU_CUDA_TRY(cudaMemcpy(weights_.get(), weights.data(), weights_.size(), cudaMemcpyHostToDevice));
    wipe_secret(weights.data(), weights.size() * sizeof(gcm::Block128));
}

GcmKernel::~GcmKernel() {
    // The weights are powers of H, which is key material.
    if (weights_.get()) cuda_check_noexcept(cudaMemset(weights_.get(), 0, weights_.size()), "cudaMemset");
}

std::size_t GcmKernel::partial_bytes(std::size_t segments) const {
    return std::max<std::size_t>(segments, 1) * gcm_parts_per_segment(params_->segment_bytes) * sizeof(gcm::Block128);
}

void GcmKernel::launch(void *device_data, const CipherJob &job, void *partials, std::uint32_t *first_failure,
                       cudaStream_t stream) const {
    const GcmJobShape shape{job.first_segment, job.bytes, job.segments, job.holds_last_segment};
    AESGPU_CUDA_TRY(launch_gcm(*params_, device_data, shape, weights_.get(), partials, first_failure, stream));
}

} // namespace aesgpu
