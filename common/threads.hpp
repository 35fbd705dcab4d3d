// SPDX-License-Identifier: Apache-2.0
#pragma once
// Starting a thread, with a failure that says what it was for: std::thread reports only
// "Resource temporarily unavailable" when the process or user thread limit (ulimit -u) is hit.
#include "common/errors.hpp"

#include <cerrno>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

namespace aesgpu {

// Throws ThreadLimit ("cannot start a thread for <purpose>: <reason>").
template <typename Function>
[[nodiscard]] std::thread start_thread(const std::string &purpose, Function &&function) {
    try {
        return std::thread(std::forward<Function>(function));
    } catch (const std::system_error &e) {
        throw ThreadLimit(std::string("cannot start a thread for ") + purpose + ": " + e.code().message() +
                          (e.code().value() == EAGAIN ? " (a limit on threads or memory: ulimit -u or -v?)" : ""));
    }
}

} // namespace aesgpu
