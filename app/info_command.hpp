// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace aesgpu {

// `aesgpu info`: build, CPU AES support, OpenSSL, and the CUDA devices this process can see, as
// a table or (`json`) as one JSON object.
void print_info(std::ostream &out, bool json = false);

// `aesgpu info FILE...`: what each file's first bytes say of how it was encrypted, without a key:
// a line each, or (`json`) an object per line. A file that cannot be read is an error on standard
// error and the others go on; returns the exit status (1 if any failed).
int print_file_info(std::ostream &out, const std::vector<std::string> &files, bool json);

} // namespace aesgpu
