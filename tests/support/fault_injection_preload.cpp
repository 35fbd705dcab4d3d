// SPDX-License-Identifier: Apache-2.0
// LD_PRELOAD shim for the CLI tests: failures that are hard to reach for real, on demand.
//   AESGPU_TEST_THREADS_ALLOWED=N  pthread_create succeeds N times, then fails with EAGAIN, as at
//                                  the process or user thread limit (ulimit -u; root and
//                                  containers make that hard to reach).
//   AESGPU_TEST_SLOW_CUDA_DRIVER=MS  loading the CUDA driver (libcuda) takes MS milliseconds more,
//                                  as a GPU that is slow to start (and then, without a driver,
//                                  fails late rather than at once).
//   AESGPU_TEST_SYNC_LOG=PATH      each fsync, fdatasync, linkat and renameat(2) is appended to
//                                  PATH as a line ("fsync /dir/file", "link NAME", "rename FROM
//                                  TO"), in the order they were called: what reached the disk
//                                  before a name appeared.
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

using Create = int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
using Open = void *(*)(const char *, int);

extern "C" int pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*start)(void *),
                              void *argument) {
    static std::atomic<int> created{0};
    const char *allowed = std::getenv("AESGPU_TEST_THREADS_ALLOWED");
    if (allowed && created.fetch_add(1) >= std::atoi(allowed)) return EAGAIN;
    static const auto real = reinterpret_cast<Create>(dlsym(RTLD_NEXT, "pthread_create"));
    return real(thread, attributes, start, argument);
}

extern "C" void *dlopen(const char *file, int mode) {
    const char *delay = std::getenv("AESGPU_TEST_SLOW_CUDA_DRIVER");
    if (delay && file && std::strstr(file, "libcuda.so")) {
        std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(delay)));
    }
    static const auto real = reinterpret_cast<Open>(dlsym(RTLD_NEXT, "dlopen"));
    return real(file, mode);
}

namespace {

void log_sync_event(const std::string &line) {
    const char *path = std::getenv("AESGPU_TEST_SYNC_LOG");
    if (!path) return;
    const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    const std::string text = line + "\n";
    [[maybe_unused]] const auto written = ::write(fd, text.data(), text.size());
    ::close(fd);
}

std::string path_of(int fd) {
    char target[4096];
    const std::string link = "/proc/self/fd/" + std::to_string(fd);
    const ssize_t length = ::readlink(link.c_str(), target, sizeof target - 1);
    return length < 0 ? "?" : std::string(target, static_cast<std::size_t>(length));
}

template <typename Function> Function real_function(const char *name) {
    return reinterpret_cast<Function>(dlsym(RTLD_NEXT, name));
}

} // namespace

extern "C" int fsync(int fd) {
    log_sync_event("fsync " + path_of(fd));
    static const auto real = real_function<int (*)(int)>("fsync");
    return real(fd);
}

extern "C" int fdatasync(int fd) {
    log_sync_event("fsync " + path_of(fd));
    static const auto real = real_function<int (*)(int)>("fdatasync");
    return real(fd);
}

extern "C" int linkat(int from_dir, const char *from, int to_dir, const char *to, int flags) {
    log_sync_event(std::string("link ") + to);
    static const auto real = real_function<int (*)(int, const char *, int, const char *, int)>("linkat");
    return real(from_dir, from, to_dir, to, flags);
}

extern "C" int renameat(int from_dir, const char *from, int to_dir, const char *to) {
    log_sync_event(std::string("rename ") + from + " " + to);
    static const auto real = real_function<int (*)(int, const char *, int, const char *)>("renameat");
    return real(from_dir, from, to_dir, to);
}

extern "C" int renameat2(int from_dir, const char *from, int to_dir, const char *to, unsigned flags) {
    log_sync_event(std::string("rename ") + from + " " + to);
    static const auto real =
        real_function<int (*)(int, const char *, int, const char *, unsigned)>("renameat2");
    return real(from_dir, from, to_dir, to, flags);
}
