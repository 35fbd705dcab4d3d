// SPDX-License-Identifier: Apache-2.0
#include "cipher/dispatcher.hpp"

#include "common/threads.hpp"

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

constexpr std::size_t kNoLane = static_cast<std::size_t>(-1);

} // namespace

Dispatcher::Dispatcher(std::string first_name, std::unique_ptr<CipherBackend> first, std::vector<Lane> later) {
    if (!first) throw std::invalid_argument("a dispatcher needs a first backend");
    lanes_.push_back(LaneState{Lane{std::move(first_name), nullptr}, std::move(first), nullptr, false, 0, 0});
    for (auto &lane : later) {
        if (!lane.start) throw std::invalid_argument("every later lane needs a start");
        lanes_.push_back(LaneState{std::move(lane), nullptr, nullptr, false, 0, 0});
    }
}

Dispatcher::~Dispatcher() {
    join_starters();
}

void Dispatcher::join_starters() noexcept {
    for (auto &starter : starters_) starter.join();
    starters_.clear();
}

std::size_t Dispatcher::lane_for_next_job() const {
    for (std::size_t i = lanes_.size(); i-- > 1;) {
        const LaneState &state = lanes_[i];
        if (state.backend) return i;
        if (state.error && state.lane.policy == LanePolicy::required) std::rethrow_exception(state.error);
    }
    return 0;
}

std::string Dispatcher::describe() const {
    std::lock_guard lock(mutex_);
    std::size_t current = 0;
    for (std::size_t i = lanes_.size(); i-- > 1;) {
        if (lanes_[i].backend) {
            current = i;
            break;
        }
    }
    std::string text = lanes_[current].backend->describe();
    for (std::size_t i = current + 1; i < lanes_.size(); ++i) {
        const LaneState &later = lanes_[i];
        if (!(later.error && later.lane.policy == LanePolicy::optional)) {
            return text + " until the " + later.lane.name + " is ready";
        }
    }
    return text;
}

void Dispatcher::configure_slots(std::size_t slot_count, std::size_t slot_bytes) {
    // Lanes starting over the old buffers must be done with them before they go.
    join_starters();
    {
        std::lock_guard lock(mutex_);
        for (std::size_t i = 0; i < lanes_.size(); ++i) {
            LaneState &state = lanes_[i];
            if (i > 0) state.backend.reset();
            state.error = nullptr;
            state.start_seconds = 0;
            state.bytes = 0;
        }
        slot_lane_.assign(slot_count, kNoLane);
    }
    CipherBackend &first = *lanes_.front().backend;
    first.adopt_slots({});
    ring_ = {};
    ring_ = HostRing(slot_count, slot_bytes);
    first.adopt_slots(ring_.buffers());
    start_began_ = std::chrono::steady_clock::now();

    // Room for every starter first: a thread that started and then found no room in the vector
    // would be destroyed still joinable, which ends the process.
    starters_.reserve(lanes_.size());
    for (std::size_t i = 1; i < lanes_.size(); ++i) {
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
        state.start_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_began_).count();
        state.backend = std::move(backend);
        state.error = error;
        state.starting = false;
    }
    start_ended_.notify_all();
}

std::span<std::byte> Dispatcher::slot_buffer(std::size_t slot) {
    return ring_.buffer(slot);
}

void Dispatcher::submit(const CipherJob &job) {
    CipherBackend *target = nullptr;
    std::size_t lane = 0;
    {
        std::lock_guard lock(mutex_);
        lane = lane_for_next_job();
        target = lanes_[lane].backend.get();
    }
    target->submit(job);
    std::lock_guard lock(mutex_);
    ring_slot(slot_lane_, job.slot) = lane;
    lanes_[lane].bytes += job.bytes;
}

void Dispatcher::wait(std::size_t slot) {
    CipherBackend *owner = nullptr;
    {
        std::lock_guard lock(mutex_);
        const std::size_t lane = ring_slot(slot_lane_, slot);
        owner = lanes_[lane == kNoLane ? 0 : lane].backend.get();
    }
    owner->wait(slot);
}

void Dispatcher::await_lanes() {
    std::unique_lock lock(mutex_);
    start_ended_.wait(lock, [&] {
        return std::none_of(lanes_.begin(), lanes_.end(), [](const LaneState &state) { return state.starting; });
    });
}

void Dispatcher::finish() {
    await_lanes();
    std::vector<CipherBackend *> ready;
    {
        std::lock_guard lock(mutex_);
        for (const auto &state : lanes_) {
            if (state.error && state.lane.policy == LanePolicy::required) std::rethrow_exception(state.error);
            if (state.backend) ready.push_back(state.backend.get());
        }
    }
    for (CipherBackend *backend : ready) backend->finish();
}

std::vector<LaneReport> Dispatcher::report() const {
    std::lock_guard lock(mutex_);
    std::vector<LaneReport> reports;
    for (const auto &state : lanes_) {
        LaneReport report;
        report.name = state.lane.name;
        report.bytes = state.bytes;
        report.ready = state.backend != nullptr;
        report.start_seconds = state.start_seconds;
        if (state.backend) report.description = state.backend->describe();
        if (state.error) report.failure = error_text(state.error);
        reports.push_back(std::move(report));
    }
    return reports;
}

} // namespace aesgpu
