// SPDX-License-Identifier: Apache-2.0
#pragma once
// Running the aesgpu binary from tests as users and scripts run it: a bash command line in a
// fresh directory, with $AESGPU naming the binary under test. AESGPU_TEST_BINARY, when set,
// points the CLI tests at another build (e.g. an older commit, to watch a new test fail there).
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char **environ;

namespace aesgpu::test {

inline const std::string kKey128 = "000102030405060708090a0b0c0d0e0f";

struct Outcome {
    int status;
    std::string out;
    std::string err;
};

inline std::string slurp(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

inline std::string binary_under_test() {
    const char *other = std::getenv("AESGPU_TEST_BINARY");
    return other && *other ? other : AESGPU_BINARY;
}

class Cli : public testing::Test {
protected:
    static void SetUpTestSuite() { setenv("AESGPU", binary_under_test().c_str(), 1); }

    // Runs a bash command line in the work directory; $AESGPU is the binary under test.
    Outcome run(const std::string &command) const {
        const std::string line = "cd '" + dir.path().string() + "' && (" + command + ") >'" + capture.file("out") +
                                 "' 2>'" + capture.file("err") + "' </dev/null";
        const int raw = std::system(("bash -c " + quote(line)).c_str());
        return {WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw), slurp(capture.file("out")),
                slurp(capture.file("err"))};
    }

    static std::string quote(const std::string &text) {
        std::string quoted = "'";
        for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
        return quoted + "'";
    }

    std::string file(const std::string &name) const { return dir.file(name); }
    std::size_t entries() const { return count_entries(dir.path()); }

    TempDir dir;
    TempDir capture;
};

// True where `aesgpu info` says --backend auto would use a GPU ("Backend auto:   cpu+gpu").
inline bool gpu_available() {
    static const bool available = [] {
        const std::string command = binary_under_test() + " info | grep -Eq '^Backend auto:.*\\bgpu'";
        return std::system(command.c_str()) == 0;
    }();
    return available;
}

// Set by scripts/checks/sanitize.sh: the binary then needs terabytes of address space for shadow memory.
inline bool under_sanitizer() {
    return std::getenv("AESGPU_TEST_UNDER_SANITIZER") != nullptr;
}

inline bool have_command(const std::string &name) {
    return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

// Peak resident memory of one run of the binary (no shell in between), or -1 if it failed.
inline long peak_rss_kib(const std::vector<std::string> &arguments) {
    std::vector<char *> argv;
    std::string binary = binary_under_test();
    argv.push_back(binary.data());
    std::vector<std::string> copies = arguments;
    for (auto &argument : copies) argv.push_back(argument.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, binary.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return -1;
    int status = 0;
    struct rusage usage {};
    if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
    return usage.ru_maxrss;
}

} // namespace aesgpu::test
