// SPDX-License-Identifier: Apache-2.0
#include "app/cli.hpp"

#include "aes_cpu/cpu_features.hpp"
#include "aes_gpu/device_probe.hpp"
#include "aes_gpu/gpu_backend.hpp"
#include "app/progress.hpp"
#include "common/errors.hpp"
#include "io/pipeline.hpp"
#include "keys/passphrase.hpp"

#include <openssl/crypto.h>

#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <utility>

namespace aesgpu {

namespace {

// 4194304 -> "4M", as --chunk-size and --size take it.
std::string size_text(std::size_t bytes) {
    for (const auto &[shift, suffix] : {std::pair{30, 'G'}, std::pair{20, 'M'}, std::pair{10, 'K'}}) {
        if (bytes >= (std::size_t{1} << shift) && bytes % (std::size_t{1} << shift) == 0) {
            return std::to_string(bytes >> shift) + suffix;
        }
    }
    return std::to_string(bytes);
}

constexpr const char *kDescription =
    "aesgpu encrypts and decrypts files and pipes with AES-128/192/256 in ECB mode, on an NVIDIA GPU\n"
    "(CUDA) or on the CPU (OpenSSL, AES-NI), byte-compatible with `openssl enc -aes-N-ecb -K HEX`.\n"
    "ECB shows repeated plaintext blocks as repeated ciphertext, and nothing detects tampering.";

constexpr const char *kEncryptExamples = R"(Examples:
  aesgpu encrypt report.pdf --key-file my.key       writes report.pdf.aes
  aesgpu encrypt -K 000102030405060708090a0b0c0d0e0f < in.bin > out.aes
  tar c photos/ | aesgpu encrypt --key-file my.key -o photos.tar.aes
  (umask 077; head -c 32 /dev/urandom > my.key)     a new random AES-256 key, private
  aesgpu encrypt notes.txt                          asks for a passphrase (AES-256, PBKDF2)
  aesgpu encrypt -p env:BACKUP_PASS db.dump         passphrase from a variable, not from `ps`
Interop: openssl enc -d -aes-256-ecb -K $(xxd -p -c 64 my.key) -in report.pdf.aes decrypts it;
for passphrase files, openssl enc -d -aes-256-ecb -pbkdf2 -pass ... does.)";

constexpr const char *kDecryptExamples = R"(Examples:
  aesgpu decrypt report.pdf.aes --key-file my.key   writes report.pdf
  aesgpu decrypt -c photos.tar.aes --key-file my.key | tar x
  aesgpu decrypt data.bin --key-file my.key -o data.out    (no .aes suffix: name the output)
  aesgpu decrypt -p file:pass.txt notes.txt.aes     also reads `openssl enc -pbkdf2` files
A wrong key fails the padding check ("bad decrypt", exit 1) about 255 times in 256 and leaves no
output file; ECB has no authentication, so a tampered file can decrypt to garbage undetected.)";

constexpr const char *kBenchNotes =
    R"(Stages: ceiling (memcpy on 1 thread, an in-place pass over memory on all, pinned PCIe copies,
device copy, cp of --file), memory (CPU backend, 1 thread and all), kernel (GPU, device-resident
data), pipeline (GPU, pinned host to pinned host through the backend's ring), file (--file: the
file job encrypt/decrypt run per file, file to a new file). Each result is shown beside its ceiling.
Every output is checked against OpenSSL on fresh random data before it is timed; figures are
medians of --reps runs after a warm-up.
Examples:
  aesgpu bench                                   everything, 1 GiB per measurement
  aesgpu bench --backend cpu --key-bits 128 --size 256M
  aesgpu bench --file /dev/shm/big.bin --key-bits 128 --direction encrypt
  aesgpu bench --json > bench.json && scripts/plot-bench.py bench.json bench.png)";

constexpr const char *kExitCodes =
    "\nExit status: 0 success, 1 run-time failure (I/O, bad decrypt), 2 usage error, 130 Ctrl-C, 143 SIGTERM.";

void add_cipher_options(CLI::App &command, CipherOptions &options, SecretArguments &secrets) {
    command.add_option("FILE", options.inputs, "Input files, each to its own output; '-' or none: standard input")
        ->type_name("");
    auto *output = command
                       .add_option("-o,--output", options.output,
                                   "Output file, '-' for standard output. Default: FILE.aes when encrypting, "
                                   "FILE less .aes when decrypting, standard output when reading standard input")
                       ->option_text("OUT");
    auto *to_stdout = command.add_flag("-c,--stdout", options.to_stdout, "Write to standard output");
    output->excludes(to_stdout);
    command.add_flag("-f,--force", options.force,
                     "Replace an existing output file (keeping its owner; never set-user-ID bits); allow "
                     "ciphertext to or data from a terminal");

    auto *key = command
                    .add_option("-K,--key", secrets.key_hex,
                                "Key as exactly 32, 48 or 64 hex digits (AES-128/192/256). Visible in `ps` "
                                "and shell history: prefer --key-file")
                    ->option_text("HEX");
    auto *key_file = command
                         .add_option("--key-file", options.key_file,
                                     "File holding the key: 16, 24 or 32 raw bytes, or 32, 48 or 64 hex digits "
                                     "and an optional newline")
                         ->option_text("PATH");
    auto *pass = command
                     .add_option("-p,--pass", secrets.pass_spec,
                                 "Passphrase, as openssl's -pass: pass:TEXT, env:VAR, file:PATH, fd:N or stdin. "
                                 "Output is `openssl enc -pbkdf2` format (Salted__ header, PBKDF2-HMAC-SHA256). "
                                 "With no key at all, aesgpu asks on the terminal")
                     ->option_text("SPEC");
    key->excludes(key_file);
    pass->excludes(key)->excludes(key_file);
    command
        .add_option("--iter", options.iterations,
                    fmt::format("PBKDF2 iterations in passphrase mode (default {})", kDefaultPbkdf2Iterations))
        ->check(CLI::Range(1u, 100000000u))
        ->option_text("N");
    command
        .add_option(
            "--key-bits", options.key_bits,
            fmt::format("AES key size in passphrase mode: 128, 192 or 256 (default {})", kDefaultPassphraseKeyBits))
        ->check(CLI::IsMember({128u, 192u, 256u}))
        ->option_text("BITS");
    command.add_flag("-P,--print-key", options.print_key,
                     "Passphrase mode: print salt= and key= (as openssl enc -P) to stderr and stop");

    command.add_flag("--no-pad", options.no_pad,
                     "No PKCS#7 padding (openssl -nopad): the input must be a multiple of 16 bytes");
    const std::map<std::string, BackendChoice> backends{
        {"auto", BackendChoice::automatic}, {"cpu", BackendChoice::cpu}, {"gpu", BackendChoice::gpu}};
    command.add_option("--backend", options.backend.choice, "auto (GPU when usable, else CPU), cpu, or gpu")
        ->transform(CLI::CheckedTransformer(backends, CLI::ignore_case))
        ->option_text("auto|cpu|gpu");
    command.add_flag(
        "--wait-for-gpu", options.backend.wait_for_gpu,
        "GPU backend: wait for the GPU to start (about 0.3 s) before ciphering, so every block goes "
        "through it. By default the CPU ciphers the first chunks meanwhile (output is the same), except that "
        "--backend gpu to standard output always waits");
    command
        .add_option(
            "--streams", options.backend.gpu_streams,
            fmt::format("GPU backend: CUDA streams that overlap copies and kernels (default {})", kDefaultGpuStreams))
        ->check(CLI::Range(1u, 64u))
        ->option_text("N");
    command
        .add_option("-T,--threads", options.backend.cpu_threads,
                    "CPU backend worker threads (default: all hardware threads)")
        ->check(CLI::Range(1u, 4096u))
        ->option_text("N");
    command
        .add_option("--io-threads", options.io_threads,
                    "Threads that read and write one large file (default: half the hardware threads, at most 8; "
                    "1 below 8 hardware threads). 1 means plain read() and write()")
        ->check(CLI::Range(1u, 64u))
        ->option_text("N");
    command
        .add_option(
            "--chunk-size", options.chunk_bytes,
            fmt::format("Bytes per pipeline chunk, e.g. 256K, 16M (a multiple of 16; default for files {} on the CPU, "
                        "{} on the GPU; {} for pipes). Memory use is a few chunks, whatever the input size",
                        size_text(kFileChunkBytes), size_text(kGpuFileChunkBytes), size_text(kStreamChunkBytes)))
        ->transform(CLI::AsSizeValue(false))
        ->check(CLI::Validator(
            [](std::string &value) -> std::string {
                std::uint64_t bytes = 0;
                const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), bytes);
                if (error != std::errc{} || end != value.data() + value.size() || bytes < kAesBlockBytes ||
                    bytes % kAesBlockBytes != 0 || bytes > kMaxChunkBytes) {
                    return fmt::format("chunk size must be a multiple of 16 bytes between 16 and {}",
                                       size_text(kMaxChunkBytes));
                }
                return {};
            },
            "SIZE", "multiple of 16"))
        ->option_text("SIZE");
    auto *progress = command.add_flag_callback(
        "--progress", [&options] { options.progress = ProgressChoice::always; },
        "Show the progress line on stderr even when it is not a terminal");
    auto *no_progress = command.add_flag_callback(
        "--no-progress", [&options] { options.progress = ProgressChoice::never; },
        fmt::format("Never show the progress line (default: shown on a terminal for jobs over {:.1f} s)",
                    std::chrono::duration<double>(kProgressAfter).count()));
    progress->excludes(no_progress);
    command.add_flag("-v,--verbose", options.log.verbosity,
                     "Log backend, chunk size, threads and throughput (-vv: more)");
    command.add_flag("-q,--quiet", options.log.quiet, "Only errors on stderr (silences the ECB warning)");
}

void add_bench_options(CLI::App &command, BenchOptions &options) {
    command
        .add_option("--backend", options.backend, fmt::format("cpu, gpu, or all (default {})", BenchOptions{}.backend))
        ->check(CLI::IsMember({"cpu", "gpu", "all"}))
        ->option_text("cpu|gpu|all");
    command
        .add_option(
            "--size", options.size_bytes,
            fmt::format("Data per in-memory measurement, e.g. 64M, 2G (default {})", size_text(kDefaultBenchBytes)))
        ->transform(CLI::AsSizeValue(false))
        ->check(CLI::Range(std::size_t{16}, std::size_t{64} << 30))
        ->option_text("SIZE");
    command
        .add_option("--key-bits", options.key_bits,
                    fmt::format("AES key size: 128, 192, 256, or all (default {})", BenchOptions{}.key_bits))
        ->check(CLI::IsMember({"128", "192", "256", "all"}))
        ->option_text("BITS");
    command
        .add_option("--direction", options.direction,
                    fmt::format("encrypt, decrypt, or both (default {})", BenchOptions{}.direction))
        ->check(CLI::IsMember({"encrypt", "decrypt", "both"}))
        ->option_text("DIR");
    command
        .add_option("--file", options.file,
                    "Also time file to file on this file (for each backend, next to cp of it), writing "
                    "scratch files beside it; the first key size only")
        ->option_text("PATH");
    command
        .add_option("--reps", options.reps,
                    fmt::format("Timed runs per measurement, after a warm-up (default {})", kDefaultBenchReps))
        ->check(CLI::Range(1, 1000))
        ->option_text("N");
    command.add_option("-T,--threads", options.threads, "CPU threads for the all-threads rows (default: all)")
        ->check(CLI::Range(1u, 4096u))
        ->option_text("N");
    command.add_flag("--json", options.json, "One JSON document on stdout instead of the table");
}

// Wipes what CLI11 holds of an option's value.
void wipe_results(const CLI::Option &option) {
    for (const std::string &result : option.results()) {
        auto &stored = const_cast<std::string &>(result); // CLI11 owns it and offers no mutable view
        wipe_secret(stored.data(), stored.size());
    }
}

// Blanks `secret` in every argv word that ends with it (-K HEX, -KHEX, --key=HEX, ...), so that
// `ps` and /proc/PID/cmdline no longer show it once parsing is done.
void scrub_arguments(int argc, char **argv, std::string_view secret) {
    if (secret.empty()) return;
    for (int i = 1; i < argc; ++i) {
        const std::size_t length = std::strlen(argv[i]);
        if (length >= secret.size() && std::string_view(argv[i] + length - secret.size()) == secret) {
            wipe_secret(argv[i] + length - secret.size(), secret.size());
        }
    }
}

// -K "" or -p "" is almost always an unset variable ($KEY): say so rather than fall back to a prompt.
void refuse_empty(const CLI::Option &option, bool empty) {
    if (option.count() > 0 && empty) {
        throw UsageError(option.get_name() + " was given an empty value (an unset variable?)");
    }
}

void seal_command_secrets(CLI::App &command, CipherOptions &options, SecretArguments &secrets, bool ran, int argc,
                          char **argv) {
    options.key_hex = SecretBytes::take(secrets.key_hex);
    options.pass_spec = SecretBytes::take(secrets.pass_spec);
    scrub_arguments(argc, argv, options.key_hex.text());
    scrub_arguments(argc, argv, options.pass_spec.text());
    const CLI::Option &key = *command.get_option("--key");
    const CLI::Option &pass = *command.get_option("--pass");
    wipe_results(key);
    wipe_results(pass);
    if (!ran) return;
    refuse_empty(key, options.key_hex.empty());
    refuse_empty(pass, options.pass_spec.empty());
    refuse_empty(*command.get_option("--key-file"), options.key_file.empty());
    refuse_empty(*command.get_option("--output"), options.output.empty());
}

} // namespace

void parse_command_line(CLI::App &app, CommandLine &parsed, int argc, char **argv) {
    // Words after the first `--` are files, whatever they look like.
    int options_end = argc;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--") == 0) {
            options_end = i;
            break;
        }
    }
    app.parse(options_end, argv);
    if (options_end == argc) return;
    if (parsed.command != Command::encrypt && parsed.command != Command::decrypt) {
        throw UsageError("only encrypt and decrypt take FILE arguments after --");
    }
    auto &inputs = parsed.cipher().inputs;
    inputs.insert(inputs.end(), argv + options_end + 1, argv + argc);
}

std::string without_secret_arguments(std::string message, int argc, char **argv) {
    // Whole words only (CLI11 lists arguments separated by spaces), so a short secret does not
    // blank letters of the message itself.
    const auto blank = [&message](std::string_view secret) {
        if (secret.empty()) return;
        for (std::size_t at = message.find(secret); at != std::string::npos; at = message.find(secret, at + 1)) {
            const std::size_t end = at + secret.size();
            const bool word = (at == 0 || message[at - 1] == ' ') && (end == message.size() || message[end] == ' ');
            if (word) message.replace(at, secret.size(), "(not shown)");
        }
    };
    for (int i = 1; i < argc; ++i) {
        const std::string_view word = argv[i];
        const std::string_view next = i + 1 < argc ? std::string_view(argv[i + 1]) : std::string_view();
        if (word == "--key" || word == "--pass") blank(next);
        if (word.starts_with("--key=") || word.starts_with("--pass=")) {
            blank(word);
            blank(word.substr(word.find('=') + 1));
        }
        // Short options, alone or bundled (-K HEX, -KHEX, -qK HEX, -fppass:x): what follows K or p
        // in the word is the value, or else the next word is.
        if (word.size() < 2 || word[0] != '-' || word[1] == '-') continue;
        const std::size_t at = word.find_first_of("Kp", 1);
        if (at == std::string_view::npos) continue;
        if (at + 1 < word.size()) {
            blank(word);
            blank(word.substr(at + 1));
        } else {
            blank(next);
        }
    }
    return message;
}

void seal_secret_arguments(CLI::App &app, CommandLine &parsed, int argc, char **argv) {
    seal_command_secrets(*app.get_subcommand("encrypt"), parsed.encrypt_options, parsed.encrypt_secrets,
                         parsed.command == Command::encrypt, argc, argv);
    seal_command_secrets(*app.get_subcommand("decrypt"), parsed.decrypt_options, parsed.decrypt_secrets,
                         parsed.command == Command::decrypt, argc, argv);
}

// "aesgpu X.Y.Z" alone on the first line, as help2man and scripts read it; build details after.
std::string version_text() {
    const GpuProbe gpu = probe_gpus();
    return fmt::format("aesgpu {}\n{}\n{}", AESGPU_VERSION, openssl_version_text(),
                       gpu.cuda_compiled_in ? "CUDA runtime " + cuda_version_text(gpu.runtime_version)
                                            : std::string("built without CUDA"));
}

void define_command_line(CLI::App &app, CommandLine &parsed) {
    app.description(kDescription);
    app.name("aesgpu");
    app.set_version_flag("--version", [] { return version_text(); });
    app.require_subcommand(1);
    app.footer(std::string("Run `aesgpu COMMAND --help` for a command's options and examples.") + kExitCodes);

    auto *encrypt = app.add_subcommand("encrypt", "Encrypt FILE (or standard input) with AES-ECB, PKCS#7 padding");
    parsed.encrypt_options.direction = Direction::encrypt;
    add_cipher_options(*encrypt, parsed.encrypt_options, parsed.encrypt_secrets);
    encrypt->footer(std::string(kEncryptExamples) + kExitCodes);
    encrypt->callback([&parsed] { parsed.command = Command::encrypt; });

    auto *decrypt = app.add_subcommand("decrypt", "Decrypt FILE (or standard input), checking the padding");
    parsed.decrypt_options.direction = Direction::decrypt;
    add_cipher_options(*decrypt, parsed.decrypt_options, parsed.decrypt_secrets);
    decrypt->footer(std::string(kDecryptExamples) + kExitCodes);
    decrypt->callback([&parsed] { parsed.command = Command::decrypt; });

    auto *info = app.add_subcommand("info", "Show the build, CPU AES support, OpenSSL and CUDA devices");
    info->callback([&parsed] { parsed.command = Command::info; });

    auto *bench = app.add_subcommand("bench", "Measure both backends against the hardware's own limits");
    add_bench_options(*bench, parsed.bench_options);
    bench->footer(kBenchNotes);
    bench->callback([&parsed] { parsed.command = Command::bench; });
}

} // namespace aesgpu
