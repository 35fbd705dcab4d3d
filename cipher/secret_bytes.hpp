#pragma once
// Key material that is wiped (OPENSSL_cleanse, which the optimiser may not drop) when released.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace aesgpu {

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
    // Overwrites the bytes (OPENSSL_cleanse) and empties; the memory stays allocated until the
    // destructor, which wipes too.
    void wipe();

private:
    std::vector<std::uint8_t> bytes_;
};

} // namespace aesgpu
