#include "app/cipher_command.hpp"

#include "app/backend_selection.hpp"
#include "app/key_input.hpp"
#include "app/passphrase.hpp"
#include "app/progress.hpp"
#include "app/usage_error.hpp"
#include "io/errors.hpp"
#include "io/input_source.hpp"
#include "io/output_sink.hpp"
#include "io/pipeline.hpp"
#include "io/salted_header.hpp"
#include "io/worker_pool.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <iostream>
#include <optional>
#include <string_view>

namespace aesgpu {

namespace {

constexpr std::string_view kEncryptedSuffix = ".aes";

bool uses_raw_key(const CipherOptions &options) {
    return !options.key_hex.empty() || !options.key_file.empty();
}

bool reads_standard_input(const CipherOptions &options) {
    return std::find(options.inputs.begin(), options.inputs.end(), "-") != options.inputs.end();
}

SecretBytes load_raw_key(const CipherOptions &options) {
    if (!options.key_hex.empty()) return parse_hex_key(options.key_hex);
    if (options.key_file == "-" && reads_standard_input(options)) {
        throw UsageError("--key-file - and the data cannot both come from standard input");
    }
    return read_key_file(options.key_file);
}

std::string upper_hex(std::span<const std::uint8_t> bytes) {
    std::string hex;
    for (const std::uint8_t b : bytes) hex += fmt::format("{:02X}", b);
    return hex;
}

// True when a regular-file input starts with "Salted__" (read with pread: nothing is consumed).
bool starts_with_salted_header(const InputSource &source) {
    if (!source.size()) return false;
    std::array<std::byte, kSaltedHeaderBytes> header{};
    return ::pread(source.fd(), header.data(), header.size(), 0) == static_cast<ssize_t>(header.size()) &&
           parse_salted_header(header).has_value();
}

// Where keys come from, settled once for all inputs: the prompt or a fd: passphrase is read once.
struct KeySource {
    bool passphrase_mode = false;
    SecretBytes raw_key;
    SecretBytes passphrase;
};

KeySource settle_key_source(const CipherOptions &options) {
    KeySource keys;
    keys.passphrase_mode = !uses_raw_key(options);
    if (!keys.passphrase_mode) {
        if (options.print_key) throw UsageError("-P/--print-key needs a passphrase (-p/--pass)");
        keys.raw_key = load_raw_key(options);
        return keys;
    }
    if (options.pass_spec.empty()) {
        if (!can_prompt()) {
            throw UsageError("a key is required: -K HEX, --key-file PATH or -p/--pass SPEC (no terminal to ask on)");
        }
        const std::string cipher = "AES-" + std::to_string(options.key_bits) + "-ECB";
        keys.passphrase = prompt_passphrase(cipher, options.direction == Direction::encrypt);
    } else {
        keys.passphrase = read_passphrase(options.pass_spec, reads_standard_input(options));
    }
    return keys;
}

// Passphrase mode: a fresh salt when encrypting, the input's Salted__ header when decrypting.
Salt salt_for(const CipherOptions &options, InputSource *source) {
    if (options.direction == Direction::encrypt) return random_salt();
    std::array<std::byte, kSaltedHeaderBytes> header{};
    const auto salt = parse_salted_header(std::span(header).first(source->read_full(header)));
    if (!salt) {
        throw FormatError(source->display_name() +
                          " has no 'Salted__' header: it was not encrypted with a passphrase (use -K or --key-file)");
    }
    return *salt;
}

void check_inputs(const CipherOptions &options) {
    if (options.inputs.size() < 2) return;
    if (!options.output.empty() || options.to_stdout) {
        throw UsageError("with several input files each gets its own output: drop -o/-c");
    }
    if (reads_standard_input(options)) throw UsageError("'-' (standard input) cannot be one of several inputs");
    if (options.print_key) throw UsageError("-P/--print-key takes one input");
}

// Empty result: standard output.
std::string resolve_output_path(const CipherOptions &options, const std::string &input) {
    if (options.to_stdout || options.output == "-") return {};
    if (!options.output.empty()) return options.output;
    if (input == "-") return {};
    if (options.direction == Direction::encrypt) return input + std::string(kEncryptedSuffix);
    if (input.size() > kEncryptedSuffix.size() && std::string_view(input).ends_with(kEncryptedSuffix)) {
        return input.substr(0, input.size() - kEncryptedSuffix.size());
    }
    throw UsageError("cannot name the output for '" + input +
                     "' (it does not end in .aes); give one with -o OUT, or -c for standard output");
}

std::string gigabytes_per_second(double bytes, double seconds) {
    if (seconds <= 0) return "n/a";
    return fmt::format("{:.2f} GB/s", bytes / seconds / 1e9);
}

// One input to its output. Throws on failure; the output is committed only on success.
void run_one(const CipherOptions &options, const std::string &input, const KeySource &keys) {
    const bool encrypting = options.direction == Direction::encrypt;
    const bool passphrase_mode = keys.passphrase_mode;
    SecretBytes key = passphrase_mode ? SecretBytes() : SecretBytes(keys.raw_key.view());
    const std::string output_path = options.print_key ? std::string() : resolve_output_path(options, input);

    std::optional<InputSource> source;
    const unsigned io_threads = options.io_threads ? options.io_threads : default_io_threads();
    if (!(encrypting && options.print_key)) source.emplace(InputSource::open(input, io_threads));
    if (!passphrase_mode && !encrypting && starts_with_salted_header(*source)) {
        throw UsageError(source->display_name() +
                         " starts with 'Salted__': it was encrypted with a passphrase; give it with -p/--pass");
    }
    std::optional<Salt> salt;
    if (passphrase_mode) {
        salt = salt_for(options, source ? &*source : nullptr);
        key = derive_key(keys.passphrase, *salt, options.iterations, options.key_bits / 8);
        if (options.print_key) {
            std::cerr << "salt=" << upper_hex(*salt) << "\nkey=" << upper_hex(key.view()) << "\n";
            return;
        }
    }

    // The backend before the output: if it cannot start, no temporary file is ever created. (A GPU
    // starting behind the CPU fails later; the sink then removes its file.)
    SelectedBackend selected = select_backend(options, key.view(), !output_path.empty());
    const std::size_t default_chunk = source->size() ? selected.file_chunk_bytes : kStreamChunkBytes;
    const std::size_t chunk_bytes = options.chunk_bytes ? options.chunk_bytes : default_chunk;
    const OutputPolicy policy{options.force, &source->status(), io_threads};
    OutputSink sink =
        output_path.empty() ? OutputSink::standard_output(&source->status()) : OutputSink::create(output_path, policy);
    if (encrypting && sink.is_terminal() && !options.force) {
        throw IoError("refusing to write ciphertext to a terminal; use -o FILE, redirect standard output, or -f");
    }

    PipelineOptions pipeline{options.direction, !options.no_pad, chunk_bytes, selected.ring_slots};
    spdlog::info("{} {} -> {} with {}, chunk {} KiB x {} slots, {} I/O thread{}",
                 encrypting ? "encrypting" : "decrypting", source->display_name(), sink.display_name(),
                 selected.backend->describe(), pipeline.chunk_bytes >> 10, pipeline.ring_slots, io_threads,
                 io_threads == 1 ? "" : "s");
    // At most the input plus a Salted__ header and a block of padding; the surplus is cut at commit.
    if (source->size()) sink.expect_size(*source->size() + 2 * kAesBlockBytes);
    if (salt && encrypting) sink.write_all(make_salted_header(*salt));

    const bool show_progress =
        options.progress == ProgressChoice::always ||
        (options.progress == ProgressChoice::automatic && !options.log.quiet && ::isatty(STDERR_FILENO) == 1);
    // "cpu (OpenSSL ...)" shows as "cpu"; with a CPU start the name changes when the GPU takes over.
    const auto backend_name = [&selected] {
        const std::string description = selected.backend->describe();
        return description.substr(0, description.find(" ("));
    };
    // Its destructor erases the line if the run throws, before main() reports the error.
    ProgressBar progress(show_progress, source->size(), backend_name());
    pipeline.on_progress = [&](std::uint64_t done) {
        if (selected.cpu_start) progress.set_backend(backend_name());
        progress.update(done);
    };

    PipelineStats stats;
    try {
        stats = run_pipeline(*source, sink, *selected.backend, pipeline);
    } catch (const BadPadding &) {
        if (passphrase_mode) throw BadPadding("bad decrypt (wrong passphrase or corrupted input)");
        throw;
    }
    progress.finish();
    if (selected.cpu_start) log_cpu_start(options, selected.cpu_start->report());
    if (stats.chunk_bytes != pipeline.chunk_bytes) {
        spdlog::info("memory was short: ran with {} KiB chunks", stats.chunk_bytes >> 10);
    }
    sink.commit();
    spdlog::info("{} {} bytes in {:.3f} s ({}), wrote {} bytes", encrypting ? "encrypted" : "decrypted",
                 stats.bytes_read, stats.seconds, gigabytes_per_second(double(stats.bytes_read), stats.seconds),
                 stats.bytes_written);
}

} // namespace

int run_cipher_command(const CipherOptions &given) {
    CipherOptions options = given;
    if (options.inputs.empty()) options.inputs = {"-"};
    check_inputs(options);
    const KeySource keys = settle_key_source(options);
    const bool encrypting = options.direction == Direction::encrypt;
    if (encrypting && !options.print_key) {
        spdlog::warn("ECB mode encrypts equal 16-byte blocks to equal ciphertext, so patterns in the input "
                     "stay visible, and nothing detects tampering (-q silences this)");
    }
    if (options.inputs.size() == 1) {
        run_one(options, options.inputs.front(), keys); // failures reach main() as they are
        return 0;
    }
    // Several files: each on its own; one failure does not stop the others.
    int status = 0;
    std::size_t failed = 0;
    for (const std::string &input : options.inputs) {
        try {
            run_one(options, input, keys);
        } catch (const UsageError &e) {
            spdlog::error("{}", e.what());
            status = 2;
            ++failed;
        } catch (const std::exception &e) {
            spdlog::error("{}", e.what());
            status = std::max(status, 1);
            ++failed;
        }
    }
    if (!options.log.quiet) {
        std::cerr << fmt::format("aesgpu: {} {} of {} files{}\n", encrypting ? "encrypted" : "decrypted",
                                 options.inputs.size() - failed, options.inputs.size(),
                                 failed ? fmt::format(", {} failed", failed) : "");
    }
    return status;
}

} // namespace aesgpu
