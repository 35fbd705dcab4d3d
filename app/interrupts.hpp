#pragma once
// Signals that would end the process (Ctrl-C, Ctrl-\, SIGTERM, SIGHUP, SIGUSR1, SIGALRM...) end
// a run cleanly: the undo actions of io/interrupt_cleanup.hpp run (temporary outputs go, a
// terminal whose echo a prompt turned off gets it back), then the process dies of the same signal,
// so the shell reports 128 + N (130 for Ctrl-C, 143 for SIGTERM) and a script's loop stops as it
// should. The signals are blocked in every thread and taken by one thread with sigwait(), so the
// clean-up is ordinary code, never a signal handler. SIGPIPE keeps its default (a reader that goes
// away ends aesgpu quietly), and crashes stay crashes.
#include <functional>

namespace aesgpu {

// Call at the start of main(), before any other thread exists: threads inherit the blocked set.
// Leaves alone signals the parent set to be ignored (nohup, `cmd &`). Throws ResourceExhausted
// when the signal thread cannot start.
void start_interrupt_handling();

// Runs `step` (a commit) so that a signal arriving meanwhile waits until it has ended: an output
// is never half put in place, and the status then says what happened to it.
void run_uninterrupted(const std::function<void()> &step);

// From now on a signal no longer ends the run: every output is final, and the exit status that
// main() returns will say so. Call from inside run_uninterrupted(), after the last commit.
void settle_interrupts();

} // namespace aesgpu
