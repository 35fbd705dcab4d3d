// SPDX-License-Identifier: Apache-2.0
#pragma once
// Hidden names beside a file, for what stands in for it until it is complete: an output being
// written (io/new_file_output), and the probe of what mode a new file there gets.
#include <string>

namespace aesgpu {

// A name no one else is using now, most likely: ".NAME.aesgpu-XXXXXXXX" (8 random letters), cut
// to stay within NAME_MAX. Throws IoError where no random bytes can be had.
[[nodiscard]] std::string hidden_name(const std::string &target_name);

} // namespace aesgpu
