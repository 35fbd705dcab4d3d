// SPDX-License-Identifier: Apache-2.0
#include "aes_cpu/openssl_backend.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace aesgpu {

namespace {

unsigned thread_count(unsigned asked) {
    return asked == 0 ? default_cpu_threads() : asked;
}

std::vector<EvpAesCipher> make_ciphers(std::span<const std::uint8_t> key, const CipherSpec &spec, unsigned count) {
    std::vector<EvpAesCipher> ciphers;
    ciphers.reserve(count);
    for (unsigned i = 0; i < count; ++i) ciphers.emplace_back(key, spec);
    return ciphers;
}

// A piece of a job: its bytes, and the stream index of its first block.
struct Piece {
    std::span<std::byte> data;
    std::uint64_t first_block = 0;
};

std::exception_ptr run_piece(EvpAesCipher &cipher, const Piece &piece) noexcept {
    try {
        cipher.transform(piece.data, piece.data, piece.first_block);
        return nullptr;
    } catch (...) {
        return std::current_exception();
    }
}

} // namespace

unsigned default_cpu_threads() {
    return std::max(1u, std::thread::hardware_concurrency());
}

OpenSslBackend::OpenSslBackend(std::span<const std::uint8_t> key, const CipherSpec &spec, unsigned threads)
    : ciphers_(make_ciphers(key, spec, thread_count(threads))), pool_(thread_count(threads), "the CPU cipher") {}

OpenSslBackend::~OpenSslBackend() {
    wait_for_all();
}

void OpenSslBackend::wait_for_all() noexcept {
    std::unique_lock lock(mutex_);
    piece_done_.wait(lock, [&] {
        return std::all_of(slots_.begin(), slots_.end(), [](const Slot &slot) { return slot.pieces_left == 0; });
    });
}

std::string OpenSslBackend::describe() const {
    return std::string("cpu (") + OpenSSL_version(OPENSSL_VERSION) + ", " + std::to_string(threads()) +
           (threads() == 1 ? " thread)" : " threads)");
}

void OpenSslBackend::configure_slots(std::size_t slot_count, std::size_t slot_bytes) {
    adopt_slots({}); // checks that no job is in flight, and lets the old ring go first
    own_ring_ = {};
    own_ring_ = HostRing(slot_count, slot_bytes);
    adopt_slots(own_ring_.buffers());
}

void OpenSslBackend::adopt_slots(std::span<const std::span<std::byte>> buffers) {
    std::lock_guard lock(mutex_);
    for (const auto &slot : slots_) {
        if (slot.pieces_left != 0) throw std::logic_error("configure_slots while jobs are in flight");
    }
    slots_.clear();
    for (const auto &buffer : buffers) slots_.push_back(Slot{buffer, 0, nullptr});
}

std::span<std::byte> OpenSslBackend::slot_buffer(std::size_t slot) {
    return ring_slot(slots_, slot).buffer;
}

void OpenSslBackend::submit(const CipherJob &job) {
    Piece first_piece;
    std::vector<Piece> other_pieces;
    {
        std::lock_guard lock(mutex_);
        Slot &target = ring_slot(slots_, job.slot);
        check_job_size(job.bytes, target.buffer.size());
        if (target.pieces_left != 0) throw std::logic_error("slot submitted twice");
        target.error = nullptr;
        const std::size_t piece = piece_length(job.bytes, threads(), kCipherPieces);
        const auto piece_at = [&](std::size_t offset) {
            return Piece{target.buffer.subspan(offset, std::min(piece, job.bytes - offset)),
                         job.first_block + offset / kAesBlockBytes};
        };
        first_piece = piece_at(0);
        for (std::size_t offset = piece; offset < job.bytes; offset += piece) other_pieces.push_back(piece_at(offset));
        target.pieces_left = 1 + other_pieces.size();
    }
    // Posted without the lock: a pool with no workers runs a task at once, here. A piece that
    // cannot be posted (no memory for the queue) will never finish: it is taken off the count,
    // and the job fails at wait() instead of hanging it.
    std::exception_ptr not_posted;
    for (std::size_t i = 0; i < other_pieces.size(); ++i) {
        try {
            pool_.post([this, slot = job.slot, piece = other_pieces[i]](unsigned worker) {
                finish_piece(slot, run_piece(ciphers_[worker], piece));
            });
        } catch (...) {
            not_posted = std::current_exception();
            std::lock_guard lock(mutex_);
            slots_[job.slot].pieces_left -= other_pieces.size() - i;
            break;
        }
    }
    // The first piece runs here: no hand-off at all for jobs of one piece.
    finish_piece(job.slot, not_posted ? not_posted : run_piece(ciphers_[0], first_piece));
}

void OpenSslBackend::wait(std::size_t slot) {
    std::unique_lock lock(mutex_);
    Slot &target = ring_slot(slots_, slot);
    piece_done_.wait(lock, [&] { return target.pieces_left == 0; });
    if (target.error) std::rethrow_exception(std::exchange(target.error, nullptr));
}

void OpenSslBackend::finish_piece(std::size_t slot, std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    Slot &target = slots_[slot];
    if (error && !target.error) target.error = error;
    if (--target.pieces_left == 0) piece_done_.notify_all();
}

} // namespace aesgpu
