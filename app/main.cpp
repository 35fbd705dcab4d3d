// aesgpu: parse the command line, run one command, map failures to exit codes and one line.
#include "app/bench_command.hpp"
#include "app/cipher_command.hpp"
#include "app/cli.hpp"
#include "app/info_command.hpp"
#include "app/interrupts.hpp"
#include "app/logging.hpp"
#include "app/process_hardening.hpp"
#include "app/usage_error.hpp"

#include <spdlog/spdlog.h>

#include <exception>
#include <iostream>

namespace {
constexpr int kExitRuntimeFailure = 1;
constexpr int kExitUsage = 2;
} // namespace

int main(int argc, char **argv) {
    using namespace aesgpu;
    // Before anything opens a file, starts a thread or reads a secret.
    if (!open_standard_descriptors()) return kExitRuntimeFailure;
    keep_memory_private();
    configure_logging({});
    try {
        start_interrupt_handling();
    } catch (const std::exception &e) {
        spdlog::error("{}", e.what());
        return kExitRuntimeFailure;
    }

    CommandLine parsed;
    CLI::App app;
    define_command_line(app, parsed);
    try {
        parse_command_line(app, parsed, argc, argv);
        seal_secret_arguments(app, parsed, argc, argv);
    } catch (const CLI::CallForHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion &e) {
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        if (argc == 1) {
            std::cerr << app.help();
        } else {
            spdlog::error("{} (see `aesgpu --help`)", without_secret_arguments(e.what(), argc, argv));
        }
        return kExitUsage;
    } catch (const UsageError &e) {
        spdlog::error("{}", e.what());
        return kExitUsage;
    }

    try {
        switch (parsed.command) {
        case Command::encrypt:
        case Command::decrypt: configure_logging(parsed.cipher().log); return run_cipher_command(parsed.cipher());
        case Command::info: print_info(std::cout); break;
        case Command::bench:
            configure_logging({0, true}); // the file stage's runs would each repeat the ECB warning
            return run_bench_command(parsed.bench_options);
        case Command::none: return kExitUsage;
        }
    } catch (const UsageError &e) {
        spdlog::error("{}", e.what());
        return kExitUsage;
    } catch (const std::exception &e) {
        spdlog::error("{}", e.what());
        return kExitRuntimeFailure;
    }
    return 0;
}
