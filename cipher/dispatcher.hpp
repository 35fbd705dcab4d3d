#pragma once
// A backend that starts work at once on a first backend (the CPU) while a successor (the GPU,
// whose CUDA start-up takes about 0.3 s) starts on its own thread, then sends every job submitted
// after the successor is ready to the successor. Both work in place on the first backend's host
// buffers, so nothing is copied and the pipeline sees one ring. ECB blocks are independent, so
// the output does not depend on which backend ciphered which chunk.
#include "cipher/cipher_backend.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace aesgpu {

// Starts the successor over the given host buffers (one per ring slot, owned by the first
// backend and alive until the successor is gone). Runs on the handover's own thread.
using SuccessorStart = std::function<std::unique_ptr<CipherBackend>(std::vector<std::span<std::byte>> host_buffers)>;

enum class SuccessorPolicy {
    required, // a successor that fails to start fails the run (at the next submit, or at finish)
    optional, // the first backend keeps the whole run
};

struct HandoverReport {
    std::uint64_t first_bytes = 0;     // submitted to the first backend
    std::uint64_t successor_bytes = 0; // submitted to the successor
    bool successor_ready = false;
    double successor_start_seconds = 0; // from the start of its start-up until ready or failed
    std::string successor_failure;      // why it did not start; empty if it did
    std::string successor_description;  // its describe() once ready
};

class HandoverBackend final : public CipherBackend {
public:
    // `successor_name` stands in describe() for the successor until it is ready.
    HandoverBackend(std::unique_ptr<CipherBackend> first, std::string successor_name, SuccessorStart start_successor,
                    SuccessorPolicy policy);
    ~HandoverBackend() override; // waits for a successor still starting

    [[nodiscard]] std::string describe() const override;
    // Sets up the first backend's ring, then starts the successor over its buffers.
    void configure_slots(std::size_t slot_count, std::size_t slot_bytes) override;
    [[nodiscard]] std::size_t slot_count() const override { return first_->slot_count(); }
    [[nodiscard]] std::span<std::byte> slot_buffer(std::size_t slot) override { return first_->slot_buffer(slot); }
    void submit(std::size_t slot, std::size_t bytes) override;
    void wait(std::size_t slot) override;
    // Waits for the successor's start-up to end; with SuccessorPolicy::required, rethrows its failure.
    void finish() override;

    // Blocks until the successor's start-up has ended (ready or failed).
    void await_successor();
    [[nodiscard]] HandoverReport report() const;

private:
    void start_successor_over(std::vector<std::span<std::byte>> buffers);
    CipherBackend &target_for_next_job();
    void join_starter() noexcept;

    std::unique_ptr<CipherBackend> first_;
    std::string successor_name_;
    SuccessorStart start_successor_;
    SuccessorPolicy policy_;

    mutable std::mutex mutex_;
    std::condition_variable start_ended_;
    bool starting_ = false;
    std::unique_ptr<CipherBackend> successor_; // set by the starter thread once ready
    std::exception_ptr successor_error_;
    std::chrono::steady_clock::time_point start_began_{};
    HandoverReport report_;                   // the byte counts and start seconds; report() adds the rest
    std::vector<CipherBackend *> slot_owner_; // which backend each slot's job went to
    std::thread starter_;
};

} // namespace aesgpu
