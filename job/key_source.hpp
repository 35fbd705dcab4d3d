// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where a file job's key comes from: the caller's choice (a raw key, a key file, a passphrase
// read from somewhere, a prompt), behind one interface, so that the library neither reads
// terminals nor knows command-line flags.
#include "cipher/secret_bytes.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <utility>

namespace aesgpu {

class KeySource {
public:
    virtual ~KeySource() = default;
    // True: secret() is a passphrase, from which the key is derived (PBKDF2 for ECB and CTR, as
    // `openssl enc -pbkdf2`; scrypt for GCM). False: secret() is the AES key itself.
    [[nodiscard]] virtual bool passphrase_mode() const = 0;
    // True while the secret is still to be asked for (a prompt): a run checks first what needs no
    // key (the GPU asked for). By default, a passphrase's.
    [[nodiscard]] virtual bool will_prompt() const { return passphrase_mode(); }
    // The secret, asked for on first use (a prompt may ask only here); throws when it cannot be had.
    virtual const SecretBytes &secret() = 0;
    // True once the secret could not be had when last asked for (a key file unreadable, a prompt
    // that gave nothing): every later run would fail the same way.
    [[nodiscard]] virtual bool failed() const { return false; }
    // A passphrase read as a line (as openssl reads -pass file:, fd: and stdin) that is longer than
    // openssl keeps of one (kMaxPassphraseLineBytes): the bytes openssl keeps, which openssl's
    // formats take, so that both tools read the same passphrase. Null otherwise.
    [[nodiscard]] virtual const SecretBytes *openssl_line() { return nullptr; }
    // Told when openssl_line() was taken for `input`: for openssl's format, or for a GCM file that
    // only opened with it (made when aesgpu cut every line so).
    virtual void took_openssl_line(bool /*openssl_format*/, const std::string & /*input*/) {}
};

// A raw AES key held in memory (wiped when done).
class RawKey final : public KeySource {
public:
    explicit RawKey(std::span<const std::uint8_t> key) : key_(key) {}
    [[nodiscard]] bool passphrase_mode() const override { return false; }
    const SecretBytes &secret() override { return key_; }

private:
    SecretBytes key_;
};

// A passphrase held in memory (wiped when done).
class Passphrase final : public KeySource {
public:
    explicit Passphrase(SecretBytes passphrase) : passphrase_(std::move(passphrase)) {}
    [[nodiscard]] bool passphrase_mode() const override { return true; }
    const SecretBytes &secret() override { return passphrase_; }

private:
    SecretBytes passphrase_;
};

} // namespace aesgpu
