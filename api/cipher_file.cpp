// SPDX-License-Identifier: Apache-2.0
// The public cipher_file over job/'s: public settings to the library's, the Observer over
// CipherObserver, the caller's stop token checked between chunks, and every failure as one Error.
#include "api/error_kind.hpp"
#include "api/key.hpp"
#include "cipher/segments.hpp"
#include "common/errors.hpp"
#include "io/input_source.hpp"
#include "io/io_threads.hpp"
#include "job/file_run.hpp"
#include "job/input_removal.hpp"
#include "job/io_choice.hpp"
#include "job/outputs_over_inputs.hpp"
#include "job/setting_rules.hpp"

#include <sys/stat.h>

#include <exception>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace aesgpu {

namespace {

[[noreturn]] void refuse(const std::string &what) {
    throw Error(ErrorKind::settings, what);
}

// `value` of the enum `type_name`, held in the field `field`: refused unless it is one of the
// enum's values, from 0 to `last` (a cast or an unchecked read may hold any number).
template <typename Enum>
void refuse_outside(Enum value, Enum last, const char *field, const char *type_name) {
    const auto raw = static_cast<long long>(value);
    if (raw >= 0 && raw <= static_cast<long long>(last)) return;
    refuse(std::string(field) + " holds " + std::to_string(raw) + ", which is no " + type_name);
}

void refuse_values_outside_enums(const Settings &settings) {
    refuse_outside(settings.direction, Direction::decrypt, "direction", "Direction");
    if (!settings.mode) refuse("mode: none given; choose one: Mode::ecb, Mode::ctr, Mode::cbc or Mode::gcm");
    refuse_outside(*settings.mode, Mode::cbc, "mode", "Mode");
    refuse_outside(settings.backend, BackendChoice::all, "backend", "BackendChoice");
    refuse_outside(settings.io, IoChoice::buffered, "io", "IoChoice");
}

// The job `settings` describe, for the rules of where a setting counts (job/setting_rules).
SettingUse use_of(const Settings &settings, bool passphrase) {
    return {settings.direction, *settings.mode, passphrase, settings.backend};
}

// Settings that would be ignored are refused: a caller who set one expects it to count.
void refuse_ignored_settings(const Settings &settings, const SettingUse &use) {
    if (settings.iv && fit_of(Setting::iv, use) != SettingFit::counts) {
        refuse("iv applies to modes ctr and cbc with a raw key only (a passphrase derives its own)");
    }
    if (settings.no_pad && fit_of(Setting::no_pad, use) != SettingFit::counts)
        refuse("no_pad applies to mode ecb only");
    if (!settings.associated_data.empty() && fit_of(Setting::associated_data, use) != SettingFit::counts) {
        refuse("associated_data applies to mode gcm only");
    }
    if (settings.segment_bytes != 0) {
        switch (fit_of(Setting::segment_bytes, use)) {
        case SettingFit::counts: break;
        case SettingFit::read_from_header: refuse("segment_bytes: a passphrase file's header gives its own");
        default: refuse("segment_bytes applies to mode gcm only");
        }
    }
}

// The passphrase's settings count only with a passphrase, PBKDF2's only outside gcm (scrypt), and
// the key size not where a gcm passphrase file's header gives it.
void check_passphrase_settings(const Settings &settings, const SettingUse &use) {
    const bool default_iterations = settings.pbkdf2_iterations == kDefaultPbkdf2Iterations;
    const bool default_bits = settings.passphrase_key_bits == kDefaultPassphraseKeyBits;
    if ((!default_iterations && fit_of(Setting::pbkdf2_iterations, use) == SettingFit::passphrase_only) ||
        (!default_bits && fit_of(Setting::passphrase_key_bits, use) == SettingFit::passphrase_only)) {
        refuse("pbkdf2_iterations and passphrase_key_bits apply to a passphrase only");
    }
    if (!use.passphrase) return;
    if (!default_iterations && fit_of(Setting::pbkdf2_iterations, use) == SettingFit::scrypt_instead) {
        refuse("pbkdf2_iterations: mode gcm derives with scrypt");
    }
    if (!default_bits && fit_of(Setting::passphrase_key_bits, use) == SettingFit::read_from_header) {
        refuse("passphrase_key_bits: a passphrase file's header gives its own");
    }
    if (settings.pbkdf2_iterations == 0) refuse("pbkdf2_iterations must be at least 1");
    if (!passphrase_key_bits_fit(settings.passphrase_key_bits, *settings.mode)) {
        refuse(settings.mode == Mode::gcm ? "passphrase_key_bits must be 128 or 256 for mode gcm"
                                          : "passphrase_key_bits must be 128, 192 or 256");
    }
}

// What each mode needs (CTR's IV with a raw key, a GCM segment size a reader takes), and GPU
// settings only where GPUs may run.
void check_mode_settings(const Settings &settings, const SettingUse &use) {
    if ((!settings.devices.empty() || settings.wait_for_gpu) &&
        fit_of(Setting::gpu_choices, use) == SettingFit::gpu_only) {
        refuse("devices and wait_for_gpu are for GPUs, and backend is cpu");
    }
    if (iv_required(use) && !settings.iv) {
        refuse(settings.mode == Mode::cbc
                   ? "iv is required for mode cbc with a raw key: a fixed IV would give equal starts equal ciphertext"
                   : "iv is required for mode ctr with a raw key: a fixed counter would repeat the keystream");
    }
    if (settings.segment_bytes > kMaxSegmentBytes) {
        refuse("segment_bytes is at most " + std::to_string(kMaxSegmentBytes) + " (64 MiB)");
    }
}

// remove_input: an input file, an output file, and on decrypt a mode that proves the key right.
void check_removal_settings(const Settings &settings, const SettingUse &use, const std::filesystem::path &input,
                            const std::filesystem::path &output) {
    if (!settings.remove_input) return;
    if (fit_of(Setting::remove_input, use) == SettingFit::unproven_key) {
        refuse("remove_input on decrypt takes mode gcm only, the one mode that proves the key right before the only "
               "ciphertext goes");
    }
    if (input == "-") refuse("remove_input removes an input file; standard input is not one");
    if (output == "-") refuse("remove_input needs an output file; standard output is not one");
}

// io direct: regular files only, checked by name before anything is opened (opening a FIFO would
// wait for its other end). An output not there yet will be a regular file.
void check_io_settings(const Settings &settings, const std::filesystem::path &input,
                       const std::filesystem::path &output) {
    if (settings.io != IoChoice::direct) return;
    struct stat status {};
    if (input == "-" || (::stat(input.c_str(), &status) == 0 && !S_ISREG(status.st_mode))) {
        refuse("io direct reads regular files only; " +
               (input == "-" ? std::string("standard input") : quoted_name(input.string())) + " is not one");
    }
    if (output == "-" || (::stat(output.c_str(), &status) == 0 && !S_ISREG(status.st_mode) &&
                          !S_ISDIR(status.st_mode))) { // a directory is the output's own failure
        refuse("io direct writes regular files only; " +
               (output == "-" ? std::string("standard output") : quoted_name(output.string())) +
               " is written as it goes");
    }
}

// Neither the input nor an existing output may be the key file (any name for it): encrypting over
// the key would destroy it. A missing key file is the key's failure, later.
void refuse_the_key_file(const Key::Source &keys, const std::filesystem::path &input,
                         const std::filesystem::path &output) {
    const std::filesystem::path *key_file = keys.file();
    struct stat key {};
    if (!key_file || ::stat(key_file->c_str(), &key) != 0) return;
    const auto is_key_file = [&key](const std::filesystem::path &path) {
        struct stat named {};
        return path != "-" && ::stat(path.c_str(), &named) == 0 && same_file(named, key);
    };
    if (is_key_file(input))
        throw Error(ErrorKind::settings, "the input " + quoted_name(input.string()) + " is the key file");
    if (is_key_file(output)) {
        throw Error(ErrorKind::settings,
                    "the output " + quoted_name(output.string()) + " is the key file: name another output");
    }
}

CipherSettings library_settings(const Settings &settings) {
    CipherSettings library;
    library.direction = settings.direction;
    library.mode = *settings.mode;
    library.iv = settings.iv;
    library.no_pad = settings.no_pad;
    library.pbkdf2_iterations = settings.pbkdf2_iterations;
    library.passphrase_key_bits = settings.passphrase_key_bits;
    library.segment_bytes = settings.segment_bytes;
    library.associated_data = settings.associated_data;
    library.backend.choice = settings.backend;
    library.backend.wait_for_gpu = settings.wait_for_gpu;
    library.backend.devices = settings.devices;
    library.backend.cpu_threads = settings.cpu_threads;
    return library;
}

OutputSink open_sink(const std::filesystem::path &output, const Settings &settings, const InputSource &source,
                     unsigned io_threads, CleanupRegistry *interrupt_cleanups) {
    if (output == "-") return OutputSink::standard_output(&source.status());
    OutputSink sink = OutputSink::create(output.string(), OutputPolicy{.overwrite = settings.overwrite,
                                                                       .input_status = &source.status(),
                                                                       .io_threads = io_threads,
                                                                       .interrupt_cleanups = interrupt_cleanups});
    if (settings.durable) sink.make_durable();
    return sink;
}

std::vector<Lane> lanes_of(const SelectedBackend &selected, const Settings &settings) {
    std::vector<Lane> lanes;
    if (selected.dispatcher) {
        for (const LaneReport &lane : selected.dispatcher->report()) lanes.push_back({lane.name, lane.device});
    } else if (settings.backend == BackendChoice::cpu || selected.notes.cpu_instead != CpuInstead::no) {
        lanes.push_back({"CPU", -1});
    } else {
        lanes.push_back({"GPU", selected.notes.devices.empty() ? 0 : selected.notes.devices.front()});
    }
    return lanes;
}

// What each lane ciphered: the dispatcher's count per lane, or all of it for a backend alone.
std::vector<LaneResult> lane_results(const SelectedBackend &selected, const Settings &settings,
                                     std::uint64_t bytes_ciphered) {
    if (!selected.dispatcher) return {{lanes_of(selected, settings).front(), bytes_ciphered}};
    std::vector<LaneResult> results;
    for (const LaneReport &lane : selected.dispatcher->report())
        results.push_back({{lane.name, lane.device}, lane.bytes});
    return results;
}

// Tells the caller's Observer, stops when asked, and notes what each lane did before the commit.
class PublicObserver final : public CipherObserver {
public:
    PublicObserver(Observer *observer, const Settings &settings, std::stop_token stop, const InputSource &source,
                   const std::filesystem::path &input, const DirectIoOutcome &io)
        : observer_(observer), settings_(settings), stop_(std::move(stop)), source_(source), input_(input), io_(io) {}

    void backend_selected(const SelectedBackend &selected) override {
        // A small file on the CPU alone is auto's own choice, not a GPU missing.
        const CpuInstead instead = selected.notes.cpu_instead;
        if (instead != CpuInstead::no && instead != CpuInstead::small_input) {
            tell([&] { observer_->note(selected.notes.cpu_reason); });
        }
    }
    void starting(const JobPlan &plan) override {
        selected_ = &plan.selected;
        tell([&] {
            observer_->starting(Plan{lanes_of(plan.selected, settings_), plan.chunk_bytes, plan.ring_slots,
                                     source_.size(), io_.reads_direct, io_.writes_direct});
        });
    }
    void progress(std::uint64_t bytes_done) override {
        check_stop();
        tell([&] { observer_->progress(bytes_done); });
    }
    void note(NoteLevel /*level*/, std::string_view what) override {
        tell([&] { observer_->note(what); });
    }
    void commit(OutputSink &sink, const PipelineStats &stats) override {
        check_stop();
        if (selected_) lanes = lane_results(*selected_, settings_, stats.bytes_ciphered);
        if (settings_.remove_input) {
            commit_removing_input(sink, source_, input_.string());
            input_removed = true;
        } else {
            sink.commit();
        }
    }

    std::vector<LaneResult> lanes;
    bool input_removed = false;

private:
    void check_stop() const {
        if (stop_.stop_requested()) throw Error(ErrorKind::stopped, "stopped: the caller asked for a stop");
    }
    template <typename Call>
    void tell(Call call) {
        if (observer_) call_caller(call);
    }

    Observer *observer_;
    const Settings &settings_;
    std::stop_token stop_;
    const InputSource &source_;
    const std::filesystem::path &input_;
    const DirectIoOutcome &io_;
    const SelectedBackend *selected_ = nullptr;
};

// A task whose output is another task's input (the command refuses the same).
void refuse_outputs_over_inputs(std::span<const FileTask> tasks) {
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
    for (const FileTask &task : tasks) {
        inputs.push_back(task.input.string());
        outputs.push_back(task.output.string());
    }
    if (const std::optional<OutputOverInput> pair = output_over_input(inputs, outputs)) {
        refuse("the output of task " + std::to_string(pair->output_of) + " is the input of task " +
               std::to_string(pair->input_of) + " (" + quoted_name(inputs[pair->input_of]) +
               "), which it would replace: name other outputs");
    }
}

} // namespace

struct InterruptCleanups::Registry {
    CleanupRegistry registry;
};

InterruptCleanups::InterruptCleanups() : registry_(std::make_unique<Registry>()) {}
InterruptCleanups::~InterruptCleanups() = default;

void InterruptCleanups::run_all() noexcept {
    registry_->registry.run_all();
}

InterruptCleanups::Registry &registry_of(InterruptCleanups &cleanups) noexcept {
    return *cleanups.registry_;
}

Result cipher_file(const std::filesystem::path &input, const std::filesystem::path &output, const Settings &settings,
                   Key &key, Observer *observer, std::stop_token stop, InterruptCleanups *cleanups) {
    try {
        refuse_values_outside_enums(settings);
        Key::Source &keys = key_source(key);
        const SettingUse use = use_of(settings, keys.passphrase_mode());
        refuse_ignored_settings(settings, use);
        check_passphrase_settings(settings, use);
        check_mode_settings(settings, use);
        check_removal_settings(settings, use, input, output);
        check_io_settings(settings, input, output);
        refuse_the_key_file(keys, input, output);
        if (stop.stop_requested()) throw Error(ErrorKind::stopped, "stopped before it started");
        const CipherSettings library = library_settings(settings);
        const unsigned io_threads = default_io_threads();
        InputSource source = InputSource::open(input.string(), io_threads);
        CleanupRegistry *registry = cleanups ? &registry_of(*cleanups).registry : nullptr;
        OutputSink sink = open_sink(output, settings, source, io_threads, registry);
        if (settings.remove_input) {
            try {
                prepare_input_removal(source, input.string(), sink);
            } catch (const OutputWrittenAsItGoes &e) {
                refuse("remove_input needs a complete output file; " + e.output + " is not a regular file");
            }
        }
        const std::unique_ptr<FileFormat> format = file_format_for(library, keys, source);
        const DirectIoOutcome io = choose_direct_io(settings.io, 0, source, &sink);
        // A prompt asks only once nothing that needs no key can fail: not for a missing GPU.
        if (keys.passphrase_mode()) check_required_backend(library.backend);
        const CipherKey cipher_key_in_hand = cipher_key(*format, keys);
        PublicObserver told(observer, settings, stop, source, input, io);
        const PipelineStats stats = cipher_file_with_key(source, sink, library, *format, cipher_key_in_hand, told);
        return Result{stats.bytes_read, stats.bytes_written, stats.seconds, std::move(told.lanes), told.input_removed};
    } catch (const CallerFailure &failure) {
        std::rethrow_exception(failure.thrown);
    } catch (...) {
        throw public_error(std::current_exception());
    }
}

std::vector<FileOutcome> cipher_files(std::span<const FileTask> tasks, const Settings &settings, Key &key,
                                      Observer *observer, std::stop_token stop, InterruptCleanups *cleanups) {
    refuse_outputs_over_inputs(tasks);
    std::vector<FileOutcome> outcomes;
    outcomes.reserve(tasks.size());
    std::optional<Error> for_the_rest;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        if (!for_the_rest && stop.stop_requested())
            for_the_rest = Error(ErrorKind::stopped, "stopped before it started");
        if (for_the_rest) {
            outcomes.push_back({std::nullopt, for_the_rest});
            continue;
        }
        if (observer) observer->next_file(i, tasks[i]);
        try {
            outcomes.push_back(
                {cipher_file(tasks[i].input, tasks[i].output, settings, key, observer, stop, cleanups), std::nullopt});
        } catch (const Error &error) {
            outcomes.push_back({std::nullopt, error});
            // Not a key error as such: a file may need what this Key is not (a passphrase).
            const bool comes_again = key_source(key).failed() || (error.kind() == ErrorKind::gpu &&
                                                                  !gpu_can_be_had(library_settings(settings).backend));
            if (comes_again) for_the_rest = error;
        }
    }
    return outcomes;
}

const char *version() noexcept {
    return AESGPU_VERSION;
}

} // namespace aesgpu
