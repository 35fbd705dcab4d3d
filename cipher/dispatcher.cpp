#include "cipher/dispatcher.hpp"

#include "common/threads.hpp"

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

HandoverBackend::HandoverBackend(std::unique_ptr<CipherBackend> first, std::string successor_name,
                                 SuccessorStart start_successor, SuccessorPolicy policy)
    : first_(std::move(first)), successor_name_(std::move(successor_name)),
      start_successor_(std::move(start_successor)), policy_(policy) {
    if (!first_ || !start_successor_) throw std::invalid_argument("a handover needs a first backend and a successor");
}

HandoverBackend::~HandoverBackend() {
    join_starter();
}

void HandoverBackend::join_starter() noexcept {
    if (starter_.joinable()) starter_.join();
}

std::string HandoverBackend::describe() const {
    std::lock_guard lock(mutex_);
    if (successor_) return successor_->describe();
    if (successor_error_ && policy_ == SuccessorPolicy::optional) return first_->describe();
    return first_->describe() + " until the " + successor_name_ + " is ready";
}

void HandoverBackend::configure_slots(std::size_t slot_count, std::size_t slot_bytes) {
    // A successor starting over the old buffers must be done with them before they go.
    join_starter();
    {
        std::lock_guard lock(mutex_);
        successor_.reset();
        successor_error_ = nullptr;
        report_ = {};
        slot_owner_.assign(slot_count, nullptr);
    }
    first_->configure_slots(slot_count, slot_bytes);
    std::vector<std::span<std::byte>> buffers;
    for (std::size_t slot = 0; slot < slot_count; ++slot) buffers.push_back(first_->slot_buffer(slot));

    std::lock_guard lock(mutex_);
    starting_ = true;
    start_began_ = std::chrono::steady_clock::now();
    try {
        starter_ = start_thread("starting the " + successor_name_, [this, buffers = std::move(buffers)]() mutable {
            start_successor_over(std::move(buffers));
        });
    } catch (...) {
        starting_ = false;
        throw;
    }
}

// The starter thread.
void HandoverBackend::start_successor_over(std::vector<std::span<std::byte>> buffers) {
    std::unique_ptr<CipherBackend> successor;
    std::exception_ptr error;
    try {
        successor = start_successor_(std::move(buffers));
        if (!successor) throw std::logic_error("the " + successor_name_ + " backend did not start");
    } catch (...) {
        error = std::current_exception();
    }
    {
        std::lock_guard starter_lock(mutex_);
        report_.successor_start_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_began_).count();
        successor_ = std::move(successor);
        successor_error_ = error;
        starting_ = false;
    }
    start_ended_.notify_all();
}

CipherBackend &HandoverBackend::target_for_next_job() {
    std::lock_guard lock(mutex_);
    if (successor_) return *successor_;
    if (successor_error_ && policy_ == SuccessorPolicy::required) std::rethrow_exception(successor_error_);
    return *first_;
}

void HandoverBackend::submit(std::size_t slot, std::size_t bytes) {
    CipherBackend &target = target_for_next_job();
    target.submit(slot, bytes);
    std::lock_guard lock(mutex_);
    ring_slot(slot_owner_, slot) = &target;
    (&target == first_.get() ? report_.first_bytes : report_.successor_bytes) += bytes;
}

void HandoverBackend::wait(std::size_t slot) {
    CipherBackend *owner = nullptr;
    {
        std::lock_guard lock(mutex_);
        owner = ring_slot(slot_owner_, slot);
    }
    (owner ? *owner : *first_).wait(slot);
}

void HandoverBackend::await_successor() {
    std::unique_lock lock(mutex_);
    start_ended_.wait(lock, [&] { return !starting_; });
}

void HandoverBackend::finish() {
    await_successor();
    std::lock_guard lock(mutex_);
    if (successor_error_ && policy_ == SuccessorPolicy::required) std::rethrow_exception(successor_error_);
}

HandoverReport HandoverBackend::report() const {
    std::lock_guard lock(mutex_);
    HandoverReport report = report_;
    report.successor_ready = successor_ != nullptr;
    if (successor_) report.successor_description = successor_->describe();
    if (successor_error_) report.successor_failure = error_text(successor_error_);
    return report;
}

} // namespace aesgpu
