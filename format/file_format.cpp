// SPDX-License-Identifier: Apache-2.0
#include "format/file_format.hpp"

#include "format/openssl_enc.hpp"
#include "format/tink_gcm.hpp"

namespace aesgpu {

FormatRules format_rules(Mode mode) {
    return mode == Mode::gcm ? TinkGcmFile::rules() : OpensslEncFile::rules(mode);
}

std::unique_ptr<FileFormat> file_format_for(const FormatSettings &settings, const KeyGiven &key, InputSource &source) {
    if (settings.mode == Mode::gcm) return std::make_unique<TinkGcmFile>(tink_gcm_file_for(settings, key, source));
    return std::make_unique<OpensslEncFile>(openssl_enc_file_for(settings, key, source));
}

} // namespace aesgpu
