#pragma once
// Page-aligned heap memory for the CPU backend's ring slots.
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>

namespace aesgpu {

class AlignedBuffer {
public:
    static constexpr std::size_t kAlignment = 4096;

    AlignedBuffer() = default;
    explicit AlignedBuffer(std::size_t bytes) : size_(bytes) {
        const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
        if (rounded == 0) return;
        data_.reset(static_cast<std::byte *>(std::aligned_alloc(kAlignment, rounded)));
        if (!data_) throw std::bad_alloc();
    }

    [[nodiscard]] std::span<std::byte> span() { return {data_.get(), size_}; }
    [[nodiscard]] std::size_t size() const { return size_; }

private:
    struct Free {
        void operator()(std::byte *p) const { std::free(p); }
    };
    std::unique_ptr<std::byte, Free> data_;
    std::size_t size_ = 0;
};

} // namespace aesgpu
