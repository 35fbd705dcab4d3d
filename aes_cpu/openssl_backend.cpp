#include "aes_cpu/openssl_backend.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace aesgpu {

namespace {
// Pieces smaller than this cost more in hand-offs than they gain in parallelism.
constexpr std::size_t kMinPieceBytes = std::size_t{256} << 10;
} // namespace

unsigned default_cpu_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

OpenSslBackend::OpenSslBackend(std::span<const std::uint8_t> key, Direction direction, unsigned threads) {
    const unsigned count = threads == 0 ? default_cpu_threads() : threads;
    ciphers_.reserve(count);
    for (unsigned i = 0; i < count; ++i) ciphers_.emplace_back(key, direction);
    workers_.reserve(count);
    for (auto &cipher : ciphers_) workers_.emplace_back([this, &cipher] { work(cipher); });
}

OpenSslBackend::~OpenSslBackend() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    work_ready_.notify_all();
    for (auto &worker : workers_) worker.join();
}

std::string OpenSslBackend::describe() const {
    return std::string("cpu (") + OpenSSL_version(OPENSSL_VERSION) + ", " + std::to_string(workers_.size()) +
           (workers_.size() == 1 ? " thread)" : " threads)");
}

void OpenSslBackend::configure_slots(std::size_t slot_count, std::size_t slot_bytes) {
    std::lock_guard lock(mutex_);
    for (const auto &slot : slots_) {
        if (slot.pieces_left != 0) throw std::logic_error("configure_slots while jobs are in flight");
    }
    slots_.clear();
    slots_.reserve(slot_count);
    for (std::size_t i = 0; i < slot_count; ++i) slots_.push_back(Slot{AlignedBuffer(slot_bytes), 0, nullptr});
}

OpenSslBackend::Slot &OpenSslBackend::checked_slot(std::size_t slot) {
    if (slot >= slots_.size()) throw std::out_of_range("no such ring slot");
    return slots_[slot];
}

std::span<std::byte> OpenSslBackend::slot_buffer(std::size_t slot) { return checked_slot(slot).buffer.span(); }

void OpenSslBackend::submit(std::size_t slot, std::size_t bytes) {
    if (bytes % kAesBlockBytes != 0) throw std::invalid_argument("submit needs whole 16-byte blocks");
    {
        std::lock_guard lock(mutex_);
        Slot &target = checked_slot(slot);
        if (bytes > target.buffer.size()) throw std::invalid_argument("submit beyond the slot's buffer");
        if (target.pieces_left != 0) throw std::logic_error("slot submitted twice");
        target.error = nullptr;
        const std::size_t share = (bytes / workers_.size() + kAesBlockBytes - 1) / kAesBlockBytes * kAesBlockBytes;
        const std::size_t piece = std::max(kMinPieceBytes, share);
        for (std::size_t offset = 0; offset < bytes; offset += piece) {
            queue_.push_back({slot, offset, std::min(piece, bytes - offset)});
            ++target.pieces_left;
        }
    }
    work_ready_.notify_all();
}

void OpenSslBackend::wait(std::size_t slot) {
    std::unique_lock lock(mutex_);
    Slot &target = checked_slot(slot);
    piece_done_.wait(lock, [&] { return target.pieces_left == 0; });
    if (target.error) std::rethrow_exception(std::exchange(target.error, nullptr));
}

void OpenSslBackend::work(EvpEcbCipher &cipher) {
    std::unique_lock lock(mutex_);
    for (;;) {
        work_ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return; // stopping, and nothing left to finish
        const Piece piece = queue_.front();
        queue_.pop_front();
        const auto data = slots_[piece.slot].buffer.span().subspan(piece.offset, piece.bytes);
        lock.unlock();
        std::exception_ptr error;
        try {
            cipher.transform(data, data);
        } catch (...) {
            error = std::current_exception();
        }
        lock.lock();
        Slot &slot = slots_[piece.slot];
        if (error && !slot.error) slot.error = error;
        if (--slot.pieces_left == 0) piece_done_.notify_all();
    }
}

} // namespace aesgpu
