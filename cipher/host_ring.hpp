// SPDX-License-Identifier: Apache-2.0
#pragma once
// The host side of a ring: one page-aligned buffer per slot. Page alignment lets the GPU
// page-lock the buffers in place (cudaHostRegister) when it works over a ring it did not make.
// Slots of 2 MiB or more lie on huge-page boundaries and ask for transparent huge pages: each
// direct read or write pins its buffer's pages in the kernel, 4 KiB page by 4 KiB page otherwise
// (gup_fast_fallback was the largest kernel cost of a direct run, bench/NOTES.md).
#include "cipher/cipher_backend.hpp"

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace aesgpu {

class HostRing {
public:
    static constexpr std::size_t kAlignment = 4096;

    HostRing() = default;
    // Throws ResourceExhausted when memory is short, so that the pipeline retries smaller.
    HostRing(std::size_t slot_count, std::size_t slot_bytes) {
        // Rounding up to whole pages would wrap past the largest size to 0, and a null buffer.
        if (slot_bytes > std::numeric_limits<std::size_t>::max() - (kAlignment - 1)) {
            throw ResourceExhausted("not enough memory for buffers of " + std::to_string(slot_bytes) + " bytes");
        }
        const std::size_t rounded = (slot_bytes + kAlignment - 1) / kAlignment * kAlignment;
        memory_.reserve(slot_count); // so that emplace_back below cannot throw and leak
        buffers_.reserve(slot_count);
        for (std::size_t i = 0; i < slot_count; ++i) {
            std::byte *data = rounded ? allocate(rounded) : nullptr;
            if (rounded && !data) {
                throw ResourceExhausted("not enough memory for " + std::to_string(slot_count) + " buffers of " +
                                        std::to_string(slot_bytes >> 10) + " KiB");
            }
            memory_.emplace_back(data);
            buffers_.emplace_back(data, slot_bytes);
        }
    }

    [[nodiscard]] const std::vector<std::span<std::byte>> &buffers() const { return buffers_; }
    [[nodiscard]] std::span<std::byte> buffer(std::size_t slot) { return ring_slot(buffers_, slot); }

private:
    static constexpr std::size_t kHugePage = std::size_t{2} << 20;

    // The whole huge pages of a large slot are advised (MADV_HUGEPAGE: the systems' default THP
    // mode is "madvise"); its tail keeps small pages, so memory stays what the slot needs.
    static std::byte *allocate(std::size_t bytes) {
        const bool huge = bytes >= kHugePage;
        void *data = nullptr;
        if (::posix_memalign(&data, huge ? kHugePage : kAlignment, bytes) != 0) return nullptr;
        if (huge) (void)::madvise(data, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);
        return static_cast<std::byte *>(data);
    }

    struct Free {
        void operator()(std::byte *p) const { std::free(p); }
    };
    std::vector<std::unique_ptr<std::byte, Free>> memory_;
    std::vector<std::span<std::byte>> buffers_;
};

} // namespace aesgpu
