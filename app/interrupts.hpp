#pragma once
// Ctrl-C, SIGTERM and SIGHUP end a run cleanly: the partial output file goes, a terminal whose
// echo the passphrase prompt turned off gets it back, and the exit status is 128 + the signal
// (130 for Ctrl-C, 143 for SIGTERM).
#include <termios.h>

namespace aesgpu {

// Installs the handlers, leaving alone signals the parent set to be ignored (nohup, `cmd &`).
void install_interrupt_handlers();

// The terminal settings the handler restores while a prompt has echo off. Async-signal-safe use.
void arm_terminal_restore(int fd, const termios &saved) noexcept;
void disarm_terminal_restore() noexcept;

} // namespace aesgpu
