// SPDX-License-Identifier: Apache-2.0
#include "app/passphrase_source.hpp"

#include "app/interrupts.hpp"
#include "common/errors.hpp"
#include "common/unique_fd.hpp"

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>

namespace aesgpu {

namespace {

const std::string kNotShown = " (the value is not shown: it may be the passphrase itself)";

// One line: through the first newline, or kMaxPassphraseBytes bytes and one more (which says the
// line goes on). Byte by byte, so that nothing after the line is consumed (the data may follow on
// the same descriptor). Returns nothing at end of input before any byte.
std::optional<GivenPassphrase> read_line(int fd, const std::string &what) {
    SecretBytes line(kMaxPassphraseBytes + 1);
    auto bytes = line.mutable_view();
    std::size_t length = 0;
    while (length < bytes.size()) {
        std::uint8_t c = 0;
        const ssize_t got = ::read(fd, &c, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw KeyError(errno_message("cannot read the passphrase from", what, errno));
        if (got == 0) break;
        bytes[length++] = c;
        if (c == '\n') break;
    }
    if (length == 0) return std::nullopt;
    // openssl copies the line as a C string and cuts it at the first newline.
    const auto end = std::find_if(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(length),
                                  [](std::uint8_t b) { return b == '\n' || b == '\0'; });
    const std::size_t taken = static_cast<std::size_t>(end - bytes.begin());
    // Past kMaxPassphraseBytes with no newline or NUL there: the line goes on.
    const bool longer = taken > kMaxPassphraseBytes;
    return GivenPassphrase{SecretBytes(bytes.first(std::min(taken, kMaxPassphraseBytes))), what, true, longer};
}

GivenPassphrase first_line(int fd, const std::string &what) {
    std::optional<GivenPassphrase> line = read_line(fd, what);
    if (!line) throw KeyError(what + " holds no passphrase (it is empty)");
    if (line->bytes.empty()) throw EmptyPassphrase("the passphrase from " + what + " is empty");
    return std::move(*line);
}

GivenPassphrase from_text(std::string_view text, const std::string &what) {
    if (text.empty()) throw EmptyPassphrase("the passphrase from " + what + " is empty");
    return {SecretBytes(std::span(reinterpret_cast<const std::uint8_t *>(text.data()), text.size())), what};
}

// Echo off on the terminal for as long as it lives, given back by the interrupt clean-up too
// (Ctrl-C or Ctrl-\ at the prompt).
class EchoOff {
public:
    explicit EchoOff(int fd) : fd_(fd) {
        if (::tcgetattr(fd_, &saved_) != 0) return;
        termios quiet = saved_;
        quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
        // Ctrl-Z at the prompt: the shell gets its echo while aesgpu is stopped; fg hides again.
        stopped_.emplace([fd = fd_, saved = saved_] { (void)::tcsetattr(fd, TCSAFLUSH, &saved); },
                         [fd = fd_, quiet] { (void)::tcsetattr(fd, TCSAFLUSH, &quiet); });
        restore_on_interrupt_ = InterruptCleanup::after(
            &interrupt_cleanups(), [&] { return active_ = ::tcsetattr(fd_, TCSAFLUSH, &quiet) == 0; },
            [fd = fd_, saved = saved_] { (void)::tcsetattr(fd, TCSAFLUSH, &saved); });
    }
    ~EchoOff() {
        stopped_.reset(); // first: a Ctrl-Z from here on must not turn echo off again on fg
        if (active_) (void)::tcsetattr(fd_, TCSAFLUSH, &saved_);
    }
    EchoOff(const EchoOff &) = delete;
    EchoOff &operator=(const EchoOff &) = delete;

private:
    int fd_;
    termios saved_{};
    bool active_ = false;
    std::optional<StopHooks> stopped_;
    InterruptCleanup restore_on_interrupt_; // released after the destructor gave echo back
};

GivenPassphrase ask(int tty, const std::string &prompt) {
    (void)!::write(tty, prompt.data(), prompt.size());
    std::optional<GivenPassphrase> answer = [&] {
        EchoOff quiet(tty);
        return read_line(tty, "the terminal");
    }();
    (void)!::write(tty, "\n", 1);
    if (!answer) throw EmptyPassphrase("no passphrase entered");
    if (answer->bytes.empty()) throw EmptyPassphrase("the passphrase is empty");
    return std::move(*answer);
}

int descriptor_number(std::string_view number) {
    int fd = -1;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), fd);
    if (error != std::errc{} || end != number.data() + number.size() || fd < 0) {
        throw UsageError("--pass fd:N needs a descriptor number N" + kNotShown);
    }
    return fd;
}

} // namespace

GivenPassphrase read_passphrase(std::string_view spec, const struct stat *data_on_stdin,
                                std::optional<struct stat> *read_from, const SecretWarning &warn) {
    if (spec.starts_with("pass:")) return from_text(spec.substr(5), "pass:");
    if (spec.starts_with("env:")) {
        const std::string name(spec.substr(4));
        char *value = std::getenv(name.c_str());
        if (!value) throw UsageError("--pass env:" + quoted_name(name) + ": the variable is not set");
        GivenPassphrase passphrase = from_text(value, "env:" + quoted_name(name));
        // Wiped where it lies, which also blanks it in /proc/PID/environ.
        wipe_secret(value, std::strlen(value));
        return passphrase;
    }
    if (spec.starts_with("file:")) {
        const std::string path(spec.substr(5));
        const std::string what = "passphrase file " + quoted_name(path);
        const UniqueFd file = open_secret_file(path, what, data_on_stdin, read_from, warn);
        return first_line(file.get(), what);
    }
    if (spec.starts_with("fd:")) {
        const int fd = descriptor_number(spec.substr(3));
        const std::string what = "descriptor " + std::to_string(fd);
        if (fd == STDIN_FILENO && data_on_stdin) {
            throw UsageError("--pass fd:0: the data already comes from standard input");
        }
        check_secret_descriptor(fd, what, data_on_stdin, read_from, warn);
        return first_line(fd, what);
    }
    if (spec == "stdin") {
        if (data_on_stdin) throw UsageError("--pass stdin: the data already comes from standard input");
        struct stat status {};
        if (read_from && ::fstat(STDIN_FILENO, &status) == 0) *read_from = status;
        return first_line(STDIN_FILENO, "standard input");
    }
    throw UsageError("--pass takes pass:TEXT, env:VAR, file:PATH, fd:N or stdin" + kNotShown);
}

bool can_prompt() {
    UniqueFd tty(::open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY));
    return tty.valid();
}

GivenPassphrase prompt_passphrase(const std::string &cipher_name, bool confirm) {
    UniqueFd tty(::open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY));
    if (!tty.valid()) throw UsageError("no terminal to ask for the passphrase on; use -p/--pass SPEC");
    const std::string prompt = "enter " + cipher_name + (confirm ? " encryption" : " decryption") + " password:";
    GivenPassphrase first = ask(tty.get(), prompt);
    if (confirm) {
        const GivenPassphrase again = ask(tty.get(), "Verifying - " + prompt);
        if (again.bytes.size() != first.bytes.size() || again.longer != first.longer ||
            !std::equal(first.bytes.view().begin(), first.bytes.view().end(), again.bytes.view().begin())) {
            throw std::runtime_error("the passphrases do not match");
        }
    }
    return first;
}

} // namespace aesgpu
