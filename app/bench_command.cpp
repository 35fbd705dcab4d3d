// SPDX-License-Identifier: Apache-2.0
#include "app/bench_command.hpp"

#include "app/backend_log.hpp"
#include "app/bench_report.hpp"
#include "app/interrupts.hpp"
#include "app/logging.hpp"
#include "common/errors.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <stdexcept>
#include <string>

namespace aesgpu {

namespace {

// "bench: <step>" redrawn in place on a terminal, erased at the end.
class StatusLine {
public:
    StatusLine() : enabled_(::isatty(STDERR_FILENO) == 1) {}
    ~StatusLine() {
        if (enabled_) std::cerr << "\r\033[K" << std::flush;
    }
    StatusLine(const StatusLine &) = delete;
    StatusLine &operator=(const StatusLine &) = delete;
    void show(const std::string &step) const {
        if (enabled_) std::cerr << "\r\033[Kbench: " << step << std::flush;
    }

private:
    bool enabled_;
};

} // namespace

BenchSettings bench_settings(const BenchOptions &options) {
    BenchSettings settings;
    settings.cpu = options.backend != "gpu";
    settings.gpu = options.backend != "cpu";
    if (options.key_bits != "all") settings.key_bits = {static_cast<unsigned>(std::stoul(options.key_bits))};
    if (options.mode != "all") {
        settings.modes = {options.mode == "gcm" ? Mode::gcm : options.mode == "ctr" ? Mode::ctr : Mode::ecb};
    }
    settings.directions.clear();
    if (options.direction != "decrypt") settings.directions.push_back(Direction::encrypt);
    if (options.direction != "encrypt") settings.directions.push_back(Direction::decrypt);
    settings.size_bytes = options.size_bytes / kAesBlockBytes * kAesBlockBytes;
    if (settings.size_bytes == 0) throw UsageError("--size must be at least 16 bytes");
    settings.reps = std::max(options.reps, 1);
    settings.threads = options.threads;
    if (options.devices) {
        if (!settings.gpu) throw UsageError("--devices applies to the GPU; it has no effect with --backend cpu");
        settings.devices = *options.devices;
    }
    settings.file = options.file;
    // The bench refuses a file that is not a regular one too, in its own words.
    struct stat status {};
    if (!options.file.empty() && ::stat(options.file.c_str(), &status) == 0 && !S_ISREG(status.st_mode)) {
        throw UsageError("--file needs a regular file: " + quoted_name(options.file) + " is not one");
    }
    return settings;
}

int run_bench_command(const BenchOptions &options) {
    BenchSettings settings = bench_settings(options);
    BenchReport report;
    SelectionLog selection_log;
    LoggedNotes notes;
    settings.notes = &notes;
    settings.interrupt_cleanups = &interrupt_cleanups();
    {
        const StatusLine status;
        settings.on_step = [&status](const std::string &step) { status.show(step); };
        settings.run_commit = run_uninterrupted;
        settings.on_backend_selected = [&selection_log](const BackendRequest &request,
                                                        const SelectedBackend &selected) {
            selection_log.tell(request, selected);
        };
        report = run_bench(settings);
    }
    // As with `encrypt --backend gpu`: asking for the GPU alone and getting nothing is a failure.
    if (!settings.cpu && !report.unavailable.empty()) {
        throw std::runtime_error(stage_reason(report.unavailable.front(), report.size_bytes));
    }
    if (options.json) {
        print_bench_json(report, std::cout);
    } else {
        print_bench_table(report, std::cout);
    }
    // The rows measured are out; the first stage that could not run is the error.
    if (!report.failed.empty()) throw std::runtime_error(stage_note_text(report.failed.front(), report.size_bytes));
    return 0;
}

} // namespace aesgpu
