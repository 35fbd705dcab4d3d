// SPDX-License-Identifier: Apache-2.0
#pragma once
// Direct I/O where the output lies differently against the disk's alignment than the input: a
// header in front of one of them (a passphrase's Salted__, GCM's stream header) or GCM's tags
// between its segments. Ciphering in place cannot keep both sides aligned, so each slot holds an
// input half and an output half. A chunk's input is read to the place in the input half that is as
// far into an alignment unit as its file offset (the aligned range around it is read directly,
// the room around it taking the rest); its result goes to the like place in the output half, whose
// room in front takes what the output held back from the chunk before (OutputSink::write_with_room).
// No stream copy: the cipher reads one half and writes the other (GCM: from the plaintext as the
// file has it to the segments with their tags, or back; cipher/cipher_backend.hpp's CipherJob).
#include "io/direct_io.hpp"

#include <cstddef>
#include <cstdint>

namespace aesgpu {

class OutOfPlaceSlots {
public:
    // Room in front of and behind each half: at least every file system's direct-I/O alignment.
    static constexpr std::size_t kRoom = kFallbackDirectAlignment;

    // `data_bytes`: the most one chunk's input or output takes (an in-place slot's size).
    explicit OutOfPlaceSlots(std::size_t data_bytes)
        : data_bytes_(data_bytes), output_half_(align_up(2 * kRoom + data_bytes, kRoom)) {}

    [[nodiscard]] std::size_t slot_bytes() const { return output_half_ + kRoom + data_bytes_; }
    // Where in a slot a chunk's input that starts at `file_offset` in the input goes.
    [[nodiscard]] static std::size_t input_at(std::uint64_t file_offset) { return kRoom + file_offset % kRoom; }
    // Where in a slot a chunk's output that starts at `file_offset` in the output goes; the bytes
    // in front of it, from an aligned place, are room for what the output held back.
    [[nodiscard]] std::size_t output_at(std::uint64_t file_offset) const { return output_half_ + file_offset % kRoom; }
    [[nodiscard]] static std::size_t room_before_output(std::size_t output_at) { return output_at % kRoom; }

private:
    std::size_t data_bytes_;
    std::size_t output_half_;
};

} // namespace aesgpu
