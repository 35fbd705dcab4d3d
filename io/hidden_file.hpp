// SPDX-License-Identifier: Apache-2.0
#pragma once
// Files under a hidden name beside an output's target (hidden_name()): a named temporary output,
// and the name a replacing output is linked under before it is renamed over the target. Each is
// made and registered for removal on a signal in one step, so a signal never leaves one behind.
#include "common/interrupt_cleanup.hpp"

#include <functional>
#include <string>
#include <string_view>

namespace aesgpu {

struct HiddenFile {
    std::string name;         // in the directory it was made in
    InterruptCleanup cleanup; // removes it on a signal until released
};

// A hidden file beside `target_name` in `directory`, made by `make` (which returns 0 or an errno);
// another name is tried while one is taken. Throws IoError(errno_message(failure, subject, error))
// where none can be made.
[[nodiscard]] HiddenFile make_hidden_file(CleanupRegistry *cleanups, int directory, const std::string &target_name,
                                          const std::function<int(const char *)> &make, std::string_view failure,
                                          std::string_view subject);

// Owns a hidden file that stands in for an output until it is complete: removed when the owner
// goes, unless kept (renamed into place).
class TemporaryHiddenFile {
public:
    TemporaryHiddenFile() = default;
    // `directory` must stay open as long as this owner.
    TemporaryHiddenFile(int directory, HiddenFile file);
    TemporaryHiddenFile(TemporaryHiddenFile &&other) noexcept;
    TemporaryHiddenFile &operator=(TemporaryHiddenFile &&other) noexcept;
    TemporaryHiddenFile(const TemporaryHiddenFile &) = delete;
    TemporaryHiddenFile &operator=(const TemporaryHiddenFile &) = delete;
    ~TemporaryHiddenFile();

    [[nodiscard]] bool exists() const { return !name_.empty(); }
    [[nodiscard]] const std::string &name() const { return name_; }
    // It has been put in place under another name: neither removed now nor on a signal.
    void keep() noexcept;

private:
    void remove() noexcept;

    int directory_ = -1;
    std::string name_; // empty: none, or kept
    InterruptCleanup cleanup_;
};

} // namespace aesgpu
