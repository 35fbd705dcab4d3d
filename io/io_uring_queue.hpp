// SPDX-License-Identifier: Apache-2.0
#pragma once
// The io_uring engine of DirectRequestQueue; built only with liburing (AESGPU_HAVE_IO_URING).
#include "io/direct_requests.hpp"

#include <memory>
#include <string>

namespace aesgpu {

// A ring of `depth` entries, or null with `why_not` set where the kernel refuses or lacks it.
[[nodiscard]] std::unique_ptr<DirectRequestQueue> make_io_uring_queue(unsigned depth, std::string &why_not);

} // namespace aesgpu
