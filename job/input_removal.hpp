// SPDX-License-Identifier: Apache-2.0
#pragma once
// Removing the input (the command's --rm, Settings::remove_input): it goes once its output is in
// place on disk, and only where removing the name removes exactly the data that was read: a
// regular file, not a symbolic link (its target would stay), with no other hard link (the data
// would stay), under the same name (not a file put there meanwhile), unchanged while it was read
// (a same-size rewrite would be lost). Otherwise it stays, and the run fails, so that a caller
// counting on the space does not go on.
#include "common/errors.hpp"
#include "common/interrupt_cleanup.hpp"
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

// Puts the output in place (sink.commit()) and removes `input` as one step, so that no other run
// can remove the same input too and no output appears without its input's removal: the rules
// above again (the input may have changed meanwhile); the input taken from its name (renamed to
// a hidden name beside it, which only one run can do); the commit; the hidden name removed. A
// failure before the commit leaves the input under its name and no output. `cleanups`: where a
// program ends itself on a signal, the input gets its name back. Throws IoError, or what the
// commit throws.
void commit_removing_input(OutputSink &sink, const InputSource &source, const std::string &input,
                           CleanupRegistry *cleanups);

} // namespace aesgpu
