// SPDX-License-Identifier: Apache-2.0
#include "app/interrupts.hpp"

#include "common/interrupt_cleanup.hpp"
#include "common/threads.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <utility>

namespace aesgpu {

namespace {

// Held while a step must not be interrupted, and by the signal thread while it decides.
std::mutex &decision_mutex() {
    static auto *mutex = new std::mutex; // never destroyed: the signal thread outlives main()
    return *mutex;
}
// The hooks of the one StopHooks alive (a prompt), guarded by stop_mutex().
std::mutex &stop_mutex() {
    static auto *mutex = new std::mutex; // never destroyed, as decision_mutex()
    return *mutex;
}
std::function<void()> before_stop;
std::function<void()> after_continue;

bool settled = false;        // guarded by decision_mutex()
int settled_exit_status = 0; // likewise

bool sigpipe_was_ignored = false;        // set once, before any other thread starts
std::atomic<unsigned> window_changes{0}; // SIGWINCHes taken, for the progress line

bool ignored_by_parent(int signal_number) {
    struct sigaction current {};
    return ::sigaction(signal_number, nullptr, &current) == 0 && current.sa_handler == SIG_IGN;
}

// Signals whose default action ends the process and that come from outside (not the faults a
// thread causes itself: SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS), and Ctrl-Z.
sigset_t signals_to_take() {
    sigset_t set;
    sigemptyset(&set);
    const int fixed[] = {SIGHUP,    SIGINT,  SIGQUIT, SIGTERM, SIGUSR1,   SIGUSR2, SIGALRM,
                         SIGVTALRM, SIGPROF, SIGIO,   SIGPWR,  SIGSTKFLT, SIGXCPU, SIGTSTP};
    for (const int signal_number : fixed) {
        if (!ignored_by_parent(signal_number)) sigaddset(&set, signal_number);
    }
    for (int signal_number = SIGRTMIN; signal_number <= SIGRTMAX; ++signal_number) {
        if (!ignored_by_parent(signal_number)) sigaddset(&set, signal_number);
    }
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

// Ctrl-Z: stops the whole process as SIGTSTP would, with the hooks around the stop.
void stop_here() {
    // SIGSTOP cannot be blocked: every thread stops until SIGCONT.
    stop_with_hooks([] { (void)::raise(SIGSTOP); });
}

void take_signals(sigset_t set) {
    for (;;) {
        int signal_number = 0;
        if (::sigwait(&set, &signal_number) != 0) continue;
        if (signal_number == SIGTSTP) {
            stop_here();
            continue;
        }
        if (signal_number == SIGWINCH) {
            window_changes.fetch_add(1, std::memory_order_relaxed);
            continue;
        }
        std::lock_guard lock(decision_mutex());
        // Nothing is left to undo; the run may still be winding down (CUDA, a slow stderr).
        if (settled) ::_exit(settled_exit_status);
        interrupt_cleanups().run_all();
        die_of(signal_number);
    }
}

} // namespace

void start_interrupt_handling() {
    sigset_t taken = signals_to_take();
    sigaddset(&taken, SIGWINCH); // ignored by default; taken only to count terminal resizes
    sigpipe_was_ignored = ignored_by_parent(SIGPIPE);
    // EPIPE instead (see the header). A write's own SIGPIPE is sent to the writing thread, where
    // it stays blocked; a `kill -PIPE` is sent to the process, and the signal thread takes it.
    if (!sigpipe_was_ignored) sigaddset(&taken, SIGPIPE);
    const sigset_t blocked = taken;
    (void)::pthread_sigmask(SIG_BLOCK, &blocked, nullptr);
    start_thread("handling signals", [taken] { take_signals(taken); }).detach();
    // Past a file-size limit (ulimit -f), write() and fallocate() fail with EFBIG and the run ends
    // with a message and no partial file, instead of the process being killed mid-write.
    (void)::signal(SIGXFSZ, SIG_IGN);
}

void run_uninterrupted(const std::function<void()> &step) {
    std::lock_guard lock(decision_mutex());
    step();
}

void settle_interrupts(int exit_status) {
    settled = true;
    settled_exit_status = exit_status;
}

unsigned terminal_resizes() {
    return window_changes.load(std::memory_order_relaxed);
}

bool broken_pipe_ends_quietly() {
    return !sigpipe_was_ignored;
}

void end_by_broken_pipe() {
    std::lock_guard lock(decision_mutex());
    interrupt_cleanups().run_all();
    die_of(SIGPIPE);
}

CleanupRegistry &interrupt_cleanups() {
    static auto *registry = new CleanupRegistry; // never destroyed: the signal thread outlives main()
    return *registry;
}

StopHooks::StopHooks(std::function<void()> before, std::function<void()> after) {
    std::lock_guard lock(stop_mutex());
    before_stop = std::move(before);
    after_continue = std::move(after);
}

StopHooks::~StopHooks() {
    std::lock_guard lock(stop_mutex());
    before_stop = nullptr;
    after_continue = nullptr;
}

void stop_with_hooks(const std::function<void()> &stop) {
    std::lock_guard lock(stop_mutex());
    if (before_stop) before_stop();
    stop();
    if (after_continue) after_continue();
}

} // namespace aesgpu
