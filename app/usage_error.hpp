#pragma once
// A mistake in how aesgpu was called (bad option value, bad key, missing output name): exit 2.
#include <stdexcept>

namespace aesgpu {

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace aesgpu
