// SPDX-License-Identifier: Apache-2.0
#include "engine/dispatcher.hpp"

#include "common/errors.hpp"
#include "common/threads.hpp"
#include "engine/lane_choice.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace aesgpu {

namespace {

std::string error_text(const std::exception_ptr &error) {
    try {
        std::rethrow_exception(error);
    } catch (const std::exception &e) {
        return e.what();
    } catch (...) {
        return "unknown error";
    }
}

} // namespace

Dispatcher::Dispatcher(std::vector<DispatcherLane> lanes, bool first_job_waits_for_every_start) {
    if (lanes.empty()) throw std::invalid_argument("a dispatcher needs a lane");
    bool takes_jobs_throughout = false;
    for (auto &lane : lanes) {
        if (!lane.start == !lane.ready) {
            throw std::invalid_argument("a lane needs either a start or a backend ready from the start");
        }
        LaneState state;
        state.backend = std::move(lane.ready);
        if (state.backend) state.description = state.backend->describe();
        takes_jobs_throughout = takes_jobs_throughout || lane.share == LaneShare::throughout;
        state.lane = std::move(lane);
        lanes_.push_back(std::move(state));
    }
    // Lanes that give way, or stand by, to others need another that takes jobs all run long.
    if (!takes_jobs_throughout) throw std::invalid_argument("a dispatcher needs a lane that takes jobs throughout");
    lane_views_.resize(lanes_.size());
    waits_for_every_start_ =
        first_job_waits_for_every_start ||
        std::none_of(lanes_.begin(), lanes_.end(), [](const LaneState &s) { return s.backend != nullptr; });
}

Dispatcher::~Dispatcher() {
    join_starters();
    // The backends first, while the rest is whole: they wait for their jobs in flight, whose ends
    // they report here (job_ended) as they go.
    for (LaneState &state : lanes_) state.backend.reset();
}

void Dispatcher::join_starters() noexcept {
    for (auto &starter : starters_) starter.join();
    starters_.clear();
}

bool Dispatcher::any_starting() const {
    return std::any_of(lanes_.begin(), lanes_.end(), [](const LaneState &state) { return state.starting; });
}

bool Dispatcher::takes_jobs(std::size_t index) const {
    const LaneState &state = lanes_[index];
    if (!state.backend) return false;
    const auto others = [&](auto &&predicate) {
        for (std::size_t i = 0; i < lanes_.size(); ++i) {
            if (i != index && predicate(lanes_[i])) return true;
        }
        return false;
    };
    switch (state.lane.share) {
    case LaneShare::throughout: return true;
    case LaneShare::until_another_is_ready: return !others([](const LaneState &s) { return s.backend != nullptr; });
    case LaneShare::fallback:
        // Lanes not started yet count as coming: --wait-for-gpu logs describe() before they start.
        return !others([](const LaneState &s) { return s.backend != nullptr || still_to_come(s); });
    }
    return false;
}

std::size_t Dispatcher::lane_for(const CipherJob &job) const {
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
        lane_views_[i] = {.pace = &lanes_[i].pace, .room = lanes_[i].room, .takes_jobs = takes_jobs(i)};
    }
    return choose_lane(lane_views_, job.bytes, Clock::now()).value_or(kNoLane);
}

void Dispatcher::rethrow_required_failure() const {
    for (const LaneState &state : lanes_) {
        if (state.error && state.lane.policy == LanePolicy::required) std::rethrow_exception(state.error);
    }
}

std::string Dispatcher::describe() const {
    std::string text;
    for (const LaneNow &lane : lanes_now()) {
        if (!lane.takes_jobs) continue;
        if (!text.empty()) text += " + ";
        text += lane.description;
    }
    return text;
}

std::vector<LaneNow> Dispatcher::lanes_now() const {
    std::lock_guard lock(mutex_);
    std::vector<LaneNow> lanes;
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
        const LaneState &state = lanes_[i];
        const bool takes = takes_jobs(i);
        lanes.push_back({.name = state.lane.name,
                         .device = state.lane.device,
                         .takes_jobs = takes,
                         .gives_way = state.lane.share == LaneShare::until_another_is_ready,
                         .to_come = still_to_come(state),
                         .description = takes ? state.description : std::string()});
    }
    return lanes;
}

void Dispatcher::configure_slots(std::size_t slot_count, std::size_t slot_bytes) {
    // Lanes starting over the old buffers must be done with them before they go; the started
    // backends go outside the lock, since a GPU's report of a job end (a host function) takes it.
    join_starters();
    for (LaneState &state : lanes_) {
        if (state.lane.start) state.backend.reset();
    }
    {
        std::lock_guard lock(mutex_);
        for (LaneState &state : lanes_) {
            state.error = nullptr;
            state.start_seconds = 0;
            state.bytes = 0;
            state.jobs = 0;
            state.pace = {};
        }
        slot_jobs_.assign(slot_count, SlotJob{kNoLane});
        submitted_ = false;
        cancelled_ = false;
    }
    for (LaneState &state : lanes_) {
        if (state.backend) state.backend->adopt_slots({});
    }
    ring_ = {};
    ring_ = HostRing(slot_count, slot_bytes);
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
        if (!lanes_[i].backend) continue;
        lanes_[i].backend->adopt_slots(ring_.buffers());
        std::lock_guard lock(mutex_);
        listen_to(i);
    }
    start_began_ = Clock::now();

    // Room for every starter first: a thread that started and then found no room in the vector
    // would be destroyed still joinable, which ends the process.
    starters_.reserve(lanes_.size());
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
        if (!lanes_[i].lane.start) continue;
        {
            std::lock_guard lock(mutex_);
            lanes_[i].starting = true;
        }
        try {
            starters_.push_back(start_thread("starting the " + lanes_[i].lane.name, [this, i] { start_lane(i); }));
        } catch (...) {
            std::lock_guard lock(mutex_);
            lanes_[i].starting = false;
            throw;
        }
    }
}

void Dispatcher::adopt_slots(std::span<const std::span<std::byte>>) {
    throw std::logic_error("a dispatcher works over its own ring");
}

void Dispatcher::listen_to(std::size_t index) {
    LaneState &state = lanes_[index];
    state.room = std::max<std::size_t>(1, state.backend->jobs_at_once());
    state.reports_job_ends = state.backend->set_job_end_listener([this](std::size_t slot) { job_ended(slot); });
}

// A starter thread.
void Dispatcher::start_lane(std::size_t index) noexcept {
    std::unique_ptr<CipherBackend> backend;
    std::exception_ptr error;
    try {
        backend = lanes_[index].lane.start(ring_.buffers());
        if (!backend) throw std::logic_error("the " + lanes_[index].lane.name + " backend did not start");
    } catch (...) {
        error = std::current_exception();
    }
    end_start(index, std::move(backend), error);
}

void Dispatcher::end_start(std::size_t index, std::unique_ptr<CipherBackend> backend, std::exception_ptr error) {
    {
        std::lock_guard lock(mutex_);
        LaneState &state = lanes_[index];
        state.start_seconds = std::chrono::duration<double>(Clock::now() - start_began_).count();
        state.backend = std::move(backend);
        if (state.backend) state.description = state.backend->describe();
        state.error = error;
        state.starting = false;
        if (state.backend) listen_to(index);
    }
    changed_.notify_all();
}

std::span<std::byte> Dispatcher::slot_buffer(std::size_t slot) {
    return ring_.buffer(slot);
}

void Dispatcher::submit(const CipherJob &job) {
    CipherBackend *target = nullptr;
    {
        std::unique_lock lock(mutex_);
        SlotJob &record = ring_slot(slot_jobs_, job.slot);
        if (record.in_flight) throw std::logic_error("slot submitted twice");
        std::size_t lane = kNoLane;
        for (;;) {
            if (cancelled_) throw Cancelled();
            rethrow_required_failure();
            const bool starting = any_starting();
            if (!(waits_for_every_start_ && !submitted_ && starting)) {
                lane = lane_for(job);
                if (lane != kNoLane) break; // else the best lane is full, or none takes jobs yet
                bool some_lane_takes_jobs = false;
                for (std::size_t i = 0; i < lanes_.size(); ++i)
                    some_lane_takes_jobs = some_lane_takes_jobs || takes_jobs(i);
                if (!starting && !some_lane_takes_jobs) {
                    // Every lane failed to start: say why the first one did.
                    for (const LaneState &state : lanes_) {
                        if (state.error) std::rethrow_exception(state.error);
                    }
                    throw std::logic_error("no lane takes jobs");
                }
            }
            changed_.wait(lock);
        }
        LaneState &state = lanes_[lane];
        record = {lane, job.bytes, true};
        state.pace.job_started(job.bytes, Clock::now());
        state.bytes += job.bytes;
        ++state.jobs;
        submitted_ = true;
        target = state.backend.get();
    }
    try {
        target->submit(job);
    } catch (...) {
        // It never started: its room is free again, and it says nothing of the lane's pace.
        {
            std::lock_guard lock(mutex_);
            SlotJob &record = slot_jobs_[job.slot];
            LaneState &state = lanes_[record.lane];
            state.pace.job_abandoned(record.bytes);
            state.bytes -= record.bytes;
            --state.jobs;
            record.in_flight = false;
        }
        changed_.notify_all();
        throw;
    }
}

void Dispatcher::job_ended(std::size_t slot) {
    {
        std::lock_guard lock(mutex_);
        if (slot >= slot_jobs_.size()) return;
        SlotJob &record = slot_jobs_[slot];
        if (!record.in_flight) return; // told already (the listener, then wait())
        record.in_flight = false;
        lanes_[record.lane].pace.job_ended(record.bytes, Clock::now());
    }
    changed_.notify_all();
}

void Dispatcher::wait(std::size_t slot) {
    CipherBackend *owner = nullptr;
    {
        std::lock_guard lock(mutex_);
        const std::size_t lane = ring_slot(slot_jobs_, slot).lane;
        if (lane == kNoLane) return; // never submitted
        owner = lanes_[lane].backend.get();
    }
    try {
        owner->wait(slot);
    } catch (...) {
        job_ended(slot);
        throw;
    }
    job_ended(slot);
}

void Dispatcher::await_lanes() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !any_starting(); });
}

void Dispatcher::finish() {
    await_lanes();
    std::vector<CipherBackend *> ready;
    {
        std::lock_guard lock(mutex_);
        rethrow_required_failure();
        for (const auto &state : lanes_) {
            if (state.backend) ready.push_back(state.backend.get());
        }
    }
    for (CipherBackend *backend : ready) backend->finish();
}

void Dispatcher::cancel() {
    {
        std::lock_guard lock(mutex_);
        cancelled_ = true;
    }
    changed_.notify_all();
}

std::vector<LaneReport> Dispatcher::report() const {
    std::lock_guard lock(mutex_);
    const Clock::time_point now = Clock::now();
    std::vector<LaneReport> reports;
    for (const auto &state : lanes_) {
        LaneReport report;
        report.name = state.lane.name;
        report.device = state.lane.device;
        report.bytes = state.bytes;
        report.jobs = state.jobs;
        report.busy_seconds = state.pace.busy_seconds(now);
        report.ready = state.backend != nullptr;
        report.start_seconds = state.start_seconds;
        if (state.backend) report.description = state.description;
        if (state.error) report.failure = error_text(state.error);
        reports.push_back(std::move(report));
    }
    return reports;
}

} // namespace aesgpu
