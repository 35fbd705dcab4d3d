// SPDX-License-Identifier: Apache-2.0
#pragma once
// A regular-file output. It is written to an unnamed temporary file (O_TMPFILE) in the target's
// directory and linked into place only by place(), so a failed, interrupted or even killed run
// leaves no partial file and never clobbers an existing one. (Replacing with -f links a hidden name
// and renames it over the target: SIGKILL in that instant leaves the hidden name.) Where the file
// system has no O_TMPFILE, a hidden named file (0600 until placed) stands in, removed on failure
// and by the interrupt clean-up, not after SIGKILL. Everything happens relative to the target's
// directory, opened once, so an output whose directory is renamed mid-run still lands in it.
#include "common/unique_fd.hpp"
#include "io/hidden_file.hpp"
#include "io/new_file_attributes.hpp"
#include "io/output_path.hpp"
#include "io/output_policy.hpp"

#include <string>

namespace aesgpu {

class NewFileOutput {
public:
    // The temporary file for `target`, which is nothing yet, a symbolic link or a regular file
    // (`display_name` in messages). Throws OutputNeedsOverwrite where something is there and the
    // policy does not let it be replaced, IoError where the file cannot be made (before any work
    // is done).
    static NewFileOutput create(const OutputPath &target, std::string display_name, const OutputPolicy &policy);

    NewFileOutput(NewFileOutput &&) noexcept = default;
    NewFileOutput &operator=(NewFileOutput &&) = delete;
    NewFileOutput(const NewFileOutput &) = delete;
    NewFileOutput &operator=(const NewFileOutput &) = delete;
    // The temporary file goes unless place() put it in place.
    ~NewFileOutput() = default;

    // The temporary file, open for reading and writing.
    [[nodiscard]] int fd() const { return file_.get(); }
    [[nodiscard]] const std::string &display_name() const { return display_name_; }
    // Sets the final mode, owner and times on the temporary file. Throws IoError.
    void apply_attributes() { attributes_.apply(file_.get(), display_name_); }
    // Puts the file in place under the target's name and closes it. `durable`: the file is on the
    // disk before it is linked in (fsync) and its name after (the directory's fsync). Throws IoError.
    void place(bool durable);

private:
    NewFileOutput(std::string display_name, UniqueFd directory, std::string target_name, const OutputPolicy &policy,
                  NewFileAttributes attributes);
    void make_named_temporary(const std::string &display_directory);
    void link_into_place();
    void rename_into_place();
    void sync_directory();

    std::string display_name_;
    UniqueFd directory_;      // the target's directory (O_PATH)
    std::string target_name_; // the target's name in directory_
    CleanupRegistry *interrupt_cleanups_ = nullptr;
    NewFileAttributes attributes_;
    bool overwrite_ = false;
    // Declared after directory_, so that they go first: the file's descriptor (an unnamed file not
    // linked in goes with it), then the named temporary file's name (none where it is unnamed).
    TemporaryHiddenFile named_temporary_;
    UniqueFd file_;
};

} // namespace aesgpu
