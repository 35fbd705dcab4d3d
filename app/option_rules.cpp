// SPDX-License-Identifier: Apache-2.0
#include "app/option_rules.hpp"

#include "app/io_path.hpp"
#include "common/errors.hpp"
#include "engine/pipeline.hpp"
#include "format/file_format.hpp"
#include "job/setting_rules.hpp"
#include "keys/passphrase.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace aesgpu {

namespace {

template <typename Items, typename Item>
bool contains(const Items &items, const Item &item) {
    return std::find(items.begin(), items.end(), item) != items.end();
}

// Usage errors for options that the chosen mode would ignore: silently dropping them would hide
// a misunderstanding (a raw key has no iterations; the CPU has no CUDA streams).
// Which options the command line gave (not their defaults).
struct Given {
    const CLI::App &command;
    // False for an option the command does not have (decrypt's --no-pbkdf2, asked of encrypt).
    bool operator()(const char *name) const {
        const CLI::Option *option = command.get_option_no_throw(name);
        return option && option->count() > 0;
    }
};

// The job the command line describes, for the rules of where a setting counts (job/setting_rules).
SettingUse use_of(const CipherOptions &options, bool raw_key) {
    return {options.direction, options.mode, !raw_key, options.backend.choice};
}

// What applies to passphrases only.
void refuse_passphrase_options_for_a_raw_key(const Given &given, const SettingUse &use) {
    for (const auto &[name, setting] :
         {std::pair{"--iter", Setting::pbkdf2_iterations}, std::pair{"--key-bits", Setting::passphrase_key_bits},
          std::pair{"--md", Setting::openssl_derivation}, std::pair{"--no-pbkdf2", Setting::openssl_derivation}}) {
        if (given(name) && fit_of(setting, use) == SettingFit::passphrase_only) {
            throw UsageError(fmt::format("{} applies to passphrases (-p) only; a raw key (-K, --key-file) is "
                                         "used as it is",
                                         name));
        }
    }
}

void refuse_iv_mistakes(const Given &given, const CipherOptions &options, const SettingUse &use);

// CTR: no padding, nothing for -t to check; and the IV's rules.
void refuse_ctr_mistakes(const Given &given, const CipherOptions &options, const SettingUse &use) {
    if (options.mode == Mode::ctr) {
        if (given("--no-pad") && fit_of(Setting::no_pad, use) == SettingFit::other_mode) {
            throw UsageError("--mode ctr has no padding: drop --no-pad");
        }
        if (options.test_only) {
            throw UsageError("-t/--test checks ECB padding; --mode ctr has nothing to check (any key decrypts "
                             "to something)");
        }
    }
    refuse_iv_mistakes(given, options, use);
}

// CTR and CBC: an IV only with a raw key and always there, never one IV for two files.
void refuse_iv_mistakes(const Given &given, const CipherOptions &options, const SettingUse &use) {
    if (iv_required(use) && !options.iv) {
        throw UsageError(fmt::format("--mode {} with a raw key needs --iv HEX (32 hex digits), as openssl's -iv; "
                                     "use a new one for every file encrypted with the key, or use -p, which derives "
                                     "one",
                                     mode_name(options.mode)));
    }
    if (given("--iv") && fit_of(Setting::iv, use) == SettingFit::raw_key_only) {
        throw UsageError("--iv goes with a raw key (-K, --key-file); without one the key comes from a "
                         "passphrase, which derives the IV with it, as openssl enc -pbkdf2 does");
    }
    if (given("--iv") && fit_of(Setting::iv, use) == SettingFit::other_mode) {
        if (options.direction == Direction::decrypt && !options.mode_given) {
            throw UsageError("--iv goes with --mode ctr or cbc, which nothing in a file says: give the mode too");
        }
        throw UsageError(fmt::format("--iv applies to --mode ctr and cbc; {} has no IV", mode_name(options.mode)));
    }
    if (iv_required(use) && options.direction == Direction::encrypt && options.inputs.size() > 1) {
        throw UsageError(options.mode == Mode::ctr
                             ? "--mode ctr with a raw key and one --iv would encrypt every file with the same "
                               "keystream (the XOR of two outputs is the XOR of their inputs): one file per --iv, or "
                               "use -p"
                             : "--mode cbc with a raw key and one --iv would encrypt every file from the same IV "
                               "(equal starts would give equal ciphertext): one file per --iv, or use -p");
    }
}

// CBC encrypts one block after another, each from the ciphertext of the one before: one CPU thread.
void refuse_parallel_serial_encryption(const CipherOptions &options) {
    if (options.direction != Direction::encrypt || !format_rules(options.mode).encrypts_serially) return;
    if (options.backend.choice == BackendChoice::gpu || options.backend.choice == BackendChoice::all) {
        throw UsageError(fmt::format("--mode {} encryption is serial (each block needs the ciphertext of the one "
                                     "before): it runs on one CPU thread, not with --backend {}; drop --backend "
                                     "(decryption runs on every GPU and the CPU)",
                                     mode_name(options.mode),
                                     options.backend.choice == BackendChoice::gpu ? "gpu" : "all"));
    }
}

// A decrypt --rm that could remove the only ciphertext on a wrong key.
void refuse_unproven_decrypt_rm(const CipherOptions &options, const SettingUse &use) {
    // Only an authenticated mode proves the key right before the only copy goes: ECB's padding
    // passes about one wrong key in 256, and CTR and --no-pad check nothing.
    // Decrypting without --mode, each file's own mode decides (app/cipher_command), unless --no-pad
    // rules GCM out already.
    const bool mode_read_from_files = options.direction == Direction::decrypt && !options.mode_given && !options.no_pad;
    if (options.remove_input && !mode_read_from_files &&
        fit_of(Setting::remove_input, use) == SettingFit::unproven_key) {
        throw UsageError(unproven_decrypt_rm(unproven_key_reason(options.mode, options.no_pad)));
    }
}

// What GCM has not (padding, PBKDF2, one key to print) and what only GCM has.
void refuse_gcm_mistakes(const Given &given, const CipherOptions &options, const SettingUse &use) {
    if (options.mode == Mode::gcm) {
        if (given("--no-pad") && fit_of(Setting::no_pad, use) == SettingFit::other_mode) {
            throw UsageError("--mode gcm has no padding (its segments hold data of any length): drop --no-pad");
        }
        for (const auto &[name, what] : {std::pair{"--iter", "sets PBKDF2's cost"},
                                         std::pair{"--md", "picks the digest of openssl's key derivation"},
                                         std::pair{"--no-pbkdf2", "reads openssl's old key derivation"}}) {
            if (given(name) && fit_of(Setting::openssl_derivation, use) == SettingFit::scrypt_instead) {
                throw UsageError(fmt::format("{} {}; --mode gcm derives a passphrase's key with scrypt, whose cost "
                                             "the file's header holds: drop {}",
                                             name, what, name));
            }
        }
        if (given("--print-key")) {
            throw UsageError("--print-key does not apply to --mode gcm: its keys are per file (HKDF from the "
                             "file's salt, and scrypt for a passphrase)");
        }
        if (!passphrase_key_bits_fit(options.key_bits, options.mode)) {
            throw UsageError("--mode gcm takes 128- or 256-bit keys (--key-bits 128 or 256)");
        }
        for (const auto &[name, setting] : {std::pair{"--segment-size", Setting::segment_bytes},
                                            std::pair{"--key-bits", Setting::passphrase_key_bits}}) {
            if (given(name) && fit_of(setting, use) == SettingFit::read_from_header) {
                throw UsageError(fmt::format("{} is read from a --mode gcm passphrase file's header: drop it", name));
            }
        }
    } else {
        for (const auto &[name, setting] :
             {std::pair{"--segment-size", Setting::segment_bytes}, std::pair{"--aad", Setting::associated_data},
              std::pair{"--aad-file", Setting::associated_data}}) {
            if (given(name) && fit_of(setting, use) == SettingFit::other_mode) {
                throw UsageError(fmt::format("{} applies to --mode gcm", name));
            }
        }
    }
}

// GPU options with --backend cpu; contradicting verbosity.
void refuse_gpu_options_and_contradictions(const Given &given, const CipherOptions &options, const SettingUse &use) {
    for (const char *name : {"--streams", "--wait-for-gpu", "--devices"}) {
        if (given(name) && fit_of(Setting::gpu_choices, use) == SettingFit::gpu_only) {
            throw UsageError(fmt::format("{} applies to the GPU; it has no effect with --backend cpu", name));
        }
    }
    if (options.log.quiet && options.log.verbosity > 0) throw UsageError("-q/--quiet and -v/--verbose contradict");
    if (options.log.quiet && options.progress == ProgressChoice::always) {
        throw UsageError("-q/--quiet and --progress contradict");
    }
}

// Standard input read twice, or an input --rm cannot remove.
void refuse_standard_stream_conflicts(const CipherOptions &options, bool reads_stdin) {
    if (reads_stdin && options.associated_data_file == "-") {
        throw UsageError("--aad-file - reads standard input, where the data comes from: give the associated data a "
                         "file of its own");
    }
    if (options.associated_data_file == "-" &&
        (options.key_file == "-" || options.pass_spec.text() == "stdin" || options.pass_spec.text() == "fd:0")) {
        throw UsageError(fmt::format("--aad-file - and {} both read standard input: give one of them a file",
                                     options.key_file == "-" ? "--key-file -" : "the passphrase source"));
    }
    if (options.remove_input) {
        if (reads_stdin) throw UsageError("--rm removes input files; standard input is not one");
        if (options.to_stdout || options.output == "-") {
            throw UsageError("--rm needs an output file: data sent to standard output cannot be checked in place");
        }
        if (options.test_only) throw UsageError("--rm and -t/--test contradict: -t writes nothing");
        if (options.print_key) throw UsageError("--rm and -P/--print-key contradict: -P writes nothing");
    }
}

// --range: part of one GCM file's plaintext, never under the full file's name, never removing it.
void refuse_range_mistakes(const Given &given, const CipherOptions &options) {
    if (!options.range) return;
    if (options.mode_given && options.mode != Mode::gcm) {
        throw UsageError(fmt::format("--range reads GCM files only, not --mode {}", mode_name(options.mode)));
    }
    if (options.remove_input) throw UsageError("--range decrypts part of the file: --rm would remove the rest");
    if (options.inputs.size() > 1 || options.recursive || !options.file_list.empty()) {
        throw UsageError("--range takes one input file (not several, -r or --filelist)");
    }
    if (!options.test_only && options.output.empty() && !options.to_stdout) {
        throw UsageError("--range writes part of the plaintext, never under the file's own name: give -o FILE or -c");
    }
    for (const char *name : {"--no-pad", "--print-key", "--iter"}) {
        if (given(name)) throw UsageError(fmt::format("--range reads GCM files, which take no {}: drop it", name));
    }
}

// Options of outputs where nothing is written, or where standard output is taken.
// -t and -P write no data: every option about the output is one to drop.
void refuse_output_options_of_no_data(const Given &given, const CipherOptions &options) {
    if (options.test_only) {
        for (const char *name :
             {"--output", "--stdout", "--output-dir", "--output-dir-mirror", "--force", "--suffix", "--print-key"}) {
            if (given(name)) throw UsageError(fmt::format("-t/--test writes nothing: drop {}", name));
        }
    }
    if (options.print_key) {
        for (const char *name :
             {"--output", "--stdout", "--output-dir", "--output-dir-mirror", "--force", "--suffix", "--no-pad",
              "--backend", "--devices", "--streams", "--wait-for-gpu", "--threads", "--io-threads", "--chunk-size"}) {
            if (given(name))
                throw UsageError(fmt::format("-P/--print-key prints the key and writes no data: drop {}", name));
        }
    }
}

void refuse_options_of_no_output(const Given &given, const CipherOptions &options, bool reads_stdin,
                                 bool writes_stdout) {
    refuse_output_options_of_no_data(given, options);
    if (given("--suffix") && (given("--output") || options.to_stdout)) {
        throw UsageError("-S/--suffix names outputs that -o/-c would replace: drop one of them");
    }
    if (given("--suffix") && reads_stdin) throw UsageError("-S/--suffix names output files; standard input has none");
    if (options.json && writes_stdout && !options.test_only) {
        throw UsageError("--json prints to standard output, where the data goes here: give -o FILE or a FILE");
    }
    if (options.json && options.print_key) throw UsageError("--json and -P/--print-key both print to standard output");
}

// --filelist - reads the names from standard input: nothing else may read it.
void refuse_second_reader_of_stdin(const CipherOptions &options) {
    const std::string_view pass = options.pass_spec.text();
    const char *other = options.key_file == "-"                      ? "--key-file -"
                        : pass == "stdin" || pass == "fd:0"          ? "-p stdin"
                        : options.associated_data_file == "-"        ? "--aad-file -"
                        : contains(options.inputs, std::string("-")) ? "the data ('-')"
                                                                     : nullptr;
    if (other) {
        throw UsageError(fmt::format("--filelist - reads the names from standard input, and so would {}: give one "
                                     "of them a file",
                                     other));
    }
}

// -r and --filelist with standard input: it is neither a directory nor a name in a list, and it
// is read once.
void refuse_standard_input_in_lists(const CipherOptions &options, const char *which) {
    if (options.file_list == "-") refuse_second_reader_of_stdin(options);
    if (options.recursive && options.inputs.empty() && options.file_list.empty()) {
        throw UsageError("-r walks the directories given: name one (standard input is none)");
    }
    if (contains(options.inputs, std::string("-"))) {
        throw UsageError(fmt::format("'-' (standard input) cannot be an input with {}: name files", which));
    }
}

// -r and --filelist: files found as the run starts, each to its own output.
void refuse_input_list_mistakes(const CipherOptions &options, const SettingUse &use, bool writes_stdout) {
    if (options.null_separated && options.file_list.empty()) {
        throw UsageError("--null says how --filelist's names end: give --filelist FILE");
    }
    if (!options.recursive && options.file_list.empty()) return;
    const char *which = options.recursive ? "-r" : "--filelist";
    refuse_standard_input_in_lists(options, which);
    if (writes_stdout || !options.output.empty()) {
        throw UsageError(fmt::format("{} gives each file its own output: drop -o/-c (--output-dir DIR puts them all "
                                     "in one directory)",
                                     which));
    }
    if (options.print_key) throw UsageError(fmt::format("-P/--print-key takes one input: drop {}", which));
    if (iv_required(use) && options.direction == Direction::encrypt) {
        throw UsageError(fmt::format("--mode {} with a raw key and one --iv would encrypt every file {} finds {}: "
                                     "one file per --iv, or use -p",
                                     mode_name(options.mode), which,
                                     options.mode == Mode::ctr ? "with the same keystream" : "from the same IV"));
    }
}

// openssl's old key derivation (decrypt only: never written) has no iterations to set.
void refuse_old_kdf_mistakes(const Given &given, const CipherOptions &options) {
    if (!options.no_pbkdf2) return;
    if (given("--iter")) {
        throw UsageError("--iter sets PBKDF2's iterations, and --no-pbkdf2 reads openssl's old key derivation, "
                         "which takes none: drop one of them");
    }
}

void refuse_ignored_options(const CLI::App &command, const CipherOptions &options) {
    const Given given{command};
    const SettingUse use = use_of(options, given("--key") || given("--key-file"));
    refuse_passphrase_options_for_a_raw_key(given, use);
    refuse_old_kdf_mistakes(given, options);
    refuse_ctr_mistakes(given, options, use);
    refuse_parallel_serial_encryption(options);
    if (options.direction == Direction::decrypt) refuse_range_mistakes(given, options);
    refuse_unproven_decrypt_rm(options, use);
    refuse_gcm_mistakes(given, options, use);
    refuse_gpu_options_and_contradictions(given, options, use);
    const bool reads_stdin = (options.inputs.empty() && options.file_list.empty() && !options.recursive) ||
                             contains(options.inputs, std::string("-"));
    const bool writes_stdout = options.to_stdout || options.output == "-" || (reads_stdin && options.output.empty());
    refuse_input_list_mistakes(options, use, options.to_stdout || options.output == "-");
    for (const char *name : {"--output-dir", "--output-dir-mirror"}) {
        if (given(name) && reads_stdin) {
            throw UsageError(fmt::format("{} names output files; standard input has none", name));
        }
    }
    refuse_standard_stream_conflicts(options, reads_stdin);
    refuse_options_of_no_output(given, options, reads_stdin, writes_stdout);
}

} // namespace

std::string unproven_decrypt_rm(std::string_view why) {
    return fmt::format("decrypt --rm takes --mode gcm only, the one mode that proves the key was right: {}, and --rm "
                       "would then remove the only ciphertext. Decrypt, check the output, then remove the input "
                       "yourself",
                       why);
}

const char *unproven_key_reason(Mode mode, bool no_pad) {
    if (mode == Mode::ctr) return "CTR decrypts any key to something";
    if (no_pad) return "--no-pad leaves no padding to check";
    return mode == Mode::cbc ? "in CBC a wrong key passes the padding check about once in 256"
                             : "in ECB a wrong key passes the padding check about once in 256";
}

void check_command_line(const CLI::App &app, const CommandLine &parsed) {
    if (parsed.command == Command::keygen && app.get_subcommand("keygen")->get_option("--output")->count() > 0 &&
        parsed.keygen_options.output.empty()) {
        throw UsageError("--output was given an empty value (an unset variable?)");
    }
    if (parsed.command == Command::encrypt || parsed.command == Command::decrypt) {
        const char *name = parsed.command == Command::encrypt ? "encrypt" : "decrypt";
        refuse_ignored_options(*app.get_subcommand(name), parsed.cipher());
    }
}

} // namespace aesgpu
