// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where the command's passphrase comes from: `-p SPEC` the way `openssl enc -pass` takes it, or
// the terminal's prompt (echo off, given back on a signal or Ctrl-Z).
#include "cipher/secret_bytes.hpp"
#include "keys/passphrase.hpp"
#include "keys/raw_key.hpp"

#include <sys/stat.h>

#include <optional>
#include <string>
#include <string_view>

namespace aesgpu {

// A passphrase as it was given.
struct GivenPassphrase {
    SecretBytes bytes;
    std::string from; // "passphrase file 'NAME'", "descriptor 3", "standard input", "the terminal", ...
    // Read as a line (file:, fd:, stdin, the terminal), of which openssl's formats take the first
    // kMaxPassphraseLineBytes (KeySource::openssl_line).
    bool line = false;
    // The line went on past kMaxPassphraseBytes: `bytes` holds that many, too few for GCM.
    bool longer = false;
};

// SPEC read as openssl 3's app_get_pass (apps/lib/apps.c) reads it, so that a passphrase source
// gives both tools the same passphrase: pass:TEXT and env:VAR as they are; file:PATH, fd:N and
// stdin the first line, that is up to and without the first newline (up to kMaxPassphraseBytes:
// openssl keeps 1023 of them, which its formats take); a
// carriage return stays part of it, and a NUL byte ends it. `data_on_stdin` is standard input's
// status when the data comes from there: a source that is that same file is refused. `read_from`,
// when given, gets the status of the file or descriptor read (file:, fd:, stdin), so that no input
// can be that file under another name. `warn` hears of a file or descriptor others can read.
// Throws UsageError for a bad SPEC (never showing it: it may be the passphrase itself), an unset
// variable or standard input that carries the data; KeyError for a file or descriptor that is the
// data; IoError when a file or descriptor cannot be read or holds nothing; EmptyPassphrase. (The
// command exits 2 for either of the first two.)
[[nodiscard]] GivenPassphrase read_passphrase(std::string_view spec, const struct stat *data_on_stdin,
                                              std::optional<struct stat> *read_from = nullptr,
                                              const SecretWarning &warn = {});

// True when a terminal is there to prompt on (/dev/tty opens).
[[nodiscard]] bool can_prompt();

// Prompts on the terminal with echo off; when `confirm`, asks twice and requires the same answer.
// The answer is a line, as file: reads one. Throws EmptyPassphrase for an empty answer or end of
// input (Ctrl-D).
[[nodiscard]] GivenPassphrase prompt_passphrase(const std::string &cipher_name, bool confirm);

} // namespace aesgpu
