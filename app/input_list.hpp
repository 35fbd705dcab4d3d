// SPDX-License-Identifier: Apache-2.0
#pragma once
// The inputs of a run, found once, before any work, as zstd finds them: the FILE arguments, then
// the names of --filelist, and with -r the regular files under each directory among them (sorted
// by name in each directory; symbolic links met on the way are not followed, one named is).
// Decrypt -r takes only names that end in the suffix. Encrypting, a name that already ends in
// the suffix is set aside (skipped, with a warning, counted in the summary, as zstd does).
#include "app/options.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace aesgpu {

struct InputList {
    std::vector<std::string> inputs;      // what the run ciphers, in order
    std::vector<std::string> skipped;     // encrypting: names that end in the suffix already
    std::vector<std::string> directories; // given without -r: in `inputs` too, for refuse_directories
    // -r: why each directory that could not be read was not (its files are not in `inputs`); the
    // run does the rest and fails at its end, as gzip -r does.
    std::vector<std::string> unreadable;
};

// The names a --filelist holds: one a line, or each ended by a NUL byte (`nul_separated`, as
// find -print0 writes them). Empty names are dropped; nothing else is trimmed.
[[nodiscard]] std::vector<std::string> parse_file_list(std::string_view text, bool nul_separated);

// The inputs the options name: options.inputs, then --filelist's names (read here; "-": standard
// input), or standard input ("-") when neither names any; with -r each directory among them
// walked (a directory it cannot read is noted in `unreadable`). Throws UsageError for a file list
// that cannot be read or that names "-".
[[nodiscard]] InputList gather_inputs(const CipherOptions &options);

// The same for names already gathered (no file list is read): for tests, and gather_inputs.
[[nodiscard]] InputList expand_inputs(const CipherOptions &options, const std::vector<std::string> &names);

// Throws UsageError for the first directory given without -r, with what to do instead. Called once
// the inputs passed the checks that matter more (the key file among them), before any work.
void refuse_directories(const CipherOptions &options, const InputList &list);

// --output-dir: throws UsageError where two inputs would be written to the same name, or where
// the directory is not there. Nothing is written before this passes.
void check_output_dir(const CipherOptions &options, const std::vector<std::string> &inputs);

} // namespace aesgpu
