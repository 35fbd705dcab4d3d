// SPDX-License-Identifier: Apache-2.0
#include "api/key.hpp"

#include "api/error_kind.hpp"

#include "common/errors.hpp"
#include "keys/passphrase.hpp"
#include "keys/raw_key.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace aesgpu {

namespace {

std::span<const std::uint8_t> bytes_of(std::string_view text) {
    return {reinterpret_cast<const std::uint8_t *>(text.data()), text.size()};
}

// A secret in hand from the start: a raw key or a passphrase.
class HeldSecret final : public Key::Source {
public:
    HeldSecret(SecretBytes secret, bool passphrase) : secret_(std::move(secret)), passphrase_(passphrase) {}
    [[nodiscard]] bool passphrase_mode() const override { return passphrase_; }
    const SecretBytes &secret() override { return secret_; }

private:
    SecretBytes secret_;
    bool passphrase_;
};

// A secret fetched on first use (a key file read, a prompt asked), then kept: once for every call
// that shares the Key, on whichever thread asks first.
class LateSecret final : public Key::Source {
public:
    LateSecret(std::function<SecretBytes()> fetch, bool passphrase, std::optional<std::filesystem::path> file = {})
        : fetch_(std::move(fetch)), passphrase_(passphrase), file_(std::move(file)) {}
    [[nodiscard]] bool passphrase_mode() const override { return passphrase_; }
    [[nodiscard]] const std::filesystem::path *file() const override { return file_ ? &*file_ : nullptr; }
    const SecretBytes &secret() override {
        std::lock_guard lock(mutex_);
        if (!secret_) {
            failed_ = true;
            secret_.emplace(fetch_());
            failed_ = false;
        }
        return *secret_;
    }
    [[nodiscard]] bool failed() const override {
        std::lock_guard lock(mutex_);
        return failed_;
    }

private:
    std::function<SecretBytes()> fetch_;
    mutable std::mutex mutex_;
    std::optional<SecretBytes> secret_;
    bool failed_ = false;
    bool passphrase_;
    std::optional<std::filesystem::path> file_;
};

// An empty passphrase protects nothing: refused wherever it came from, as the command refuses it.
SecretBytes checked_passphrase(SecretBytes passphrase) {
    if (passphrase.empty()) throw EmptyPassphrase("the passphrase is empty");
    return passphrase;
}

} // namespace

Key::Key(std::unique_ptr<Source> source) : source_(std::move(source)) {}
Key::Key(Key &&other) noexcept = default;
Key &Key::operator=(Key &&other) noexcept = default;
Key::~Key() = default;

namespace {

// Runs a factory: what the library throws there comes out as the public Error.
template <typename Make>
Key made(Make make) {
    try {
        return make();
    } catch (...) {
        throw public_error(std::current_exception());
    }
}

} // namespace

Key Key::raw(std::span<const std::uint8_t> key) {
    if (key.size() != 16 && key.size() != 24 && key.size() != 32) {
        throw Error(ErrorKind::key, "a raw key has 16, 24 or 32 bytes, not " + std::to_string(key.size()));
    }
    return Key(std::make_unique<HeldSecret>(SecretBytes(key), false));
}

Key Key::raw_hex(std::string_view hex) {
    return made([hex] { return Key(std::make_unique<HeldSecret>(parse_hex_key(hex), false)); });
}

Key Key::key_file(const std::filesystem::path &path, std::function<void(std::string_view)> warn) {
    auto read = [path = path.string(), warn = std::move(warn)] {
        SecretWarning told;
        if (warn) told = [&warn](const std::string &warning) { call_caller([&] { warn(warning); }); };
        try {
            return read_key_file(path, nullptr, nullptr, told);
        } catch (const IoError &e) { // the same words as an input's: say which file it is
            throw Error(ErrorKind::key, std::string("key file: ") + e.what());
        }
    };
    return Key(std::make_unique<LateSecret>(std::move(read), false, path));
}

Key Key::passphrase(std::string_view passphrase) {
    return made([passphrase] {
        return Key(std::make_unique<HeldSecret>(checked_passphrase(SecretBytes(bytes_of(passphrase))), true));
    });
}

Key Key::passphrase_prompt(std::function<std::size_t(std::span<char>)> ask) {
    auto asked = [ask = std::move(ask)] {
        SecretBytes buffer(kMaxPassphraseLineBytes);
        const std::span<char> room(reinterpret_cast<char *>(buffer.mutable_view().data()), buffer.size());
        const std::size_t length = call_caller([&] { return ask(room); });
        if (length > room.size()) {
            throw Error(ErrorKind::key, "the passphrase prompt returned a length larger than its buffer");
        }
        SecretBytes passphrase(buffer.view().first(length));
        return checked_passphrase(std::move(passphrase));
    };
    return Key(std::make_unique<LateSecret>(std::move(asked), true));
}

std::array<std::uint8_t, 16> iv_from_hex(std::string_view hex) {
    try {
        return parse_hex_iv(hex, "iv");
    } catch (const std::exception &e) {
        throw Error(ErrorKind::settings, e.what());
    }
}

Key::Source &key_source(Key &key) {
    if (!key.source_) throw std::invalid_argument("key: a Key that was moved from holds nothing");
    return *key.source_;
}

} // namespace aesgpu
