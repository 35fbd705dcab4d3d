// SPDX-License-Identifier: Apache-2.0
#pragma once
// A byte range of a GCM stream's plaintext, read from the segments that hold it and no others:
// each is read at its place in a file that can seek, checked against its tag (the stream's last
// with the last-segment nonce, so a stream cut short fails where the range reaches its end), and
// only then is its part of the range written. Tink offers the same as a library
// (newSeekableDecryptingChannel). On the CPU: a range is read where a whole stream would be too
// much to read, not for throughput.
#include "cipher/cipher_backend.hpp"
#include "cipher/secret_bytes.hpp"
#include "io/input_source.hpp"
#include "io/output_sink.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>

namespace aesgpu {

struct ByteRange {
    std::uint64_t offset = 0;
    std::optional<std::uint64_t> length; // none: to the end of the plaintext
};

// A range that ends past the plaintext: nothing was read or written.
class RangePastTheEnd : public std::runtime_error {
public:
    RangePastTheEnd(const ByteRange &range, std::uint64_t plaintext_bytes);
    std::uint64_t plaintext_bytes;
};

// The plaintext of a stream whose segments' ciphertext is `data_bytes` long: StreamCutShort where
// no stream ends so (a last segment shorter than its tag).
[[nodiscard]] std::uint64_t stream_plaintext_bytes(const SegmentGeometry &geometry, std::uint64_t data_bytes);

// Writes `range` of the plaintext of the stream whose segments start at `data_start` in `source`
// (a regular file or block device) and run `data_bytes`, deciphered with the segment `key` of
// `spec`, to `sink` (not committed). Throws RangePastTheEnd, AuthenticationFailed (naming the
// segment), StreamCutShort, IoError.
struct RangeRead {
    std::uint64_t ciphertext_bytes = 0; // of the segments read
    std::uint64_t plaintext_bytes = 0;  // written: the range's length
};
RangeRead decrypt_gcm_range(InputSource &source, std::uint64_t data_start, std::uint64_t data_bytes,
                            const SecretBytes &key, const CipherSpec &spec, const ByteRange &range, OutputSink &sink);

} // namespace aesgpu
