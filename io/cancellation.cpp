// SPDX-License-Identifier: Apache-2.0
#include "io/cancellation.hpp"

#include "common/errors.hpp"

#include <poll.h>
#include <sys/eventfd.h>

#include <cerrno>
#include <cstdint>

namespace aesgpu {

Cancellation::Cancellation() : event_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (!event_.valid()) throw IoError(errno_message("cannot create", "an event descriptor", errno));
}

void Cancellation::cancel() const noexcept {
    const std::uint64_t one = 1;
    (void)!::write(event_.get(), &one, sizeof one);
}

void wait_readable(int fd, const Cancellation &cancellation) {
    pollfd waits[2] = {{fd, POLLIN, 0}, {cancellation.fd(), POLLIN, 0}};
    for (;;) {
        const int ready = ::poll(waits, 2, -1);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) throw IoError(errno_message("cannot wait for", "input", errno));
        if (waits[1].revents != 0) throw Cancelled();
        if (waits[0].revents != 0) return; // data, end of input or an error the read will report
    }
}

} // namespace aesgpu
