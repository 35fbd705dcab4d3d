// SPDX-License-Identifier: Apache-2.0
#include "format/tink_gcm.hpp"

#include "common/errors.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <utility>

namespace aesgpu {

std::vector<std::byte> GcmFile::header_bytes() const {
    std::vector<std::byte> bytes;
    if (passphrase) {
        const auto header = passphrase->bytes();
        bytes.assign(header.begin(), header.end());
    }
    const std::vector<std::byte> stream_bytes = stream.bytes();
    bytes.insert(bytes.end(), stream_bytes.begin(), stream_bytes.end());
    return bytes;
}

CipherSpec GcmFile::spec(Direction direction) const {
    CipherSpec spec(direction, Mode::gcm);
    spec.gcm = {stream.nonce_prefix, {segment_bytes, stream_header_bytes(key_bytes())}};
    return spec;
}

GcmFile new_gcm_file(std::size_t key_bytes, std::size_t segment_bytes, bool with_passphrase) {
    GcmFile file;
    if (with_passphrase) file.passphrase = new_passphrase_header(key_bytes, segment_bytes);
    file.stream = new_stream_header(key_bytes);
    file.segment_bytes = segment_bytes;
    return file;
}

GcmFile read_gcm_file(InputSource &source, std::size_t raw_key_bytes, std::size_t segment_bytes) {
    GcmFile file;
    std::size_t key_bytes = raw_key_bytes;
    file.segment_bytes = segment_bytes;
    if (raw_key_bytes == 0) {
        std::array<std::byte, kPassphraseHeaderBytes> header{};
        const std::size_t got = source.read_full(header);
        file.passphrase = parse_passphrase_header(std::span(header).first(got));
        key_bytes = file.passphrase->key_bytes;
        file.segment_bytes = file.passphrase->segment_bytes;
    }
    std::vector<std::byte> stream(stream_header_bytes(key_bytes));
    const std::size_t got = source.read_full(stream);
    if (raw_key_bytes != 0 && starts_with_passphrase_magic(std::span(stream).first(got))) {
        throw NeedsPassphrase(source.display_name() + " was encrypted with a passphrase, not a raw key");
    }
    file.stream = parse_stream_header(std::span(stream).first(got), key_bytes);
    return file;
}

SecretBytes gcm_segment_key(const GcmFile &file, const SecretBytes &secret, std::string_view associated_data) {
    std::vector<std::uint8_t> info;
    if (file.passphrase) {
        const auto header = file.passphrase->bytes();
        std::transform(header.begin(), header.end(), std::back_inserter(info),
                       [](std::byte b) { return std::to_integer<std::uint8_t>(b); });
    }
    info.insert(info.end(), associated_data.begin(), associated_data.end());
    if (!file.passphrase) return derive_segment_key(secret.view(), file.stream, info);
    const SecretBytes main_key = derive_main_key(secret, *file.passphrase);
    return derive_segment_key(main_key.view(), file.stream, info);
}

namespace {

std::string unfit_words(GcmSizeUnfit::Why why) {
    switch (why) {
    case GcmSizeUnfit::Why::key_size: return "a GCM key is 16 or 32 bytes";
    case GcmSizeUnfit::Why::segment_too_small: return "a GCM segment must exceed the stream header and a tag";
    case GcmSizeUnfit::Why::segment_too_large: break;
    }
    return "a GCM segment is at most " + std::to_string(kMaxSegmentBytes) + " bytes";
}

} // namespace

GcmSizeUnfit::GcmSizeUnfit(Why reason, std::size_t main_key_bytes)
    : std::invalid_argument(unfit_words(reason)), why(reason), key_bytes(main_key_bytes) {}

GcmFile gcm_file_for(Direction direction, std::size_t key_bytes, std::size_t segment_bytes, bool with_passphrase,
                     InputSource &source) {
    using Why = GcmSizeUnfit::Why;
    if (!is_gcm_key_size(key_bytes)) throw GcmSizeUnfit(Why::key_size, key_bytes);
    if (segment_bytes < min_segment_bytes(key_bytes)) throw GcmSizeUnfit(Why::segment_too_small, key_bytes);
    // A reader holds a whole segment before its tag speaks for it: aesgpu reads none larger, so it
    // writes none (a passphrase header would record a size no reader takes).
    if (segment_bytes > kMaxSegmentBytes) throw GcmSizeUnfit(Why::segment_too_large, key_bytes);
    if (direction == Direction::encrypt) return new_gcm_file(key_bytes, segment_bytes, with_passphrase);
    return read_gcm_file(source, with_passphrase ? 0 : key_bytes, segment_bytes);
}

TinkGcmFile::TinkGcmFile(const FormatSettings &settings, GcmFile file)
    : direction_(settings.direction), associated_data_(settings.associated_data), file_(std::move(file)),
      header_(file_.header_bytes()) {}

TinkGcmFile tink_gcm_file_for(const FormatSettings &settings, const KeyGiven &key, InputSource &source) {
    const std::size_t key_bytes = key.passphrase ? settings.passphrase_key_bits / 8 : key.raw_key_bytes;
    const std::size_t segment_bytes = settings.segment_bytes ? settings.segment_bytes : kDefaultSegmentBytes;
    return TinkGcmFile(settings, gcm_file_for(settings.direction, key_bytes, segment_bytes, key.passphrase, source));
}

std::optional<SegmentGeometry> TinkGcmFile::segments() const {
    return file_.spec(direction_).gcm.geometry;
}

CipherKey TinkGcmFile::key(const SecretBytes &secret) const {
    return {gcm_segment_key(file_, secret, associated_data_), file_.spec(direction_)};
}

} // namespace aesgpu
