// SPDX-License-Identifier: Apache-2.0
#pragma once
// Removing the input (the command's --rm, Settings::remove_input): it goes once its output is in
// place on disk, and only where removing the name removes exactly the data that was read: a
// regular file, not a symbolic link (its target would stay), with no other hard link (the data
// would stay), under the same name (not a file put there meanwhile), unchanged while it was read
// (a same-size rewrite would be lost). Otherwise it stays, and the run fails, so that a caller
// counting on the space does not go on.
#include "common/errors.hpp"
#include "io/input_source.hpp"
#include "io/output_sink.hpp"

#include <string>

namespace aesgpu {

// The output of a run that removes its input is a pipe or device: bytes written as they go, never
// checked in place. The caller words it with `output`, the sink's display name.
class OutputWrittenAsItGoes : public IoError {
public:
    explicit OutputWrittenAsItGoes(const std::string &output_name)
        : IoError(output_name + " is not a regular file"), output(output_name) {}
    std::string output;
};

// Before any work, with both open: the output must be a complete file (withdrawn unless
// committed), made durable at its commit, as it takes the place of the only other copy; then
// check_input_removable. Throws OutputWrittenAsItGoes, or IoError as check_input_removable.
void prepare_input_removal(const InputSource &source, const std::string &input, OutputSink &sink);

// Before any work: throws IoError ("not removing ...: why") where --rm could not remove `input`
// once its output is in place: the rules above, and a directory this process may not remove names
// from (not writable, read-only, sticky and neither it nor the file ours, append-only) or a file
// marked immutable or append-only. A run that would fail only at its end writes nothing instead.
void check_input_removable(const InputSource &source, const std::string &input);

// Puts the output in place (sink.commit()) and removes `input`: the rules above are checked
// again first (the input may have changed meanwhile), and the file read is locked (flock), so that
// of two runs removing one input the second fails before its output appears; where they fail
// there is no output. Once the output is in place the input is checked once more and unlinked
// (a failure then says the output is in place). Throws IoError, or what the commit throws.
void commit_removing_input(OutputSink &sink, const InputSource &source, const std::string &input);

} // namespace aesgpu
