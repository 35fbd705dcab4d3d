// SPDX-License-Identifier: Apache-2.0
#include "app/cipher_command.hpp"

#include "app/backend_log.hpp"
#include "app/interrupts.hpp"
#include "app/output_naming.hpp"
#include "app/progress.hpp"
#include "backends/backend_selection.hpp"
#include "common/errors.hpp"
#include "io/file_job.hpp"
#include "io/input_source.hpp"
#include "io/io_threads.hpp"
#include "io/output_sink.hpp"
#include "keys/passphrase.hpp"
#include "keys/raw_key.hpp"
#include "keys/salted_header.hpp"

#include <openssl/crypto.h>
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

bool uses_raw_key(const CipherOptions &options) {
    return !options.key_hex.empty() || !options.key_file.empty();
}

bool reads_standard_input(const std::vector<std::string> &inputs) {
    return std::find(inputs.begin(), inputs.end(), "-") != inputs.end();
}

// "00A1..." for -P; wiped when done, like any copy of a key.
void print_upper_hex(std::ostream &out, std::string_view label, std::span<const std::uint8_t> bytes) {
    SecretBytes hex(bytes.size() * 2);
    auto digits = hex.mutable_view();
    static constexpr char kDigits[] = "0123456789ABCDEF";
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        digits[2 * i] = static_cast<std::uint8_t>(kDigits[bytes[i] >> 4]);
        digits[2 * i + 1] = static_cast<std::uint8_t>(kDigits[bytes[i] & 15]);
    }
    out << label << hex.text() << "\n";
}

// True when a regular-file input starts with "Salted__" (read with pread: nothing is consumed).
bool starts_with_salted_header(const InputSource &source) {
    if (!source.size()) return false;
    std::array<std::byte, kSaltedHeaderBytes> header{};
    return ::pread(source.fd(), header.data(), header.size(), 0) == static_cast<ssize_t>(header.size()) &&
           parse_salted_header(header).has_value();
}

// Where the key comes from. A raw key or a passphrase source is read at once (its failure is the
// whole command's); the terminal prompt waits for the first input whose checks pass, so a run
// that fails on its files never asks for a passphrase.
class KeySource {
public:
    KeySource(const CipherOptions &options, const struct stat *data_on_stdin)
        : options_(options), passphrase_mode_(!uses_raw_key(options)) {
        if (!passphrase_mode_ && options.print_key) throw UsageError("-P/--print-key needs a passphrase (-p/--pass)");
        if (!options.key_hex.empty()) {
            secret_ = parse_hex_key(options.key_hex.text());
        } else if (!options.key_file.empty()) {
            secret_ = read_key_file(options.key_file, data_on_stdin);
        } else if (!options.pass_spec.empty()) {
            secret_ = read_passphrase(options.pass_spec.text(), data_on_stdin);
        } else if (!can_prompt()) {
            throw UsageError("a key is required: -K HEX, --key-file PATH or -p/--pass SPEC (no terminal to ask on)");
        } else {
            return; // asked for on first use
        }
        loaded_ = true;
    }

    [[nodiscard]] bool passphrase_mode() const { return passphrase_mode_; }
    // True while the key is still to be asked for on the terminal.
    [[nodiscard]] bool will_prompt() const { return !loaded_; }
    // True once asking for the key failed: no later input can succeed either.
    [[nodiscard]] bool failed() const { return failed_; }

    // The raw key (-K, --key-file) or the passphrase.
    const SecretBytes &secret() {
        if (!loaded_) {
            failed_ = true;
            const std::string cipher = "AES-" + std::to_string(options_.key_bits) + "-ECB";
            secret_ = prompt_passphrase(cipher, options_.direction == Direction::encrypt);
            loaded_ = true;
            failed_ = false;
        }
        return secret_;
    }

private:
    const CipherOptions &options_;
    bool passphrase_mode_;
    bool loaded_ = false;
    bool failed_ = false;
    SecretBytes secret_;
};

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

void check_inputs(const CipherOptions &options, const std::vector<std::string> &inputs) {
    if (inputs.size() < 2) return;
    if (!options.output.empty() || options.to_stdout) {
        throw UsageError("with several input files each gets its own output: drop -o/-c");
    }
    if (reads_standard_input(inputs)) throw UsageError("'-' (standard input) cannot be one of several inputs");
    if (options.print_key) throw UsageError("-P/--print-key takes one input");
}

std::string gigabytes_per_second(double bytes, double seconds) {
    if (seconds <= 0) return "n/a";
    return fmt::format("{:.2f} GB/s", bytes / seconds / 1e9);
}

// Terminals read or written by mistake (a forgotten FILE, a missing redirection), checked before
// anything is read from them.
void refuse_terminal_input(const CipherOptions &options, const InputSource &source) {
    if (options.force || !source.is_terminal()) return;
    throw IoError(std::string("refusing to read ") + (options.direction == Direction::encrypt ? "data" : "ciphertext") +
                  " from a terminal; give a FILE, redirect standard input, or use -f");
}

// The length check the pipeline makes at the end of a stream, made up front for a regular file,
// whose length is known: a ragged file fails before a passphrase is asked for or work is done.
// `header_bytes`: already read (a Salted__ header).
void check_input_length(const CipherOptions &options, const InputSource &source, std::uint64_t header_bytes) {
    if (!source.size()) return;
    check_stream_length(options.direction, !options.no_pad, *source.size() - std::min(*source.size(), header_bytes));
}

void refuse_terminal_output(const CipherOptions &options, const OutputSink &sink) {
    if (options.force || options.direction != Direction::encrypt || !sink.is_terminal()) return;
    throw IoError("refusing to write ciphertext to a terminal; use -o FILE, redirect standard output, or -f");
}

// One input to its output. Throws on failure; the output is committed only on success.
// `settle_status`: when set, this is the last output, and the command's exit status once it is
// in place.
void run_one(const CipherOptions &options, const std::string &input, KeySource &keys,
             std::optional<int> settle_status) {
    const bool encrypting = options.direction == Direction::encrypt;
    const bool passphrase_mode = keys.passphrase_mode();
    const unsigned io_threads = options.io_threads ? options.io_threads : default_io_threads();

    if (encrypting && options.print_key) {
        const Salt salt = random_salt();
        const SecretBytes key = derive_key(keys.secret(), salt, options.iterations, options.key_bits / 8);
        print_upper_hex(std::cerr, "salt=", salt);
        print_upper_hex(std::cerr, "key=", key.view());
        return;
    }

    // Everything that can fail without the key comes first: the input, its header, the output.
    InputSource source = InputSource::open(input, io_threads);
    refuse_terminal_input(options, source);
    if (!passphrase_mode && !encrypting && starts_with_salted_header(source)) {
        throw UsageError(source.display_name() +
                         " starts with 'Salted__': it was encrypted with a passphrase; give it with -p/--pass");
    }
    const std::optional<Salt> salt = passphrase_mode ? std::optional(salt_for(options, &source)) : std::nullopt;
    const std::uint64_t header_bytes = salt && !encrypting ? kSaltedHeaderBytes : 0; // read already
    std::optional<OutputSink> sink;
    if (!options.print_key) {
        const std::string output_path = resolve_output_path(options, input);
        const OutputPolicy policy{options.force, &source.status(), io_threads};
        sink.emplace(output_path.empty() ? OutputSink::standard_output(&source.status())
                                         : OutputSink::create(output_path, policy));
    }
    if (sink) refuse_terminal_output(options, *sink);
    if (sink && sink->shares_file_with(STDERR_FILENO)) {
        throw UsageError("standard error goes where the output goes (2>&1?): a warning or error would corrupt "
                         "the output; send standard error elsewhere");
    }
    check_input_length(options, source, header_bytes);
    if (keys.will_prompt()) check_required_backend(options.backend.choice);

    const SecretBytes key = passphrase_mode ? derive_key(keys.secret(), *salt, options.iterations, options.key_bits / 8)
                                            : SecretBytes(keys.secret().view());
    if (options.print_key) {
        print_upper_hex(std::cerr, "salt=", *salt);
        print_upper_hex(std::cerr, "key=", key.view());
        return;
    }

    // What the output is decides whether the GPU may start behind the CPU: bytes that reached a
    // pipe or a device cannot be taken back if the GPU then fails.
    SelectedBackend selected = select_backend(options.backend, options.direction, key.view(), sink->withdrawable());
    const std::size_t default_chunk = source.size() ? selected.file_chunk_bytes : kStreamChunkBytes;
    const std::size_t chunk_bytes = options.chunk_bytes ? options.chunk_bytes : default_chunk;

    const auto header = salt && encrypting ? std::optional(make_salted_header(*salt)) : std::nullopt;
    FileJob job{source, *sink, PipelineOptions{options.direction, !options.no_pad, chunk_bytes, selected.ring_slots}};
    if (header) job.header = *header;
    job.header_bytes_read = header_bytes;
    spdlog::info("{} {} -> {} with {}, chunk {} KiB x {} slots, {} I/O thread{}",
                 encrypting ? "encrypting" : "decrypting", source.display_name(), sink->display_name(),
                 selected.backend->describe(), job.pipeline.chunk_bytes >> 10, job.pipeline.ring_slots, io_threads,
                 io_threads == 1 ? "" : "s");

    const bool show_progress =
        options.progress == ProgressChoice::always ||
        (options.progress == ProgressChoice::automatic && !options.log.quiet && ::isatty(STDERR_FILENO) == 1);
    // "cpu (OpenSSL ...)" shows as "cpu"; with a CPU start the name changes when the GPU takes over.
    const auto backend_name = [&selected] {
        const std::string description = selected.backend->describe();
        return description.substr(0, description.find(" ("));
    };
    // Its destructor erases the line if the run throws, before main() reports the error.
    ProgressBar progress(show_progress, source.size(), backend_name());
    job.pipeline.on_progress = [&](std::uint64_t done) {
        if (selected.cpu_start) progress.set_backend(backend_name());
        progress.update(done);
    };
    // A signal during the commit waits for it; one after the last commit finds every output final.
    job.commit = [&](const PipelineStats &stats) {
        progress.finish();
        if (selected.cpu_start) log_cpu_start(options.backend.choice, selected.cpu_start->report());
        if (stats.chunk_bytes != job.pipeline.chunk_bytes) {
            spdlog::info("memory was short: ran with {} KiB chunks", stats.chunk_bytes >> 10);
        }
        run_uninterrupted([&] {
            sink->commit();
            if (settle_status) settle_interrupts(*settle_status);
        });
    };

    PipelineStats stats;
    try {
        stats = run_file_job(job, *selected.backend);
    } catch (const BadPadding &) {
        if (passphrase_mode) throw BadPadding("bad decrypt (wrong passphrase or corrupted input)");
        throw;
    }
    spdlog::info("{} {} bytes in {:.3f} s ({}), wrote {} bytes", encrypting ? "encrypted" : "decrypted",
                 stats.bytes_read, stats.seconds, gigabytes_per_second(double(stats.bytes_read), stats.seconds),
                 stats.bytes_written);
}

} // namespace

int run_cipher_command(const CipherOptions &options) {
    const std::vector<std::string> inputs = options.inputs.empty() ? std::vector<std::string>{"-"} : options.inputs;
    check_inputs(options, inputs);
    struct stat stdin_status {};
    const bool data_on_stdin = reads_standard_input(inputs) && ::fstat(STDIN_FILENO, &stdin_status) == 0;
    KeySource keys(options, data_on_stdin ? &stdin_status : nullptr);
    const bool encrypting = options.direction == Direction::encrypt;
    if (encrypting && !options.print_key) {
        spdlog::warn("ECB mode encrypts equal 16-byte blocks to equal ciphertext, so patterns in the input "
                     "stay visible, and nothing detects tampering (-q silences this)");
    }
    if (inputs.size() == 1) {
        // Failures reach main() as they are.
        run_one(options, inputs.front(), keys, 0);
        return 0;
    }
    // Several files: each on its own; one failure does not stop the others.
    int status = 0;
    std::size_t failed = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const bool last = i + 1 == inputs.size();
        try {
            run_one(options, inputs[i], keys, last ? std::optional(status) : std::nullopt);
        } catch (const UsageError &e) {
            if (keys.failed()) throw;
            spdlog::error("{}", printable(e.what()));
            status = 2;
            ++failed;
        } catch (const std::exception &e) {
            if (keys.failed()) throw;
            spdlog::error("{}", printable(e.what()));
            status = std::max(status, 1);
            ++failed;
        }
    }
    if (!options.log.quiet) {
        std::cerr << fmt::format("aesgpu: {} {} of {} files{}\n", encrypting ? "encrypted" : "decrypted",
                                 inputs.size() - failed, inputs.size(),
                                 failed ? fmt::format(", {} failed", failed) : "");
    }
    return status;
}

} // namespace aesgpu
