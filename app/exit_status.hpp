// SPDX-License-Identifier: Apache-2.0
#pragma once
// The command's exit statuses (docs/usage.md, "Exit status"), and the one map from a failure to its status.
#include <exception>

namespace aesgpu {

inline constexpr int kExitRuntimeFailure = 1;
inline constexpr int kExitUsage = 2;

// 2 for a mistake in how aesgpu was called: a usage error, or a key, IV or key file that cannot be
// used as given (the library's KeyError); 1 for any other failure.
[[nodiscard]] int exit_status_of(const std::exception &failure);

} // namespace aesgpu
