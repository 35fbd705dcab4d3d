#include "aes_cpu/openssl_backend.hpp"

#include "common/errors.hpp"
#include "common/threads.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace aesgpu {

namespace {
// Pieces smaller than this cost more in hand-offs and wake-ups than they gain in parallelism; a
// 1 MiB stream chunk stays whole and runs on the submitting thread alone.
constexpr std::size_t kMinPieceBytes = std::size_t{1} << 20;
} // namespace

unsigned default_cpu_threads() {
    return std::max(1u, std::thread::hardware_concurrency());
}

OpenSslBackend::OpenSslBackend(std::span<const std::uint8_t> key, Direction direction, unsigned threads) {
    const unsigned count = threads == 0 ? default_cpu_threads() : threads;
    ciphers_.reserve(count);
    for (unsigned i = 0; i < count; ++i) ciphers_.emplace_back(key, direction);
    // The submitting thread works too (on ciphers_[0]), so `count` threads need count - 1 workers.
    workers_.reserve(count - 1);
    try {
        for (unsigned i = 1; i < count; ++i) {
            workers_.push_back(start_thread("the CPU cipher", [this, i] { work(ciphers_[i]); }));
        }
    } catch (...) {
        stop_workers(); // threads already started must be joined before the exception leaves
        throw;
    }
}

OpenSslBackend::~OpenSslBackend() {
    stop_workers();
}

void OpenSslBackend::stop_workers() noexcept {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    work_ready_.notify_all();
    for (auto &worker : workers_) worker.join();
    workers_.clear();
}

std::string OpenSslBackend::describe() const {
    return std::string("cpu (") + OpenSSL_version(OPENSSL_VERSION) + ", " + std::to_string(threads()) +
           (threads() == 1 ? " thread)" : " threads)");
}

void OpenSslBackend::configure_slots(std::size_t slot_count, std::size_t slot_bytes) {
    std::lock_guard lock(mutex_);
    for (const auto &slot : slots_) {
        if (slot.pieces_left != 0) throw std::logic_error("configure_slots while jobs are in flight");
    }
    slots_.clear();
    try {
        slots_.reserve(slot_count);
        for (std::size_t i = 0; i < slot_count; ++i) slots_.push_back(Slot{AlignedBuffer(slot_bytes), 0, nullptr});
    } catch (const std::bad_alloc &) {
        slots_.clear();
        // As the GPU ring reports it, so that the pipeline retries with smaller chunks.
        throw ResourceExhausted("not enough memory for " + std::to_string(slot_count) + " buffers of " +
                                std::to_string(slot_bytes >> 10) + " KiB");
    }
}

std::span<std::byte> OpenSslBackend::slot_buffer(std::size_t slot) {
    return ring_slot(slots_, slot).buffer.span();
}

void OpenSslBackend::submit(std::size_t slot, std::size_t bytes) {
    std::span<std::byte> first_piece;
    bool shared = false;
    {
        std::lock_guard lock(mutex_);
        Slot &target = ring_slot(slots_, slot);
        check_job_size(bytes, target.buffer.size());
        if (target.pieces_left != 0) throw std::logic_error("slot submitted twice");
        target.error = nullptr;
        const std::size_t share = (bytes / threads() + kAesBlockBytes - 1) / kAesBlockBytes * kAesBlockBytes;
        const std::size_t piece = std::max(kMinPieceBytes, share);
        first_piece = target.buffer.span().first(std::min(piece, bytes));
        target.pieces_left = 1;
        for (std::size_t offset = first_piece.size(); offset < bytes; offset += piece) {
            queue_.push_back({slot, offset, std::min(piece, bytes - offset)});
            ++target.pieces_left;
        }
        shared = target.pieces_left > 1;
    }
    if (shared) work_ready_.notify_all();
    // The first piece runs here: no hand-off at all for jobs of one piece.
    finish_piece(slot, run_piece(ciphers_[0], first_piece));
}

void OpenSslBackend::wait(std::size_t slot) {
    std::unique_lock lock(mutex_);
    Slot &target = ring_slot(slots_, slot);
    piece_done_.wait(lock, [&] { return target.pieces_left == 0; });
    if (target.error) std::rethrow_exception(std::exchange(target.error, nullptr));
}

std::exception_ptr OpenSslBackend::run_piece(EvpEcbCipher &cipher, std::span<std::byte> data) noexcept {
    try {
        cipher.transform(data, data);
        return nullptr;
    } catch (...) {
        return std::current_exception();
    }
}

void OpenSslBackend::finish_piece(std::size_t slot, std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    Slot &target = slots_[slot];
    if (error && !target.error) target.error = error;
    if (--target.pieces_left == 0) piece_done_.notify_all();
}

void OpenSslBackend::work(EvpEcbCipher &cipher) {
    for (;;) {
        Piece piece{};
        std::span<std::byte> data;
        {
            std::unique_lock lock(mutex_);
            work_ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return; // stopping, and nothing left to finish
            piece = queue_.front();
            queue_.pop_front();
            data = slots_[piece.slot].buffer.span().subspan(piece.offset, piece.bytes);
        }
        finish_piece(piece.slot, run_piece(cipher, data));
    }
}

} // namespace aesgpu
