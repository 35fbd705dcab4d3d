// SPDX-License-Identifier: Apache-2.0
// The public cipher_file over job/'s: public settings to the library's, the Observer over
// CipherObserver, the caller's stop token checked between chunks, and every failure as one Error.
#include "api/error_kind.hpp"
#include "api/key.hpp"
#include "cipher/segments.hpp"
#include "common/errors.hpp"
#include "format/gcm_stream_header.hpp"
#include "io/input_source.hpp"
#include "io/io_threads.hpp"
#include "job/file_run.hpp"
#include "job/input_checks.hpp"
#include "job/input_removal.hpp"
#include "job/io_choice.hpp"
#include "job/many_runs.hpp"
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
    if (settings.mode) refuse_outside(*settings.mode, Mode::cbc, "mode", "Mode");
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
constexpr const char *kRemovalNeedsProof =
    "remove_input on decrypt takes mode gcm only, the one mode that proves the key right before the only ciphertext "
    "goes";

// remove_input: an input file, an output file, and on decrypt a mode that proves the key right
// (where the mode is read from the input, checked once it is: ModeChecks).
void check_removal_settings(const Settings &settings, const SettingUse &use, const Endpoint &input,
                            const Endpoint &output, bool reads_mode) {
    if (!settings.remove_input) return;
    if (!reads_mode && fit_of(Setting::remove_input, use) == SettingFit::unproven_key) refuse(kRemovalNeedsProof);
    if (input.descriptor()) refuse("remove_input removes an input file; a descriptor is not one");
    if (output.descriptor()) refuse("remove_input needs an output file; a descriptor is not one");
    if (input.path() == "-") refuse("remove_input removes an input file; standard input is not one");
    if (output.path() == "-") refuse("remove_input needs an output file; standard output is not one");
}

// io direct: regular files only, checked by name before anything is opened (opening a FIFO would
// wait for its other end). An output not there yet will be a regular file.
void check_io_settings(const Settings &settings, const Endpoint &input_end, const Endpoint &output_end) {
    if (settings.io != IoChoice::direct) return;
    if (input_end.descriptor() || output_end.descriptor())
        refuse("io direct takes files named by path, not descriptors");
    const std::filesystem::path &input = input_end.path();
    const std::filesystem::path &output = output_end.path();
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
void refuse_the_key_file(const Key::Source &keys, const Endpoint &input_end, const Endpoint &output_end) {
    const std::filesystem::path *key_file = keys.file();
    struct stat key {};
    if (!key_file || ::stat(key_file->c_str(), &key) != 0) return;
    const auto is_key_file = [&key](const Endpoint &end) {
        struct stat named {};
        if (const std::optional<Descriptor> descriptor = end.descriptor())
            return ::fstat(descriptor->fd, &named) == 0 && same_file(named, key);
        return end.path() != "-" && ::stat(end.path().c_str(), &named) == 0 && same_file(named, key);
    };
    const std::string input =
        input_end.descriptor() ? "descriptor " + std::to_string(input_end.descriptor()->fd) : input_end.path().string();
    const std::string output = output_end.descriptor() ? "descriptor " + std::to_string(output_end.descriptor()->fd)
                                                       : output_end.path().string();
    if (is_key_file(input_end))
        throw Error(ErrorKind::settings, "the input " + quoted_name(input) + " is the key file");
    if (is_key_file(output_end)) {
        throw Error(ErrorKind::settings, "the output " + quoted_name(output) + " is the key file: name another output");
    }
}

BackendRequest backend_request_of(const Settings &settings) {
    BackendRequest request;
    request.choice = settings.backend;
    request.wait_for_gpu = settings.wait_for_gpu;
    request.devices = settings.devices;
    request.cpu_threads = settings.cpu_threads;
    return request;
}

// The job's settings, once the mode is known (given, or ecb standing in until it is read).
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
    library.backend = backend_request_of(settings);
    return library;
}

// The mode a call asks for: the one given, or decrypting, GCM where a setting only GCM takes is
// set (as the command takes --aad and --segment-size); none: read it from the input. iv and
// no_pad need the mode given (a raw key's input reads as ECB or GCM only; ECB and CBC are told
// apart by their padding).
Settings with_mode_asked(const Settings &settings) {
    Settings asked = settings;
    if (settings.mode) return asked;
    if (settings.direction == Direction::encrypt)
        refuse("mode: none given; choose one: Mode::ecb, Mode::ctr, Mode::cbc or Mode::gcm");
    if (!settings.associated_data.empty() || settings.segment_bytes != 0) {
        asked.mode = Mode::gcm;
        return asked;
    }
    if (settings.iv) refuse("iv needs the mode it is for (ctr or cbc): give mode");
    if (settings.no_pad) refuse("no_pad needs mode ecb given: without a mode, the padding tells ECB from CBC");
    return asked;
}

// range: decrypting GCM, the input read in part and kept.
void check_range_settings(const Settings &settings) {
    if (!settings.range) return;
    if (settings.direction != Direction::decrypt) refuse("range applies to decrypting only");
    if (settings.mode && settings.mode != Mode::gcm) refuse("range applies to mode gcm only");
    if (settings.remove_input) refuse("remove_input with a range: the input is read in part, and kept");
    if (settings.io == IoChoice::direct) refuse("io direct with a range: its few segments are read where they lie");
}

// A Descriptor holds an open file descriptor: never a negative number.
void check_descriptors(const Endpoint &input, const Endpoint &output) {
    for (const auto &[end, name] : {std::pair{&input, "input"}, std::pair{&output, "output"}}) {
        if (const std::optional<Descriptor> descriptor = end->descriptor(); descriptor && descriptor->fd < 0) {
            refuse(std::string(name) + ": descriptor " + std::to_string(descriptor->fd) + " is no open descriptor");
        }
    }
}

RunEnd run_end(const Endpoint &end) {
    if (const std::optional<Descriptor> descriptor = end.descriptor()) return {"", descriptor->fd};
    return {end.path().string(), -1};
}

FileRun file_run_of(const Settings &settings, const Endpoint &input, const Endpoint &output,
                    CleanupRegistry *interrupt_cleanups) {
    FileRun run;
    run.input = run_end(input);
    run.output = run_end(output);
    run.settings = library_settings(settings);
    if (settings.range) run.range = ByteRange{settings.range->offset, settings.range->length};
    run.io = settings.io;
    run.overwrite = settings.overwrite;
    run.durable = settings.durable;
    run.remove_input = settings.remove_input;
    run.io_threads = default_io_threads();
    run.interrupt_cleanups = interrupt_cleanups;
    return run;
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
class PublicObserver final : public RunObserver {
public:
    PublicObserver(Observer *observer, const Settings &settings, std::stop_token stop)
        : observer_(observer), settings_(settings), stop_(std::move(stop)) {}

    void step(RunStep step, const CipherSettings & /*settings*/) override { step_ = step; }
    void input_opened(InputSource &source) override {
        source_ = &source;
        name_ = source.display_name();
    }
    // Decrypting without a mode: what the settings ask of the mode the input reads as.
    void mode_read(const InputSource &source, const ModeGuess &guess) override {
        if (settings_.remove_input && (guess.padding_decides || !format_rules(guess.mode).proves_the_key)) {
            refuse(std::string(kRemovalNeedsProof) + "; " + source.display_name() + " reads as " +
                   (guess.padding_decides ? std::string("ecb or cbc") : mode_name(guess.mode)) + " (" + guess.why +
                   ")");
        }
        if (guess.mode == Mode::gcm && settings_.pbkdf2_iterations != kDefaultPbkdf2Iterations) {
            refuse("pbkdf2_iterations: " + source.display_name() + " reads as gcm (" + guess.why +
                   "), which derives with scrypt");
        }
        if (guess.mode == Mode::gcm && settings_.passphrase_key_bits != kDefaultPassphraseKeyBits) {
            refuse("passphrase_key_bits: " + source.display_name() + " reads as gcm (" + guess.why +
                   "), whose passphrase header gives its own");
        }
        guess_ = guess;
    }
    void io_chosen(const DirectIoOutcome &io) override { io_ = io; }
    void key_in_hand(const CipherKey &key) override { mode = key.spec.mode; }
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
                                     source_->size(), io_.reads_direct, io_.writes_direct});
        });
    }
    void progress(std::uint64_t bytes_done) override {
        check_stop();
        tell([&] { observer_->progress(bytes_done); });
    }
    void note(NoteLevel /*level*/, std::string_view what) override {
        tell([&] { observer_->note(what); });
    }
    void commit_run(const PipelineStats &stats, const std::function<void()> &commit) override {
        check_stop();
        if (selected_) lanes = lane_results(*selected_, settings_, stats.bytes_ciphered);
        commit();
        input_removed = settings_.remove_input;
    }

    // The failure being handled, with what the run's steps showed: where a mode read from the
    // input decided, the other modes the file may be; gcm asked for by a gcm setting alone, of a
    // file that is not gcm; a file too long for the segment_bytes it is encrypted with.
    [[noreturn]] void rethrow_failure(bool gcm_implied) const {
        try {
            throw;
        } catch (const BadPadding &e) {
            if (step_ != RunStep::deriving_key || !guess_ || !guess_->padding_decides) throw;
            throw BadPadding(std::string(e.what()) +
                             ": a wrong key or passphrase, a changed file, or a file of mode ctr (give mode)");
        } catch (const AuthenticationFailed &e) {
            if (step_ != RunStep::checking_first_segment) throw;
            throw AuthenticationFailed(std::string(e.what()) +
                                       ": a wrong key, a changed file, a gcm file of another segment_bytes than 1 "
                                       "MiB, or a file of another mode (give mode): its first byte is what a gcm "
                                       "file's would be");
        } catch (const SegmentsPastTheLimit &e) {
            if (settings_.direction != Direction::encrypt) throw;
            throw TooManySegments(std::string(e.what()) + "; give a larger segment_bytes");
        } catch (const NoPassphraseHeader &) {
            if (!gcm_implied) throw;
            throw FormatError(name_ + " has no aesgpu passphrase header: it is no gcm file made with a passphrase, "
                                      "and associated_data and segment_bytes are for gcm");
        }
    }

    Mode mode = Mode::ecb;
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
    const InputSource *source_ = nullptr;
    std::string name_;
    RunStep step_ = RunStep::opening;
    std::optional<ModeGuess> guess_;
    DirectIoOutcome io_;
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

namespace {

// One task, its failure as the library threw it.
Result run_task(const Endpoint &input, const Endpoint &output, const Settings &settings, Key &key, Observer *observer,
                std::stop_token stop, InterruptCleanups *cleanups) {
    refuse_values_outside_enums(settings);
    const Settings asked = with_mode_asked(settings);
    const bool reads_mode = !asked.mode;
    // The settings' checks take the openssl formats' rules where the mode is still to be read:
    // what applies to GCM alone said GCM (with_mode_asked); the rest is checked once it is read.
    Settings checked = asked;
    if (reads_mode) checked.mode = Mode::ecb;
    Key::Source &keys = key_source(key);
    const SettingUse use = use_of(checked, keys.passphrase_mode());
    refuse_ignored_settings(checked, use);
    check_passphrase_settings(checked, use);
    check_mode_settings(checked, use);
    check_range_settings(asked);
    check_descriptors(input, output);
    check_removal_settings(checked, use, input, output, reads_mode);
    check_io_settings(settings, input, output);
    refuse_the_key_file(keys, input, output);
    if (stop.stop_requested()) throw Error(ErrorKind::stopped, "stopped before it started");
    FileRun run = file_run_of(checked, input, output, cleanups ? &registry_of(*cleanups).registry : nullptr);
    run.mode_from_file = reads_mode;
    PublicObserver told(observer, settings, stop);
    PipelineStats stats;
    try {
        stats = run_file(run, keys, told);
    } catch (const OutputWrittenAsItGoes &e) {
        refuse("remove_input needs a complete output file; " + e.output + " is not a regular file");
    } catch (const std::exception &) {
        told.rethrow_failure(/*gcm_implied=*/!settings.mode && asked.mode);
    }
    return Result{told.mode,     stats.bytes_read,      stats.bytes_written,
                  stats.seconds, std::move(told.lanes), told.input_removed};
}

// The failure being handled, as the caller is to see it: what its own code threw as it threw it,
// the rest as an Error.
[[noreturn]] void rethrow_public() {
    try {
        throw;
    } catch (const CallerFailure &failure) {
        std::rethrow_exception(failure.thrown);
    } catch (...) {
        throw public_error(std::current_exception());
    }
}

// cipher_files' tasks through run_many, each one's outcome in order.
class EachTask final : public ManyRunsObserver {
public:
    EachTask(std::span<const FileTask> tasks, const Settings &settings, Key &key, Observer *observer,
             std::stop_token stop, InterruptCleanups *cleanups)
        : tasks_(tasks), settings_(settings), key_(key), observer_(observer), stop_(std::move(stop)),
          cleanups_(cleanups) {}

    [[nodiscard]] bool may_start(std::size_t /*index*/) override { return !stop_.stop_requested(); }
    void run(std::size_t index) override {
        const FileTask &task = tasks_[index];
        if (observer_) call_caller([&] { observer_->next_file(index, task); });
        outcomes.push_back(
            {run_task(task.input, task.output, settings_, key_, observer_, stop_, cleanups_), std::nullopt});
    }
    // What the caller's own code threw ends the tasks and comes out as it was thrown, an Error too.
    void failed(std::size_t /*index*/, const std::exception_ptr &failure, bool /*taken*/) override {
        try {
            std::rethrow_exception(failure);
        } catch (const CallerFailure &thrown) {
            std::rethrow_exception(thrown.thrown);
        } catch (...) {
            outcomes.push_back({std::nullopt, public_error(std::current_exception())});
        }
    }
    void not_started(std::size_t /*index*/) override {
        outcomes.push_back({std::nullopt, Error(ErrorKind::stopped, "stopped before it started")});
    }

    std::vector<FileOutcome> outcomes;

private:
    std::span<const FileTask> tasks_;
    const Settings &settings_;
    Key &key_;
    Observer *observer_;
    std::stop_token stop_;
    InterruptCleanups *cleanups_;
};

} // namespace

Result cipher_file(const Endpoint &input, const Endpoint &output, const Settings &settings, Key &key,
                   Observer *observer, std::stop_token stop, InterruptCleanups *cleanups) {
    try {
        return run_task(input, output, settings, key, observer, std::move(stop), cleanups);
    } catch (...) {
        rethrow_public();
    }
}

// One key for many files: a failure that every later task would meet again (the key, a GPU that
// is not there) is theirs untried (run_many).
std::vector<FileOutcome> cipher_files(std::span<const FileTask> tasks, const Settings &settings, Key &key,
                                      Observer *observer, std::stop_token stop, InterruptCleanups *cleanups) {
    refuse_outputs_over_inputs(tasks);
    EachTask each(tasks, settings, key, observer, std::move(stop), cleanups);
    each.outcomes.reserve(tasks.size());
    run_many(tasks.size(), backend_request_of(settings), key_source(key), each);
    return std::move(each.outcomes);
}

const char *version() noexcept {
    return AESGPU_VERSION;
}

} // namespace aesgpu
