// SPDX-License-Identifier: Apache-2.0
#pragma once
// The library's side of the public aesgpu::Key: a job/ KeySource, so that cipher_file asks for a
// raw key, a key file or a passphrase only when it needs it.
#include "job/key_source.hpp"

#include <aesgpu/aesgpu.hpp>

#include <exception>
#include <filesystem>

namespace aesgpu {

struct Key::Source : KeySource {
    // The key file the secret comes from, if it does: no input or output may be that file.
    [[nodiscard]] virtual const std::filesystem::path *file() const { return nullptr; }
};

Key::Source &key_source(Key &key);

// What a caller's own code threw (a passphrase prompt, an Observer callback), carried through the
// library to come out of cipher_file as it was thrown. Not a std::exception, so that nothing on the
// way mistakes it for one of the library's.
struct CallerFailure {
    std::exception_ptr thrown;
};

// Runs `call`, the caller's code: what it throws becomes a CallerFailure.
template <typename Call>
decltype(auto) call_caller(Call &&call) {
    try {
        return call();
    } catch (...) {
        throw CallerFailure{std::current_exception()};
    }
}

} // namespace aesgpu
