// SPDX-License-Identifier: Apache-2.0
#pragma once
// A backend that spreads jobs over several backends ("lanes": the CPU, each GPU) working in place
// on one host ring that the dispatcher owns, so nothing is copied and the pipeline sees one ring.
// Because a job says where it sits in the stream, the output does not depend on which lane
// ciphered which job.
//
// Each job goes to the lane expected to finish it first: the bytes a lane has in flight plus the
// job's, at the pace it has shown (engine/lane_pace.hpp), and no lane gets more jobs than its
// jobs_at_once(). A lane not yet measured takes jobs while it has room, so a new GPU fills up at
// once and is measured. An idle lane due another look (LanePace::due_another_look) takes the job
// when the best lane is full or idle: with the reader the limit every lane is idle at each submit,
// and a lane that lost once would otherwise never be measured again. The writer takes jobs in
// order, so a job on a slow lane holds back every later one: handing jobs to whichever lane has
// room let a lane 10x slower take one job in five and slowed the run 4x
// (tests/engine/lane_choice_test.cpp); waiting for the fast lane does not.
//
// A lane is ready from the start (the CPU) or starts on a thread of its own when the ring is
// configured (each GPU: CUDA's start takes about 0.3 s); its share says how long it takes jobs.
#include "cipher/cipher_backend.hpp"
#include "cipher/host_ring.hpp"
#include "engine/lane_choice.hpp"
#include "engine/lane_pace.hpp"

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
    required, // a lane that fails to start fails the run: at the next submit, and at finish
    optional, // the other lanes keep the whole run
};

// When a lane takes jobs.
enum class LaneShare {
    throughout,             // all run long, as fast as it goes
    until_another_is_ready, // only while no other lane is ready (the CPU while the GPUs start)
    fallback,               // only once every other lane has failed to start
};

// One lane as the dispatcher is given it.
struct DispatcherLane {
    std::string name;                          // "CPU", "GPU", "GPU 1": in logs, and in describe() while it starts
    int device = -1;                           // a GPU lane's CUDA device number; -1 for the CPU
    LaneStart start;                           // starts it on a thread of its own, over the ring
    std::unique_ptr<CipherBackend> ready = {}; // or: a backend ready from the start (no `start`)
    LanePolicy policy = LanePolicy::required;
    LaneShare share = LaneShare::throughout;
};

// Where a lane stands now, for the caller to put in words (the engine composes no sentences
// about its lanes; app/backend_log does).
struct LaneNow {
    std::string name;             // as DispatcherLane::name
    int device = -1;              // as DispatcherLane::device
    bool takes_jobs = false;      // the next job may go to it
    bool gives_way = false;       // it takes jobs only until another lane is ready (a CPU start)
    bool to_come = false;         // not ready yet, and will take jobs once it is
    std::string description = {}; // its backend's describe() while it takes jobs
};

struct LaneReport {
    std::string name;
    int device = -1;         // as DispatcherLane::device
    std::uint64_t bytes = 0; // submitted to this lane
    std::uint64_t jobs = 0;
    double busy_seconds = 0; // with some job of it in flight
    bool ready = false;
    double start_seconds = 0; // from the start of its start-up until ready or failed; 0 if ready at once
    std::string failure;      // why it did not start; empty if it did
    std::string description;  // its backend's describe() once ready

    // Its pace while busy, bytes per second; 0 when it did nothing.
    [[nodiscard]] double bytes_per_second() const { return busy_seconds > 0 ? double(bytes) / busy_seconds : 0; }
};

class Dispatcher final : public CipherBackend {
public:
    // Throws std::invalid_argument without a lane that takes jobs throughout, or for a lane with
    // neither or both of `start` and `ready`. `first_job_waits_for_every_start`: no lane takes a
    // job before every start has ended (so it is when no lane is ready from the start).
    explicit Dispatcher(std::vector<DispatcherLane> lanes, bool first_job_waits_for_every_start = false);
    ~Dispatcher() override; // waits for lanes still starting

    // The backends of the lanes that take the next job, joined by " + " (lanes_now() says the
    // rest: which are still to come, and which give way to them).
    [[nodiscard]] std::string describe() const override;
    // Allocates the ring, hands it to the lanes ready from the start, then starts every other lane
    // over it, each on its own thread.
    void configure_slots(std::size_t slot_count, std::size_t slot_bytes) override;
    // A dispatcher's ring is its own.
    void adopt_slots(std::span<const std::span<std::byte>> buffers) override;
    [[nodiscard]] std::span<std::byte> slot_buffer(std::size_t slot) override;
    // Waits while the best lane is full, or while no lane can take the job yet (starting); with no
    // lane ready from the start, until every start has ended, so that a required lane that fails
    // fails the run before its first job. Throws the failure of a required lane, or of every lane.
    void submit(const CipherJob &job) override;
    void wait(std::size_t slot) override;
    // Waits for every lane's start-up to end; rethrows the failure of a required lane.
    void finish() override;
    void cancel() override;

    // Blocks until every lane's start-up has ended (ready or failed).
    void await_lanes();
    [[nodiscard]] std::vector<LaneReport> report() const;
    // Every lane as it stands now, in the order given.
    [[nodiscard]] std::vector<LaneNow> lanes_now() const;

private:
    using Clock = std::chrono::steady_clock;
    struct LaneState {
        DispatcherLane lane;
        std::unique_ptr<CipherBackend> backend; // set once ready (at once for a ready lane)
        std::string description;                // backend->describe(), taken once it is set
        std::exception_ptr error;
        bool starting = false;
        bool reports_job_ends = false;
        std::size_t room = 1; // jobs_at_once() of its backend
        double start_seconds = 0;
        std::uint64_t bytes = 0;
        std::uint64_t jobs = 0;
        LanePace pace;
    };
    struct SlotJob {
        std::size_t lane;
        std::uint64_t bytes = 0;
        bool in_flight = false;
    };

    void start_lane(std::size_t index) noexcept;
    void end_start(std::size_t index, std::unique_ptr<CipherBackend> backend, std::exception_ptr error);
    // With mutex_ held: hands the lane's backend a listener for its job ends.
    void listen_to(std::size_t index);
    void job_ended(std::size_t slot); // a listener's news, or wait()'s
    // With mutex_ held. May lane `index` take a job now? / Which lane takes it (kNoLane: wait).
    [[nodiscard]] bool takes_jobs(std::size_t index) const;
    // A lane that will start, or is starting: it has a start and neither a backend nor an error yet.
    [[nodiscard]] static bool still_to_come(const LaneState &state) {
        return !state.backend && !state.error && state.lane.start;
    }
    [[nodiscard]] std::size_t lane_for(const CipherJob &job) const;
    [[nodiscard]] bool any_starting() const;
    void rethrow_required_failure() const;
    void join_starters() noexcept;

    static constexpr std::size_t kNoLane = static_cast<std::size_t>(-1);

    HostRing ring_; // before lanes_: the backends working over it go first
    mutable std::mutex mutex_;
    std::condition_variable changed_; // a start ended, a job ended, or cancel()
    std::vector<LaneState> lanes_;
    std::vector<SlotJob> slot_jobs_;           // which lane each slot's job went to
    mutable std::vector<LaneView> lane_views_; // lane_for()'s, one per lane: no allocation per job
    bool waits_for_every_start_ = false;       // before the first job
    bool submitted_ = false;                   // a job went out since configure_slots()
    bool cancelled_ = false;
    Clock::time_point start_began_{};
    std::vector<std::thread> starters_;
};

} // namespace aesgpu
