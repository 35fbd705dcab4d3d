// SPDX-License-Identifier: Apache-2.0
#include "io/hidden_file.hpp"

#include "common/errors.hpp"
#include "io/hidden_name.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace aesgpu {

HiddenFile make_hidden_file(CleanupRegistry *cleanups, int directory, const std::string &target_name,
                            const std::function<int(const char *)> &make, std::string_view failure,
                            std::string_view subject) {
    int error = EEXIST;
    for (int attempt = 0; attempt < 100 && error == EEXIST; ++attempt) {
        std::string name = hidden_name(target_name);
        InterruptCleanup cleanup = InterruptCleanup::after(
            cleanups,
            [&] {
                error = make(name.c_str());
                return error == 0;
            },
            [directory, name] { (void)::unlinkat(directory, name.c_str(), 0); });
        if (error == 0) return {std::move(name), std::move(cleanup)};
    }
    throw IoError(errno_message(failure, subject, error));
}

TemporaryHiddenFile::TemporaryHiddenFile(int directory, HiddenFile file)
    : directory_(directory), name_(std::move(file.name)), cleanup_(std::move(file.cleanup)) {}

TemporaryHiddenFile::TemporaryHiddenFile(TemporaryHiddenFile &&other) noexcept
    : directory_(other.directory_), name_(std::exchange(other.name_, {})), cleanup_(std::move(other.cleanup_)) {}

TemporaryHiddenFile &TemporaryHiddenFile::operator=(TemporaryHiddenFile &&other) noexcept {
    if (this != &other) {
        remove();
        directory_ = other.directory_;
        name_ = std::exchange(other.name_, {});
        cleanup_ = std::move(other.cleanup_);
    }
    return *this;
}

TemporaryHiddenFile::~TemporaryHiddenFile() {
    remove();
}

void TemporaryHiddenFile::remove() noexcept {
    if (!name_.empty()) (void)::unlinkat(directory_, name_.c_str(), 0);
    name_.clear();
    cleanup_.release();
}

void TemporaryHiddenFile::keep() noexcept {
    name_.clear();
    cleanup_.release();
}

} // namespace aesgpu
