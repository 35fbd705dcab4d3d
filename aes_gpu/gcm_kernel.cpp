// SPDX-License-Identifier: Apache-2.0
#include "aes_gpu/gcm_kernel.hpp"

#include "aes_gpu/aes_tables.hpp"
#include "aes_gpu/cuda_check.hpp"
#include "aes_gpu/gpu_backend.hpp"
#include "aes_gpu/kernels/aes_block.cuh"
#include "aes_gpu/kernels/gcm_block.cuh"

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

GcmKernel::GcmKernel(std::span<const std::uint8_t> key, const CipherSpec &spec, int widest_table_bits) {
    if (spec.mode != Mode::gcm) throw std::invalid_argument("GcmKernel needs a GCM spec");
    if (widest_table_bits != 4 && widest_table_bits != 8) throw std::invalid_argument("GHASH tables are 4 or 8 bits");
    AESGPU_CUDA_TRY(cudaGetDevice(&device_));
    const RoundKeys keys = expand_encryption_key(key);
    params_->rounds = keys->rounds;
    std::copy(std::begin(keys->words), std::end(keys->words), params_->round_keys);
    std::copy(tables::kTe0.begin(), tables::kTe0.end(), params_->te0);
    std::copy(tables::kTe2.begin(), tables::kTe2.end(), params_->te2);
    params_->decrypt = spec.direction == Direction::decrypt;
    params_->segment_bytes = spec.gcm.geometry.segment_bytes;
    params_->header_bytes = spec.gcm.geometry.header_bytes;
    std::copy(spec.gcm.nonce_prefix.begin(), spec.gcm.nonce_prefix.end(), params_->nonce_prefix);

    // H = E_K(0), its table (from the host, where it is 16 or 256 XORs and shifts), and the weight
    // of every run of a segment (on the device).
    try {
        AESGPU_CUDA_TRY(gcm_table_bits(&params_->table_bits));
        params_->table_bits = std::min(params_->table_bits, widest_table_bits);
        AESGPU_CUDA_TRY(prepare_gcm_launch(&*params_));
    } catch (const CudaError &e) {
        throw GpuUnavailable(std::string("cannot run the GCM kernels: ") + cudaGetErrorString(e.code()));
    }
    Secret<gcm::Block128> h;
    *h = gcm::from_state(encrypt_on_host(keys, block::State{0, 0, 0, 0}));
    hash_data_ = DeviceBuffer(gcm_hash_values(params_->table_bits, params_->segment_bytes) * sizeof(gcm::Block128));
    try {
        if (params_->table_bits == 8) {
            upload_table<8>(*h);
        } else {
            upload_table<4>(*h);
        }
        AESGPU_CUDA_TRY(compute_gcm_weights(*params_, hash_data_.get(), h->hi, h->lo, nullptr));
        // The backend's streams do not wait for the default stream.
        AESGPU_CUDA_TRY(cudaStreamSynchronize(nullptr));
    } catch (...) {
        clear_hash_data();
        throw;
    }
}

template <int Bits>
void GcmKernel::upload_table(const gcm::Block128 &h) {
    Secret<gcm::HashTable<Bits>> table;
    *table = gcm::make_hash_table<Bits>(h);
    AESGPU_CUDA_TRY(cudaMemcpy(hash_data_.get(), table->entry, sizeof(table->entry), cudaMemcpyHostToDevice));
}

void GcmKernel::clear_hash_data() noexcept {
    // H's multiples and powers are key material.
    if (hash_data_.get()) cuda_check_noexcept(cudaMemset(hash_data_.get(), 0, hash_data_.size()), "cudaMemset");
}

GcmKernel::~GcmKernel() {
    // A backend may go from a thread where another GPU is current, and there cudaMemset of this
    // device's memory fails (cudaErrorInvalidValue): H's multiples would stay on the device.
    try {
        const DeviceScope scope(device_);
        clear_hash_data();
        hash_data_ = DeviceBuffer();
    } catch (const std::exception &) {
        clear_hash_data(); // the device could not be made current: try where we are
    }
}

std::size_t GcmKernel::sum_bytes(std::size_t segments) const {
    return gcm_sum_bytes(segments);
}

void GcmKernel::launch(void *device_data, const CipherJob &job, void *sums, std::uint32_t *first_failure,
                       cudaStream_t stream) const {
    const GcmJobShape shape{job.first_segment, job.bytes, job.segments, job.holds_last_segment};
    AESGPU_CUDA_TRY(launch_gcm(*params_, device_data, shape, hash_data_.get(), sums, first_failure, stream));
}

} // namespace aesgpu
