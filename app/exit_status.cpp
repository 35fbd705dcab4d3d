// SPDX-License-Identifier: Apache-2.0
#include "app/exit_status.hpp"

#include "common/errors.hpp"
#include "keys/passphrase.hpp"

namespace aesgpu {

int exit_status_of(const std::exception &failure) {
    // The key as given (KeyError, an empty passphrase) is the command line's to mend, as a usage error.
    const bool usage = dynamic_cast<const UsageError *>(&failure) || dynamic_cast<const KeyError *>(&failure) ||
                       dynamic_cast<const EmptyPassphrase *>(&failure);
    return usage ? kExitUsage : kExitRuntimeFailure;
}

} // namespace aesgpu
