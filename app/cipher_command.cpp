#include "app/cipher_command.hpp"

#include "app/backend_selection.hpp"
#include "app/key_input.hpp"
#include "app/usage_error.hpp"
#include "io/errors.hpp"
#include "io/input_source.hpp"
#include "io/output_sink.hpp"
#include "io/pipeline.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <string_view>

namespace aesgpu {

namespace {

constexpr std::string_view kEncryptedSuffix = ".aes";

SecretBytes load_key(const CipherOptions &options) {
    if (!options.key_hex.empty()) return parse_hex_key(options.key_hex);
    if (options.key_file == "-" && options.input == "-") {
        throw UsageError("--key-file - and the data cannot both come from standard input");
    }
    if (!options.key_file.empty()) return read_key_file(options.key_file);
    throw UsageError("a key is required: -K HEX or --key-file PATH");
}

// Empty result: standard output.
std::string resolve_output_path(const CipherOptions &options) {
    if (options.to_stdout || options.output == "-") return {};
    if (!options.output.empty()) return options.output;
    if (options.input == "-") return {};
    if (options.direction == Direction::encrypt) return options.input + std::string(kEncryptedSuffix);
    const std::string_view input = options.input;
    if (input.size() > kEncryptedSuffix.size() && input.ends_with(kEncryptedSuffix)) {
        return std::string(input.substr(0, input.size() - kEncryptedSuffix.size()));
    }
    throw UsageError("cannot name the output for '" + options.input +
                     "' (it does not end in .aes); give one with -o OUT, or -c for standard output");
}

std::string gigabytes_per_second(double bytes, double seconds) {
    if (seconds <= 0) return "n/a";
    return fmt::format("{:.2f} GB/s", bytes / seconds / 1e9);
}

} // namespace

void run_cipher_command(const CipherOptions &options) {
    const bool encrypting = options.direction == Direction::encrypt;
    const SecretBytes key = load_key(options);
    const std::string output_path = resolve_output_path(options);
    if (encrypting) {
        spdlog::warn("ECB mode encrypts equal 16-byte blocks to equal ciphertext, so patterns in the input "
                     "stay visible, and nothing detects tampering (-q silences this)");
    }

    InputSource source = InputSource::open(options.input);
    // The backend before the output: if it cannot start, no temporary file is ever created.
    SelectedBackend selected = select_backend(options, key.view());
    const std::size_t default_chunk = source.size() ? selected.file_chunk_bytes : kStreamChunkBytes;
    const std::size_t chunk_bytes = options.chunk_bytes ? options.chunk_bytes : default_chunk;
    const OutputPolicy policy{options.force, &source.status()};
    OutputSink sink =
        output_path.empty() ? OutputSink::standard_output(&source.status()) : OutputSink::create(output_path, policy);
    if (encrypting && sink.is_terminal() && !options.force) {
        throw IoError("refusing to write ciphertext to a terminal; use -o FILE, redirect standard output, or -f");
    }

    const PipelineOptions pipeline{options.direction, !options.no_pad, chunk_bytes, selected.ring_slots};
    spdlog::info("{} {} -> {} with {}, chunk {} KiB x {} slots", encrypting ? "encrypting" : "decrypting",
                 source.display_name(), sink.display_name(), selected.backend->describe(), pipeline.chunk_bytes >> 10,
                 pipeline.ring_slots);

    const PipelineStats stats = run_pipeline(source, sink, *selected.backend, pipeline);
    if (stats.chunk_bytes != pipeline.chunk_bytes) {
        spdlog::info("memory was short: ran with {} KiB chunks", stats.chunk_bytes >> 10);
    }
    sink.commit();
    spdlog::info("{} {} bytes in {:.3f} s ({}), wrote {} bytes", encrypting ? "encrypted" : "decrypted",
                 stats.bytes_read, stats.seconds, gigabytes_per_second(double(stats.bytes_read), stats.seconds),
                 stats.bytes_written);
}

} // namespace aesgpu
