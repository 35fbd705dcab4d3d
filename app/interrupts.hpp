// SPDX-License-Identifier: Apache-2.0
#pragma once
// Signals that would end the process (Ctrl-C, Ctrl-\, SIGTERM, SIGHUP, SIGUSR1, SIGALRM...) end
// a run cleanly: the undo actions registered in interrupt_cleanups() run (temporary outputs go, a
// terminal whose echo a prompt turned off gets it back), then the process dies of the same signal,
// so the shell reports 128 + N (130 for Ctrl-C, 143 for SIGTERM) and a script's loop stops as it
// should. The signals are blocked in every thread and taken by one thread with sigwait(), so the
// clean-up is ordinary code, never a signal handler. Crashes stay crashes.
//
// SIGPIPE is blocked too, so a write to a pipe with no reader fails with EPIPE instead of killing
// the process: a log line to a stderr whose reader left is simply lost, and the output's own
// broken pipe ends the run quietly through end_by_broken_pipe(), with status 141, as `cat` does.
// The kernel sends a write's SIGPIPE to the thread that wrote, where it stays blocked; a SIGPIPE
// sent to the process (kill -PIPE) reaches the signal thread and ends the run as the others do.
#include "common/interrupt_cleanup.hpp"

#include <functional>

namespace aesgpu {

// The process's clean-up registry: what a signal must undo before the process dies. Everything
// the command makes that a signal must not leave behind registers here (the outputs through
// OutputPolicy, the bench's scratch directory, the prompt, the progress line).
[[nodiscard]] CleanupRegistry &interrupt_cleanups();

// While it lives, Ctrl-Z (SIGTSTP) runs `before_stop` before aesgpu stops and `after_continue`
// when it continues (fg): a passphrase prompt gives the terminal its echo back while stopped and
// takes it again, as ssh's readpassphrase does. One at a time.
class StopHooks {
public:
    StopHooks(std::function<void()> before_stop, std::function<void()> after_continue);
    ~StopHooks();
    StopHooks(const StopHooks &) = delete;
    StopHooks &operator=(const StopHooks &) = delete;
};

// For the signal-handling thread: runs `stop` between the hooks of the StopHooks alive, if any.
void stop_with_hooks(const std::function<void()> &stop);

// Call at the start of main(), before any other thread exists: threads inherit the blocked set.
// Leaves alone signals the parent set to be ignored (nohup, `cmd &`). Throws ThreadLimit
// when the signal thread cannot start.
void start_interrupt_handling();

// Runs `step` (a commit) so that a signal arriving meanwhile waits until it has ended: an output
// is never half put in place, and the status then says what happened to it.
void run_uninterrupted(const std::function<void()> &step);

// From now on every output is final: a signal ends the process at once with `exit_status`, the
// status main() is about to return, instead of reporting an interruption that changed nothing.
// Call from inside run_uninterrupted(), right after the last commit.
void settle_interrupts(int exit_status);

// True unless the parent had SIGPIPE ignored: then a broken pipe is an error like any other, as
// it is for every program that inherits the ignored signal.
[[nodiscard]] bool broken_pipe_ends_quietly();

// How many times the terminal was resized (SIGWINCH) since start_interrupt_handling(): the
// progress line redraws at its new width when this changes.
[[nodiscard]] unsigned terminal_resizes();
// The reader of the output went away: undoes what a signal would, then dies of SIGPIPE.
[[noreturn]] void end_by_broken_pipe();

} // namespace aesgpu
