// SPDX-License-Identifier: Apache-2.0
#include "bench/bench.hpp"

#include "aes_cpu/cpu_features.hpp"
#include "aes_cpu/evp_cipher.hpp"
#include "aes_cpu/evp_gcm.hpp"
#include "aes_cpu/openssl_backend.hpp"
#include "aes_gpu/device_probe.hpp"
#include "aes_gpu/gpu_backend.hpp"
#include "bench/disk_ceilings.hpp"
#include "bench/gpu_bench.hpp"
#include "bench/scratch.hpp"
#include "common/cpu_time.hpp"
#include "common/errors.hpp"
#include "common/units.hpp"
#include "common/worker_pool.hpp"
#include "engine/backend_selection.hpp"
#include "io/input_source.hpp"
#include "io/io_threads.hpp"
#include "io/output_sink.hpp"
#include "job/file_run.hpp"
#include "job/io_choice.hpp"
#include "job/key_source.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <openssl/rand.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace aesgpu {

namespace {

// The in-place pass is cut as file copies are: pieces of whole pages, at least 256 KiB.
constexpr PieceShape kPassPieces{std::size_t{256} << 10, 4096};

// Outputs are checked on this much fresh random data (or the whole size, if smaller).
constexpr std::size_t kVerifyBytes = std::size_t{64} << 20;

std::string cipher_name(unsigned bits, const CipherSpec &spec) {
    std::string mode = mode_name(spec.mode);
    std::transform(mode.begin(), mode.end(), mode.begin(), [](unsigned char c) { return std::toupper(c); });
    return "AES-" + std::to_string(bits) + "-" + mode +
           (spec.direction == Direction::encrypt ? " encrypt" : " decrypt");
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// Wall and CPU seconds (user and system, of this process and of the children it waited for, such
// as cp) of one run.
struct RunTimes {
    double wall = 0;
    CpuTime cpu;
};

// The medians of wall and CPU time of `reps` runs of `work`, after one untimed warm-up run;
// `prepare`, if given, runs untimed before each.
RunTimes time_runs_with_cpu(int reps, const std::function<void()> &work, const std::function<void()> &prepare) {
    if (prepare) prepare();
    work();
    std::vector<double> wall, user, system;
    for (int i = 0; i < reps; ++i) {
        if (prepare) prepare();
        const CpuTime cpu_before = cpu_time_used(true);
        const auto start = std::chrono::steady_clock::now();
        work();
        wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        const CpuTime cpu = cpu_time_used(true) - cpu_before;
        user.push_back(cpu.user_seconds);
        system.push_back(cpu.system_seconds);
    }
    return {median(wall), {median(user), median(system)}};
}

// Median wall-clock seconds of `reps` runs of `work`, after one untimed warm-up run; `prepare`,
// if given, runs untimed before each.
double time_runs(int reps, const std::function<void()> &work, const std::function<void()> &prepare = {}) {
    return time_runs_with_cpu(reps, work, prepare).wall;
}

std::vector<std::byte> fresh_random(std::size_t bytes) {
    std::vector<std::byte> data(bytes);
    for (std::size_t done = 0; done < bytes;) {
        const std::size_t step = std::min<std::size_t>(bytes - done, 1u << 30);
        if (RAND_bytes(reinterpret_cast<unsigned char *>(data.data() + done), static_cast<int>(step)) != 1) {
            throw std::runtime_error(openssl_error("RAND_bytes"));
        }
        done += step;
    }
    return data;
}

std::vector<std::uint8_t> random_key(unsigned bits) {
    const auto bytes = fresh_random(bits / 8);
    std::vector<std::uint8_t> key(bytes.size());
    std::memcpy(key.data(), bytes.data(), bytes.size());
    return key;
}

// Fills `out` with copies of `pattern`: big buffers of random-looking data at memcpy speed.
void fill_repeating(std::span<std::byte> out, std::span<const std::byte> pattern) {
    for (std::size_t done = 0; done < out.size(); done += pattern.size()) {
        std::memcpy(out.data() + done, pattern.data(), std::min(pattern.size(), out.size() - done));
    }
}

// The job a stage times over the first `bytes` of a slot: whole blocks from block 0 (ECB, CTR), or
// full GCM segments.
CipherJob job_for(const CipherSpec &spec, std::size_t slot, std::size_t bytes, std::uint64_t first_block = 0) {
    if (spec.mode == Mode::gcm) return full_segments_job(spec.gcm.geometry, slot, bytes);
    return {.slot = slot, .bytes = bytes, .first_block = first_block};
}

// What one-shot OpenSSL makes of `input` as job_for() lays it out (CTR's counter from block 0;
// GCM segment by segment).
std::vector<std::byte> openssl_output(std::span<const std::uint8_t> key, const CipherSpec &spec,
                                      std::span<const std::byte> input) {
    std::vector<std::byte> output(input.begin(), input.end());
    if (spec.mode != Mode::gcm) {
        EvpAesCipher(key, spec).transform(input, output);
        return output;
    }
    EvpGcmSegmentCipher cipher(key, spec);
    const CipherJob job = job_for(spec, 0, output.size());
    for_each_segment(spec.gcm.geometry, job.first_segment, job.segments, job.bytes, true, [&](const SegmentSpan &s) {
        cipher.transform(std::span(output).subspan(s.offset, s.ciphertext_bytes), s);
    });
    return output;
}

// Data to check a stage on, and what it must give: random bytes, or for GCM decryption, a
// ciphertext with valid tags.
struct Sample {
    std::vector<std::byte> input;
    std::vector<std::byte> expected;
};

Sample sample_for(std::span<const std::uint8_t> key, const CipherSpec &spec, std::span<const std::byte> random) {
    Sample sample{{random.begin(), random.end()}, {}};
    if (spec.mode == Mode::gcm && spec.direction == Direction::decrypt) {
        CipherSpec encrypting = spec;
        encrypting.direction = Direction::encrypt;
        sample.input = openssl_output(key, encrypting, random);
    }
    sample.expected = openssl_output(key, spec, sample.input);
    return sample;
}

void require_match(const Sample &sample, std::span<const std::byte> output, const std::string &what) {
    const std::size_t length = std::min(sample.expected.size(), output.size());
    if (length == 0 ||
        !std::equal(output.begin(), output.begin() + static_cast<std::ptrdiff_t>(length), sample.expected.begin())) {
        throw std::runtime_error(what + ": output differs from OpenSSL; nothing was timed");
    }
}

// Waits for a timed job; a GCM decryption of repeated sample data fails its tags after doing all
// the work, which is what is timed.
void wait_timed(CipherBackend &backend, std::size_t slot, const CipherSpec &spec) {
    try {
        backend.wait(slot);
    } catch (const AuthenticationFailed &) {
        if (spec.mode != Mode::gcm || spec.direction != Direction::decrypt) throw;
    }
}

BenchResult result(std::string backend, std::string stage, std::string what) {
    BenchResult r;
    r.backend = std::move(backend);
    r.stage = std::move(stage);
    r.what = std::move(what);
    return r;
}

BenchResult cipher_result(std::string backend, std::string stage, std::string what, unsigned key_bits,
                          const CipherSpec &spec) {
    BenchResult r = result(std::move(backend), std::move(stage), std::move(what));
    r.key_bits = key_bits;
    r.mode = spec.mode;
    r.direction = spec.direction;
    return r;
}

// A fresh random IV for CTR's rows, nonce prefix for GCM's (1 MiB segments); ECB has none.
CipherSpec bench_spec(Mode mode, Direction direction, std::size_t key_bytes) {
    CipherSpec spec(direction, mode);
    if (mode == Mode::ctr) {
        const auto iv = fresh_random(spec.iv.size());
        std::memcpy(spec.iv.data(), iv.data(), iv.size());
    }
    if (mode == Mode::gcm) {
        const auto prefix = fresh_random(spec.gcm.nonce_prefix.size());
        std::memcpy(spec.gcm.nonce_prefix.data(), prefix.data(), prefix.size());
        spec.gcm.geometry = {kDefaultSegmentBytes, 1 + key_bytes + kGcmNoncePrefixBytes};
    }
    return spec;
}

// The file stage's file, a regular one. stat, never open: opening a FIFO would wait for a writer.
struct stat bench_file_status(const std::string &path) {
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0) throw IoError(errno_message("cannot open", quoted_name(path), errno));
    if (!S_ISREG(status.st_mode)) {
        throw std::invalid_argument("the file to time must be a regular file: " + quoted_name(path) + " is not one");
    }
    return status;
}

// A file row's job tells the plan's callers what the CLI's would: the backend chosen, and the commit
// to run (signals held off).
class BenchFileObserver final : public RunObserver {
public:
    BenchFileObserver(const BackendRequest &request, const BenchSettings &plan) : request_(request), plan_(plan) {}
    void backend_selected(const SelectedBackend &selected) override {
        if (plan_.on_backend_selected) plan_.on_backend_selected(request_, selected);
    }
    void note(NoteLevel level, std::string_view what) override { note_to(plan_.notes, level, what); }
    void commit_run(const PipelineStats & /*stats*/, const std::function<void()> &commit) override {
        if (plan_.run_commit) {
            plan_.run_commit(commit);
        } else {
            commit();
        }
    }

private:
    const BackendRequest &request_;
    const BenchSettings &plan_;
};

class Bench {
public:
    Bench(const BenchSettings &plan, BenchReport &report) : plan_(plan), report_(report) {
        verify_input_ = fresh_random(std::min(plan.size_bytes, kVerifyBytes));
    }

    void cpu() {
        const CpuCeilings ceilings = cpu_ceilings();
        for_each_cipher([&](unsigned bits, std::span<const std::uint8_t> key, const CipherSpec &spec) {
            for (const unsigned threads : thread_counts()) {
                const std::string what =
                    cipher_name(bits, spec) + ", " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
                step("cpu " + what);
                OpenSslBackend backend(key, spec, threads);
                backend.configure_slots(1, plan_.size_bytes);
                const auto buffer = backend.slot_buffer(0);
                const Sample sample = sample_for(key, spec, verify_input_);
                std::memcpy(buffer.data(), sample.input.data(), sample.input.size());
                backend.submit(job_for(spec, 0, sample.input.size()));
                backend.wait(0);
                require_match(sample, buffer.first(sample.input.size()), "cpu " + what);
                fill_repeating(buffer, sample.input);
                BenchResult r = cipher_result("cpu", "memory", what, bits, spec);
                r.threads = threads;
                r.bytes = double(plan_.size_bytes);
                // GCM decryption stops at a bad tag, so it gets a valid ciphertext of the whole size
                // before each run (untimed): the repeated sample, encrypted in place.
                std::optional<OpenSslBackend> sealer;
                std::function<void()> prepare;
                if (spec.mode == Mode::gcm && spec.direction == Direction::decrypt) {
                    CipherSpec encrypting = spec;
                    encrypting.direction = Direction::encrypt;
                    sealer.emplace(key, encrypting, threads);
                    const std::vector<std::span<std::byte>> ring{buffer};
                    sealer->adopt_slots(ring);
                    prepare = [&] {
                        fill_repeating(buffer, verify_input_);
                        sealer->submit(job_for(spec, 0, plan_.size_bytes));
                        sealer->wait(0);
                    };
                }
                r.seconds = time_runs(
                    plan_.reps,
                    [&] {
                        backend.submit(job_for(spec, 0, plan_.size_bytes));
                        backend.wait(0);
                    },
                    prepare);
                r.ratio = r.gbps() / (threads == 1 ? ceilings.memcpy_gbps : ceilings.pass_gbps);
                r.ratio_text = threads == 1 ? fixed(r.ratio, 2) + "x memcpy, 1 thread"
                                            : fixed(100 * r.ratio, 0) + "% of the in-place pass";
                add(r);
            }
        });
    }

    // Returns false (and notes why) when no GPU can run.
    bool gpu() {
        std::unique_ptr<GpuBench> gpu;
        try {
            step("gpu set-up");
            devices_ = require_gpu_devices(plan_.devices);
            gpu = GpuBench::create(plan_.size_bytes, devices_.front());
        } catch (const GpuUnavailable &e) {
            devices_.clear();
            report_.unavailable.push_back({"gpu", std::string("no usable CUDA device: ") + e.what()});
            return false;
        }
        report_.devices = devices_;
        const int gpus = static_cast<int>(devices_.size());
        // One GPU's rows name it where the host has others; several GPUs' rows name them where
        // they are not all of the host's.
        const int on_host = gpu_device_count();
        const std::string gpu_name = on_host > 1 ? "GPU " + std::to_string(devices_.front()) : "GPU";
        const std::string one_gpu = on_host > 1 ? ", " + gpu_name : "";
        const std::string every_gpu =
            std::to_string(gpus) + " GPUs" + (gpus < on_host ? " (" + device_list() + ")" : "");
        step("gpu copy ceilings");
        const GpuCopyCeilings copies = gpu->time_copies(plan_.reps);
        const double size = double(plan_.size_bytes);
        add_ceiling("pinned H2D" + one_gpu, size, copies.h2d_seconds);
        add_ceiling("pinned D2H" + one_gpu, size, copies.d2h_seconds);
        add_ceiling("pinned H2D+D2H at once" + one_gpu, 2 * size, copies.both_seconds);
        add_ceiling("device copy (read+write)" + one_gpu, 2 * size, copies.device_copy_seconds);
        const double half_two_way_gbps = size / copies.both_seconds / 1e9;
        // Every GPU's copies at once: what the host gives them all (the x2 host: 68.5 GB/s of
        // plaintext for both, not 2 x 49).
        double half_every_two_way_gbps = half_two_way_gbps;
        if (gpus > 1) {
            step("gpu copy ceilings, " + every_gpu + " at once");
            const double seconds = time_every_gpu_two_way(std::move(gpu));
            add_ceiling("pinned H2D+D2H at once, " + every_gpu, 2 * size * gpus, seconds);
            half_every_two_way_gbps = size * gpus / seconds / 1e9;
            gpu = GpuBench::create(plan_.size_bytes, devices_.front());
        }

        for_each_cipher([&](unsigned bits, std::span<const std::uint8_t> key, const CipherSpec &spec) {
            const std::string name = cipher_name(bits, spec);
            step("gpu kernel " + name);
            const Sample sample = sample_for(key, spec, verify_input_);
            require_match(sample, gpu->kernel_output(key, spec, sample.input), "gpu kernel " + name);
            BenchResult kernel = cipher_result("gpu", "kernel", name + one_gpu, bits, spec);
            kernel.bytes = size;
            kernel.seconds = gpu->time_kernel(key, spec, plan_.reps);
            // Both read and write every byte once, so the ratio compares like with like.
            kernel.ratio = copies.device_copy_seconds / kernel.seconds;
            kernel.ratio_text = fixed(100 * kernel.ratio, 0) + "% of device copy";
            add(kernel);

            step("gpu pipeline " + name);
            SelectedBackend one{make_gpu_backend(key, spec, {devices_.front(), kDefaultGpuStreams}),
                                gpu_ring_slots(kDefaultGpuStreams), kGpuFileChunkBytes};
            BenchResult pipeline =
                time_ring(std::move(one), key, spec, "gpu", name + ", pinned host to host" + one_gpu);
            pipeline.ratio = pipeline.gbps() / half_two_way_gbps;
            pipeline.ratio_text = fixed(100 * pipeline.ratio, 0) + "% of half the two-way rate";
            add(pipeline);
            double gpus_gbps = pipeline.gbps();
            if (gpus > 1) {
                step("gpu pipeline, " + every_gpu + ", " + name);
                BenchResult every =
                    time_ring(chosen(BackendChoice::gpu, key, spec), key, spec, "gpu", name + ", " + every_gpu);
                every.ratio = every.gbps() / half_every_two_way_gbps;
                every.ratio_text =
                    fixed(100 * every.ratio, 0) + "% of half the " + std::to_string(gpus) + " GPUs' two-way rate";
                add(every);
                gpus_gbps = std::max(gpus_gbps, every.gbps());
            }
            // The CPU alone and beside the GPUs, through the same ring of 8 MiB chunks: whether
            // the CPU beside the GPUs pays (the x2 host: about 95 GB/s together, 67-68 alone).
            const std::string threads = std::to_string(plan_.threads) + " threads";
            step("cpu pipeline " + name);
            BenchResult cpu = time_ring(chosen(BackendChoice::cpu, key, spec), key, spec, "cpu",
                                        name + ", " + threads + ", host ring");
            cpu.threads = plan_.threads;
            add(cpu);
            // The CPU as the dispatcher runs it beside the GPUs, over a ring of the same size: the
            // part the row below adds up.
            step("cpu lane pipeline " + name);
            BenchResult cpu_lane = time_ring(cpu_lane_alone(cpu_request(), spec, key, devices_.size()), key, spec,
                                             "cpu", name + ", " + threads + " as a dispatcher lane");
            cpu_lane.threads = plan_.threads;
            add(cpu_lane);
            step("all pipeline " + name);
            BenchResult all = time_ring(chosen(BackendChoice::all, key, spec), key, spec, "all",
                                        name + ", " + (gpus > 1 ? every_gpu : gpu_name) + " and the CPU");
            all.threads = plan_.threads;
            // Against its lanes alone added up: no more than that can come of running them together.
            all.ratio = all.gbps() / (cpu_lane.gbps() + gpus_gbps);
            all.ratio_text = fixed(100 * all.ratio, 0) + "% of its lanes alone added up (cpu " +
                             fixed(cpu_lane.gbps(), 1) + " as a lane, gpu " + fixed(gpus_gbps, 1) + ")";
            add(all);
        });
        return true;
    }

    void file(const std::string &path, bool with_gpu) {
        const struct stat status = bench_file_status(path);
        const std::filesystem::path target(path);
        const auto directory = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
        const ScratchDirectory scratch(directory, plan_.interrupt_cleanups);
        const FileNames files{path, scratch.file("encrypted"), scratch.file("decrypted")};
        disk_ceilings(path, status.st_size, scratch.file("ceiling"));
        const BenchResult cp = file_copy_row(path, scratch.file("copy"), double(status.st_size));

        // Key size hardly changes file-to-file times, so this stage runs the first one asked for.
        const unsigned bits = plan_.key_bits.front();
        const auto key = random_key(bits);
        for (const auto &[backend, mode] : file_runs(with_gpu)) {
            const FileRows rows{backend, mode, bits, key, bench_spec(mode, Direction::encrypt, key.size())};
            std::vector<bool> paths = {false};
            if (direct_io_refusal_.empty()) paths.push_back(true);
            for (const bool direct : paths) {
                if (!file_rows(rows, files, direct, cp)) break;
            }
        }
        if (input_stayed_cached_) {
            report_.unavailable.push_back(
                {"file", "the kernel refused to drop an input from the page cache: some rows read it from memory"});
        }
    }

private:
    // The file stage's file and the outputs of its runs.
    struct FileNames {
        const std::string &plain;
        std::string encrypted;
        std::string decrypted;
    };

    // One backend and mode of the file stage.
    struct FileRows {
        const std::string &backend; // "cpu", "gpu" or "all"
        Mode mode;
        unsigned bits;
        const std::vector<std::uint8_t> &key;
        CipherSpec encrypting; // its IV (CTR) is the runs'
    };

    // Before each timed run: a new output, as `aesgpu encrypt big -o new` writes (replacing the
    // last run's would add freeing its pages to the time), and the input from the disk, not the
    // page cache. The time runs until the output is on the disk.
    std::function<void()> fresh(const std::string &input, const std::string &output) {
        return [this, &input, &output] {
            std::filesystem::remove(output);
            if (!evict_from_page_cache(input)) input_stayed_cached_ = true;
        };
    }

    // cp and fsync of the file: what every file row is judged against.
    BenchResult file_copy_row(const std::string &path, const std::string &copy, double size) {
        step("file copy (cp)");
        BenchResult cp = result("cpu", "ceiling", "file copy (cp), then fsync");
        cp.bytes = size;
        set_times(cp, time_runs_with_cpu(
                          plan_.reps,
                          [&] {
                              run_cp(path, copy, plan_.interrupt_cleanups);
                              make_file_durable(copy);
                          },
                          fresh(path, copy)));
        add(cp);
        std::filesystem::remove(copy);
        return cp;
    }

    // One file job as `aesgpu encrypt|decrypt --mode M --backend B -f FROM -o TO` runs it (a raw
    // key, no associated data), durable at its end as cp's fsync. `direct`: past the page cache,
    // DirectIoRefused where the file system takes no O_DIRECT; else through the page cache.
    void cipher_file_once(const FileRows &rows, Direction direction, const std::string &from, const std::string &to,
                          bool direct) {
        FileRun run;
        run.input.path = from;
        run.output.path = to;
        run.settings.direction = direction;
        run.settings.mode = rows.mode;
        run.settings.iv = rows.encrypting.iv;
        run.settings.backend.choice = rows.backend == "gpu"   ? BackendChoice::gpu
                                      : rows.backend == "all" ? BackendChoice::all
                                                              : BackendChoice::cpu;
        run.settings.backend.cpu_threads = plan_.threads;
        run.settings.backend.devices = devices_;
        run.io = direct ? IoChoice::direct : IoChoice::buffered;
        run.overwrite = true;
        run.durable = true;
        run.io_threads = default_io_threads();
        run.interrupt_cleanups = plan_.interrupt_cleanups;
        RawKey raw_key(rows.key);
        BenchFileObserver observer(run.settings.backend, plan_);
        (void)run_file(run, raw_key, observer);
    }

    // The rows of one backend and mode on one path, after checking that the file comes back.
    // False where the file system refused the direct path: its note is in the report.
    bool file_rows(const FileRows &rows, const FileNames &files, bool direct, const BenchResult &cp) {
        const std::string io = direct ? ", direct" : "";
        step(rows.backend + " file check" + io);
        try {
            cipher_file_once(rows, Direction::encrypt, files.plain, files.encrypted, direct);
        } catch (const DirectIoRefused &e) {
            direct_io_refusal_ = e.refusal.value_or(e.what());
            report_.unavailable.push_back({"file", "no direct rows: " + direct_io_refusal_});
            return false;
        }
        // gcm: decrypting checks every segment's tag (and the tests check the format against Tink).
        if (rows.mode != Mode::gcm)
            check_file_prefix(rows.key, rows.encrypting, files.plain, files.encrypted, rows.backend + io);
        cipher_file_once(rows, Direction::decrypt, files.encrypted, files.decrypted, direct);
        if (!same_contents(files.plain, files.decrypted)) {
            throw std::runtime_error(rows.backend + " file" + io +
                                     ": decrypting the encrypted file did not give it back");
        }
        for (const Direction direction : plan_.directions) {
            const bool encrypting = direction == Direction::encrypt;
            const std::string &from = encrypting ? files.plain : files.encrypted;
            const std::string &to = encrypting ? files.encrypted : files.decrypted;
            file_row(rows.backend, rows.bits, CipherSpec(direction, rows.mode, rows.encrypting.iv), io, cp, [&] {
                return time_runs_with_cpu(
                    plan_.reps, [&] { cipher_file_once(rows, direction, from, to, direct); }, fresh(from, to));
            });
        }
        return true;
    }

    // A file row: `time` runs it, beside cp and the disk's copy floor.
    void file_row(const std::string &backend, unsigned bits, const CipherSpec &spec, const std::string &io,
                  const BenchResult &cp, const std::function<RunTimes()> &time) {
        const std::string name = cipher_name(bits, spec) + io;
        step(backend + " file " + name);
        BenchResult r = cipher_result(backend, "file", name, bits, spec);
        r.bytes = cp.bytes;
        set_times(r, time());
        r.ratio = r.seconds / cp.seconds;
        r.ratio_text =
            fixed(r.ratio, 2) + "x the time of cp, " +
            (cp.cpu_seconds() > 0 ? fixed(r.cpu_seconds() / cp.cpu_seconds(), 2) + "x" : std::string("n/a")) +
            " its CPU time";
        if (copy_floor_seconds_ > 0)
            r.ratio_text += "; " + fixed(r.seconds / copy_floor_seconds_, 2) + "x the disk's copy floor";
        add(r);
    }

    // O_DIRECT read of the file, write of as many bytes, and both at once (a copy's floor), each
    // timed until durable; nothing but a note where the file system refuses O_DIRECT.
    void disk_ceilings(const std::string &path, off_t size, const std::string &scratch_file) {
        if (const std::string why_not = why_no_disk_ceilings(path); !why_not.empty()) {
            report_.unavailable.push_back({"file", "no disk ceilings: " + why_not});
            return;
        }
        const auto bytes = static_cast<std::uint64_t>(size);
        const auto remove = [&scratch_file] { std::filesystem::remove(scratch_file); };
        const auto row = [&](const std::string &what, const std::function<void()> &work) {
            step(what);
            BenchResult r = result("cpu", "ceiling", what);
            r.bytes = double(size);
            set_times(r, time_runs_with_cpu(plan_.reps, work, remove));
            add(r);
        };
        // The floor a file run is judged against: the faster copy of the depths tried.
        copy_floor_seconds_ = 0;
        for (const unsigned depth : kDiskCeilingDepths) {
            const std::string streams = " x" + std::to_string(depth);
            row("disk read, O_DIRECT" + streams, [&] { direct_read_pass(path, depth); });
            row("disk write, O_DIRECT" + streams, [&] { direct_write_pass(scratch_file, bytes, depth); });
            row("disk copy floor, O_DIRECT" + streams,
                [&] { direct_copy_floor_pass(path, scratch_file, bytes, depth); });
            const double floor = report_.results.back().seconds;
            if (copy_floor_seconds_ == 0 || floor < copy_floor_seconds_) copy_floor_seconds_ = floor;
        }
        remove();
    }

    static void set_times(BenchResult &r, const RunTimes &times) {
        r.seconds = times.wall;
        r.user_seconds = times.cpu.user_seconds;
        r.system_seconds = times.cpu.system_seconds;
    }

    void step(const std::string &what) const {
        if (plan_.on_step) plan_.on_step(what);
    }

    // What a CPU stage is measured against: memcpy on one thread, an in-place pass on all.
    struct CpuCeilings {
        double memcpy_gbps = 0;
        double pass_gbps = 0;
    };

    // Its buffers are gone before the AES runs allocate theirs: 2 x --size at most.
    CpuCeilings cpu_ceilings() {
        std::vector<std::byte> source(plan_.size_bytes);
        // Words, so that the in-place pass reuses it (the size is a multiple of 16).
        std::vector<std::uint64_t> target(plan_.size_bytes / sizeof(std::uint64_t));
        fill_repeating(source, verify_input_);
        step("cpu memcpy");
        BenchResult copy = result("cpu", "ceiling", "memcpy, 1 thread");
        copy.bytes = double(plan_.size_bytes);
        copy.seconds = time_runs(plan_.reps, [&] { std::memcpy(target.data(), source.data(), plan_.size_bytes); });
        copy.threads = 1;
        add(copy);
        source = {};
        CpuCeilings ceilings{copy.gbps(), copy.gbps()};
        if (plan_.threads > 1) {
            // The wall in-memory AES meets on all threads: one pass that reads and writes every
            // byte in place, as the CPU backend does, with no work in between.
            WorkerPool pool(plan_.threads, "the in-place memory pass");
            step("cpu in-place pass, all threads");
            BenchResult pass = result("cpu", "ceiling", "in-place pass, " + std::to_string(plan_.threads) + " threads");
            pass.bytes = double(plan_.size_bytes);
            pass.threads = plan_.threads;
            pass.seconds = time_runs(plan_.reps, [&] {
                pool.run_pieces(plan_.size_bytes, kPassPieces, [&](std::size_t offset, std::size_t length) {
                    const std::size_t first = offset / sizeof(std::uint64_t);
                    const std::size_t end = first + length / sizeof(std::uint64_t);
                    for (std::size_t i = first; i < end; ++i) target[i] ^= 0x5555555555555555u;
                });
            });
            add(pass);
            ceilings.pass_gbps = pass.gbps();
        }
        return ceilings;
    }

    // ECB and CTR work block by block, so the file's first bytes encrypt to the output's first bytes.
    void check_file_prefix(std::span<const std::uint8_t> key, const CipherSpec &spec, const std::string &plain,
                           const std::string &cipher, const std::string &backend) const {
        InputSource in = InputSource::open(plain);
        InputSource out = InputSource::open(cipher);
        std::vector<std::byte> input(kVerifyBytes), output(kVerifyBytes);
        const std::size_t length = in.read_full(input) / kAesBlockBytes * kAesBlockBytes;
        input.resize(length);
        output.resize(out.read_full(std::span(output).first(length)));
        require_match(Sample{input, openssl_output(key, spec, input)}, output, backend + " file");
    }

    static bool same_contents(const std::string &a, const std::string &b) {
        InputSource first = InputSource::open(a);
        InputSource second = InputSource::open(b);
        std::vector<std::byte> x(std::size_t{16} << 20), y(x.size());
        for (;;) {
            const std::size_t n = first.read_full(x);
            if (second.read_full(y) != n || !std::equal(x.begin(), x.begin() + std::ptrdiff_t(n), y.begin())) {
                return false;
            }
            if (n < x.size()) return true;
        }
    }

    // One thread, and all of them.
    [[nodiscard]] std::vector<unsigned> thread_counts() const {
        if (plan_.threads == 1) return {1};
        return {1, plan_.threads};
    }

    // Every key size, mode and direction asked for, each with a fresh key (and IV).
    void for_each_cipher(const std::function<void(unsigned, std::span<const std::uint8_t>, const CipherSpec &)> &run) {
        for (const unsigned bits : plan_.key_bits) {
            const auto key = random_key(bits);
            for (const Mode mode : plan_.modes) {
                for (const Direction direction : plan_.directions) {
                    // GCM streams take 128- and 256-bit keys only; a --size under a segment is noted.
                    if (mode == Mode::gcm && (key.size() == 24 || plan_.size_bytes < kDefaultSegmentBytes)) continue;
                    run(bits, key, bench_spec(mode, direction, key.size()));
                }
            }
        }
    }

    // The file stage's runs: each backend asked for (the GPU where it ran; every GPU and the CPU
    // where both were asked for), in each mode.
    [[nodiscard]] std::vector<std::pair<std::string, Mode>> file_runs(bool with_gpu) const {
        std::vector<std::pair<std::string, Mode>> runs;
        for (const std::string_view backend : {"cpu", "gpu", "all"}) {
            const bool wanted = backend == "cpu"   ? plan_.cpu
                                : backend == "gpu" ? plan_.gpu && with_gpu
                                                   : plan_.cpu && plan_.gpu && with_gpu;
            if (!wanted) continue;
            for (const Mode mode : plan_.modes) {
                // GCM streams take 128- and 256-bit keys only.
                if (mode != Mode::gcm || plan_.key_bits.front() != 192) runs.emplace_back(std::string(backend), mode);
            }
        }
        return runs;
    }

    // The backend `choice` selects for writing to a file, as the encrypt command would.
    SelectedBackend chosen(BackendChoice choice, std::span<const std::uint8_t> key, const CipherSpec &spec) const {
        BackendRequest request = cpu_request();
        request.choice = choice;
        request.wait_for_gpu = choice == BackendChoice::gpu; // every GPU, no CPU start
        request.devices = devices_;
        SelectedBackend selected = select_backend(request, spec, key, true, plan_.notes);
        if (plan_.on_backend_selected) plan_.on_backend_selected(request, selected);
        return selected;
    }

    // Chunks of up to 8 MiB through `selected`'s ring, submitted and waited for in order as the
    // pipeline does, from host buffers already filled (no file I/O): with a dispatcher, every lane
    // ready first. The first chunk's output is checked against OpenSSL.
    BenchResult time_ring(SelectedBackend selected, std::span<const std::uint8_t> key, const CipherSpec &spec,
                          const std::string &backend_name, const std::string &what) {
        CipherBackend &backend = *selected.backend;
        const std::size_t chunk = std::min(kGpuFileChunkBytes, plan_.size_bytes);
        const std::size_t slots = selected.ring_slots;
        backend.configure_slots(slots, chunk);
        if (selected.dispatcher) selected.dispatcher->await_lanes();
        const Sample sample = sample_for(key, spec, std::span(verify_input_).first(chunk));
        std::memcpy(backend.slot_buffer(0).data(), sample.input.data(), chunk);
        backend.submit(job_for(spec, 0, chunk));
        backend.wait(0);
        require_match(sample, backend.slot_buffer(0).first(chunk), backend_name + " pipeline " + what);
        for (std::size_t s = 0; s < slots; ++s) fill_repeating(backend.slot_buffer(s), sample.input);
        // Enough chunks that filling and draining the ring is a small part of the run.
        const std::size_t chunks = std::max(plan_.size_bytes / chunk, 4 * slots);
        BenchResult r = cipher_result(backend_name, "pipeline", what, static_cast<unsigned>(key.size() * 8), spec);
        r.bytes = double(chunks * chunk);
        r.seconds = time_runs(plan_.reps, [&] {
            for (std::size_t i = 0; i < chunks; ++i) {
                if (i >= slots) wait_timed(backend, i % slots, spec);
                backend.submit(job_for(spec, i % slots, chunk, i * (chunk / kAesBlockBytes)));
            }
            for (std::size_t s = 0; s < std::min(slots, chunks); ++s) wait_timed(backend, s, spec);
        });
        if (selected.dispatcher) {
            backend.finish(); // a lane that failed to start is this row's failure
            for (const LaneReport &lane : selected.dispatcher->report()) {
                r.lanes.push_back({lane.name, double(lane.bytes), lane.busy_seconds});
            }
        }
        return r;
    }

    // Seconds for the bench's GPUs (`first` on the first of them) to move --size each way at once,
    // all together (timed from the host): every GPU's two-way copies queued, then all waited for;
    // median of the runs after a warm-up.
    double time_every_gpu_two_way(std::unique_ptr<GpuBench> first) {
        std::vector<std::unique_ptr<GpuBench>> all;
        all.push_back(std::move(first));
        for (std::size_t i = 1; i < devices_.size(); ++i)
            all.push_back(GpuBench::create(plan_.size_bytes, devices_[i]));
        return time_runs(plan_.reps, [&] {
            for (auto &gpu : all) gpu->start_two_way_copies();
            for (auto &gpu : all) gpu->wait_for_copies();
        });
    }

    void add_ceiling(const std::string &what, double bytes, double seconds) {
        BenchResult r = result("gpu", "ceiling", what);
        r.bytes = bytes;
        r.seconds = seconds;
        add(r);
    }

    // A run too short for the clock (a tiny --size) gives no ratio rather than 0% or infinity.
    void add(BenchResult result) {
        if (!std::isfinite(result.ratio) || result.ratio <= 0) {
            result.ratio = 0;
            result.ratio_text.clear();
        }
        report_.results.push_back(std::move(result));
    }

    // A request for the bench's CPU threads.
    [[nodiscard]] BackendRequest cpu_request() const {
        BackendRequest request;
        request.cpu_threads = plan_.threads;
        return request;
    }

    // "0,2": the bench's GPUs.
    [[nodiscard]] std::string device_list() const {
        std::string list;
        for (const int device : devices_) {
            if (!list.empty()) list += ',';
            list += std::to_string(device);
        }
        return list;
    }

    const BenchSettings &plan_;
    BenchReport &report_;
    std::vector<int> devices_;         // the GPUs the GPU and file rows run on, once the GPU stage found them
    double copy_floor_seconds_ = 0;    // the disk's read and write at once (the faster depth), where measured
    std::string direct_io_refusal_;    // why the file system took no O_DIRECT, once it refused
    bool input_stayed_cached_ = false; // a file row's input could not be dropped from the page cache
    std::vector<std::byte> verify_input_;
};

std::string machine_line() {
    const CpuAesFeatures cpu = detect_cpu_aes_features();
    const GpuProbe gpu = probe_gpus();
    std::string line = "CPU: " + std::to_string(default_cpu_threads()) + " threads, AES-NI " +
                       (cpu.aes_ni ? "yes" : "no") + ", VAES " + (cpu.vaes ? "yes" : "no") + "; " +
                       openssl_version_text();
    if (gpu.usable()) {
        const GpuDeviceInfo &first = gpu.devices.front();
        const bool alike = std::all_of(gpu.devices.begin(), gpu.devices.end(), [&first](const GpuDeviceInfo &device) {
            return device.name == first.name && device.multiprocessors == first.multiprocessors;
        });
        line += gpu.devices.size() == 1 ? "; GPU: " : "; GPUs: ";
        if (alike) {
            if (gpu.devices.size() > 1) line += std::to_string(gpu.devices.size()) + " x ";
            line += first.name + ", " + std::to_string(first.multiprocessors) + " SMs";
        } else {
            for (const GpuDeviceInfo &device : gpu.devices) {
                line += (&device == &first ? "" : "; ") + std::to_string(device.index) + " " + device.name + ", " +
                        std::to_string(device.multiprocessors) + " SMs";
            }
        }
    }
    return line;
}

// Runs one stage; one that runs out of memory or threads (a --size too big for RAM or pinned
// memory, a low ulimit) is noted in the report, and the bench goes on with the next stage.
bool run_stage(BenchReport &report, const std::string &stage, const std::function<void()> &work) {
    try {
        work();
        return true;
    } catch (const ResourceExhausted &e) {
        report.failed.push_back({stage, e.what(), SizeAdvice::smaller});
    } catch (const ThreadLimit &e) {
        report.failed.push_back({stage, e.what()});
    } catch (const std::bad_alloc &) {
        report.failed.push_back({stage, kNotEnoughMemory, SizeAdvice::no_memory});
    }
    return false;
}

// Settings no stage could run with, refused before any runs.
void check_bench_settings(const BenchSettings &settings) {
    if (settings.size_bytes == 0 || settings.size_bytes % kAesBlockBytes != 0) {
        throw std::invalid_argument("the bench size must be a positive multiple of 16 bytes");
    }
    if (settings.key_bits.empty() || settings.modes.empty() || settings.directions.empty() || settings.reps < 1) {
        throw std::invalid_argument("the bench needs a key size, a mode, a direction and a run");
    }
    if (!settings.devices.empty() && !settings.gpu) {
        throw std::invalid_argument("GPUs were named for a bench without the GPU");
    }
    for (auto device = settings.devices.begin(); device != settings.devices.end(); ++device) {
        if (*device < 0 || std::find(settings.devices.begin(), device, *device) != device) {
            throw std::invalid_argument("the bench's GPUs must be CUDA device numbers, each named once");
        }
    }
    if (!settings.file.empty()) (void)bench_file_status(settings.file);
}

} // namespace

BenchReport run_bench(const BenchSettings &settings) {
    check_bench_settings(settings);
    BenchSettings plan = settings;
    if (plan.threads == 0) plan.threads = default_cpu_threads();
    BenchReport report;
    report.machine = machine_line();
    report.size_bytes = plan.size_bytes;
    report.reps = plan.reps;
    report.file = plan.file;
    std::optional<Bench> bench;
    if (!run_stage(report, "bench", [&] { bench.emplace(plan, report); })) return report;
    if (plan.cpu) run_stage(report, "cpu", [&] { bench->cpu(); });
    bool gpu_ran = false;
    if (plan.gpu) run_stage(report, "gpu", [&] { gpu_ran = bench->gpu(); });
    if (!plan.cpu && !gpu_ran) return report; // the GPU alone was asked for, and there is none
    const bool gcm = std::find(plan.modes.begin(), plan.modes.end(), Mode::gcm) != plan.modes.end();
    if (gcm && plan.size_bytes < kDefaultSegmentBytes) {
        report.unavailable.push_back({"gcm", "the size is below one segment (1 MiB)", SizeAdvice::below_one_segment});
    }
    if (!plan.file.empty()) run_stage(report, "file", [&] { bench->file(plan.file, gpu_ran); });
    return report;
}

} // namespace aesgpu
