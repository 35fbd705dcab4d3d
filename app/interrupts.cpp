#include "app/interrupts.hpp"

#include "io/interrupt_cleanup.hpp"
#include "io/threads.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <mutex>

namespace aesgpu {

namespace {

// Held while a step must not be interrupted, and by the signal thread while it decides.
std::mutex &decision_mutex() {
    static auto *mutex = new std::mutex; // never destroyed: the signal thread outlives main()
    return *mutex;
}
bool settled = false; // guarded by decision_mutex()

// Signals whose default action ends the process and that come from outside: not the faults a
// thread causes itself (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS), nor SIGPIPE.
sigset_t signals_to_take() {
    sigset_t set;
    sigemptyset(&set);
    const int fixed[] = {SIGHUP,    SIGINT,  SIGQUIT, SIGTERM, SIGUSR1,   SIGUSR2, SIGALRM,
                         SIGVTALRM, SIGPROF, SIGIO,   SIGPWR,  SIGSTKFLT, SIGXCPU};
    const auto take_unless_ignored = [&set](int signal_number) {
        struct sigaction current {};
        if (::sigaction(signal_number, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) return;
        sigaddset(&set, signal_number);
    };
    for (const int signal_number : fixed) take_unless_ignored(signal_number);
    for (int signal_number = SIGRTMIN; signal_number <= SIGRTMAX; ++signal_number) take_unless_ignored(signal_number);
    return set;
}

// Dies of `signal_number` itself, so the parent sees the signal and not an exit status.
[[noreturn]] void die_of(int signal_number) {
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    (void)::sigaction(signal_number, &default_action, nullptr);
    sigset_t just_this;
    sigemptyset(&just_this);
    sigaddset(&just_this, signal_number);
    (void)::pthread_sigmask(SIG_UNBLOCK, &just_this, nullptr);
    (void)::raise(signal_number);
    ::_exit(128 + signal_number); // only for a signal whose default action lets the process live
}

void take_signals(sigset_t set) {
    for (;;) {
        int signal_number = 0;
        if (::sigwait(&set, &signal_number) != 0) continue;
        std::lock_guard lock(decision_mutex());
        if (settled) continue;
        run_interrupt_cleanups();
        die_of(signal_number);
    }
}

} // namespace

void start_interrupt_handling() {
    const sigset_t set = signals_to_take();
    (void)::pthread_sigmask(SIG_BLOCK, &set, nullptr);
    start_thread("handling signals", [set] { take_signals(set); }).detach();
    // Past a file-size limit (ulimit -f), write() and fallocate() fail with EFBIG and the run ends
    // with a message and no partial file, instead of the process being killed mid-write.
    (void)::signal(SIGXFSZ, SIG_IGN);
}

void run_uninterrupted(const std::function<void()> &step) {
    std::lock_guard lock(decision_mutex());
    step();
}

void settle_interrupts() {
    settled = true;
}

} // namespace aesgpu
