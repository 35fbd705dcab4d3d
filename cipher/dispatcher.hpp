// SPDX-License-Identifier: Apache-2.0
#pragma once
// A backend that spreads jobs over several backends ("lanes") working in place on one host ring
// that the dispatcher owns, so nothing is copied and the pipeline sees one ring. The first lane is
// ready from the start and takes the first jobs; every later lane starts on its own thread (the
// GPU's CUDA start-up takes about 0.3 s) and, once ready, takes every job submitted after that:
// each job goes to the ready lane listed last. Because a job says where it sits in the stream, the output does not
// depend on which lane ciphered which job.
#include "cipher/cipher_backend.hpp"
#include "cipher/host_ring.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace aesgpu {

// Starts a lane's backend over the ring's host buffers (one per slot, alive until the backend is
// gone), on a thread of its own.
using LaneStart = std::function<std::unique_ptr<CipherBackend>(std::span<const std::span<std::byte>> ring)>;

enum class LanePolicy {
    required, // a lane that fails to start fails the run: at the next submit unless a lane listed
              // after it is ready, and at finish in any case
    optional, // the other lanes keep the whole run
};

struct Lane {
    std::string name; // "CPU", "GPU": stands in describe() for a lane still starting
    LaneStart start;
    LanePolicy policy = LanePolicy::required;
};

struct LaneReport {
    std::string name;
    std::uint64_t bytes = 0; // submitted to this lane
    bool ready = false;
    double start_seconds = 0; // from the start of its start-up until ready or failed
    std::string failure;      // why it did not start; empty if it did
    std::string description;  // its backend's describe() once ready
};

class Dispatcher final : public CipherBackend {
public:
    // `first` (named `first_name`) takes jobs until a later lane is ready.
    Dispatcher(std::string first_name, std::unique_ptr<CipherBackend> first, std::vector<Lane> later);
    ~Dispatcher() override; // waits for lanes still starting

    // The lane that takes the next job, and the lane it waits for, if any ("... until the GPU is ready").
    [[nodiscard]] std::string describe() const override;
    // Allocates the ring, hands it to the first lane, then starts every later lane over it, each on
    // its own thread.
    void configure_slots(std::size_t slot_count, std::size_t slot_bytes) override;
    // A dispatcher's ring is its own.
    void adopt_slots(std::span<const std::span<std::byte>> buffers) override;
    [[nodiscard]] std::span<std::byte> slot_buffer(std::size_t slot) override;
    void submit(const CipherJob &job) override;
    void wait(std::size_t slot) override;
    // Waits for every lane's start-up to end; rethrows the failure of a required lane.
    void finish() override;

    // Blocks until every lane's start-up has ended (ready or failed).
    void await_lanes();
    [[nodiscard]] std::vector<LaneReport> report() const;

private:
    struct LaneState {
        Lane lane;
        std::unique_ptr<CipherBackend> backend; // set once ready (the first lane's: from the start)
        std::exception_ptr error;
        bool starting = false;
        double start_seconds = 0;
        std::uint64_t bytes = 0;
    };

    void start_lane(std::size_t index) noexcept;
    void end_start(std::size_t index, std::unique_ptr<CipherBackend> backend, std::exception_ptr error);
    [[nodiscard]] std::size_t lane_for_next_job() const; // with mutex_ held; rethrows a required failure
    void join_starters() noexcept;

    HostRing ring_; // before lanes_: the backends working over it go first
    mutable std::mutex mutex_;
    std::condition_variable start_ended_;
    std::vector<LaneState> lanes_;
    std::vector<std::size_t> slot_lane_; // which lane each slot's job went to
    std::chrono::steady_clock::time_point start_began_{};
    std::vector<std::thread> starters_;
};

} // namespace aesgpu
