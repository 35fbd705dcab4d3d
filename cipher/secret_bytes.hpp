// SPDX-License-Identifier: Apache-2.0
#pragma once
// Key material that is wiped when released: SecretBytes for keys and passphrases of any length,
// Secret<T> for fixed-size key-derived state (round keys, kernel parameters). Every wipe goes
// through wipe_secret(), the one call to OPENSSL_cleanse, which the optimiser may not drop.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace aesgpu {

// Overwrites `bytes` bytes at `data` with zeros in a way the compiler cannot elide.
void wipe_secret(void *data, std::size_t bytes) noexcept;

// A value of plain bytes (no pointers) holding key material, wiped where it lies when destroyed
// or moved from. Not copyable: every copy of a key is one more to wipe.
template <typename T>
requires std::is_trivially_copyable_v<T>
class Secret {
public:
    Secret() = default;
    ~Secret() { wipe(); }
    Secret(Secret &&other) noexcept : value_(other.value_) { other.wipe(); }
    Secret &operator=(Secret &&other) noexcept {
        if (this != &other) {
            value_ = other.value_;
            other.wipe();
        }
        return *this;
    }
    Secret(const Secret &) = delete;
    Secret &operator=(const Secret &) = delete;

    [[nodiscard]] T &operator*() { return value_; }
    [[nodiscard]] const T &operator*() const { return value_; }
    [[nodiscard]] T *operator->() { return &value_; }
    [[nodiscard]] const T *operator->() const { return &value_; }
    void wipe() noexcept { wipe_secret(&value_, sizeof value_); }

private:
    T value_{};
};

class SecretBytes {
public:
    SecretBytes() = default;
    explicit SecretBytes(std::size_t size) : bytes_(size) {}
    explicit SecretBytes(std::span<const std::uint8_t> bytes) : bytes_(bytes.begin(), bytes.end()) {}
    ~SecretBytes() { wipe(); }
    SecretBytes(SecretBytes &&other) noexcept : bytes_(std::move(other.bytes_)) { other.bytes_.clear(); }
    SecretBytes &operator=(SecretBytes &&other) noexcept;
    SecretBytes(const SecretBytes &) = delete;
    SecretBytes &operator=(const SecretBytes &) = delete;

    // Copies `text` (a secret the command line parser handed over) and wipes the original.
    [[nodiscard]] static SecretBytes take(std::string &text);

    [[nodiscard]] std::span<const std::uint8_t> view() const { return bytes_; }
    [[nodiscard]] std::string_view text() const {
        return {reinterpret_cast<const char *>(bytes_.data()), bytes_.size()};
    }
    [[nodiscard]] std::span<std::uint8_t> mutable_view() { return bytes_; }
    [[nodiscard]] std::size_t size() const { return bytes_.size(); }
    [[nodiscard]] bool empty() const { return bytes_.empty(); }
    // Overwrites the bytes (wipe_secret) and empties; the memory stays allocated until the
    // destructor, which wipes too.
    void wipe();

private:
    std::vector<std::uint8_t> bytes_;
};

} // namespace aesgpu
