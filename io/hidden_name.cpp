// SPDX-License-Identifier: Apache-2.0
#include "io/hidden_name.hpp"

#include "common/errors.hpp"

#include <sys/random.h>

#include <array>
#include <cerrno>

namespace aesgpu {

std::string hidden_name(const std::string &target_name) {
    static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::array<unsigned char, 8> random{};
    if (::getrandom(random.data(), random.size(), 0) != static_cast<ssize_t>(random.size())) {
        throw IoError(errno_message("cannot name", "a temporary file", errno));
    }
    std::string name(".");
    name.append(target_name, 0, 200).append(".aesgpu-"); // append: GCC 12 warns falsely on + chains
    for (const unsigned char r : random) name += kLetters[r % (sizeof kLetters - 1)];
    return name;
}

} // namespace aesgpu
