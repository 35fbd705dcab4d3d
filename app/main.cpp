// SPDX-License-Identifier: Apache-2.0
// aesgpu: parse the command line, run one command, map failures to exit codes and one line.
#include "app/argv_secrets.hpp"
#include "app/bench_command.hpp"
#include "app/cipher_command.hpp"
#include "app/exit_status.hpp"
#include "app/info_command.hpp"
#include "app/interrupts.hpp"
#include "app/keygen_command.hpp"
#include "app/logging.hpp"
#include "app/option_rules.hpp"
#include "app/option_tables.hpp"
#include "app/process_hardening.hpp"
#include "app/suggestions.hpp"
#include "common/errors.hpp"

#include <openssl/crypto.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <optional>
#include <string_view>

#include <unistd.h>

namespace {
using aesgpu::kExitRuntimeFailure;
using aesgpu::kExitUsage;

// Messages may quote what the user typed (CLI11 quotes unexpected arguments): one line, no
// terminal control sequences.
void report(const std::string &message) {
    spdlog::error("{}", aesgpu::printable(message));
}

// What info, --help, --version and bench printed must have arrived: a full disk or a closed
// standard output is an error (as for ls > /dev/full), a reader that went away ends quietly.
int finish_standard_output(int status) {
    // errno still holds the failed write's reason when an earlier flush (std::endl) failed.
    const bool flushed = std::fflush(stdout) == 0;
    const int error = errno;
    if (flushed && !std::ferror(stdout)) return status;
    if (error == EPIPE && aesgpu::broken_pipe_ends_quietly()) aesgpu::end_by_broken_pipe();
    report(error ? aesgpu::errno_message("error writing", "standard output", error)
                 : std::string("error writing standard output"));
    return kExitRuntimeFailure;
}

// Parses the command line into `parsed`; the exit status where that ends the run (help, the
// version, a usage error), nothing where the command is to run.
std::optional<int> parse_arguments(CLI::App &app, aesgpu::CommandLine &parsed, int argc, char **argv) {
    using namespace aesgpu;
    try {
        parse_command_line(app, parsed, argc, argv);
        seal_secret_arguments(app, parsed, argc, argv);
        check_command_line(app, parsed);
    } catch (const CLI::CallForHelp &e) {
        return finish_standard_output(app.exit(e));
    } catch (const CLI::CallForAllHelp &e) {
        return finish_standard_output(app.exit(e));
    } catch (const CLI::CallForVersion &e) {
        return finish_standard_output(app.exit(e));
    } catch (const CLI::ParseError &e) {
        if (argc == 1) {
            std::cerr << app.help();
        } else {
            report(plain_parse_error(without_secret_arguments(parse_error_text(e, app), app, argc, argv)) + " (" +
                   help_hint(app, argc, argv) + ")");
        }
        return kExitUsage;
    } catch (const UsageError &e) {
        report(e.what());
        return kExitUsage;
    } catch (const KeyError &e) { // --iv's value
        report(e.what());
        return exit_status_of(e);
    }
    return std::nullopt;
}

// Runs the parsed command; its exit status.
int run_command(const aesgpu::CommandLine &parsed) {
    using namespace aesgpu;
    try {
        switch (parsed.command) {
        case Command::encrypt:
        case Command::decrypt: configure_logging(parsed.cipher().log); return run_cipher_command(parsed.cipher());
        case Command::keygen:
            configure_logging({});
            run_keygen_command(parsed.keygen_options);
            return 0;
        case Command::info:
            if (!parsed.info_files.empty()) {
                configure_logging({});
                return finish_standard_output(print_file_info(std::cout, parsed.info_files, parsed.info_json));
            }
            print_info(std::cout, parsed.info_json);
            return finish_standard_output(0);
        case Command::bench:
            configure_logging({0, true}); // the file stage's runs would each repeat the ECB warning
            return finish_standard_output(run_bench_command(parsed.bench_options));
        case Command::none: return kExitUsage;
        }
    } catch (const BrokenPipe &e) {
        if (broken_pipe_ends_quietly()) end_by_broken_pipe();
        report(e.what());
        return kExitRuntimeFailure;
    } catch (const std::bad_alloc &) {
        throw;
    } catch (const std::exception &e) {
        report(e.what());
        return exit_status_of(e);
    }
    return 0;
}

// main() but for the one failure that cannot be reported as the others are.
int run_aesgpu(int argc, char **argv) {
    using namespace aesgpu;
    // OpenSSL as a command that lives for one file needs it: its ciphers and digests are asked for
    // as objects and fetched from providers, never by their old names, so the tables of those names
    // are not built (0.45 ms a run); and the process ends without freeing OpenSSL's memory one
    // piece at a time (0.24 ms). The configuration (openssl.cnf) is still read.
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ADD_ALL_CIPHERS | OPENSSL_INIT_NO_ADD_ALL_DIGESTS | OPENSSL_INIT_NO_ATEXIT,
                        nullptr);
    // Before anything opens a file, starts a thread or reads a secret.
    if (!open_standard_descriptors()) return kExitRuntimeFailure;
    keep_memory_private();
    configure_logging({});
    try {
        start_interrupt_handling();
    } catch (const std::bad_alloc &) {
        throw;
    } catch (const std::exception &e) {
        report(e.what());
        return kExitRuntimeFailure;
    }

    CommandLine parsed;
    CLI::App app;
    define_command_line(app, parsed, argc > 1 ? argv[1] : "");
    if (const std::optional<int> status = parse_arguments(app, parsed, argc, argv)) return *status;
    return run_command(parsed);
}
} // namespace

int main(int argc, char **argv) {
    try {
        return run_aesgpu(argc, argv);
    } catch (const std::bad_alloc &) {
        // Said without allocating: there may be no memory to say it with.
        const auto say = [](std::string_view text) { return ::write(STDERR_FILENO, text.data(), text.size()); };
        (void)(say("aesgpu: ") + say(aesgpu::kNotEnoughMemory) + say("\n"));
        return kExitRuntimeFailure;
    }
}
