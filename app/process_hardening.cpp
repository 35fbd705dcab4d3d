// SPDX-License-Identifier: Apache-2.0
#include "app/process_hardening.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>

namespace aesgpu {

bool open_standard_descriptors() noexcept {
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
        if (::fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
        // open() returns the lowest free descriptor: this one, since the lower ones are open.
        const int opened = ::open("/", O_PATH);
        if (opened != fd) {
            if (opened >= 0) ::close(opened);
            return false;
        }
    }
    return true;
}

void keep_memory_private() noexcept {
    const rlimit no_core{0, 0};
    (void)::setrlimit(RLIMIT_CORE, &no_core);
    (void)::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

} // namespace aesgpu
