#pragma once
// The CPU backend: OpenSSL EVP AES-ECB over a pool of worker threads, one EVP context each.
// A submitted slot is cut into pieces so that all threads share even a single large chunk; the
// submitting thread runs the first piece itself, so a small job never waits for a hand-off and
// `threads` counts it: N threads are the caller plus N - 1 workers.
#include "aes_cpu/aligned_buffer.hpp"
#include "aes_cpu/evp_cipher.hpp"
#include "cipher/cipher_backend.hpp"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace aesgpu {

// All hardware threads (at least 1).
[[nodiscard]] unsigned default_cpu_threads();

class OpenSslBackend final : public CipherBackend {
public:
    // `threads` 0 means default_cpu_threads().
    OpenSslBackend(std::span<const std::uint8_t> key, Direction direction, unsigned threads = 0);
    ~OpenSslBackend() override;

    [[nodiscard]] std::string describe() const override;
    void configure_slots(std::size_t slot_count, std::size_t slot_bytes) override;
    [[nodiscard]] std::size_t slot_count() const override { return slots_.size(); }
    [[nodiscard]] std::span<std::byte> slot_buffer(std::size_t slot) override;
    void submit(std::size_t slot, std::size_t bytes) override;
    void wait(std::size_t slot) override;

    [[nodiscard]] unsigned threads() const { return static_cast<unsigned>(ciphers_.size()); }

private:
    struct Slot {
        AlignedBuffer buffer;
        std::size_t pieces_left = 0;
        std::exception_ptr error;
    };
    struct Piece {
        std::size_t slot;
        std::size_t offset;
        std::size_t bytes;
    };

    void work(EvpEcbCipher &cipher);
    void stop_workers() noexcept;
    static std::exception_ptr run_piece(EvpEcbCipher &cipher, std::span<std::byte> data) noexcept;
    void finish_piece(std::size_t slot, std::exception_ptr error);

    std::mutex mutex_;
    std::condition_variable work_ready_;
    std::condition_variable piece_done_;
    std::deque<Piece> queue_;
    std::vector<Slot> slots_;
    bool stopping_ = false;
    std::vector<EvpEcbCipher> ciphers_; // [0] for the submitting thread, one per worker after it
    std::vector<std::thread> workers_;
};

} // namespace aesgpu
