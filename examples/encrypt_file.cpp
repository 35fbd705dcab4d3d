// SPDX-License-Identifier: Apache-2.0
// Encrypts a file with libaesgpu, on every GPU and the CPU, as `aesgpu encrypt` would:
//   encrypt_file ecb|ctr|cbc|gcm HEX_KEY INPUT OUTPUT [HEX_IV]   (ctr and cbc need the IV)
#include <aesgpu/aesgpu.hpp>

#include <cstdio>
#include <optional>
#include <string_view>

namespace {

// The mode named on the command line; none for a name that is no mode (the library has no default).
std::optional<aesgpu::Mode> mode_named(std::string_view name) {
    if (name == "ecb") return aesgpu::Mode::ecb;
    if (name == "ctr") return aesgpu::Mode::ctr;
    if (name == "cbc") return aesgpu::Mode::cbc;
    if (name == "gcm") return aesgpu::Mode::gcm;
    return std::nullopt;
}

} // namespace

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        std::fprintf(stderr, "usage: %s ecb|ctr|cbc|gcm HEX_KEY INPUT OUTPUT [HEX_IV]\n", argv[0]);
        return 2;
    }
    aesgpu::Settings settings;
    settings.mode = mode_named(argv[1]);
    if (!settings.mode) {
        std::fprintf(stderr, "encrypt_file: unknown mode '%s': give ecb, ctr, cbc or gcm\n", argv[1]);
        return 2;
    }
    try {
        if (argc == 6) settings.iv = aesgpu::iv_from_hex(argv[5]);
        aesgpu::Key key = aesgpu::Key::raw_hex(argv[2]);
        const aesgpu::Result result = aesgpu::cipher_file(argv[3], argv[4], settings, key);
        std::printf("%llu bytes in %.3f s\n", static_cast<unsigned long long>(result.bytes_read), result.seconds);
        return 0;
    } catch (const aesgpu::Error &error) {
        std::fprintf(stderr, "encrypt_file: %s\n", error.what());
        return 1;
    }
}
