// SPDX-License-Identifier: Apache-2.0
#pragma once
// How a stream's length meets the 16-byte blocks: a format's rule (format/), the pipeline's to keep
// (engine/).

namespace aesgpu {

enum class Framing {
    pkcs7,        // ECB: encrypt pads the last block (PKCS#7), decrypt checks and strips it
    whole_blocks, // ECB with --no-pad: the stream must be whole blocks
    any_length,   // CTR: the last block may be partial; its keystream is cut to fit
};

} // namespace aesgpu
