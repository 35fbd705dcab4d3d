// SPDX-License-Identifier: Apache-2.0
#pragma once
// Writing behind, for a regular file written under a memory limit (a control group's): the page
// cache that writes to a file fill is charged to the group, and a dirty page cannot be given back
// before it reaches the disk. So the writes are sent to the disk every window, and the window
// before, once written, leaves the cache: about two windows stay in memory.
#include <sys/types.h>

#include <cstdint>
#include <string>

namespace aesgpu {

class WriteBehind {
public:
    // For the regular file `fd` (never closed here), from its current offset on, in windows of
    // `window_bytes` rounded down to whole pages (one at least); `display_name` in messages.
    WriteBehind(int fd, std::string display_name, std::uint64_t window_bytes);

    // After each write: starts writing what came since the last call once it fills a window, then
    // waits for and drops all but the last window. Throws IoError.
    void push();

private:
    int fd_;
    std::string display_name_;
    off_t window_ = 0;
    off_t sent_ = 0;    // file offset up to which writes were sent to the disk
    off_t dropped_ = 0; // up to which they left the page cache
    // On overlayfs (a container's root) sync_file_range reaches the overlay's own empty page
    // cache, not the file's, and does nothing: fdatasync, which the overlay passes on, instead.
    bool whole_file_sync_ = false;
};

} // namespace aesgpu
