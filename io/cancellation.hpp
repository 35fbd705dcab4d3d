// SPDX-License-Identifier: Apache-2.0
#pragma once
// A one-way "stop now" for threads blocked reading a pipe or terminal: a read waits in poll() on
// both its input and this event descriptor, so a failure elsewhere (a full disk, a closed pipe)
// ends the run at once, even when the producer never writes again and never closes.
#include "common/errors.hpp" // Cancelled
#include "common/unique_fd.hpp"

namespace aesgpu {

class Cancellation {
public:
    Cancellation(); // throws IoError when no event descriptor can be made
    Cancellation(const Cancellation &) = delete;
    Cancellation &operator=(const Cancellation &) = delete;

    // Wakes every wait, now and later. Async-signal-safe and thread-safe.
    void cancel() const noexcept;
    [[nodiscard]] int fd() const { return event_.get(); }

private:
    UniqueFd event_;
};

// Blocks until `fd` is readable (or at end of input, or in error, which the read then reports);
// throws Cancelled when `cancellation` fired first. Absorbs EINTR.
void wait_readable(int fd, const Cancellation &cancellation);

} // namespace aesgpu
