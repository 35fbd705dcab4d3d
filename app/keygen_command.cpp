// SPDX-License-Identifier: Apache-2.0
#include "app/keygen_command.hpp"

#include "common/errors.hpp"
#include "common/unique_fd.hpp"
#include "io/output_sink.hpp"
#include "keys/raw_key.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <array>
#include <cerrno>
#include <string>

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

// `aesgpu keygen > k.hex`: the shell made the file with its umask, usually readable by everyone.
void warn_about_a_readable_standard_output() {
    struct stat status {};
    if (::fstat(STDOUT_FILENO, &status) != 0 || !S_ISREG(status.st_mode) || (status.st_mode & 077) == 0) return;
    std::array<char, 4096> path{};
    const ssize_t length = ::readlink("/proc/self/fd/1", path.data(), path.size() - 1);
    const std::string name = length > 0 ? quoted_name(std::string(path.data(), static_cast<std::size_t>(length)))
                                        : std::string("the file on standard output");
    spdlog::warn("{} can be read by others (mode {:04o}), and the key goes there: chmod 600 it, or make key files "
                 "with aesgpu keygen -o FILE (mode 0600)",
                 name, status.st_mode & 07777);
}

} // namespace

void run_keygen_command(const KeygenOptions &options) {
    const SecretBytes key = random_key(options.bits / 8);
    if (!options.output.empty() && options.output != "-") {
        write_new_key_file(options.output, key.view());
        return;
    }
    warn_about_a_readable_standard_output();
    OutputSink out = OutputSink::standard_output();
    out.write_all(std::as_bytes(hex_line("", key.view(), false).view()));
    out.commit();
}

} // namespace aesgpu
