// SPDX-License-Identifier: Apache-2.0
#pragma once
// The inputs of a run, found once, before any work, as zstd finds them: the FILE arguments, then
// the names of --filelist, and with -r the regular files under each directory among them (sorted
// by name in each directory; symbolic links met on the way are not followed, one named is).
// Decrypt -r takes only names that end in the suffix (and sets aside one that is the suffix alone,
// which would decrypt to no name). Encrypting, a name that already ends in the suffix is set aside
// (skipped, with a warning, counted in the summary, as zstd does).
#include "app/options.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace aesgpu {

// An input set aside before the run, and why (a warning: "'x.aes' already ends in '.aes': ...").
struct SkippedInput {
    std::string name;
    std::string why;    // after the quoted name
    bool named = false; // given as a FILE or in --filelist (not found by -r)
};

struct InputList {
    std::vector<std::string> inputs;      // what the run ciphers, in order
    std::vector<SkippedInput> skipped;    // encrypting: names that end in the suffix already; decrypt
                                          // -r: names that are the suffix alone (no name to decrypt to)
    std::vector<std::string> directories; // given without -r: in `inputs` too, for refuse_directories
    // -r: why each directory that could not be read was not (its files are not in `inputs`); the
    // run does the rest and fails at its end, as gzip -r does.
    std::vector<std::string> unreadable;
};

// How many names a --filelist may hold (empty ones counted), how long one may be (PATH_MAX with
// its ending NUL), and how many bytes they may take together (what the run holds of them). Past
// any, the list is no list of names (/dev/zero, a binary file) or a run to split.
inline constexpr std::size_t kMaxListedNames = 1000000;
inline constexpr std::size_t kMaxListedNameBytes = 4095;
inline constexpr std::size_t kMaxListedBytes = std::size_t{128} << 20;

// The names a --filelist holds, fed to it in pieces as they are read: one a line, or each ended by
// a NUL byte (`nul_separated`, as find -print0 writes them). Empty names are dropped; nothing else
// is trimmed. Throws UsageError, naming `what` and the line, for a NUL byte in a list of lines (a
// name cut there), a name longer than kMaxListedNameBytes, more than kMaxListedNames names, or
// names of more than kMaxListedBytes together.
class FileListParser {
public:
    FileListParser(bool nul_separated, std::string what);
    void feed(std::string_view bytes);
    // The names, the last one taken without its ending.
    [[nodiscard]] std::vector<std::string> finish();

private:
    void end_name();

    char separator_;
    std::string what_;
    std::string name_;
    std::size_t ended_ = 0; // names ended so far, empty ones too
    std::size_t kept_ = 0;  // their bytes
    std::vector<std::string> names_;
};

// The same for a list in hand (`what`: "the file list").
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
