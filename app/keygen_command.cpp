// SPDX-License-Identifier: Apache-2.0
#include "app/keygen_command.hpp"

#include "common/errors.hpp"
#include "common/unique_fd.hpp"
#include "io/output_sink.hpp"
#include "keys/raw_key.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace aesgpu {

namespace {

// O_EXCL: an existing file (or a link planted in its place) is never written through.
void write_new_key_file(const std::string &path, std::span<const std::uint8_t> key) {
    const std::string name = quoted_name(path);
    UniqueFd file(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!file.valid()) {
        if (errno == EEXIST) throw IoError(name + " exists: keygen never replaces a key; remove it or pick a new name");
        throw IoError(errno_message("cannot create", name, errno));
    }
    const auto fail = [&](int error) {
        (void)::unlink(path.c_str());
        throw IoError(errno_message("error writing", name, error));
    };
    // The umask (0777 leaves 0000) or a directory's default ACL may have cut the mode: a key file is
    // 0600, the owner's to read, whatever they say.
    if (::fchmod(file.get(), 0600) != 0) fail(errno);
    const ssize_t written = ::write(file.get(), key.data(), key.size());
    if (written != static_cast<ssize_t>(key.size())) fail(written < 0 ? errno : ENOSPC);
    if (::fsync(file.get()) != 0) fail(errno);
    if (file.close() != 0) fail(errno);
}

} // namespace

void run_keygen_command(const KeygenOptions &options) {
    const SecretBytes key = random_key(options.bits / 8);
    if (!options.output.empty() && options.output != "-") {
        write_new_key_file(options.output, key.view());
        return;
    }
    OutputSink out = OutputSink::standard_output();
    out.write_all(std::as_bytes(hex_line("", key.view(), false).view()));
    out.commit();
}

} // namespace aesgpu
