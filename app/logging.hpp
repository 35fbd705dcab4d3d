// SPDX-License-Identifier: Apache-2.0
#pragma once
#include "app/options.hpp"

namespace aesgpu {

// Logs go to stderr as "aesgpu: LEVEL: message"; stdout carries only data. Default level warn;
// -v info, -vv debug; -q errors only.
void configure_logging(const LogOptions &options);

} // namespace aesgpu
