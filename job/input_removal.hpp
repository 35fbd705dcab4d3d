// SPDX-License-Identifier: Apache-2.0
#pragma once
// Removing the input (the command's --rm, Settings::remove_input): it goes once its output is in
// place on disk, and only where removing the name removes exactly the data that was read: a
// regular file, not a symbolic link (its target would stay), with no other hard link (the data
// would stay), under the same name (not a file put there meanwhile), unchanged while it was read
// (a same-size rewrite would be lost). Otherwise it stays, and the run fails, so that a caller
// counting on the space does not go on.
#include "io/input_source.hpp"

#include <string>

namespace aesgpu {

// Before any work: throws IoError ("not removing ...: why") where --rm could not remove `input`
// once its output is in place: the rules above, and a directory this process may not remove names
// from (not writable, read-only, sticky and neither it nor the file ours, append-only) or a file
// marked immutable or append-only. A run that would fail only at its end writes nothing instead.
void check_input_removable(const InputSource &source, const std::string &input);

// After the output's commit: the rules above again (the input may have changed meanwhile), then
// unlink. Throws IoError.
void remove_input(const InputSource &source, const std::string &input);

} // namespace aesgpu
