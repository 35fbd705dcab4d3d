#include "app/passphrase.hpp"

#include "app/interrupts.hpp"
#include "app/usage_error.hpp"
#include "io/errors.hpp"
#include "io/unique_fd.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

namespace aesgpu {

namespace {

constexpr std::size_t kMaxPassphraseBytes = 4096;

// Reads up to the first newline (not included; a trailing CR goes too), as openssl does.
SecretBytes read_first_line(int fd, const std::string &what) {
    SecretBytes line(kMaxPassphraseBytes);
    auto bytes = line.mutable_view();
    std::size_t length = 0;
    for (;;) {
        char c = 0;
        const ssize_t got = ::read(fd, &c, 1); // byte by byte: never read past the line
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw IoError(errno_message("cannot read the passphrase from", what, errno));
        if (got == 0 || c == '\n') break;
        if (length == bytes.size()) throw UsageError("the passphrase from " + what + " is longer than 4096 bytes");
        bytes[length++] = static_cast<std::uint8_t>(c);
    }
    if (length > 0 && bytes[length - 1] == '\r') --length;
    SecretBytes result(bytes.first(length));
    return result;
}

SecretBytes from_text(std::string_view text) {
    return SecretBytes(std::span(reinterpret_cast<const std::uint8_t *>(text.data()), text.size()));
}

// Echo off on the terminal for as long as it lives.
class EchoOff {
public:
    explicit EchoOff(int fd) : fd_(fd) {
        if (::tcgetattr(fd_, &saved_) == 0) {
            termios quiet = saved_;
            quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
            arm_terminal_restore(fd_, saved_); // Ctrl-C at the prompt must not leave echo off
            active_ = ::tcsetattr(fd_, TCSAFLUSH, &quiet) == 0;
        }
    }
    ~EchoOff() {
        if (active_) (void)::tcsetattr(fd_, TCSAFLUSH, &saved_);
        disarm_terminal_restore();
    }
    EchoOff(const EchoOff &) = delete;
    EchoOff &operator=(const EchoOff &) = delete;

private:
    int fd_;
    termios saved_{};
    bool active_ = false;
};

SecretBytes ask(int tty, const std::string &prompt) {
    (void)!::write(tty, prompt.data(), prompt.size());
    SecretBytes answer = [&] {
        EchoOff quiet(tty);
        return read_first_line(tty, "the terminal");
    }();
    (void)!::write(tty, "\n", 1);
    return answer;
}

} // namespace

SecretBytes read_passphrase(const std::string &spec, bool data_on_stdin) {
    const std::string_view text = spec;
    if (text.starts_with("pass:")) return from_text(text.substr(5));
    if (text.starts_with("env:")) {
        const std::string name(text.substr(4));
        const char *value = std::getenv(name.c_str());
        if (!value) throw UsageError("--pass env:" + name + ": the variable is not set");
        return from_text(value);
    }
    if (text.starts_with("file:")) {
        const std::string path(text.substr(5));
        UniqueFd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
        if (!file.valid()) throw IoError(errno_message("cannot open passphrase file", "'" + path + "'", errno));
        return read_first_line(file.get(), "'" + path + "'");
    }
    if (text.starts_with("fd:")) {
        int fd = -1;
        const std::string_view number = text.substr(3);
        const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), fd);
        if (error != std::errc{} || end != number.data() + number.size() || fd < 0) {
            throw UsageError("--pass " + spec + ": fd: needs a descriptor number");
        }
        if (fd == STDIN_FILENO && data_on_stdin) {
            throw UsageError("--pass " + spec + ": the data already comes from standard input");
        }
        return read_first_line(fd, "descriptor " + std::string(number));
    }
    if (text == "stdin") {
        if (data_on_stdin) throw UsageError("--pass stdin: the data already comes from standard input");
        return read_first_line(STDIN_FILENO, "standard input");
    }
    throw UsageError("--pass takes pass:TEXT, env:VAR, file:PATH, fd:N or stdin, not '" + spec + "'");
}

bool can_prompt() {
    UniqueFd tty(::open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY));
    return tty.valid();
}

SecretBytes prompt_passphrase(const std::string &cipher_name, bool confirm) {
    UniqueFd tty(::open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY));
    if (!tty.valid()) throw UsageError("no terminal to ask for the passphrase on; use -p/--pass SPEC");
    const std::string prompt = "enter " + cipher_name + (confirm ? " encryption" : " decryption") + " password:";
    SecretBytes first = ask(tty.get(), prompt);
    if (confirm) {
        const SecretBytes again = ask(tty.get(), "Verifying - " + prompt);
        if (again.size() != first.size() ||
            !std::equal(first.view().begin(), first.view().end(), again.view().begin())) {
            throw std::runtime_error("the passphrases do not match");
        }
    }
    return first;
}

Salt random_salt() {
    Salt salt{};
    if (RAND_bytes(salt.data(), static_cast<int>(salt.size())) != 1) {
        throw std::runtime_error("OpenSSL could not produce random bytes for the salt");
    }
    return salt;
}

SecretBytes derive_key(const SecretBytes &passphrase, const Salt &salt, unsigned iterations, std::size_t key_bytes) {
    SecretBytes key(key_bytes);
    if (PKCS5_PBKDF2_HMAC(reinterpret_cast<const char *>(passphrase.view().data()), static_cast<int>(passphrase.size()),
                          salt.data(), static_cast<int>(salt.size()), static_cast<int>(iterations), EVP_sha256(),
                          static_cast<int>(key_bytes), key.mutable_view().data()) != 1) {
        throw std::runtime_error("OpenSSL PBKDF2 failed");
    }
    return key;
}

} // namespace aesgpu
