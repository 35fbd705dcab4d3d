// SPDX-License-Identifier: Apache-2.0
#pragma once
// Python's `tink` (Google's own AES-GCM-HKDF streaming AEAD) through tests/interop/tink_stream.py:
// the reference the --mode gcm tests check our files against, both ways.
//
// Python with tink: $AESGPU_TINK_PYTHON (a command), else <source>/.venv-tink/bin/python3 (made
// by scripts/checks/tink-venv.sh), else python3. Without tink the interop tests skip, unless
// AESGPU_REQUIRE_TINK is set (CI sets it), when they fail.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace aesgpu::test {

inline std::string tink_python() {
    if (const char *command = std::getenv("AESGPU_TINK_PYTHON"); command && *command) return command;
    const std::string venv = std::string(AESGPU_SOURCE_DIR) + "/.venv-tink/bin/python3";
    return std::filesystem::exists(venv) ? venv : "python3";
}

// The command that runs tests/interop/tink_stream.py, or "" (and a skip or failure) without tink.
inline std::string tink_command() {
    static const std::string command = [] {
        const std::string python = tink_python();
        if (std::system((python + " -c 'import tink' 2>/dev/null").c_str()) != 0) return std::string();
        return python + " " + AESGPU_SOURCE_DIR + "/tests/interop/tink_stream.py";
    }();
    return command;
}

#define REQUIRE_TINK()                                                                                                 \
    do {                                                                                                               \
        if (tink_command().empty()) {                                                                                  \
            if (std::getenv("AESGPU_REQUIRE_TINK")) FAIL() << "Python's tink is required here: " << tink_python();     \
            GTEST_SKIP() << "Python's tink is not installed (scripts/checks/tink-venv.sh makes .venv-tink)";           \
        }                                                                                                              \
    } while (false)

} // namespace aesgpu::test
