// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one place where the library's own exception types become the public Error's kinds.
#include <aesgpu/aesgpu.hpp>

#include <exception>

namespace aesgpu {

// The public Error for `failure` (an Error stays as it is). Its message is the original's.
[[nodiscard]] Error public_error(const std::exception_ptr &failure);

} // namespace aesgpu
