// SPDX-License-Identifier: Apache-2.0
#pragma once
// Error types the libraries throw; app/ maps them to exit codes and one-line messages.
#include <stdexcept>
#include <string>
#include <string_view>

namespace aesgpu {

// An operating-system call failed (open, read, write, rename...).
class IoError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The output is there already (or is a symbolic link to a file that is not), and replacing it was
// not asked for. `situation` says which, `verb` what replacing would do ("overwrite", "create"):
// a caller words how to ask (the command: "; use -f to overwrite it").
class OutputNeedsOverwrite : public IoError {
public:
    OutputNeedsOverwrite(const std::string &what_is_there, const char *replacing)
        : IoError(what_is_there + " (set overwrite to " + replacing + " it)"), situation(what_is_there),
          verb(replacing) {}
    std::string situation;
    const char *verb;
};

// A block device named as the output: written into, never replaced, and only when asked.
class BlockDeviceNeedsOverwrite : public OutputNeedsOverwrite {
public:
    explicit BlockDeviceNeedsOverwrite(const std::string &name)
        : OutputNeedsOverwrite("refusing to write to block device " + name, "write into") {}
};

// A write found no reader at the other end of a pipe (EPIPE): the consumer went away, which
// (as for `cat`) ends the run quietly rather than as an error.
class BrokenPipe : public IoError {
public:
    using IoError::IoError;
};

// The data cannot be what it claims: ragged length, bad padding, wrong key.
class FormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Decryption finished but the padding is wrong: almost always the wrong key or passphrase.
class BadPadding : public FormatError {
public:
    using FormatError::FormatError;
};

// An authenticated segment's tag did not match: wrong key or associated data, or a changed,
// truncated, reordered or extended stream. Nothing of the segment was released.
class AuthenticationFailed : public FormatError {
public:
    using FormatError::FormatError;
};

// An authenticated stream ends inside a segment's tag, where no segment can end: it was cut short,
// or it is read with another segment size than it was made with.
class StreamCutShort : public FormatError {
public:
    using FormatError::FormatError;
};

// An authenticated stream would need a segment numbered 2^32 or above: Tink's nonce holds the
// number in 4 bytes, so that segment would reuse segment 0's nonce under the same key.
class TooManySegments : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A mistake in how aesgpu was called (bad option value, missing output name): exit 2. Thrown by
// app/ only (and the bench's options); the library says what is wrong with a typed error.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A key, IV or key file that cannot be used as given: not hex, not a key's size, a key file that
// is a directory or where the data comes from. The command exits 2 for it, as for a usage
// mistake; the public API calls it ErrorKind::key (an IV's, ErrorKind::settings).
class KeyError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A thread could not be started (the process or user limit, ulimit -u): unlike memory, smaller
// buffers do not help.
class ThreadLimit : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Thrown by a wait that was called off because the run is failing elsewhere (a read of a pipe, a
// submit waiting for room); the failure that called it off is the one to report.
class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

// What a std::bad_alloc means, for the one line a failed run prints (its own text is "std::bad_alloc").
inline constexpr const char *kNotEnoughMemory = "not enough memory (a limit on memory, such as ulimit -v?)";

// "<action> <subject>: <strerror(err)>", e.g. "cannot open 'x': No such file or directory".
[[nodiscard]] std::string errno_message(std::string_view action, std::string_view subject, int err);

// A file name as messages show it: 'name' in single quotes, as the shell would read it back. A
// name with a control character or bytes that are not UTF-8 becomes $'...' with escapes, so one
// message stays one line and a name can never drive the terminal.
[[nodiscard]] std::string quoted_name(std::string_view name);

// `text` with every control character escaped as quoted_name() does, for messages that quote
// arguments they did not build (CLI11's parse errors): one message, one line.
[[nodiscard]] std::string printable(std::string_view text);

} // namespace aesgpu
