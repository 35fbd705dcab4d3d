// SPDX-License-Identifier: Apache-2.0
#include "bench/scratch.hpp"

#include "common/errors.hpp"

#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <stdexcept>
#include <system_error>

extern char **environ;

namespace aesgpu {

namespace {

void remove_all(const std::string &path) {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
}

} // namespace

ScratchDirectory::ScratchDirectory(const std::filesystem::path &parent, CleanupRegistry *interrupt_cleanups) {
    // mkdtemp fills in the name, which the undo action must see.
    auto made = std::make_shared<std::string>((parent / ".aesgpu-bench-XXXXXX").string());
    int error = 0;
    remove_on_interrupt_ = InterruptCleanup::after(
        interrupt_cleanups,
        [&] {
            error = ::mkdtemp(made->data()) ? 0 : errno;
            return error == 0;
        },
        [made] { remove_all(*made); });
    if (error != 0) throw IoError(errno_message("cannot create a directory in", quoted_name(parent.string()), error));
    path_ = *made;
}

ScratchDirectory::~ScratchDirectory() {
    remove_all(path_);
    remove_on_interrupt_.release();
}

void run_cp(const std::string &from, const std::string &to, CleanupRegistry *interrupt_cleanups) {
    // Never a reflink (coreutils 9 clones where the file system can): the baseline is a copy.
    const char *argv[] = {"cp", "--reflink=never", "--", from.c_str(), to.c_str(), nullptr};
    // aesgpu blocks the signals it takes in every thread (app/interrupts.hpp); cp must not
    // inherit that, or Ctrl-C would not stop it.
    posix_spawnattr_t attributes;
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
    pid_t pid = 0;
    int spawned = 0;
    // Ctrl-C while cp runs stops it too, before the scratch directory it writes into goes.
    // (The undo may read `pid` by reference: releasing it waits while the undo actions run.)
    const InterruptCleanup stop_cp = InterruptCleanup::after(
        interrupt_cleanups,
        [&] {
            spawned = ::posix_spawnp(&pid, "cp", nullptr, &attributes, const_cast<char *const *>(argv), environ);
            return spawned == 0;
        },
        [&pid] { (void)::kill(pid, SIGTERM); });
    posix_spawnattr_destroy(&attributes);
    if (spawned != 0) throw std::runtime_error("cannot run cp");
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) throw std::runtime_error(errno_message("cannot wait for", "cp", errno));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("cp failed");
}

} // namespace aesgpu
