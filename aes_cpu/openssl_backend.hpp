// SPDX-License-Identifier: Apache-2.0
#pragma once
// The CPU backend: OpenSSL EVP AES-ECB, AES-CTR or AES-GCM segments over the worker pool, one EVP
// context per thread. A submitted slot is cut into pieces (whole segments for GCM) so that all
// threads share even a single large chunk. Alone, the submitting thread runs the first piece
// itself, so a small job never waits for a hand-off and `threads` counts it: N threads are the
// caller plus N - 1 pool workers. Beside GPUs it posts every piece to N workers and returns at
// once, so the thread that feeds the GPUs never stops to cipher.
#include "aes_cpu/evp_cipher.hpp"
#include "aes_cpu/evp_gcm.hpp"
#include "cipher/cipher_backend.hpp"
#include "cipher/host_ring.hpp"
#include "common/worker_pool.hpp"

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <span>
#include <vector>

namespace aesgpu {

// All hardware threads (at least 1).
[[nodiscard]] unsigned default_cpu_threads();

// Where a job's pieces run.
enum class CpuSubmit {
    caller_runs_first_piece, // the submitting thread runs one: no hand-off for a small job
    post_every_piece,        // every piece goes to a worker, and submit() returns at once
};

// Pieces of a job below 1 MiB cost more in hand-offs and wake-ups than they gain in parallelism:
// a 1 MiB stream chunk stays whole and runs on the submitting thread alone.
inline constexpr PieceShape kCipherPieces{std::size_t{1} << 20, kAesBlockBytes};

// Jobs of `slot_bytes` that keep `threads` threads busy, and one more queued behind them.
[[nodiscard]] std::size_t cpu_jobs_at_once(unsigned threads, std::size_t slot_bytes);

class OpenSslBackend final : public CipherBackend {
public:
    // `threads` 0 means default_cpu_threads().
    OpenSslBackend(std::span<const std::uint8_t> key, const CipherSpec &spec, unsigned threads = 0,
                   CpuSubmit submit = CpuSubmit::caller_runs_first_piece);
    ~OpenSslBackend() override;

    [[nodiscard]] std::string describe() const override;
    void configure_slots(std::size_t slot_count, std::size_t slot_bytes) override;
    // Works over buffers the caller owns (a dispatcher's ring), alive while this backend uses them.
    void adopt_slots(std::span<const std::span<std::byte>> buffers) override;
    [[nodiscard]] std::span<std::byte> slot_buffer(std::size_t slot) override;
    void submit(const CipherJob &job) override;
    void wait(std::size_t slot) override;
    // Enough jobs of a whole slot to keep every thread busy, and one more queued behind them.
    [[nodiscard]] std::size_t jobs_at_once() const override;
    bool set_job_end_listener(JobEndListener listener) override;

    // Threads that cipher (the pool's workers, and the caller unless every piece is posted).
    [[nodiscard]] unsigned threads() const { return pool_.threads() - (posts_every_piece_ ? 1 : 0); }
    // CpuSubmit::post_every_piece: submit() hands every piece to a worker and returns at once.
    [[nodiscard]] bool posts_every_piece() const { return posts_every_piece_; }

private:
    struct Slot {
        std::span<std::byte> buffer;
        std::size_t pieces_left = 0;
        std::exception_ptr error; // the first failing piece's, in the job's order
        std::size_t error_piece = 0;
    };

    // GCM: one of a job's segments, and where it lies in the slot.
    struct PlacedSegment {
        SegmentSpan span;
        SegmentPlace place;
    };
    // A part of a job one thread runs: its bytes (ECB, CTR) or its segments (GCM).
    struct Piece {
        std::span<std::byte> data;   // ECB, CTR: the input; GCM: the whole slot
        std::span<std::byte> output; // ECB, CTR: where the result goes (data itself when in place)
        std::uint64_t first_block = 0;
        std::vector<PlacedSegment> segments;
        CounterBlock chain{}; // CBC decrypting: the ciphertext block before `data`, copied as the job was cut
    };
    [[nodiscard]] std::vector<Piece> cut_into_pieces(const CipherJob &job, std::span<std::byte> buffer) const;
    [[nodiscard]] std::exception_ptr run_piece(unsigned thread, const Piece &piece) noexcept;
    void finish_piece(std::size_t slot, std::size_t piece, std::exception_ptr error);
    void wait_for_all() noexcept;

    std::mutex mutex_;
    std::condition_variable piece_done_;
    HostRing own_ring_; // the buffers unless adopted
    std::vector<Slot> slots_;
    std::size_t slot_bytes_ = 0; // the largest slot
    JobEndListener job_end_listener_;
    CipherSpec spec_;
    bool posts_every_piece_;
    // CBC encrypting: each job goes on from the one before, whole, on the submitting thread, in
    // the order submitted, through cipher 0's context (which carries the chain).
    bool serial_;
    // [0] for the submitting thread (unused when every piece is posted), [i] for pool worker i:
    // ECB and CTR use ciphers_, GCM gcm_.
    std::vector<EvpAesCipher> ciphers_;
    std::vector<EvpGcmSegmentCipher> gcm_;
    WorkerPool pool_; // last: its workers stop before what they use goes
};

} // namespace aesgpu
