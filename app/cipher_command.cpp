// SPDX-License-Identifier: Apache-2.0
#include "app/cipher_command.hpp"

#include "app/associated_data.hpp"
#include "app/backend_log.hpp"
#include "app/exit_status.hpp"
#include "app/input_list.hpp"
#include "app/interrupts.hpp"
#include "app/io_path.hpp"
#include "app/json_text.hpp"
#include "app/logging.hpp"
#include "app/option_rules.hpp"
#include "app/output_naming.hpp"
#include "app/passphrase_source.hpp"
#include "app/progress.hpp"
#include "common/cpu_time.hpp"
#include "common/errors.hpp"
#include "common/memory_limit.hpp"
#include "common/units.hpp"
#include "engine/backend_selection.hpp"
#include "format/detect.hpp"
#include "format/gcm_stream_header.hpp"
#include "format/openssl_enc.hpp"
#include "format/tink_gcm.hpp"
#include "io/input_source.hpp"
#include "io/io_threads.hpp"
#include "io/output_sink.hpp"
#include "job/file_run.hpp"
#include "job/input_checks.hpp"
#include "job/input_removal.hpp"
#include "job/many_runs.hpp"
#include "job/outputs_over_inputs.hpp"
#include "keys/raw_key.hpp"

#include <openssl/crypto.h>
#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <new>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

namespace aesgpu {

namespace {

bool uses_raw_key(const CipherOptions &options) {
    return !options.key_hex.empty() || !options.key_file.empty();
}

// A pipe or socket: what a producer writes into as it goes.
bool is_a_pipe(const struct stat &status) {
    return S_ISFIFO(status.st_mode) || S_ISSOCK(status.st_mode);
}

// Decrypting without --mode: each file's start says how it reads (format/detect).
bool reads_mode_from_files(const CipherOptions &options) {
    return options.direction == Direction::decrypt && !options.mode_given;
}

bool reads_standard_input(const std::vector<std::string> &inputs) {
    return std::find(inputs.begin(), inputs.end(), "-") != inputs.end();
}

// "AES-256-CTR", as openssl names the cipher.
std::string cipher_name(Mode cipher_mode, std::size_t key_bits) {
    std::string mode = mode_name(cipher_mode);
    std::transform(mode.begin(), mode.end(), mode.begin(), [](unsigned char c) { return std::toupper(c); });
    return fmt::format("AES-{}-{}", key_bits, mode);
}

// -P: "salt=..." (passphrase mode), "key=..." and, for CTR, "iv =..." in upper-case hex on
// standard output, as `openssl enc -P` prints them. Written with write(2) from a buffer that is
// wiped: no stdio buffer keeps a copy of the key.
void print_key(const OpensslEncFile &file, const CipherKey &key) {
    OutputSink out = OutputSink::standard_output();
    if (file.salt()) out.write_all(std::as_bytes(hex_line("salt=", *file.salt(), true).view()));
    out.write_all(std::as_bytes(hex_line("key=", key.key.view(), true).view()));
    if (format_rules(key.spec.mode).takes_iv) out.write_all(std::as_bytes(hex_line("iv =", key.spec.iv, true).view()));
    out.commit();
}

[[noreturn]] void refuse_base64(const std::string &name) {
    throw UsageError(
        name + " looks base64-encoded (openssl enc -a): decode it first, e.g. base64 -d FILE | aesgpu decrypt ...");
}

// A key or passphrase file that others can read is said, as ssh says it of private keys.
void warn_about_secret_file(const std::string &warning) {
    spdlog::warn("{}", warning); // its names are quoted and escaped already
}

// What read_key_file refuses too, in the command line's words: --key-file - with the data on
// standard input, and a directory.
void refuse_key_file_misuse(const std::string &path, const struct stat *data_on_stdin) {
    if (path == "-" && data_on_stdin)
        throw UsageError("--key-file - and the data cannot both come from standard input");
    struct stat named {};
    if (path != "-" && ::stat(path.c_str(), &named) == 0 && S_ISDIR(named.st_mode)) {
        throw UsageError("key file " + quoted_name(path) +
                         " is a directory: --key-file takes the file that holds the key");
    }
}

// ccrypt's `-k keyfile`, given to aesgpu with no key source: the prompt or the error says what -k is.
constexpr const char *kKeepIsNotAKeyFile = "-k keeps inputs (as gzip); a key file is --key-file";

// -K/--key's value. A file's name there (not hex, but a file that exists) meant --key-file.
SecretBytes parse_key_argument(const SecretBytes &text) {
    try {
        return parse_hex_key(text.text());
    } catch (const KeyError &) {
        // The value may be a mistyped key: it stays in wiped memory unless it names a file.
        SecretBytes path(text.size() + 1);
        std::copy(text.view().begin(), text.view().end(), path.mutable_view().begin());
        struct stat status {};
        if (::stat(reinterpret_cast<const char *>(path.view().data()), &status) == 0) {
            throw KeyError("--key takes the key as hex digits, and " + quoted_name(std::string(text.text())) +
                           " is a file: did you mean --key-file?");
        }
        throw;
    }
}

// Where the key comes from. A raw key or a passphrase source is read at once (its failure is the
// whole command's); the terminal prompt waits for the first input whose checks pass, so a run
// that fails on its files never asks for a passphrase.
class CommandKeys final : public KeySource {
public:
    CommandKeys(const CipherOptions &options, const struct stat *data_on_stdin)
        : options_(options), passphrase_mode_(!uses_raw_key(options)) {
        if (!options.key_hex.empty()) {
            secret_.bytes = parse_key_argument(options.key_hex);
        } else if (!options.key_file.empty()) {
            refuse_key_file_misuse(options.key_file, data_on_stdin);
            secret_.bytes = read_key_file(options.key_file, data_on_stdin, &read_from_, warn_about_secret_file);
        } else if (!options.pass_spec.empty()) {
            secret_ = read_passphrase(options.pass_spec.text(), data_on_stdin, &read_from_, warn_about_secret_file);
        } else if (!can_prompt()) {
            throw UsageError(std::string("a key is required: -K HEX, --key-file PATH or -p/--pass SPEC (no terminal "
                                         "to ask on)") +
                             (options.keep_before_a_file ? "; " + std::string(kKeepIsNotAKeyFile) : ""));
        } else {
            if (options.keep_before_a_file) spdlog::warn("{}", kKeepIsNotAKeyFile);
            return; // asked for on first use
        }
        loaded_ = true;
    }

    [[nodiscard]] bool passphrase_mode() const override { return passphrase_mode_; }
    // True while the key is still to be asked for on the terminal.
    [[nodiscard]] bool will_prompt() const override { return !loaded_; }
    // True once asking for the key failed: no later input can succeed either.
    [[nodiscard]] bool failed() const override { return failed_; }
    // The file or descriptor the key or passphrase was read from (--key-file, -p file:, fd:, stdin).
    [[nodiscard]] const std::optional<struct stat> &read_from() const { return read_from_; }

    // The raw key (-K, --key-file) or the passphrase, as aesgpu's own format (GCM) takes it: a line
    // whole, up to kMaxPassphraseBytes. Decrypting, a longer line's first so many bytes (no file
    // opens with them, but one aesgpu made when it cut every line opens with openssl_line()).
    const SecretBytes &secret() override {
        load();
        if (secret_.longer && options_.direction == Direction::encrypt) {
            throw KeyError(fmt::format("the passphrase from {} is longer than {} bytes: it is no passphrase for "
                                       "--mode gcm, which takes the whole line",
                                       secret_.from, kMaxPassphraseBytes));
        }
        return secret_.bytes;
    }

    // What openssl keeps of a passphrase line longer than that, for openssl's formats.
    const SecretBytes *openssl_line() override {
        load();
        if (!secret_.line || secret_.bytes.size() <= kMaxPassphraseLineBytes) return nullptr;
        if (!openssl_line_) openssl_line_.emplace(secret_.bytes.view().first(kMaxPassphraseLineBytes));
        return &*openssl_line_;
    }

    // Said without the passphrase's length: a log should not narrow a secret down.
    void took_openssl_line(bool openssl_format, const std::string &input) override {
        if (openssl_format && !told_openssl_line_) {
            told_openssl_line_ = true;
            spdlog::warn("the passphrase from {} is longer than {} bytes; openssl keeps the first {} bytes of a line, "
                         "and so does aesgpu for ECB, CTR and CBC (--mode gcm takes the whole line)",
                         secret_.from, kMaxPassphraseLineBytes, kMaxPassphraseLineBytes);
        } else if (!openssl_format) {
            spdlog::warn("{} opened with the first {} bytes of the passphrase from {}, as aesgpu kept them until "
                         "--mode gcm took the whole line: encrypt it again to use the whole line",
                         input, kMaxPassphraseLineBytes, secret_.from);
        }
    }

private:
    const CipherOptions &options_;
    bool passphrase_mode_;
    // The terminal's prompt, on first use.
    void load() {
        if (loaded_) return;
        failed_ = true;
        secret_ =
            prompt_passphrase(reads_mode_from_files(options_) ? "AES" : cipher_name(options_.mode, options_.key_bits),
                              options_.direction == Direction::encrypt);
        loaded_ = true;
        failed_ = false;
    }

    bool loaded_ = false;
    bool failed_ = false;
    GivenPassphrase secret_; // a raw key's bytes too
    std::optional<SecretBytes> openssl_line_;
    bool told_openssl_line_ = false;
    std::optional<struct stat> read_from_;
};

// Files the run reads besides its inputs, which no input or output may be (however named:
// compared by device and inode): encrypting the key file would leave the key only under itself,
// writing over it would destroy it, and --rm would then remove the one copy of the data.
class FilesNotToCipher {
public:
    FilesNotToCipher(const CipherOptions &options, const CommandKeys &keys, const AssociatedData &associated_data) {
        if (associated_data.read_from) {
            files_.push_back({"the associated-data file (--aad-file)", *associated_data.read_from});
        }
        if (keys.read_from()) {
            const std::string key_file = options.key_file == "-" ? "standard input" : quoted_name(options.key_file);
            files_.push_back(
                {options.key_file.empty() ? "the passphrase file (-p)" : "the key file (--key-file " + key_file + ")",
                 *keys.read_from()});
        }
    }

    // Throws UsageError when `input` (opened or named) is one of them.
    void refuse(const struct stat &input, const std::string &display_name) const {
        for (const auto &[what, status] : files_) {
            if (same_file(input, status)) {
                throw UsageError(display_name + " is " + what + ", which cannot be an input too: leave it out " +
                                 "(ciphered, or removed by --rm, it would take what opens the rest with it)");
            }
        }
    }

    // Before any work: every named input that exists, and every output that would replace an
    // existing file (one that fails to be named fails later, on its own).
    void refuse_any_of(const CipherOptions &options, const std::vector<std::string> &inputs) const {
        for (const std::string &input : inputs) {
            struct stat status {};
            if (input != "-" && ::stat(input.c_str(), &status) == 0) refuse(status, quoted_name(input));
            if (options.test_only || options.print_key) continue; // no output
            std::string output;
            try {
                output = resolve_output_path(options, input);
            } catch (const UsageError &) {
                continue;
            }
            if (output.empty() || output == "-" || ::stat(output.c_str(), &status) != 0) continue;
            for (const auto &[what, file] : files_) {
                if (same_file(status, file)) {
                    throw UsageError("the output " + quoted_name(output) + " is " + what +
                                     ", which the run reads: name another output (" +
                                     (options.output_dir.empty() ? "-o" : "another --output-dir") + ")");
                }
            }
        }
    }

private:
    struct File {
        std::string what;
        struct stat status;
    };
    std::vector<File> files_;
};

// An output that is another input of the run (decrypt -f a.aes.aes a.aes: the first's output is
// the second), or a name given and skipped (encrypt -f a a.aes): it would be replaced. Refused
// before any work, -f or not. (A name -r found and skipped is no input: encrypt -f -r replaces
// its .aes files as a second run should.)
void refuse_outputs_over_inputs(const CipherOptions &options, const InputList &list) {
    if (options.test_only || options.print_key) return;
    std::vector<std::string> inputs = list.inputs;
    std::vector<std::string> outputs;
    for (const std::string &input : list.inputs) {
        try {
            outputs.push_back(resolve_output_path(options, input));
        } catch (const UsageError &) {
            outputs.emplace_back(); // said when its turn comes
        }
    }
    for (const SkippedInput &skipped : list.skipped) {
        if (skipped.named) inputs.push_back(skipped.name); // no output
    }
    if (const std::optional<OutputOverInput> pair = output_over_input(inputs, outputs)) {
        const bool skipped = pair->input_of >= list.inputs.size();
        throw UsageError("the output of " + quoted_name(inputs[pair->output_of]) + " would be " +
                         quoted_name(inputs[pair->input_of]) +
                         (skipped ? ", named in this run (and skipped for its suffix): it would be replaced"
                                  : ", another input of this run, replaced before it is read") +
                         ": run them apart or name other outputs");
    }
}

// What the command says where the input of a passphrase run has no Salted__ header: what its
// start is instead.
[[noreturn]] void refuse_unsalted(const std::string &name, CiphertextStart start) {
    switch (start) {
    case CiphertextStart::base64_salted: refuse_base64(name);
    case CiphertextStart::gcm_passphrase:
        throw FormatError(name + " was encrypted with --mode gcm: decrypt it with --mode gcm");
    case CiphertextStart::salted_cut_short:
        throw FormatError(name + " is cut short: its 'Salted__' header has no complete salt");
    case CiphertextStart::salted: // has a salt
    case CiphertextStart::base64:
    case CiphertextStart::unknown: break;
    }
    throw KeyError(name + " has no 'Salted__' header: it was not encrypted with a passphrase (use -K or --key-file)");
}

// gcm: a main key or segment size no stream takes, in the command line's words (the raw key's
// size, or --key-bits for a passphrase; --segment-size).
std::string gcm_size_refusal(const GcmSizeUnfit &unfit) {
    if (unfit.why == GcmSizeUnfit::Why::key_size) {
        return "--mode gcm takes a 16- or 32-byte key (AES-128 or AES-256, as Tink's AES*_GCM_HKDF_* keys), not " +
               std::to_string(unfit.key_bytes) + " bytes";
    }
    return "--segment-size must exceed the stream header and a tag (" +
           std::to_string(min_segment_bytes(unfit.key_bytes) - 1) + " bytes)";
}

// A failure while the input's header was read (decrypting) or made (encrypting), in the command
// line's words. `mode`: the mode the header was read as.
[[noreturn]] void rethrow_header_failure(const CipherOptions &options, const std::string &name, Mode mode) {
    try {
        throw;
    } catch (const NoSaltedHeader &e) {
        refuse_unsalted(name, e.start);
    } catch (const NeedsPassphrase &) {
        throw UsageError(name + " was encrypted with a passphrase: give it with -p/--pass");
    } catch (const GcmSizeUnfit &e) {
        if (e.why == GcmSizeUnfit::Why::segment_too_large) throw; // --segment-size's range refuses it first
        throw UsageError(gcm_size_refusal(e));
    } catch (const NoPassphraseHeader &) {
        throw KeyError(name + ": it has no aesgpu passphrase header: it was not made by aesgpu encrypt --mode gcm -p");
    } catch (const FormatError &e) {
        if (mode != Mode::gcm) throw;
        throw FormatError(name + ": " + e.what() +
                          (reads_mode_from_files(options) ? "; if it is not GCM, give --mode ecb (or ctr, cbc)" : ""));
    }
}

// What the library is asked for: the options less the command line's own (names, terminals, JSON).
CipherSettings settings_of(const CipherOptions &options, const std::string &associated_data) {
    CipherSettings settings;
    settings.direction = options.direction;
    settings.mode = options.mode;
    settings.iv = options.iv;
    settings.no_pad = options.no_pad;
    settings.pbkdf2_iterations = options.iterations;
    settings.passphrase_digest = options.digest;
    settings.openssl_kdf = options.no_pbkdf2 ? OpensslKdf::one_pass : OpensslKdf::pbkdf2;
    settings.passphrase_key_bits = options.key_bits;
    settings.segment_bytes = options.segment_bytes;
    settings.associated_data = associated_data;
    settings.backend = options.backend;
    settings.chunk_bytes = options.chunk_bytes;
    return settings;
}

void check_inputs(const CipherOptions &options, const std::vector<std::string> &inputs) {
    if (inputs.size() < 2) return;
    if (!options.output.empty() || options.to_stdout) {
        throw UsageError("with several input files each gets its own output: drop -o/-c");
    }
    if (reads_standard_input(inputs)) throw UsageError("'-' (standard input) cannot be one of several inputs");
    if (options.print_key) throw UsageError("-P/--print-key takes one input");
}

// Binary units, as the progress line shows them.
std::string rate_text(double bytes, double seconds) {
    if (seconds <= 0) return "n/a";
    return human_bytes(bytes / seconds) + "/s";
}

// Terminals read or written by mistake (a forgotten FILE, a missing redirection), checked before
// anything is read from them.
void refuse_terminal_input(const CipherOptions &options, const InputSource &source) {
    if (options.force || !source.is_terminal()) return;
    throw IoError(std::string("refusing to read ") + (options.direction == Direction::encrypt ? "data" : "ciphertext") +
                  " from a terminal; give a FILE, redirect standard input, or use -f");
}

// An output there already, in the command line's words.
[[noreturn]] void throw_with_force_flag(const OutputNeedsOverwrite &e) {
    if (dynamic_cast<const BlockDeviceNeedsOverwrite *>(&e)) throw IoError(e.situation + " without -f");
    throw IoError(e.situation + "; use -f to " + e.verb + " it");
}

// The named output, replacing a file there with -f.
OutputSink create_output(const std::string &name, const CipherOptions &options, const InputSource &source,
                         unsigned io_threads) {
    try {
        return OutputSink::create(name, OutputPolicy{.overwrite = options.force,
                                                     .input_status = &source.status(),
                                                     .io_threads = io_threads,
                                                     .interrupt_cleanups = &interrupt_cleanups()});
    } catch (const OutputNeedsOverwrite &e) {
        throw_with_force_flag(e);
    }
}

// --no-pad with an input (`name`) that is not whole blocks, in the command line's words.
[[noreturn]] void throw_not_whole_blocks(const NotWholeBlocks &e, const std::string &name) {
    throw FormatError(name + ": input length " + std::to_string(e.length) +
                      " is not a multiple of 16 bytes, which --no-pad requires");
}

// What a decrypt whose padding failed says of why: with a passphrase, the openssl enc options that
// would explain it and were not given.
std::string bad_decrypt_causes(const CipherOptions &options, bool passphrase_mode) {
    if (!passphrase_mode) return ": wrong key or corrupted input";
    std::vector<std::string> made_with;
    if (!options.no_pbkdf2) {
        made_with.emplace_back("openssl enc without -pbkdf2 (--no-pbkdf2; with --md md5 for OpenSSL before 1.1.0)");
    }
    if (options.digest == kDefaultDigest) made_with.emplace_back("another -md (--md)");
    if (options.iterations == kDefaultPbkdf2Iterations && !options.no_pbkdf2) {
        made_with.emplace_back("another -iter (--iter)");
    }
    if (options.key_bits == kDefaultPassphraseKeyBits) made_with.emplace_back("AES-128 or AES-192 (--key-bits)");
    if (made_with.empty()) return ": wrong passphrase or corrupted input";
    std::string causes = ": wrong passphrase, corrupted input, or a file made with ";
    for (std::size_t i = 0; i < made_with.size(); ++i) {
        causes += (i == 0 ? "" : i + 1 == made_with.size() ? " or " : ", ") + made_with[i];
    }
    return causes;
}

// Where decrypting read the file as ECB for want of anything that says otherwise (no --mode), a
// failure that another mode would explain names the modes to try: nothing in CTR says it is CTR.
std::string other_modes_hint(const ModeGuess *mode_was_read) {
    if (!mode_was_read) return "";
    return std::string("; if it is CBC or CTR, give --mode cbc or --mode ctr") +
           (mode_was_read->starts_like_gcm ? "; or it is a GCM stream cut short (--mode gcm says where)" : "");
}

// gcm: what a stream that needs more than 2^32 segments gets told after why: how much fits, and
// what to do. A passphrase file's header gives its segment size, which no option changes.
std::string segment_limit_advice(Direction direction, bool size_from_header) {
    return std::string("64-byte segments hold up to 192 GiB, the default 1M up to 4 PiB; ") +
           (direction == Direction::encrypt ? "give a larger --segment-size"
            : size_from_header              ? "it is damaged"
                                            : "it was not made with this --segment-size, or it is damaged");
}

void refuse_terminal_output(const CipherOptions &options, const OutputSink &sink) {
    if (options.force || options.direction != Direction::encrypt || !sink.is_terminal()) return;
    throw IoError("refusing to write ciphertext to a terminal; use -o FILE, redirect standard output, or -f");
}

// The ECB warning, once per run and only once the first input has passed every check that can
// fail (a run that stops at a missing file or a bad key gets the error alone). Not where --mode ecb
// was given: the user chose it knowing.
class EcbWarning {
public:
    explicit EcbWarning(const CipherOptions &options)
        : pending_(options.mode == Mode::ecb && !options.mode_given && options.direction == Direction::encrypt &&
                   !options.print_key) {}
    void show() {
        if (!std::exchange(pending_, false)) return;
        spdlog::warn("ECB mode encrypts equal 16-byte blocks to equal ciphertext, so patterns in the input "
                     "stay visible, and nothing detects tampering: --mode gcm protects data (-q silences this)");
    }

private:
    bool pending_;
};

// --json could not write a summary: standard output is gone, and the next summary would fail too.
class SummaryUnwritable : public IoError {
public:
    SummaryUnwritable() : IoError("error writing the --json summary to standard output") {}
};

// What --json prints for one input.
struct RunSummary {
    std::string input;
    std::optional<Mode> mode; // none: the file failed before its mode was read from it
    std::string output;       // empty: standard output, or nothing with -t
    PipelineStats stats;
    std::string backend;
    std::vector<LaneReport> lanes; // with several backends (a dispatcher): what each ciphered
    bool input_removed = false;
    std::string io;        // --io as it went: direct, buffered or mixed
    std::string io_engine; // what kept the direct requests in flight: io_uring, threads ("": none)
};

void print_json_summary(const CipherOptions &options, const RunSummary &summary, const std::string &error) {
    nlohmann::ordered_json object{
        {"input", summary.input == "-" ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(summary.input)},
        {"operation", options.test_only                         ? "test"
                      : options.direction == Direction::encrypt ? "encrypt"
                                                                : "decrypt"},
        {"mode", summary.mode ? nlohmann::ordered_json(mode_name(*summary.mode)) : nlohmann::ordered_json(nullptr)},
        {"ok", error.empty()}};
    if (!error.empty()) {
        object["error"] = error;
    } else {
        object["output"] =
            summary.output.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(summary.output);
        object["bytes_in"] = summary.stats.bytes_read;
        object["bytes_out"] = summary.stats.bytes_written;
        object["seconds"] = summary.stats.seconds;
        object["backend"] = summary.backend;
        nlohmann::ordered_json split = nlohmann::ordered_json::object();
        for (const LaneReport &lane : summary.lanes) split[lane_key(lane.name)] = lane.bytes;
        if (summary.lanes.empty()) split[summary.backend] = summary.stats.bytes_ciphered;
        object["split"] = std::move(split);
        object["input_removed"] = summary.input_removed;
        object["io"] = summary.io;
        object["io_engine"] =
            summary.io_engine.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(summary.io_engine);
    }
    std::cout << json_text(object) << std::endl;
    if (!std::cout) throw SummaryUnwritable();
}

// With --json, the object of an input that failed before any summary of it existed.
void print_json_failure(const CipherOptions &options, const std::string &input, const std::string &error) {
    if (!options.json) return;
    RunSummary failed;
    failed.input = input;
    if (!reads_mode_from_files(options)) failed.mode = options.mode;
    print_json_summary(options, failed, error);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What every input of one command shares.
struct CommandState {
    CommandKeys &keys;
    const CipherSettings &settings;
    const FilesNotToCipher &not_inputs;
    EcbWarning &ecb_warning;
    SelectionLog &selection_log;
};

// --output-dir-mirror: the directories on the way to `output`, made as mkdir -p makes them.
void make_directories_of(const std::string &output) {
    std::error_code error;
    std::filesystem::create_directories(std::filesystem::path(output).parent_path(), error);
    if (error) throw IoError(errno_message("cannot make the directories of", quoted_name(output), error.value()));
}

// The output of one input, checked before the key is asked for: nothing with -P, a discarding
// sink with -t. `output_name` gets its name (empty: standard output).
std::optional<OutputSink> open_output_of(const CipherOptions &options, const std::string &input, InputSource &source,
                                         unsigned io_threads, std::string &output_name) {
    std::optional<OutputSink> sink;
    if (options.test_only) {
        sink.emplace(OutputSink::discard());
    } else if (!options.print_key) {
        output_name = resolve_output_path(options, input);
        if (options.mirror_tree) make_directories_of(output_name);
        sink.emplace(output_name.empty() ? OutputSink::standard_output(&source.status())
                                         : create_output(output_name, options, source, io_threads));
    }
    if (sink) refuse_terminal_output(options, *sink);
    if (options.remove_input) {
        try {
            prepare_input_removal(source, input, *sink);
        } catch (const OutputWrittenAsItGoes &e) {
            throw UsageError("--rm removes the input only once its output is a complete file; " + e.output +
                             " is not a regular file");
        }
    }
    if (sink && options.sync) sink->make_durable();
    if (options.json && sink && sink->shares_file_with(STDOUT_FILENO)) {
        throw UsageError("--json prints to standard output, and the output goes there too (" + sink->display_name() +
                         "): give another -o FILE or drop --json");
    }
    if (sink && sink->shares_file_with(STDERR_FILENO)) {
        throw UsageError("standard error goes where the output goes (2>&1?): a warning or error would corrupt "
                         "the output; send standard error elsewhere");
    }
    return sink;
}

// gcm with a raw key: the segment size is the user's to give, and a wrong one reads as a cut stream.
std::string other_segment_size_hint(const SegmentGeometry &segments) {
    return fmt::format(", or it was made with another --segment-size than {}",
                       segments.segment_bytes == kDefaultSegmentBytes
                           ? "the default, 1M"
                           : fmt::format("{} bytes", segments.segment_bytes));
}

// Rethrows the failure of a GCM stream being handled with which file, and which options could
// explain it.
[[noreturn]] void rethrow_gcm_failure(const std::string &name, const SegmentGeometry &segments, bool passphrase_mode) {
    try {
        throw;
    } catch (const AuthenticationFailed &e) {
        throw AuthenticationFailed(fmt::format("{}: {}: {}", name, e.what(),
                                               passphrase_mode
                                                   ? "wrong passphrase or --aad, or the file was changed"
                                                   : "wrong key, --aad or --segment-size, or the file was changed "
                                                     "(cut short, reordered or tampered with); nothing unverified was "
                                                     "written"));
    } catch (const StreamCutShort &e) {
        // A raw key's segment size is the user's to give: the wrong one ends the stream inside a tag.
        throw StreamCutShort(
            fmt::format("{}: {}{}", name, e.what(), passphrase_mode ? "" : other_segment_size_hint(segments)));
    } catch (const FormatError &e) {
        // Another failure of a GCM stream: say which file, as for a failed segment.
        throw FormatError(fmt::format("{}: {}", name, e.what()));
    }
}

// Rethrows the exception being handled, a failure of the data once the job had started, with what
// the command line can add: which file, and which options could explain it.
// `mode_was_read`: the mode came from the file (no --mode); `name`: the input's; `withdrawable`:
// the output's (nothing of it is left on failure); `segments`: the format's.
[[noreturn]] void rethrow_with_advice(const CipherOptions &options, const std::string &name, bool withdrawable,
                                      const std::optional<SegmentGeometry> &segments, bool passphrase_mode,
                                      std::uint64_t memory_limit, const ModeGuess *mode_was_read) {
    const bool encrypting = options.direction == Direction::encrypt;
    try {
        throw;
    } catch (const BadPadding &) {
        throw BadPadding(name + ": bad decrypt" + bad_decrypt_causes(options, passphrase_mode) +
                         other_modes_hint(mode_was_read));
    } catch (const NotWholeBlocks &e) {
        throw_not_whole_blocks(e, name);
    } catch (const FormatError &e) {
        if (!segments) throw FormatError(name + ": " + e.what() + other_modes_hint(mode_was_read));
        rethrow_gcm_failure(name, *segments, passphrase_mode);
    } catch (const ResourceExhausted &e) {
        // A GCM chunk holds a whole segment: under a tight memory limit, large ones cannot fit.
        if (!segments || memory_limit == 0) throw;
        throw ResourceExhausted(
            fmt::format("{} (the control group's): each chunk holds a whole segment of {} bytes; {}", e.what(),
                        segments->segment_bytes,
                        encrypting ? "give a smaller --segment-size"
                                   : "the file's segments are that large: decrypt it where more "
                                     "memory is allowed"));
    } catch (const TooManySegments &e) {
        // A stream of unknown length (a pipe) reached the limit: no byte of segment 2^32 was ciphered.
        throw TooManySegments(fmt::format("{}: {}; {}{}", name, e.what(),
                                          segment_limit_advice(options.direction, passphrase_mode),
                                          withdrawable ? "" : "; the output already written is incomplete"));
    }
}

// -v: what deriving the key from the passphrase cost.
void log_key_derivation(const CipherOptions &options, const FileFormat &format, double seconds) {
    if (const auto *gcm = dynamic_cast<const TinkGcmFile *>(&format)) {
        const ScryptCost &cost = gcm->file().passphrase->cost;
        spdlog::debug("scrypt (N = 2^{}, r = {}, p = {}) and HKDF-SHA256: {:.3f} s", cost.log2_n, cost.r, cost.p,
                      seconds);
    } else {
        spdlog::debug("PBKDF2-HMAC-SHA256, {} iterations: {:.3f} s", options.iterations, seconds);
    }
}

// -v's last line for a file: bytes, time, rate, and the CPU seconds from the backend's start.
void log_done(const CipherOptions &options, const PipelineStats &stats, const CpuTime &cpu) {
    const double gib = double(stats.bytes_read) / double(1u << 30);
    const std::string output = options.test_only
                                   ? fmt::format("{} bytes of plaintext, not written", stats.bytes_written)
                                   : fmt::format("wrote {} bytes", stats.bytes_written);
    spdlog::info("{} {} bytes in {:.3f} s ({}), {}; CPU {:.2f} s user + {:.2f} s system{}",
                 options.test_only                         ? "tested"
                 : options.direction == Direction::encrypt ? "encrypted"
                                                           : "decrypted",
                 stats.bytes_read, stats.seconds, rate_text(double(stats.bytes_read), stats.seconds), output,
                 cpu.user_seconds, cpu.system_seconds,
                 gib >= 1.0 / 1024 ? fmt::format(" ({:.2f} s/GiB)", cpu.total() / gib) : std::string());
}

// An option of openssl's formats that was given (none: the defaults), for a file that reads as GCM.
const char *openssl_option_given(const CipherOptions &options) {
    return options.no_pad                                   ? "--no-pad"
           : options.print_key                              ? "-P/--print-key"
           : options.iterations != kDefaultPbkdf2Iterations ? "--iter"
           : options.key_bits != kDefaultPassphraseKeyBits  ? "--key-bits"
           : options.digest != kDefaultDigest               ? "--md"
           : options.no_pbkdf2                              ? "--no-pbkdf2"
                                                            : nullptr;
}

// What the options ask of a file whose mode was read and the mode cannot give: -t of CTR, --rm of
// a mode that does not prove the key, openssl's options of a GCM file.
void refuse_options_the_mode_cannot_take(const CipherOptions &options, const InputSource &source,
                                         const ModeGuess &guess, const std::string &reads_as) {
    if (options.test_only && guess.mode == Mode::ctr) {
        throw UsageError("-t/--test checks ECB's and CBC's padding and GCM's tags, and " + source.display_name() +
                         " reads as CTR (" + guess.why + "), which has nothing to check");
    }
    if (options.remove_input && !format_rules(guess.mode).proves_the_key) {
        throw UsageError(
            unproven_decrypt_rm(guess.padding_decides
                                    ? "in ECB and CBC a wrong key passes the padding check about once in 256"
                                    : unproven_key_reason(guess.mode, options.no_pad)) +
            " (" + source.display_name() + " reads as --mode " + reads_as + ": " + guess.why + ")");
    }
    const char *not_gcm = guess.mode == Mode::gcm ? openssl_option_given(options) : nullptr;
    if (not_gcm) {
        throw UsageError(fmt::format("{} is a GCM file ({}): {} does not apply to it; drop it", source.display_name(),
                                     guess.why, not_gcm));
    }
}

// --range of an input it cannot be read from (a FIFO is refused before its open waits for a
// writer; the rest once the header is read, before a passphrase is asked for).
[[noreturn]] void throw_range_refusal(const RangeUnreadable &refused) {
    const std::string seekable = "--range needs a file it can seek in (a regular file or block device); ";
    switch (refused.why) {
    case RangeUnreadable::Why::fifo: throw UsageError(seekable + refused.input + " is a FIFO");
    case RangeUnreadable::Why::not_seekable: throw UsageError(seekable + refused.input + " is not one");
    case RangeUnreadable::Why::not_gcm: break;
    }
    throw UsageError("--range reads GCM files only, and " + refused.input +
                     " reads as ECB (give --mode gcm if it is GCM)");
}

// A regular file's length, checked before the key (check_input_length), in the command line's words.
// `mode_was_read`: as for other_modes_hint; `passphrase_mode`: a GCM file's header gives its segment size.
[[noreturn]] void rethrow_length_failure(Direction direction, const std::string &name, const ModeGuess *mode_was_read,
                                         bool passphrase_mode) {
    try {
        throw;
    } catch (const NotWholeBlocks &e) {
        throw_not_whole_blocks(e, name);
    } catch (const SegmentsPastTheLimit &e) {
        throw TooManySegments(std::string(e.what()) + "; " + segment_limit_advice(direction, passphrase_mode));
    } catch (const FormatError &e) {
        throw FormatError(name + ": " + e.what() + other_modes_hint(mode_was_read));
    }
}

// A failure while the mode was read from the input's start: nothing there tells it.
[[noreturn]] void rethrow_mode_failure(const std::string &name) {
    try {
        throw;
    } catch (const ModeNotRecorded &e) {
        throw UsageError(name + ": " + e.what() + "; " + kGiveTheMode);
    }
}

// A failure while the key was derived, in the command line's words: a file whose mode both
// paddings fit, or neither.
[[noreturn]] void rethrow_key_failure(const CipherOptions &options, const std::string &name) {
    try {
        throw;
    } catch (const ModeNotRecorded &e) {
        throw UsageError(name + ": " + e.what() + "; " + kGiveTheMode);
    } catch (const BadPadding &e) {
        throw BadPadding(name + ": " + e.what() + bad_decrypt_causes(options, true) +
                         "; or it is CTR: give --mode ctr");
    }
}

// A mode read from Tink's header length byte alone: segment 0's tag decided, and it failed.
[[noreturn]] void rethrow_first_segment_failure(const std::string &name) {
    try {
        throw;
    } catch (const AuthenticationFailed &e) {
        throw AuthenticationFailed(fmt::format(
            "{}: {}: wrong key, a changed file, a GCM file of another --segment-size than 1M (give --mode gcm "
            "--segment-size), or not GCM at all: its first byte is what a GCM file's would be; if it is ECB, give "
            "--mode ecb (CTR: --mode ctr)",
            name, e.what()));
    } catch (const StreamCutShort &e) {
        throw StreamCutShort(fmt::format("{}: {}; its first byte is what a GCM file's would be: if it is ECB, give "
                                         "--mode ecb",
                                         name, e.what()));
    }
}

// What the command says and does as one file's run goes (the library says nothing itself): the
// checks in the command line's words at each step, the -v lines, the progress bar, and the commit
// with signals held off, --rm and the exit status. A failure is worded after the run
// (rethrow_failure), for the step it came in.
class CommandObserver final : public RunObserver {
public:
    CommandObserver(const CipherOptions &options, CommandState &shared, RunSummary &summary, unsigned io_threads,
                    std::optional<int> settle_status)
        : options_(options), shared_(shared), summary_(summary), io_threads_(io_threads),
          settle_status_(settle_status) {}

    void step(RunStep step, const CipherSettings &settings) override {
        step_ = step;
        mode_ = settings.mode;
        if (step == RunStep::deriving_key) {
            spdlog::debug("opened {} and checked it and the output in {:.3f} s", name_, seconds_since(opened_from_));
        }
        if (step == RunStep::running) {
            // The run's CPU seconds from the backend's start: the key derivation (scrypt, PBKDF2)
            // is a cost of the passphrase, not of the data.
            cpu_at_start_ = cpu_time_used();
            set_up_from_ = std::chrono::steady_clock::now();
        }
    }

    // Everything that can fail without the key comes first: the input, its header, the output.
    void input_opened(InputSource &source) override {
        source_ = &source;
        name_ = source.display_name();
        shared_.not_inputs.refuse(source.status(), name_); // again: the name may lead elsewhere now
        refuse_terminal_input(options_, source);
    }

    // Decrypting without --mode: the mode this input reads as, said with -v, and refused where the
    // options given are another mode's (before anything that asks for the key).
    void mode_read(const InputSource &source, const ModeGuess &guess) override {
        const std::string reads_as = guess.padding_decides ? "ecb or --mode cbc" : mode_name(guess.mode);
        spdlog::info("{} reads as --mode {}: {}", source.display_name(), reads_as, guess.why);
        refuse_options_the_mode_cannot_take(options_, source, guess, reads_as);
        guess_ = guess;
        padding_decides_ = guess.padding_decides;
        summary_.mode = guess.mode;
    }

    void header_read(const InputSource & /*source*/, const FileFormat &format) override {
        format_ = &format;
        segments_ = format.segments();
        if (options_.range) summary_.io = "buffered"; // a few segments, read where they lie
    }

    std::optional<OutputSink> open_output(InputSource &source, const FileRun & /*run*/) override {
        return open_output_of(options_, summary_.input, source, io_threads_, summary_.output);
    }

    void output_opened(const InputSource & /*source*/, const OutputSink *sink) override {
        sink_ = sink;
        withdrawable_ = !sink || sink->withdrawable();
    }

    // --io: how the file's bytes reach the ring (none for a stream), into the summary and -v.
    void io_chosen(const DirectIoOutcome &outcome) override {
        const IoPath io_path = describe_io_path(outcome, *source_, sink_ && !options_.test_only);
        summary_.io = io_path.name();
        summary_.io_engine = io_path.engine;
        spdlog::info("I/O: {} ({})", summary_.io, io_path.reason);
    }

    // -v's cost of deriving the key, and where the padding decided the mode, which.
    void key_derived(const FileFormat &format, const CipherKey & /*key*/, double seconds,
                     const ModeGuess *guess) override {
        if (shared_.keys.passphrase_mode()) log_key_derivation(options_, format, seconds);
        if (guess) guess_ = *guess;
        if (padding_decides_) spdlog::info("{} reads as --mode {}: {}", name_, mode_name(guess->mode), guess->why);
    }

    void key_in_hand(const CipherKey &key) override {
        if (guess_) summary_.mode = key.spec.mode; // where the padding decided
        key_bits_ = key.key.size() * 8;
        // openssl's files only: the command refuses -P for GCM.
        if (options_.print_key) print_key(dynamic_cast<const OpensslEncFile &>(*format_), key);
    }

    void backend_selected(const SelectedBackend &selected) override {
        shared_.selection_log.tell(options_.backend, selected);
        spdlog::debug("backend set up in {:.3f} s", seconds_since(set_up_from_));
        shared_.ecb_warning.show(); // every check that can fail before the run has passed
    }

    void starting(const JobPlan &plan) override {
        selected_ = &plan.selected;
        memory_limit_ = plan.memory_limit;
        chunk_bytes_asked_ = plan.chunk_bytes;
        ring_slots_asked_ = plan.ring_slots;
        if (plan.memory_limit) {
            spdlog::debug("memory limit of the control group: {}; the ring takes at most {}",
                          human_bytes(double(plan.memory_limit)),
                          human_bytes(double(plan.memory_limit / kRingShareOfMemoryLimit)));
        }
        if (plan.input_dropped_behind) {
            spdlog::debug("the input leaves the page cache once read, and the output is written to the disk every {}",
                          human_bytes(double(plan.write_behind_bytes)));
        }
        spdlog::info("{} {} -> {} ({}) with {}, chunk {} KiB x {} slots, {} I/O thread{}",
                     options_.test_only                         ? "testing"
                     : options_.direction == Direction::encrypt ? "encrypting"
                                                                : "decrypting",
                     name_, sink_->display_name(), cipher_name(*summary_.mode, key_bits_),
                     describe_backend(plan.selected), plan.slot_bytes >> 10, plan.ring_slots, io_threads_,
                     io_threads_ == 1 ? "" : "s");
        const bool show_progress = options_.progress == ProgressChoice::always ||
                                   (options_.progress == ProgressChoice::automatic && !options_.log.quiet &&
                                    progress_shown_by_default(sink_->is_terminal(), source_->fd() == STDIN_FILENO &&
                                                                                        is_a_pipe(source_->status())));
        // Its destructor erases the line if the run throws, before main() reports the error.
        progress_.emplace(show_progress, source_->size(), backend_name());
    }

    void progress(std::uint64_t done) override {
        if (selected_->dispatcher) progress_->set_backend(backend_name());
        progress_->update(done);
    }

    void note(NoteLevel level, std::string_view what) override { log_note(level, what); }

    // A signal during the commit waits for it; one after the last commit finds every output final.
    void commit_run(const PipelineStats &stats, const std::function<void()> &commit) override {
        if (!selected_) { // --range: no backend, no progress, only the commit
            run_uninterrupted([&] {
                commit();
                if (settle_status_) settle_interrupts(*settle_status_);
            });
            summary_.backend = "cpu";
            return;
        }
        progress_->finish();
        if (const std::optional<std::uint64_t> at = sink_->direct_writes_refused_at()) {
            summary_.io = "mixed";
            spdlog::info("I/O: the file system refused a direct write at byte {}; the rest went through the page cache",
                         *at);
        }
        spdlog::debug("pipeline: {} bytes in {:.3f} s", stats.bytes_read, stats.seconds);
        if (selected_->dispatcher) log_lanes(options_.backend.choice, selected_->dispatcher->report());
        if (stats.chunk_bytes != chunk_bytes_asked_ || stats.ring_slots != ring_slots_asked_) {
            spdlog::info("memory was short: ran with {} KiB chunks x {} slots", stats.chunk_bytes >> 10,
                         stats.ring_slots);
        }
        if (stats.went_in_place) {
            summary_.io = "mixed";
            spdlog::info("I/O: memory was short for the out-of-place ring (twice the chunks): ran in place, and what "
                         "the header or tags put off the disk's alignment went through the page cache");
        }
        const auto commit_start = std::chrono::steady_clock::now();
        run_uninterrupted([&] {
            commit();
            summary_.input_removed = options_.remove_input;
            if (settle_status_) settle_interrupts(*settle_status_);
        });
        if (!options_.test_only) spdlog::debug("output committed in {:.3f} s", seconds_since(commit_start));
        summary_.backend = backend_name();
        if (selected_->dispatcher) summary_.lanes = selected_->dispatcher->report();
    }

    // True once the job is set up: its failures are the data's, not the set-up's.
    [[nodiscard]] bool started() const { return selected_ != nullptr; }
    [[nodiscard]] CpuTime cpu_time_of_the_run() const { return cpu_time_used() - cpu_at_start_; }

    // The failure being handled, in the command line's words for the step it came in.
    [[noreturn]] void rethrow_failure() const {
        try {
            throw;
        } catch (const RangeUnreadable &refused) {
            throw_range_refusal(refused);
        } catch (const DirectIoRefused &) {
            rethrow_direct_io_refusal();
        } catch (const Base64Ciphertext &e) {
            refuse_base64(e.input);
        } catch (const SaltedNeedsPassphrase &e) {
            throw UsageError(e.input +
                             " starts with 'Salted__': it was encrypted with a passphrase; give it with -p/--pass");
        } catch (...) {
            // Worded for its step below.
        }
        switch (step_) {
        case RunStep::reading_mode: rethrow_mode_failure(name_);
        case RunStep::reading_header: rethrow_header_failure(options_, name_, mode_);
        case RunStep::checking_length:
            rethrow_length_failure(options_.direction, name_, guess_ ? &*guess_ : nullptr,
                                   shared_.keys.passphrase_mode());
        case RunStep::deriving_key: rethrow_key_failure(options_, name_);
        case RunStep::checking_first_segment: rethrow_first_segment_failure(name_);
        case RunStep::running: rethrow_run_failure();
        default: throw;
        }
    }

private:
    // The whole file through the pipeline, or (--range) the part of it asked for, failed.
    [[noreturn]] void rethrow_run_failure() const {
        try {
            throw;
        } catch (const OutputNeedsOverwrite &e) { // made meanwhile, found at the commit
            throw_with_force_flag(e);
        } catch (const RangePastTheEnd &e) {
            throw FormatError(name_ + ": " + e.what() + "; nothing was written");
        } catch (const std::exception &) {
            if (!started() && !options_.range) throw;
            rethrow_with_advice(options_, name_, withdrawable_, segments_, shared_.keys.passphrase_mode(),
                                memory_limit_, guess_ ? &*guess_ : nullptr);
        }
    }

    // "cpu (OpenSSL ...)" shows as "cpu"; a dispatcher's lanes as "cpu+gpu0+gpu1", which changes as
    // the GPUs take over from the CPU start.
    [[nodiscard]] std::string backend_name() const {
        if (selected_->dispatcher) return lane_key(active_lane_names(selected_->dispatcher->lanes_now()));
        const std::string description = selected_->backend->describe();
        return description.substr(0, description.find(" ("));
    }

    const CipherOptions &options_;
    CommandState &shared_;
    RunSummary &summary_;
    unsigned io_threads_;
    std::optional<int> settle_status_;
    // What the run's steps showed, kept to word a failure after the run (its input and output are
    // gone by then).
    RunStep step_ = RunStep::opening;
    Mode mode_ = Mode::ecb;
    std::string name_;
    std::optional<ModeGuess> guess_;
    bool padding_decides_ = false;
    std::optional<SegmentGeometry> segments_;
    bool withdrawable_ = true;
    // Valid while the run lasts.
    const InputSource *source_ = nullptr;
    const OutputSink *sink_ = nullptr;
    const FileFormat *format_ = nullptr;
    std::size_t key_bits_ = 0;
    std::chrono::steady_clock::time_point opened_from_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point set_up_from_ = std::chrono::steady_clock::now();
    CpuTime cpu_at_start_{};

    const SelectedBackend *selected_ = nullptr;
    std::uint64_t memory_limit_ = 0;
    std::size_t chunk_bytes_asked_ = 0;
    std::size_t ring_slots_asked_ = 0;
    std::optional<ProgressBar> progress_;
};

// What the library's run is asked for: the options less the command line's own, for `input`.
FileRun file_run_of(const CipherOptions &options, const std::string &input, const CipherSettings &settings,
                    unsigned io_threads) {
    FileRun run;
    run.input.path = input;
    run.settings = settings;
    run.mode_from_file = reads_mode_from_files(options);
    run.range = options.range;
    run.io = options.io;
    run.remove_input = options.remove_input;
    run.io_threads = io_threads;
    return run;
}

// One input to its output, through the library's run. Throws on failure, in the command line's
// words; the output is committed only on success. `settle_status`: when set, this is the last
// output, and the command's exit status once it is in place.
RunSummary run_one(const CipherOptions &options, const std::string &input, CommandState &shared,
                   std::optional<int> settle_status) {
    CommandKeys &keys = shared.keys;
    const bool passphrase_mode = keys.passphrase_mode();
    RunSummary summary;
    summary.input = input;
    if (!reads_mode_from_files(options)) summary.mode = options.mode;
    if (options.print_key && (options.direction == Direction::encrypt || !passphrase_mode)) {
        // Nothing to read: a raw key is printed as given, a new salt is drawn for encryption.
        const OpensslEncFile file(shared.settings, passphrase_mode ? std::optional(random_salt()) : std::nullopt);
        print_key(file, cipher_key(file, keys));
        return summary;
    }
    const unsigned io_threads = options.io_threads ? options.io_threads : default_io_threads();
    CommandObserver observer(options, shared, summary, io_threads, settle_status);
    try {
        summary.stats = run_file(file_run_of(options, input, shared.settings, io_threads), keys, observer);
    } catch (const std::exception &) {
        observer.rethrow_failure();
    }
    if (!options.print_key) log_done(options, summary.stats, observer.cpu_time_of_the_run());
    return summary;
}

// One input, then its --json object. Throws the input's failure (after its --json failure object),
// or SummaryUnwritable once the input is done but its summary could not be printed; a failure
// object that could not be printed sets `summaries_unwritable`.
void run_and_summarise(const CipherOptions &options, const std::string &input, CommandState &shared,
                       std::optional<int> settle_status, bool &summaries_unwritable) {
    RunSummary summary;
    try {
        try {
            summary = run_one(options, input, shared, settle_status);
        } catch (const std::bad_alloc &) {
            // Its own text is "std::bad_alloc". The run's buffers are freed by now.
            throw std::runtime_error(kNotEnoughMemory);
        }
    } catch (const std::exception &e) {
        try {
            print_json_failure(options, input, printable(e.what()));
        } catch (const SummaryUnwritable &unwritable) {
            summaries_unwritable = true;
            spdlog::error("{}", unwritable.what());
        }
        throw;
    }
    if (options.json) print_json_summary(options, summary, {});
}

// What the run does to each file: "encrypted", "decrypted" or "tested".
const char *verb_done(const CipherOptions &options) {
    return options.test_only ? "tested" : options.direction == Direction::encrypt ? "encrypted" : "decrypted";
}

// What became of the files a run was given, beyond those done.
struct FileCounts {
    std::size_t failed = 0;
    std::size_t not_started = 0;
    std::size_t skipped = 0; // encrypting: named with the suffix already
};

// "aesgpu: encrypted 3 of 5 files, 1 failed, 1 skipped" on standard error, unless -q. `files`:
// every file named or found, skipped ones included.
void print_files_summary(const CipherOptions &options, std::size_t files, const FileCounts &counts) {
    if (options.log.quiet) return;
    std::cerr << fmt::format("aesgpu: {} {} of {} files{}{}{}\n", verb_done(options),
                             files - counts.failed - counts.not_started - counts.skipped, files,
                             counts.failed ? fmt::format(", {} failed", counts.failed) : "",
                             counts.not_started ? fmt::format(", {} not started", counts.not_started) : "",
                             counts.skipped ? fmt::format(", {} skipped", counts.skipped) : "");
}

// Several files, through the library's run_many: each on its own; one failure does not stop the
// others. But --backend gpu on a machine without a usable GPU (no driver, no device, a --devices
// entry not there) is said once, and the files after it fail with it, untouched; a key that could
// not be had ends the command. And once a --json summary cannot be written, the files after it are
// left as they are: a script would not learn what became of them.
class EachInput final : public ManyRunsObserver {
public:
    EachInput(const CipherOptions &options, const std::vector<std::string> &inputs, CommandState &shared,
              std::size_t skipped)
        : options_(options), inputs_(inputs), shared_(shared), counts_{.skipped = skipped} {}

    [[nodiscard]] bool may_start(std::size_t /*index*/) override { return !summaries_unwritable_; }
    void run(std::size_t index) override {
        const bool last = index + 1 == inputs_.size();
        run_and_summarise(options_, inputs_[index], shared_, last ? std::optional(status_) : std::nullopt,
                          summaries_unwritable_);
    }
    void failed(std::size_t index, const std::exception_ptr &failure, bool taken) override {
        try {
            tell_failure(index, failure, taken);
        } catch (const SummaryUnwritable &e) {
            // What became of the input is counted (done, or failed with no GPU); its summary is lost.
            summaries_unwritable_ = true;
            spdlog::error("{}", e.what());
            status_ = std::max(status_, 1);
        }
    }
    void not_started(std::size_t /*index*/) override { ++counts_.not_started; }

    // "aesgpu: encrypted 3 of 5 files, 1 failed" once all are through; the exit status: 2 if any
    // usage error, else 1 if any failure, else 0.
    [[nodiscard]] int finish() const {
        print_files_summary(options_, inputs_.size() + counts_.skipped, counts_);
        return status_;
    }

private:
    void tell_failure(std::size_t index, const std::exception_ptr &failure, bool taken) {
        try {
            std::rethrow_exception(failure);
        } catch (const SummaryUnwritable &) {
            throw;
        } catch (const std::exception &e) {
            if (taken) {
                ++counts_.failed;
                print_json_failure(options_, inputs_[index], printable(e.what()));
                return;
            }
            if (shared_.keys.failed()) throw;
            spdlog::error("{}", printable(e.what()));
            status_ = std::max(status_, exit_status_of(e));
            ++counts_.failed;
        }
    }

    const CipherOptions &options_;
    const std::vector<std::string> &inputs_;
    CommandState &shared_;
    FileCounts counts_;
    int status_ = 0;
    bool summaries_unwritable_ = false;
};

// Each input, one after another (EachInput). `skipped`: files set aside before the run, for the
// summary. Returns the exit status.
int run_each(const CipherOptions &options, const std::vector<std::string> &inputs, CommandState &shared,
             std::size_t skipped) {
    EachInput each(options, inputs, shared, skipped);
    run_many(inputs.size(), shared.settings.backend, shared.keys, each);
    return each.finish();
}

// Each input set aside before the run, said once.
void warn_of_skipped(const std::vector<SkippedInput> &skipped) {
    for (const SkippedInput &input : skipped) spdlog::warn("{} {}", quoted_name(input.name), input.why);
}

// -r: each directory it could not read, said before any work. Returns the exit status those
// give the run: 1 if any (the run goes on with the rest).
int tell_unreadable(const InputList &list) {
    for (const std::string &why : list.unreadable) spdlog::error("{}", printable(why));
    return list.unreadable.empty() ? 0 : 1;
}

// No input left to cipher (-r or --filelist found none, or each was skipped): said; exit status 0
// (1 where -r could not read a directory).
int tell_nothing_to_do(const CipherOptions &options, const InputList &list) {
    const int status = tell_unreadable(list);
    warn_of_skipped(list.skipped);
    if (list.skipped.size() > 1) print_files_summary(options, list.skipped.size(), {.skipped = list.skipped.size()});
    if (list.skipped.empty()) {
        spdlog::warn("no files to {}{}", options.direction == Direction::encrypt ? "encrypt" : "decrypt",
                     options.direction == Direction::decrypt && options.recursive
                         ? " (decrypt -r takes the files whose names end in " + quoted_name(options.suffix) + ")"
                         : "");
    }
    return status;
}

} // namespace

int run_cipher_command(const CipherOptions &options) {
    const InputList list = gather_inputs(options); // -r and --filelist: the whole list, before any work
    if (list.inputs.empty()) return tell_nothing_to_do(options, list);
    const std::vector<std::string> &inputs = list.inputs;
    check_inputs(options, inputs);
    check_direct_io_targets(options, inputs);
    struct stat stdin_status {};
    const bool data_on_stdin = reads_standard_input(inputs) && ::fstat(STDIN_FILENO, &stdin_status) == 0;
    const AssociatedData associated_data = read_associated_data(options, data_on_stdin ? &stdin_status : nullptr);
    CommandKeys keys(options, data_on_stdin ? &stdin_status : nullptr);
    const FilesNotToCipher not_inputs(options, keys, associated_data);
    not_inputs.refuse_any_of(options, inputs); // the whole run, before any work
    refuse_directories(options, list);
    check_output_dir(options, inputs);
    refuse_outputs_over_inputs(options, list);
    warn_of_skipped(list.skipped);
    const int unreadable_status = tell_unreadable(list);
    if (options.no_pbkdf2) {
        spdlog::warn("openssl's old key derivation (openssl enc without -pbkdf2) is weak: one {} pass over the "
                     "passphrase and salt, no iterations, so a passphrase is cheap to guess; encrypt the data again "
                     "with aesgpu (PBKDF2, or --mode gcm's scrypt)",
                     digest_name(options.digest));
    }
    EcbWarning ecb_warning(options);
    SelectionLog selection_log;
    const CipherSettings settings = settings_of(options, associated_data.bytes);
    CommandState shared{keys, settings, not_inputs, ecb_warning, selection_log};
    if (inputs.size() == 1 && list.skipped.empty() && unreadable_status == 0) {
        // Failures reach main() as they are.
        bool summaries_unwritable = false;
        run_and_summarise(options, inputs.front(), shared, 0, summaries_unwritable);
        return 0;
    }
    return std::max(unreadable_status, run_each(options, inputs, shared, list.skipped.size()));
}

} // namespace aesgpu
