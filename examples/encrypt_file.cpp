// SPDX-License-Identifier: Apache-2.0
// Encrypts a file with libaesgpu, on every GPU and the CPU, as `aesgpu encrypt` would:
//   encrypt_file ecb|ctr|gcm HEX_KEY INPUT OUTPUT [HEX_IV]   (ctr with a raw key needs the IV)
#include <aesgpu/aesgpu.hpp>

#include <cstdio>
#include <string_view>

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        std::fprintf(stderr, "usage: %s ecb|ctr|cbc|gcm HEX_KEY INPUT OUTPUT [HEX_IV]\n", argv[0]);
        return 2;
    }
    const std::string_view mode = argv[1];
    aesgpu::Settings settings;
    settings.mode = mode == "gcm"   ? aesgpu::Mode::gcm
                    : mode == "ctr" ? aesgpu::Mode::ctr
                    : mode == "cbc" ? aesgpu::Mode::cbc
                                    : aesgpu::Mode::ecb;
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
