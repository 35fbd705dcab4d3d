// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <ostream>

namespace aesgpu {

// `aesgpu info`: build, CPU AES support, OpenSSL, and the CUDA devices this process can see, as
// a table or (`json`) as one JSON object.
void print_info(std::ostream &out, bool json = false);

} // namespace aesgpu
