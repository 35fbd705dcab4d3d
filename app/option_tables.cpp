// SPDX-License-Identifier: Apache-2.0
#include "app/option_tables.hpp"

#include "aes_cpu/cpu_features.hpp"
#include "aes_gpu/device_probe.hpp"
#include "aes_gpu/gpu_backend.hpp"
#include "app/associated_data.hpp"
#include "app/io_path.hpp"
#include "app/progress.hpp"
#include "app/suggestions.hpp"
#include "common/errors.hpp"
#include "engine/pipeline.hpp"
#include "format/file_format.hpp"
#include "format/tink_gcm.hpp"
#include "keys/passphrase.hpp"
#include "keys/raw_key.hpp"


#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
    "aesgpu encrypts and decrypts files and pipes with AES-128/192/256 in ECB mode (the default), CTR\n"
    "or CBC mode (all three byte-compatible with `openssl enc`) or GCM (authenticated, Tink's streaming\n"
    "AEAD format), on an NVIDIA GPU (CUDA) or on the CPU (OpenSSL, AES-NI). ECB shows repeated\n"
    "plaintext blocks as repeated ciphertext; only GCM detects tampering: use --mode gcm to protect data.";

constexpr const char *kEncryptExamples = R"(Examples:
  aesgpu encrypt report.pdf --key-file my.key       writes report.pdf.aes
  aesgpu encrypt -K 000102030405060708090a0b0c0d0e0f < in.bin > out.aes
  tar c photos/ | aesgpu encrypt --key-file my.key -o photos.tar.aes
  aesgpu keygen -o my.key                           a new random AES-256 key file, mode 0600
  aesgpu encrypt notes.txt                          asks for a passphrase (AES-256, PBKDF2)
  aesgpu encrypt -p env:BACKUP_PASS db.dump         passphrase from a variable, not from `ps`
  aesgpu encrypt --mode gcm --key-file my.key db.dump    authenticated (Tink's streaming AES-GCM)
  aesgpu encrypt --mode gcm -p env:BACKUP_PASS db.dump   the same, keyed by a passphrase (scrypt)
  aesgpu encrypt --mode ctr -p env:BACKUP_PASS db.dump   CTR, as openssl -aes-256-ctr -pbkdf2
  aesgpu encrypt -r --mode gcm --key-file my.key photos/   every file under photos/, each to its .aes
  iv=$(openssl rand -hex 16)                        CTR with a raw key: a new IV for every file,
  aesgpu encrypt --mode ctr --key-file my.key --iv $iv db.dump      kept: decrypting needs it
Interop: openssl enc -d -aes-256-ecb -K $(xxd -p -c 64 my.key) -in report.pdf.aes decrypts it;
openssl enc -d -aes-256-ctr|cbc -K ... -iv $iv a --mode ctr or cbc file; openssl enc -d
-aes-256-ecb|ctr|cbc -pbkdf2 -pass ... a passphrase file; Tink's AesGcmHkdfStreaming (HKDF-SHA256,
the same segment size) a --mode gcm raw-key file.)";

constexpr const char *kDecryptExamples = R"(Examples:
  aesgpu decrypt report.pdf.aes --key-file my.key   writes report.pdf
  aesgpu decrypt -c photos.tar.aes --key-file my.key | tar x
  aesgpu decrypt data.bin --key-file my.key -o data.out    (no .aes suffix: name the output)
  aesgpu decrypt --mode cbc -p file:pass.txt notes.enc -o notes.txt   openssl enc -aes-256-cbc -pbkdf2
  aesgpu decrypt --mode ctr -p env:BACKUP_PASS db.dump.aes    openssl enc -aes-256-ctr -pbkdf2
  aesgpu decrypt --key-file my.key db.dump.aes      a gcm file needs no --mode: its header says so
  aesgpu decrypt -r --key-file my.key --output-dir back photos/   each .aes under photos/ into back/
  aesgpu info db.dump.aes                           what a file says of itself, without the key
Without --mode, decrypt reads the mode from each file where the file tells it: aesgpu's gcm
passphrase header; a first byte that is Tink's header length for the raw key's size (segment 0's
tag then decides; an ECB file that starts so, one in 256, fails with "give --mode ecb"); else with
a raw key, ecb. openssl's passphrase files (Salted__) do not record the mode: their data is ctr
where it is not whole 16-byte blocks (as an ecb or cbc file cut short is too), else ecb or cbc as
the last block's padding fits once the key is derived. Where both fit (one file in 256) it stops
and asks for --mode, writing nothing; a ctr file of whole blocks fits one by chance about 2 times
in 256 and then decrypts to garbage (-v says which check decided). A pipe in that format is held
up to 64 MiB to find its end before anything is written; a longer one needs --mode. Scripts should
name the mode.
gcm: a wrong key, passphrase or --aad, or any change to the file, fails with "authentication failed
in segment N" (exit 1) and no output file; to standard output, only segments that passed are
written. ecb and cbc: a wrong key fails the padding check ("bad decrypt", exit 1) about 255 times
in 256 (254 where both are tried). ctr has nothing to check: a wrong key or IV decrypts to
garbage, exit 0. None of ecb, cbc and ctr detects tampering.)";

constexpr const char *kBenchNotes =
    R"(Stages: ceiling (memcpy on 1 thread, an in-place pass over memory on all, pinned PCIe copies,
device copy, cp of --file and the disk's O_DIRECT read, write and both at once), memory (CPU backend, 1 thread and all), kernel (GPU, device-resident
data), pipeline (GPU, pinned host to pinned host through the backend's ring), file (--file: the
file job encrypt/decrypt run per file, file to a new file). Each result is shown beside its ceiling.
Every output is checked against OpenSSL on fresh random data before it is timed; figures are
medians of --reps runs after a warm-up.
Examples:
  aesgpu bench                                   everything, 1 GiB per measurement
  aesgpu bench --backend cpu --key-bits 128 --size 256M
  aesgpu bench --backend gpu --mode ctr --key-bits 256
  aesgpu bench --backend gpu --devices 0,1 --mode ecb --key-bits 128 --direction encrypt
  aesgpu bench --file /dev/shm/big.bin --key-bits 128 --direction encrypt
  aesgpu bench --json > bench.json && scripts/plot-bench.py bench.json bench.png)";

constexpr const char *kExitCodes = "\nExit status: 0 success, 1 run-time failure (I/O, bad decrypt, authentication "
                                   "failed), 2 usage error, 129 SIGHUP, 130 Ctrl-C\n"
                                   "(SIGINT), 141 SIGPIPE (the reader of standard output went away), 143 SIGTERM.";

constexpr const char *kKeygenExamples = R"(Examples:
  aesgpu keygen -o my.key                           a new AES-256 key file (32 raw bytes, mode 0600)
  aesgpu keygen --bits 128                          prints 32 hex digits, for -K or a hex key file)";

// --range's OFFSET:LENGTH, each a number with an optional binary suffix (64K, 1M, 4G), as
// --chunk-size takes it.
ByteRange parse_range(const std::string &text) {
    const std::size_t colon = text.find(':');
    const auto size = [&](std::string part) {
        std::string refused;
        try {
            refused = part.empty() ? "empty" : CLI::AsSizeValue(false)(part);
        } catch (const std::exception &e) { // CLI11 throws for an unknown unit
            refused = e.what();
        }
        std::uint64_t value = 0;
        const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
        if (!refused.empty() || part.empty() || error != std::errc() || end != part.data() + part.size()) {
            throw UsageError("--range takes OFFSET:LENGTH or OFFSET: (to the end), sizes such as 0:4096, 1G:1M or "
                             "1G: below 2^64, not '" +
                             printable(text) + "'");
        }
        return value;
    };
    if (colon == std::string::npos) size("");                                         // the message
    if (colon + 1 == text.size()) return {size(text.substr(0, colon)), std::nullopt}; // to the end
    return {size(text.substr(0, colon)), size(text.substr(colon + 1))};
}

// --devices: "all" (every visible GPU: an empty list) or CUDA device numbers, "0,2".
std::vector<int> parse_device_list(const std::string &list) {
    if (list == "all") return {};
    const auto wrong = [&list] {
        return UsageError("--devices takes all or CUDA device numbers separated by commas (e.g. 0,1), not '" +
                          printable(list) + "'");
    };
    std::vector<int> devices;
    std::size_t at = 0;
    for (;;) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        int device = 0;
        // Digits only: from_chars would take "-0".
        const auto [end, error] = std::from_chars(list.data() + at, list.data() + comma, device);
        if (error != std::errc{} || end != list.data() + comma || comma == at || list[at] == '-') throw wrong();
        if (std::find(devices.begin(), devices.end(), device) != devices.end()) {
            throw UsageError("--devices names GPU " + std::to_string(device) + " twice");
        }
        devices.push_back(device);
        if (comma == list.size()) return devices;
        at = comma + 1;
    }
}

// The inputs and outputs, and what becomes of them.
void add_file_options(CLI::App &command, CipherOptions &options) {
    command
        .add_option("FILE", options.inputs,
                    "Input files (with -r, directories), each to its own output; '-' or none: standard input")
        ->type_name("");
    auto *output = command
                       .add_option("-o,--output", options.output,
                                   "Output file, '-' for standard output. Default: FILE.aes when encrypting, "
                                   "FILE less .aes when decrypting, standard output when reading standard input")
                       ->option_text("OUT");
    auto *to_stdout = command.add_flag("-c,--stdout", options.to_stdout, "Write to standard output");
    output->excludes(to_stdout);
    command
        .add_option(
            "-S,--suffix", options.suffix,
            fmt::format("Suffix added when encrypting, taken off when decrypting (default {})", CipherOptions{}.suffix))
        ->check(CLI::Validator(
            [](const std::string &suffix) -> std::string {
                if (suffix.empty()) return "needs a suffix, e.g. .enc";
                if (suffix.find('/') != std::string::npos) return "needs a suffix without '/'";
                return {};
            },
            "SUFFIX"))
        ->option_text("SUF");
    command.add_flag("-f,--force", options.force,
                     "Replace an existing output file (keeping its owner; never set-user-ID bits); allow "
                     "ciphertext to or data from a terminal");
    auto *keep = command.add_flag("-k,--keep", options.keep_input,
                                  "Keep the input files (the default; for gzip and zstd habits)");
    command
        .add_flag(
            "--rm", options.remove_input,
            "Remove each input file once its output is complete and in place (as zstd --rm); when "
            "decrypting, gcm files only (--mode gcm, or read from the file), the one mode that proves the key was "
            "right")
        ->excludes(keep);
    command.add_flag("--sync", options.sync,
                     "Make each output durable before going on (as gzip --synchronous): the file is flushed "
                     "to the disk before its name appears, then its directory; an output on standard "
                     "output is flushed where it is a file or device. --rm always does this");
}

// Many files at once, as zstd takes them: -r, --filelist, --output-dir.
void add_input_list_options(CLI::App &command, CipherOptions &options) {
    command.add_flag("-r,--recursive", options.recursive,
                     "Take the regular files under each directory given, and under its subdirectories, in name "
                     "order (as zstd -r); symbolic links met on the way are not followed (one given is). Decrypt "
                     "takes only the names that end in the suffix");
    command
        .add_option("--filelist", options.file_list,
                    "Read more input names from FILE, one a line ('-': standard input), after any FILE arguments; "
                    "with -r a directory among them is walked")
        ->option_text("FILE");
    command.add_flag("--null", options.null_separated,
                     "--filelist's names end with a NUL byte, not a newline (as find -print0 writes them)");
    command
        .add_option("--output-dir", options.output_dir,
                    "Write every output into DIR (it must exist) under its input's file name, the suffix added or "
                    "taken off (as zstd --output-dir-flat); two inputs that would get one name refuse the run")
        ->option_text("DIR")
        ->excludes(command.get_option("--output"))
        ->excludes(command.get_option("--stdout"));
    command
        .add_option_function<std::string>(
            "--output-dir-mirror",
            [&options](const std::string &directory) {
                options.output_dir = directory;
                options.mirror_tree = true;
            },
            "Write every output under DIR (it must exist) by its input's whole path, making the directories on "
            "the way, as zstd --output-dir-mirror: -r tree puts DIR/tree/...; a path with '..' is refused")
        ->option_text("DIR")
        ->excludes(command.get_option("--output"))
        ->excludes(command.get_option("--stdout"))
        ->excludes(command.get_option("--output-dir"));
}

// The key, key file or passphrase, and what is derived from a passphrase.
void add_key_options(CLI::App &command, CipherOptions &options, SecretArguments &secrets) {
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
        .add_option_function<std::string>(
            "--md",
            [&options](const std::string &name) {
                const std::optional<Digest> digest = digest_named(lower_case(name));
                if (!digest) throw UsageError("--md must be md5, sha1, sha224, sha256, sha384 or sha512");
                options.digest = *digest;
            },
            "The digest of the passphrase's key derivation in openssl's formats (ecb, ctr, cbc), as openssl's -md: "
            "md5, sha1, sha224, sha256 (the default, openssl's since 1.1.0), sha384 or sha512")
        ->option_text("DIGEST");

    command
        .add_option(
            "--key-bits", options.key_bits,
            fmt::format("AES key size in passphrase mode: 128, 192 or 256 (default {})", kDefaultPassphraseKeyBits))
        ->check(CLI::IsMember({128u, 192u, 256u}))
        ->option_text("BITS");
    command.add_flag("-P,--print-key", options.print_key,
                     "Print the key (key=; salt= in passphrase mode; iv = in ctr and cbc mode) in hex on standard "
                     "output, as `openssl enc -P` does, and stop");
}

// The mode and what each mode takes.
void add_mode_options(CLI::App &command, CipherOptions &options) {
    command
        .add_option_function<std::string>(
            "--mode",
            [&options](const std::string &given) {
                const std::string name = lower_case(given);
                options.mode_given = true;
                if (name == "ecb") {
                    options.mode = Mode::ecb;
                } else if (name == "ctr") {
                    options.mode = Mode::ctr;
                } else if (name == "gcm") {
                    options.mode = Mode::gcm;
                } else if (name == "cbc") {
                    options.mode = Mode::cbc;
                } else {
                    throw UsageError("--mode must be ecb, ctr, cbc or gcm");
                }
            },
            "ecb (the default when encrypting: PKCS#7 padding; equal blocks give equal ciphertext), ctr (counter "
            "mode, as "
            "`openssl enc -aes-N-ctr`: no padding; with a raw key the output is as long as the input), cbc (as "
            "`openssl enc -aes-N-cbc`, PKCS#7: encrypting runs on one CPU thread, each block needing the one before; "
            "decrypting on every GPU and the CPU) or gcm "
            "(authenticated: Tink's AES-GCM-HKDF streaming format; every segment is checked before any of it is "
            "written). Only gcm detects tampering and wrong keys: use it to protect data. Decrypting without "
            "--mode reads it from the file where it can (gcm's headers; for openssl's Salted__ files the length, "
            "then the padding: see below), else ecb")
        ->option_text("ecb|ctr|cbc|gcm");
    command
        .add_option_function<std::string>(
            "--iv", [&options](const std::string &hex) { options.iv = parse_hex_iv(hex, "--iv"); },
            "ctr and cbc with -K/--key-file: the initial counter block (the IV), 32 hex digits, as openssl's -iv. It "
            "is not "
            "stored in the file: keep it. Never encrypt two inputs with the same key and IV: the XOR of the two "
            "ciphertexts is the XOR of the plaintexts. A passphrase (-p) draws a fresh salt, and so a fresh key "
            "and IV, for every file")
        ->option_text("HEX");
    command
        .add_option("--segment-size", options.segment_bytes,
                    fmt::format("gcm: ciphertext bytes per authenticated segment, e.g. 4K, 1M (default {}), as Tink's "
                                "ciphertext_segment_size; decrypting a raw-key file needs the size it was made with "
                                "(a passphrase file records it)",
                                size_text(kDefaultSegmentBytes)))
        ->transform(CLI::AsSizeValue(false))
        ->check(CLI::Range(std::size_t{64}, kMaxSegmentBytes))
        ->option_text("SIZE");
    auto *aad = command
                    .add_option("--aad", options.associated_data,
                                "gcm: associated data, authenticated but not encrypted (Tink's associated data); "
                                "decrypting needs the same text")
                    ->option_text("TEXT");
    command
        .add_option("--aad-file", options.associated_data_file,
                    fmt::format("gcm: the associated data as the whole of a file, any bytes (a command line holds no "
                                "NUL byte and at most 128 KiB), up to {} MiB; '-': standard input, when the data is "
                                "not read from there",
                                kMaxAssociatedDataBytes >> 20))
        ->option_text("PATH")
        ->excludes(aad);
    command.add_flag("--no-pad", options.no_pad,
                     "ecb: no PKCS#7 padding (openssl -nopad): the input must be a multiple of 16 bytes");
}

// Which lanes cipher, and how many threads and streams.
void add_backend_options(CLI::App &command, CipherOptions &options) {
    command
        .add_option_function<std::string>(
            "--backend",
            [&options](const std::string &name) {
                static const std::map<std::string, BackendChoice> backends{{"auto", BackendChoice::automatic},
                                                                           {"cpu", BackendChoice::cpu},
                                                                           {"gpu", BackendChoice::gpu},
                                                                           {"all", BackendChoice::all}};
                const auto found = backends.find(lower_case(name));
                if (found == backends.end()) throw UsageError("--backend must be auto, cpu, gpu or all");
                options.backend.choice = found->second;
            },
            "auto (the default: every usable GPU and the CPU side by side, each taking chunks as fast as it goes; "
            "the CPU alone without a GPU), cpu (the CPU alone), gpu (the GPUs --devices names, the CPU only while "
            "they start; an error without one), or all (as auto; -v says how the work was split)")
        ->option_text("auto|cpu|gpu|all");
    command
        .add_option_function<std::string>(
            "--devices", [&options](const std::string &list) { options.backend.devices = parse_device_list(list); },
            "GPUs to use: all (the default: every one CUDA_VISIBLE_DEVICES leaves visible) or a list of CUDA device "
            "numbers, e.g. 0 or 0,2; a GPU named that is not there is an error with every backend")
        ->option_text("all|N,M");
    command.add_flag(
        "--wait-for-gpu", options.backend.wait_for_gpu,
        "GPU backend: wait for the GPUs to start (about 0.3 s) before ciphering, so every block goes "
        "through them (with --backend all, the CPU starts with them). By default the CPU ciphers the first "
        "chunks meanwhile (output is the same), except that --backend gpu to standard output always waits");
    command
        .add_option(
            "--streams", options.backend.gpu_streams,
            fmt::format("GPU backend: CUDA streams that overlap copies and kernels (default {})", kDefaultGpuStreams))
        ->check(CLI::Range(1u, 64u))
        ->option_text("N");
    command
        .add_option("-T,--threads", options.backend.cpu_threads,
                    "CPU backend worker threads; 0 (the default): all hardware threads, or fewer for a file of "
                    "fewer 1 MiB pieces")
        ->check(CLI::Range(0u, 4096u))
        ->option_text("N");
}

// How files are read and written, and in what chunks.
void add_io_options(CLI::App &command, CipherOptions &options) {
    command
        .add_option("--io-threads", options.io_threads,
                    "Threads that write one large file, and read it (two at most: more cost CPU time and gain "
                    "nothing) (default: half the hardware threads, at most 8; 1 below 8 hardware threads). 1 means "
                    "plain read() and write()")
        ->check(CLI::Range(1u, 64u))
        ->option_text("N");
    command
        .add_option_function<std::string>(
            "--io",
            [&options](const std::string &given) {
                const std::string choice = lower_case(given);
                options.io = choice == "direct"     ? IoChoice::direct
                             : choice == "buffered" ? IoChoice::buffered
                                                    : IoChoice::automatic;
            },
            fmt::format("How files reach the cipher: direct (O_DIRECT: disk to memory and back past the page "
                        "cache, for regular files; each output durable at its end), buffered (through the page "
                        "cache), or auto (the default: direct for files of {} or more on file systems that take "
                        "it, unless the input is cached already)",
                        std::to_string(kDirectIoMinBytes >> 20) + " MiB"))
        ->check(CLI::IsMember({"auto", "direct", "buffered"}, CLI::ignore_case))
        ->option_text("HOW");
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
}

// What is shown while and after it runs.
void add_report_options(CLI::App &command, CipherOptions &options) {
    auto *progress = command.add_flag_callback(
        "--progress", [&options] { options.progress = ProgressChoice::always; },
        "Show the progress line on stderr even when it is not a terminal");
    auto *no_progress = command.add_flag_callback(
        "--no-progress", [&options] { options.progress = ProgressChoice::never; },
        fmt::format("Never show the progress line (default: shown on a terminal for jobs over {:.1f} s)",
                    std::chrono::duration<double>(kProgressAfter).count()));
    progress->excludes(no_progress);
    command.add_flag("--json", options.json,
                     "Print one JSON object per input on standard output (input, output, bytes, seconds, "
                     "backend, split between backends), for scripts; not with output to standard output");
    command.add_flag("-v,--verbose", options.log.verbosity,
                     "Log the backend, chunk size, threads and throughput; -vv adds per-stage timings and "
                     "backend decisions (debug level)");
    command.add_flag("-q,--quiet", options.log.quiet, "Only errors on stderr (silences the ECB warning)");
}

void add_cipher_options(CLI::App &command, CipherOptions &options, SecretArguments &secrets) {
    // In this order in --help.
    add_file_options(command, options);
    add_input_list_options(command, options);
    add_key_options(command, options, secrets);
    add_mode_options(command, options);
    add_backend_options(command, options);
    add_io_options(command, options);
    add_report_options(command, options);
}

void add_bench_options(CLI::App &command, BenchOptions &options) {
    command
        .add_option_function<std::string>(
            "--backend",
            [&options](const std::string &given) {
                const std::string name = lower_case(given);
                if (name != "cpu" && name != "gpu" && name != "all") {
                    throw UsageError("--backend must be cpu, gpu or all");
                }
                options.backend = name;
            },
            fmt::format("cpu, gpu, or all (default {})", BenchOptions{}.backend))
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
        .add_option(
            "--mode", options.mode,
            fmt::format("ecb, ctr, gcm (1 MiB segments, 128/256-bit keys), or all (default {})", BenchOptions{}.mode))
        ->check(CLI::IsMember({"ecb", "ctr", "gcm", "all"}, CLI::ignore_case))
        ->option_text("MODE");
    command
        .add_option("--direction", options.direction,
                    fmt::format("encrypt, decrypt, or both (default {})", BenchOptions{}.direction))
        ->check(CLI::IsMember({"encrypt", "decrypt", "both"}))
        ->option_text("DIR");
    command
        .add_option("--file", options.file,
                    "Also time file to file on this file (for each backend, next to cp of it, and the "
                    "disk's own O_DIRECT ceilings), writing scratch files beside it; each run starts with "
                    "the input dropped from the page cache and ends once the output is on the disk; the "
                    "first key size only")
        ->option_text("PATH");
    command
        .add_option("--reps", options.reps,
                    fmt::format("Timed runs per measurement, after a warm-up (default {})", kDefaultBenchReps))
        ->check(CLI::Range(1, 1000))
        ->option_text("N");
    command
        .add_option("-T,--threads", options.threads,
                    "CPU threads for the all-threads rows; 0 (the default): all hardware threads")
        ->check(CLI::Range(0u, 4096u))
        ->option_text("N");
    command
        .add_option_function<std::string>(
            "--devices", [&options](const std::string &list) { options.devices = parse_device_list(list); },
            "GPUs for the GPU rows: all (the default) or CUDA device numbers, e.g. 0,2; one GPU's rows run on "
            "the first, the rows of several on all of them (see nvidia-smi topo -m for which share a switch)")
        ->option_text("all|N,M");
    command.add_flag("--json", options.json, "One JSON document on stdout instead of the table");
}

// decrypt's options: encrypt's, and what only decrypting takes.
void add_decrypt_options(CLI::App &decrypt, CommandLine &parsed) {
    add_cipher_options(decrypt, parsed.decrypt_options, parsed.decrypt_secrets);
    decrypt.add_flag("--no-pbkdf2", parsed.decrypt_options.no_pbkdf2,
                     "A passphrase file made by `openssl enc` without -pbkdf2, whose key and IV come from openssl's "
                     "old key derivation: one digest pass (--md: sha256, or md5 before OpenSSL 1.1.0), no "
                     "iterations, weak. Read only: aesgpu never writes it");
    decrypt.add_flag("-t,--test", parsed.decrypt_options.test_only,
                     "Decrypt and check the file without writing anything: the padding in ecb, every segment's tag "
                     "in gcm (exit 1 on a bad file); not with ctr, which has nothing to check");
    decrypt
        .add_option_function<std::string>(
            "--range", [&parsed](const std::string &text) { parsed.decrypt_options.range = parse_range(text); },
            "gcm: decrypt only the plaintext bytes OFFSET to OFFSET+LENGTH (sizes as 1M, 4G; OFFSET: to the end), "
            "reading and checking only the segments that hold them (and the last one's tag where the range reaches "
            "the end). Needs a file it can seek in, and -o, -c or -t")
        ->option_text("OFFSET:[LENGTH]");
}

void add_keygen_options(CLI::App &keygen, KeygenOptions &options) {
    keygen
        .add_option("-o,--output", options.output,
                    "Write the key as raw bytes to this new file, mode 0600 (an existing file is never replaced). "
                    "Default: hex on standard output")
        ->option_text("FILE");
    keygen
        .add_option("--bits", options.bits, fmt::format("Key size: 128, 192 or 256 (default {})", KeygenOptions{}.bits))
        ->check(CLI::IsMember({128u, 192u, 256u}))
        ->option_text("BITS");
}

void add_info_options(CLI::App &info, CommandLine &parsed) {
    info.add_flag("--json", parsed.info_json,
                  "One JSON object on standard output instead of the table (one line per FILE)");
    info.add_option("FILE", parsed.info_files,
                    "A file to describe from its header: aesgpu's GCM passphrase header (scrypt cost, key and "
                    "segment size), a Tink GCM stream's (key size), openssl's Salted__, another tool's (gzip, zstd, "
                    "xz, age, gpg, text), or none (raw ECB, CTR or CBC)");
}

// Decrypting without --mode: options only GCM takes (associated data, a segment size) say the file
// is GCM, as --mode gcm would.
void take_gcm_options_as_the_mode(const CLI::App &command, CipherOptions &options) {
    if (options.mode_given) return;
    for (const char *name : {"--aad", "--aad-file", "--segment-size"}) {
        if (command.get_option(name)->count() > 0) {
            options.mode = Mode::gcm;
            options.mode_given = true;
            return;
        }
    }
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
    refuse_unknown_command(options_end, argv);
    app.parse(options_end, argv);
    if (parsed.command == Command::decrypt)
        take_gcm_options_as_the_mode(*app.get_subcommand("decrypt"), parsed.cipher());
    if (parsed.command == Command::encrypt || parsed.command == Command::decrypt) {
        for (int i = 2; i + 1 < options_end; ++i) {
            if (std::strcmp(argv[i], "-k") == 0 && argv[i + 1][0] != '-') parsed.cipher().keep_before_a_file = true;
        }
    }
    if (options_end == argc) return;
    if (parsed.command != Command::encrypt && parsed.command != Command::decrypt) {
        throw UsageError("only encrypt and decrypt take FILE arguments after --");
    }
    auto &inputs = parsed.cipher().inputs;
    inputs.insert(inputs.end(), argv + options_end + 1, argv + argc);
}

std::string gpu_code_text(std::string_view architectures) {
    std::vector<std::string> machine_code;
    std::vector<std::string> ptx;
    std::istringstream words{std::string(architectures)};
    for (std::string word; words >> word;) {
        const std::string number = word.substr(0, word.find('-'));
        if (!word.ends_with("-virtual")) machine_code.push_back("sm_" + number);
        if (!word.ends_with("-real")) ptx.push_back("compute_" + number);
    }
    std::string text = "GPU code for " + (machine_code.empty() ? std::string("no GPU")
                                                               : fmt::format("{}", fmt::join(machine_code, ", ")));
    if (!ptx.empty())
        text += fmt::format(", and PTX for {} (newer GPUs compile it when aesgpu first starts)", fmt::join(ptx, ", "));
    return text;
}

// "aesgpu X.Y.Z" alone on the first line, as help2man and scripts read it; build details after.
std::string version_text() {
    const GpuProbe gpu = probe_gpus();
#ifdef AESGPU_CUDA_ARCHITECTURES
    const std::string gpu_code = "; " + gpu_code_text(AESGPU_CUDA_ARCHITECTURES);
#else
    const std::string gpu_code;
#endif
    return fmt::format("aesgpu {}\n{}\n{}", AESGPU_VERSION, openssl_version_text(),
                       gpu.cuda_compiled_in ? "CUDA runtime " + cuda_version_text(gpu.runtime_version) + gpu_code
                                            : std::string("built without CUDA"));
}

void define_command_line(CLI::App &app, CommandLine &parsed, std::string_view named) {
    // Every command's options, unless the command line names one command.
    const bool one = std::find(kCommands.begin(), kCommands.end(), named) != kCommands.end();
    const auto options_of = [&](std::string_view command) { return !one || named == command; };
    app.description(kDescription);
    app.name("aesgpu");
    app.set_version_flag("-V,--version", [] { return version_text(); });
    app.require_subcommand(1);
    app.footer(std::string("Run `aesgpu COMMAND --help` for a command's options and examples.") + kExitCodes);

    auto *encrypt = app.add_subcommand(
        "encrypt",
        "Encrypt FILE (or standard input) with AES: ECB with PKCS#7 padding, CTR, CBC, or authenticated GCM");
    parsed.encrypt_options.direction = Direction::encrypt;
    if (options_of("encrypt")) add_cipher_options(*encrypt, parsed.encrypt_options, parsed.encrypt_secrets);
    encrypt->footer(std::string(kEncryptExamples) + kExitCodes);
    encrypt->callback([&parsed] { parsed.command = Command::encrypt; });

    auto *decrypt = app.add_subcommand(
        "decrypt", "Decrypt FILE (or standard input); GCM checks every segment, ECB and CBC the padding");
    parsed.decrypt_options.direction = Direction::decrypt;
    if (options_of("decrypt")) add_decrypt_options(*decrypt, parsed);
    decrypt->footer(std::string(kDecryptExamples) + kExitCodes);
    decrypt->callback([&parsed] { parsed.command = Command::decrypt; });

    auto *keygen = app.add_subcommand("keygen", "Make a random AES key (OpenSSL RAND_bytes)");
    if (options_of("keygen")) add_keygen_options(*keygen, parsed.keygen_options);
    keygen->footer(std::string(kKeygenExamples) + kExitCodes);
    keygen->callback([&parsed] { parsed.command = Command::keygen; });

    auto *info = app.add_subcommand(
        "info", "Show the build, CPU AES support, OpenSSL and CUDA devices; or, given files, what each one's start "
                "says of how it was encrypted (no key needed)");
    if (options_of("info")) add_info_options(*info, parsed);
    info->callback([&parsed] { parsed.command = Command::info; });

    auto *bench = app.add_subcommand("bench", "Measure both backends against the hardware's own limits");
    if (options_of("bench")) add_bench_options(*bench, parsed.bench_options);
    bench->footer(kBenchNotes);
    bench->callback([&parsed] { parsed.command = Command::bench; });
}

} // namespace aesgpu
