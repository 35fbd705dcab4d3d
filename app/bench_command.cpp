#include "app/bench_command.hpp"

#include "aes_cpu/cpu_features.hpp"
#include "aes_cpu/evp_cipher.hpp"
#include "aes_cpu/openssl_backend.hpp"
#include "aes_gpu/device_probe.hpp"
#include "aes_gpu/gpu_backend.hpp"
#include "aes_gpu/gpu_bench.hpp"
#include "app/cipher_command.hpp"
#include "app/progress.hpp"
#include "common/errors.hpp"
#include "common/interrupt_cleanup.hpp"
#include "common/worker_pool.hpp"
#include "io/input_source.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
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

extern char **environ;

namespace aesgpu {

namespace {

// Outputs are checked on this much fresh random data (or the whole size, if smaller).
constexpr std::size_t kVerifyBytes = std::size_t{64} << 20;

struct Plan {
    bool cpu = true;
    bool gpu = true;
    std::vector<unsigned> key_bits;
    std::vector<Direction> directions;
    std::size_t size = 0;
    int reps = 1;
    unsigned threads = 0;
};

Plan make_plan(const BenchOptions &options) {
    Plan plan;
    plan.cpu = options.backend != "gpu";
    plan.gpu = options.backend != "cpu";
    if (options.key_bits == "all") {
        plan.key_bits = {128, 192, 256};
    } else {
        plan.key_bits = {static_cast<unsigned>(std::stoul(options.key_bits))};
    }
    if (options.direction != "decrypt") plan.directions.push_back(Direction::encrypt);
    if (options.direction != "encrypt") plan.directions.push_back(Direction::decrypt);
    plan.size = options.size_bytes / kAesBlockBytes * kAesBlockBytes;
    if (plan.size == 0) throw UsageError("--size must be at least 16 bytes");
    plan.reps = std::max(options.reps, 1);
    plan.threads = options.threads ? options.threads : default_cpu_threads();
    return plan;
}

std::string cipher_name(unsigned bits, Direction direction) {
    return fmt::format("AES-{} {}", bits, direction == Direction::encrypt ? "encrypt" : "decrypt");
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// Median wall-clock seconds of `reps` runs of `work`, after one untimed warm-up run; `prepare`,
// if given, runs untimed before each.
double time_runs(int reps, const std::function<void()> &work, const std::function<void()> &prepare = {}) {
    if (prepare) prepare();
    work();
    std::vector<double> seconds;
    for (int i = 0; i < reps; ++i) {
        if (prepare) prepare();
        const auto start = std::chrono::steady_clock::now();
        work();
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return median(seconds);
}

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

void require_openssl_match(std::span<const std::uint8_t> key, Direction direction, std::span<const std::byte> input,
                           std::span<const std::byte> output, const std::string &what) {
    std::vector<std::byte> expected(input.size());
    EvpEcbCipher(key, direction).transform(input, expected);
    if (output.size() != expected.size() || !std::equal(expected.begin(), expected.end(), output.begin())) {
        throw std::runtime_error(what + ": output differs from OpenSSL; nothing was timed");
    }
}

BenchResult result(std::string backend, std::string stage, std::string what, unsigned key_bits = 0,
                   std::optional<Direction> direction = std::nullopt) {
    BenchResult r;
    r.backend = std::move(backend);
    r.stage = std::move(stage);
    r.what = std::move(what);
    r.key_bits = key_bits;
    r.direction = direction;
    return r;
}

class Bench {
public:
    Bench(const Plan &plan, BenchReport &report) : plan_(plan), report_(report) {
        verify_input_ = fresh_random(std::min(plan.size, kVerifyBytes));
    }

    void cpu() {
        const CpuCeilings ceilings = cpu_ceilings();
        for (const unsigned bits : plan_.key_bits) {
            const auto key = random_key(bits);
            for (const Direction direction : plan_.directions) {
                for (const unsigned threads : thread_counts()) {
                    const std::string what =
                        fmt::format("{}, {} thread{}", cipher_name(bits, direction), threads, threads == 1 ? "" : "s");
                    status_.show("cpu " + what);
                    OpenSslBackend backend(key, direction, threads);
                    backend.configure_slots(1, plan_.size);
                    const auto buffer = backend.slot_buffer(0);
                    std::memcpy(buffer.data(), verify_input_.data(), verify_input_.size());
                    backend.submit(0, verify_input_.size());
                    backend.wait(0);
                    require_openssl_match(key, direction, verify_input_, buffer.first(verify_input_.size()),
                                          "cpu " + what);
                    fill_repeating(buffer, verify_input_);
                    BenchResult r = result("cpu", "memory", what, bits, direction);
                    r.threads = threads;
                    r.bytes = double(plan_.size);
                    r.seconds = time_runs(plan_.reps, [&] {
                        backend.submit(0, plan_.size);
                        backend.wait(0);
                    });
                    r.ratio = r.gbps() / (threads == 1 ? ceilings.memcpy_gbps : ceilings.pass_gbps);
                    r.ratio_text = threads == 1 ? fmt::format("{:.2f}x memcpy, 1 thread", r.ratio)
                                                : fmt::format("{:.0f}% of the in-place pass", 100 * r.ratio);
                    add(r);
                }
            }
        }
    }

    // Returns false (and notes why) when no GPU can run.
    bool gpu() {
        std::unique_ptr<GpuBench> gpu;
        try {
            status_.show("gpu set-up");
            gpu = GpuBench::create(plan_.size);
        } catch (const GpuUnavailable &e) {
            report_.unavailable.push_back(std::string("gpu: no usable CUDA device: ") + e.what());
            return false;
        }
        status_.show("gpu copy ceilings");
        const GpuCopyCeilings copies = gpu->time_copies(plan_.reps);
        const double size = double(plan_.size);
        add_ceiling("pinned H2D", size, copies.h2d_seconds);
        add_ceiling("pinned D2H", size, copies.d2h_seconds);
        add_ceiling("pinned H2D+D2H at once", 2 * size, copies.both_seconds);
        add_ceiling("device copy (read+write)", 2 * size, copies.device_copy_seconds);
        const double half_two_way_gbps = size / copies.both_seconds / 1e9;

        for (const unsigned bits : plan_.key_bits) {
            const auto key = random_key(bits);
            for (const Direction direction : plan_.directions) {
                const std::string name = cipher_name(bits, direction);
                status_.show("gpu kernel " + name);
                require_openssl_match(key, direction, verify_input_, gpu->kernel_output(key, direction, verify_input_),
                                      "gpu kernel " + name);
                BenchResult kernel = result("gpu", "kernel", name, bits, direction);
                kernel.bytes = size;
                kernel.seconds = gpu->time_kernel(key, direction, plan_.reps);
                // Both read and write every byte once, so the ratio compares like with like.
                kernel.ratio = copies.device_copy_seconds / kernel.seconds;
                kernel.ratio_text = fmt::format("{:.0f}% of device copy", 100 * kernel.ratio);
                add(kernel);

                status_.show("gpu pipeline " + name);
                BenchResult pipeline = time_gpu_pipeline(key, direction, name);
                pipeline.ratio = pipeline.gbps() / half_two_way_gbps;
                pipeline.ratio_text = fmt::format("{:.0f}% of half the two-way rate", 100 * pipeline.ratio);
                add(pipeline);
            }
        }
        return true;
    }

    void file(const std::string &path, bool with_gpu) {
        // stat first: opening a FIFO would wait for a writer.
        struct stat status {};
        if (::stat(path.c_str(), &status) != 0) throw IoError(errno_message("cannot open", quoted_name(path), errno));
        if (!S_ISREG(status.st_mode))
            throw UsageError("--file needs a regular file: " + quoted_name(path) + " is not one");
        const double size = double(status.st_size);
        const std::filesystem::path target(path);
        const auto directory = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
        const ScratchDirectory scratch(directory);
        const std::string copy = scratch.file(ScratchDirectory::kCopy);
        const std::string encrypted = scratch.file(ScratchDirectory::kEncrypted);
        const std::string decrypted = scratch.file(ScratchDirectory::kDecrypted);

        status_.show("file copy (cp)");
        BenchResult cp = result("cpu", "ceiling", "file copy (cp)");
        cp.bytes = size;
        // Each timed run writes a new file, as `aesgpu encrypt big -o new` does: replacing the last
        // run's output would add freeing its pages to the time.
        const auto remove = [](const std::string &file) { return [&file] { std::filesystem::remove(file); }; };
        cp.seconds = time_runs(
            plan_.reps, [&] { run_cp(path, copy); }, remove(copy));
        add(cp);
        std::filesystem::remove(copy);

        // Key size hardly changes file-to-file times, so this stage runs the first one asked for.
        const unsigned bits = plan_.key_bits.front();
        const auto key = random_key(bits);
        std::vector<std::string> backends;
        if (plan_.cpu) backends.emplace_back("cpu");
        if (plan_.gpu && with_gpu) backends.emplace_back("gpu");
        for (const std::string &backend : backends) {
            const auto run = [&](Direction direction, const std::string &from, const std::string &to) {
                CipherOptions options;
                options.direction = direction;
                options.inputs = {from};
                options.output = to;
                options.force = true;
                options.log.quiet = true;
                options.progress = ProgressChoice::never;
                options.backend = backend == "gpu" ? BackendChoice::gpu : BackendChoice::cpu;
                std::string key_hex = fmt::format("{:02x}", fmt::join(key, ""));
                options.key_hex = SecretBytes::take(key_hex);
                options.threads = plan_.threads;
                if (run_cipher_command(options, WhenDone::stay_interruptible) != 0) {
                    throw std::runtime_error(backend + " file run failed");
                }
            };
            status_.show(backend + " file check");
            run(Direction::encrypt, path, encrypted);
            check_file_prefix(key, path, encrypted, backend);
            run(Direction::decrypt, encrypted, decrypted);
            if (!same_contents(path, decrypted)) {
                throw std::runtime_error(backend + " file: decrypting the encrypted file did not give it back");
            }
            for (const Direction direction : plan_.directions) {
                const std::string name = cipher_name(bits, direction);
                status_.show(backend + " file " + name);
                BenchResult r = result(backend, "file", name, bits, direction);
                r.bytes = size;
                r.seconds = direction == Direction::encrypt
                                ? time_runs(
                                      plan_.reps, [&] { run(direction, path, encrypted); }, remove(encrypted))
                                : time_runs(
                                      plan_.reps, [&] { run(direction, encrypted, decrypted); }, remove(decrypted));
                r.ratio = r.seconds / cp.seconds;
                r.ratio_text = fmt::format("{:.2f}x the time of cp", r.ratio);
                add(r);
            }
        }
    }

private:
    // A private (0700) directory beside the benchmarked file, on the same file system, for the
    // copies and outputs: no one else can plant anything under its names. Removed at the end,
    // and by the signal handler on Ctrl-C.
    class ScratchDirectory {
    public:
        explicit ScratchDirectory(const std::filesystem::path &parent) {
            // mkdtemp fills in the name, which the undo action must see.
            auto made = std::make_shared<std::string>((parent / ".aesgpu-bench-XXXXXX").string());
            int error = 0;
            remove_on_interrupt_ = InterruptCleanup::after(
                [&] {
                    error = ::mkdtemp(made->data()) ? 0 : errno;
                    return error == 0;
                },
                [made] { remove_all(*made); });
            if (error != 0) {
                throw IoError(errno_message("cannot create a directory in", quoted_name(parent.string()), error));
            }
            path_ = *made;
        }
        ~ScratchDirectory() {
            remove_all(path_);
            remove_on_interrupt_.release();
        }
        ScratchDirectory(const ScratchDirectory &) = delete;
        ScratchDirectory &operator=(const ScratchDirectory &) = delete;
        [[nodiscard]] std::string file(const char *name) const { return path_ + "/" + name; }

        static constexpr const char *kCopy = "copy";
        static constexpr const char *kEncrypted = "encrypted";
        static constexpr const char *kDecrypted = "decrypted";

    private:
        static void remove_all(const std::string &path) {
            std::error_code ignored;
            std::filesystem::remove_all(path, ignored);
        }
        std::string path_;
        InterruptCleanup remove_on_interrupt_;
    };

    // What a CPU stage is measured against: memcpy on one thread, an in-place pass on all.
    struct CpuCeilings {
        double memcpy_gbps = 0;
        double pass_gbps = 0;
    };

    // Its buffers are gone before the AES runs allocate theirs: 2 x --size at most.
    CpuCeilings cpu_ceilings() {
        std::vector<std::byte> source(plan_.size);
        // Words, so that the in-place pass reuses it (the size is a multiple of 16).
        std::vector<std::uint64_t> target(plan_.size / sizeof(std::uint64_t));
        fill_repeating(source, verify_input_);
        status_.show("cpu memcpy");
        BenchResult copy = result("cpu", "ceiling", "memcpy, 1 thread");
        copy.bytes = double(plan_.size);
        copy.seconds = time_runs(plan_.reps, [&] { std::memcpy(target.data(), source.data(), plan_.size); });
        copy.threads = 1;
        add(copy);
        source = {};
        CpuCeilings ceilings{copy.gbps(), copy.gbps()};
        if (plan_.threads > 1) {
            // The wall in-memory AES meets on all threads: one pass that reads and writes every
            // byte in place, as the CPU backend does, with no work in between.
            WorkerPool pool(plan_.threads, "the in-place memory pass");
            status_.show("cpu in-place pass, all threads");
            BenchResult pass = result("cpu", "ceiling", fmt::format("in-place pass, {} threads", plan_.threads));
            pass.bytes = double(plan_.size);
            pass.threads = plan_.threads;
            pass.seconds = time_runs(plan_.reps, [&] {
                pool.run_pieces(plan_.size, [&](std::size_t offset, std::size_t length) {
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

    // The baseline a shell user knows: cp itself.
    static void run_cp(const std::string &from, const std::string &to) {
        // Never a reflink (coreutils 9 clones where the file system can): the baseline is a copy.
        const char *argv[] = {"cp", "--reflink=never", "--", from.c_str(), to.c_str(), nullptr};
        // aesgpu blocks the signals it takes in every thread (app/interrupts.hpp); cp must not
        // inherit that, or Ctrl-C would not stop it.
        posix_spawnattr_t attributes;
        sigset_t none;
        sigemptyset(&none);
        posix_spawnattr_init(&attributes);
        posix_spawnattr_setsigmask(&attributes, &none);
        posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
        pid_t pid = 0;
        int spawned = 0;
        // Ctrl-C while cp runs stops it too, before the scratch directory it writes into goes.
        // (The undo may read `pid` by reference: releasing it waits while the undo actions run.)
        const InterruptCleanup stop_cp = InterruptCleanup::after(
            [&] {
                spawned = ::posix_spawnp(&pid, "cp", nullptr, &attributes, const_cast<char *const *>(argv), environ);
                return spawned == 0;
            },
            [&pid] { (void)::kill(pid, SIGTERM); });
        posix_spawnattr_destroy(&attributes);
        if (spawned != 0) throw std::runtime_error("cannot run cp");
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0) {
            if (errno != EINTR) throw std::runtime_error(errno_message("cannot wait for", "cp", errno));
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("cp failed");
    }

    // ECB works block by block, so the file's first bytes encrypt to the output's first bytes.
    void check_file_prefix(std::span<const std::uint8_t> key, const std::string &plain, const std::string &cipher,
                           const std::string &backend) const {
        InputSource in = InputSource::open(plain);
        InputSource out = InputSource::open(cipher);
        std::vector<std::byte> input(kVerifyBytes), output(kVerifyBytes);
        const std::size_t length = in.read_full(input) / kAesBlockBytes * kAesBlockBytes;
        input.resize(length);
        output.resize(out.read_full(std::span(output).first(length)));
        require_openssl_match(key, Direction::encrypt, input, output, backend + " file");
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

    BenchResult time_gpu_pipeline(std::span<const std::uint8_t> key, Direction direction, const std::string &name) {
        auto backend = make_gpu_backend(key, direction, {0, kDefaultGpuStreams});
        const std::size_t chunk = std::min(kGpuFileChunkBytes, plan_.size);
        const std::size_t slots = gpu_ring_slots(kDefaultGpuStreams);
        backend->configure_slots(slots, chunk);
        const auto sample = std::span(verify_input_).first(chunk);
        std::memcpy(backend->slot_buffer(0).data(), sample.data(), chunk);
        backend->submit(0, chunk);
        backend->wait(0);
        require_openssl_match(key, direction, sample, backend->slot_buffer(0).first(chunk), "gpu pipeline " + name);
        for (std::size_t s = 0; s < slots; ++s) fill_repeating(backend->slot_buffer(s), sample);
        // Enough chunks that filling and draining the ring is a small part of the run.
        const std::size_t chunks = std::max(plan_.size / chunk, 4 * slots);
        BenchResult r =
            result("gpu", "pipeline", name + ", pinned host to host", static_cast<unsigned>(key.size() * 8), direction);
        r.bytes = double(chunks * chunk);
        r.seconds = time_runs(plan_.reps, [&] {
            for (std::size_t i = 0; i < chunks; ++i) {
                if (i >= slots) backend->wait(i % slots);
                backend->submit(i % slots, chunk);
            }
            for (std::size_t s = 0; s < std::min(slots, chunks); ++s) backend->wait(s);
        });
        return r;
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

    const Plan &plan_;
    BenchReport &report_;
    StatusLine status_;
    std::vector<std::byte> verify_input_;
};

std::string machine_line() {
    const CpuAesFeatures cpu = detect_cpu_aes_features();
    const GpuProbe gpu = probe_gpus();
    std::string line = fmt::format("CPU: {} threads, AES-NI {}, VAES {}; {}", default_cpu_threads(),
                                   cpu.aes_ni ? "yes" : "no", cpu.vaes ? "yes" : "no", openssl_version_text());
    if (gpu.usable())
        line += fmt::format("; GPU: {}, {} SMs", gpu.devices.front().name, gpu.devices.front().multiprocessors);
    return line;
}

// Runs one stage; one that runs out of memory or threads (a --size too big for RAM or pinned
// memory, a low ulimit) is noted in the report, and the bench goes on with the next stage.
bool run_stage(BenchReport &report, const std::string &stage, const std::function<void()> &work) {
    try {
        work();
        return true;
    } catch (const ResourceExhausted &e) {
        report.failed.push_back(fmt::format("{}: {} (try a smaller --size)", stage, e.what()));
    } catch (const ThreadLimit &e) {
        report.failed.push_back(fmt::format("{}: {}", stage, e.what()));
    } catch (const std::bad_alloc &) {
        report.failed.push_back(fmt::format("{}: not enough memory for --size {} (try a smaller one)", stage,
                                            human_bytes(double(report.size_bytes))));
    }
    return false;
}

} // namespace

BenchReport run_bench(const BenchOptions &options) {
    const Plan plan = make_plan(options);
    BenchReport report;
    report.machine = machine_line();
    report.size_bytes = plan.size;
    report.reps = plan.reps;
    report.file = options.file;
    std::optional<Bench> bench;
    if (!run_stage(report, "bench", [&] { bench.emplace(plan, report); })) return report;
    if (plan.cpu) run_stage(report, "cpu", [&] { bench->cpu(); });
    bool gpu_ran = false;
    if (plan.gpu) run_stage(report, "gpu", [&] { gpu_ran = bench->gpu(); });
    if (!plan.cpu && !gpu_ran) return report; // --backend gpu without a GPU: nothing to time files with
    if (!options.file.empty()) run_stage(report, "file", [&] { bench->file(options.file, gpu_ran); });
    return report;
}

int run_bench_command(const BenchOptions &options) {
    const BenchReport report = run_bench(options);
    // As with `encrypt --backend gpu`: asking for the GPU alone and getting nothing is a failure.
    if (options.backend == "gpu" && !report.unavailable.empty()) {
        throw std::runtime_error(report.unavailable.front().substr(std::string("gpu: ").size()));
    }
    if (options.json) {
        print_bench_json(report, std::cout);
    } else {
        print_bench_table(report, std::cout);
    }
    // The rows measured are out; the first stage that could not run is the error.
    if (!report.failed.empty()) throw std::runtime_error(report.failed.front());
    return 0;
}

} // namespace aesgpu
