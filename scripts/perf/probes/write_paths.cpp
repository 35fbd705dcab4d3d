// SPDX-License-Identifier: Apache-2.0
// Probe: what each way of writing a new large file costs in wall and CPU seconds (user, system),
// beside cp, and what a split pread costs. Run on a host to choose a write path for
// io/mapped_file_writer (docs/performance.md cites its output). Built only when asked for:
//   cmake --build BUILD --target probe_write_paths && BUILD/bench/probe_write_paths DIR GIB THREADS
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace {
using Clock = std::chrono::steady_clock;

double seconds(const timeval &t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; }

void measure(const char *name, double gib, const std::function<void()> &work) {
    rusage self0{}, child0{}, self1{}, child1{};
    getrusage(RUSAGE_SELF, &self0);
    getrusage(RUSAGE_CHILDREN, &child0);
    const auto start = Clock::now();
    work();
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    getrusage(RUSAGE_SELF, &self1);
    getrusage(RUSAGE_CHILDREN, &child1);
    const double user = seconds(self1.ru_utime) - seconds(self0.ru_utime) + seconds(child1.ru_utime) - seconds(child0.ru_utime);
    const double sys = seconds(self1.ru_stime) - seconds(self0.ru_stime) + seconds(child1.ru_stime) - seconds(child0.ru_stime);
    std::printf("%-44s wall %6.3f s  user %5.2f  sys %5.2f  CPU %5.2f s/GiB  minflt %ld\n", name, wall, user, sys,
                (user + sys) / gib, self1.ru_minflt - self0.ru_minflt);
    std::fflush(stdout);
}

void parallel(unsigned threads, const std::function<void(unsigned)> &piece) {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(piece, t);
    for (auto &t : pool) t.join();
}

// Writes `total` bytes of `source` (repeated) through mapped windows of `window` bytes, each cut
// into `threads` pieces. populate: MADV_POPULATE_WRITE each piece before copying. huge: MADV_HUGEPAGE.
void mapped(int fd, std::size_t total, std::size_t window, unsigned threads, const std::vector<char> &source,
            bool populate, bool huge) {
    for (std::size_t at = 0; at < total; at += window) {
        const std::size_t bytes = std::min(window, total - at);
        char *map = static_cast<char *>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(at)));
        if (map == MAP_FAILED) { perror("mmap"); std::exit(1); }
        if (huge) madvise(map, bytes, MADV_HUGEPAGE);
        const std::size_t piece = (bytes / threads + 4095) / 4096 * 4096;
        parallel(threads, [&](unsigned t) {
            const std::size_t from = std::min(bytes, t * piece), to = std::min(bytes, from + piece);
            if (from == to) return;
            if (populate && madvise(map + from, to - from, MADV_POPULATE_WRITE) != 0) { perror("populate"); std::exit(1); }
            for (std::size_t o = from; o < to;) {
                const std::size_t n = std::min(to - o, source.size() - (at + o) % source.size());
                std::memcpy(map + o, source.data() + (at + o) % source.size(), n);
                o += n;
            }
        });
        munmap(map, bytes);
    }
}
} // namespace

int main(int argc, char **argv) {
    if (argc != 4) { std::fprintf(stderr, "usage: %s DIR GIB THREADS\n", argv[0]); return 2; }
    const std::string dir = argv[1];
    const double gib = std::atof(argv[2]);
    const unsigned threads = unsigned(std::atoi(argv[3]));
    const std::size_t total = std::size_t(gib * double(1u << 30));
    std::vector<char> source(std::size_t{64} << 20);
    for (std::size_t i = 0; i < source.size(); ++i) source[i] = char(i * 2654435761u >> 13);
    const std::string in = dir + "/probe-in", out = dir + "/probe-out";
    {
        const int fd = open(in.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
        for (std::size_t done = 0; done < total; done += source.size()) {
            if (write(fd, source.data(), std::min(source.size(), total - done)) < 0) { perror("write"); return 1; }
        }
        close(fd);
    }
    const auto fresh = [&] {
        unlink(out.c_str());
        return open(out.c_str(), O_CREAT | O_TRUNC | O_RDWR, 0600);
    };
    const auto run = [&](const char *name, const std::function<void(int)> &write_file) {
        const int fd = fresh();
        measure(name, gib, [&] { write_file(fd); });
        close(fd);
        unlink(out.c_str());
    };
    measure("cp", gib, [&] { if (std::system(("cp " + in + " " + out).c_str()) != 0) std::exit(1); });
    unlink(out.c_str());
    std::vector<char> buffer(std::size_t{8} << 20);
    const int in_fd = open(in.c_str(), O_RDONLY);
    measure("read: pread 8 MiB, 1 thread", gib, [&] {
        for (std::size_t at = 0; at < total; at += buffer.size()) (void)!pread(in_fd, buffer.data(), buffer.size(), off_t(at));
    });
    measure("read: pread 8 MiB split over THREADS", gib, [&] {
        for (std::size_t at = 0; at < total; at += buffer.size()) {
            const std::size_t piece = buffer.size() / threads;
            parallel(threads, [&](unsigned t) { (void)!pread(in_fd, buffer.data() + t * piece, piece, off_t(at + t * piece)); });
        }
    });
    close(in_fd);
    run("write: pwrite 8 MiB, 1 thread", [&](int fd) {
        for (std::size_t at = 0; at < total; at += buffer.size()) {
            std::memcpy(buffer.data(), source.data() + at % source.size(), buffer.size());
            (void)!pwrite(fd, buffer.data(), buffer.size(), off_t(at));
        }
    });
    const std::size_t w64 = std::size_t{64} << 20, w256 = std::size_t{256} << 20;
    run("mapped 64M: fallocate all, fault (today)", [&](int fd) {
        if (fallocate(fd, 0, 0, off_t(total)) != 0) perror("fallocate");
        mapped(fd, total, w64, threads, source, false, false);
    });
    run("mapped 64M: ftruncate, fault", [&](int fd) {
        (void)!ftruncate(fd, off_t(total));
        mapped(fd, total, w64, threads, source, false, false);
    });
    run("mapped 64M: ftruncate, POPULATE_WRITE", [&](int fd) {
        (void)!ftruncate(fd, off_t(total));
        mapped(fd, total, w64, threads, source, true, false);
    });
    run("mapped 64M: ftruncate, POPULATE_WRITE, HUGE", [&](int fd) {
        (void)!ftruncate(fd, off_t(total));
        mapped(fd, total, w64, threads, source, true, true);
    });
    run("mapped 256M: ftruncate, POPULATE_WRITE", [&](int fd) {
        (void)!ftruncate(fd, off_t(total));
        mapped(fd, total, w256, threads, source, true, false);
    });
    run("mapped 64M: fallocate all, POPULATE_WRITE", [&](int fd) {
        if (fallocate(fd, 0, 0, off_t(total)) != 0) perror("fallocate");
        mapped(fd, total, w64, threads, source, true, false);
    });

    // Decomposition: each step alone.
    run("parts: fallocate alone", [&](int fd) {
        if (fallocate(fd, 0, 0, off_t(total)) != 0) perror("fallocate");
    });
    {
        const int fd = fresh();
        if (fallocate(fd, 0, 0, off_t(total)) != 0) perror("fallocate");
        char *map = static_cast<char *>(mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
        const std::size_t piece = (total / threads + 4095) / 4096 * 4096;
        measure("parts: POPULATE_WRITE of fallocated, THREADS", gib, [&] {
            parallel(threads, [&](unsigned t) {
                const std::size_t from = std::min(total, t * piece), to = std::min(total, from + piece);
                if (from < to) madvise(map + from, to - from, MADV_POPULATE_WRITE);
            });
        });
        measure("parts: memcpy into mapped pages, THREADS", gib, [&] {
            parallel(threads, [&](unsigned t) {
                const std::size_t from = std::min(total, t * piece), to = std::min(total, from + piece);
                for (std::size_t o = from; o < to; o += source.size()) std::memcpy(map + o, source.data(), std::min(source.size(), to - o));
            });
        });
        measure("parts: munmap", gib, [&] { munmap(map, total); });
        close(fd);
        unlink(out.c_str());
    }
    for (unsigned t : {1u, 2u, 4u}) {
        const std::string name = "mapped 64M: fallocate all, fault, " + std::to_string(t) + " thr";
        run(name.c_str(), [&](int fd) {
            if (fallocate(fd, 0, 0, off_t(total)) != 0) perror("fallocate");
            mapped(fd, total, w64, t, source, false, false);
        });
    }
    run("write: pwrite 8 MiB pieces, THREADS", [&](int fd) {
        for (std::size_t at = 0; at < total; at += buffer.size() * threads) {
            parallel(threads, [&](unsigned t) {
                const std::size_t o = at + t * buffer.size();
                if (o < total) (void)!pwrite(fd, source.data(), std::min(buffer.size(), total - o), off_t(o));
            });
        }
    });
    run("write: fallocate, pwrite 8 MiB, 1 thread", [&](int fd) {
        if (fallocate(fd, 0, 0, off_t(total)) != 0) perror("fallocate");
        for (std::size_t at = 0; at < total; at += buffer.size()) (void)!pwrite(fd, source.data(), buffer.size(), off_t(at));
    });
    run("write: pwrite 8 MiB, 1 thread, no user copy", [&](int fd) {
        for (std::size_t at = 0; at < total; at += buffer.size()) (void)!pwrite(fd, source.data(), buffer.size(), off_t(at));
    });
    unlink(in.c_str());
    return 0;
}
