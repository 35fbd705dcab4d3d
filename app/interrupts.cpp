#include "app/interrupts.hpp"

#include "io/interrupt_cleanup.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace aesgpu {

namespace {

int terminal_fd = -1;
termios terminal_settings{};
std::atomic<bool> terminal_armed{false};

extern "C" void on_interrupt(int signal_number) {
    // Only async-signal-safe calls from here on: tcsetattr, unlink, _exit.
    if (terminal_armed.load()) (void)::tcsetattr(terminal_fd, TCSAFLUSH, &terminal_settings);
    remove_armed_temporary_file();
    ::_exit(128 + signal_number);
}

} // namespace

void arm_terminal_restore(int fd, const termios &saved) noexcept {
    terminal_armed.store(false);
    terminal_fd = fd;
    terminal_settings = saved;
    terminal_armed.store(true);
}

void disarm_terminal_restore() noexcept {
    terminal_armed.store(false);
}

void install_interrupt_handlers() {
    for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction current {};
        if (::sigaction(signal_number, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
        struct sigaction action {};
        action.sa_handler = on_interrupt;
        sigemptyset(&action.sa_mask);
        (void)::sigaction(signal_number, &action, nullptr);
    }
    // Past a file-size limit (ulimit -f), write() and fallocate() fail with EFBIG and the run ends
    // with a message and no partial file, instead of the process being killed mid-write.
    (void)::signal(SIGXFSZ, SIG_IGN);
}

} // namespace aesgpu
