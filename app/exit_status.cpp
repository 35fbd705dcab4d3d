// SPDX-License-Identifier: Apache-2.0
#include "app/exit_status.hpp"

#include "common/errors.hpp"

namespace aesgpu {

int exit_status_of(const std::exception &failure) {
    const bool usage = dynamic_cast<const UsageError *>(&failure) || dynamic_cast<const KeyError *>(&failure);
    return usage ? kExitUsage : kExitRuntimeFailure;
}

} // namespace aesgpu
