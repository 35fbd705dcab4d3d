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
//   AESGPU_TEST_REFUSE_O_DIRECT=1  open() with O_DIRECT fails with EINVAL, as on a file system
//                                  without direct I/O.
//   AESGPU_TEST_REFUSE_O_TMPFILE=1  openat() with O_TMPFILE fails with EOPNOTSUPP, as on a file
//                                  system without unnamed temporary files (NFS, vfat): outputs
//                                  are written under a hidden name.
//   AESGPU_TEST_PWRITE_FAILS_AFTER=N  pwrite() succeeds for N bytes in all, then fails with
//   AESGPU_TEST_PWRITE_ERRNO=E       errno E (default ENOSPC); the same for pread() with
//   AESGPU_TEST_PREAD_FAILS_AFTER=N  _PREAD_ (default EIO): a disk that fills or fails mid-run.
//   AESGPU_TEST_SLOW_PWRITE_MS=MS  each pwrite() takes MS milliseconds more (a run to interrupt).
//   AESGPU_TEST_DIRECT_PWRITE_REFUSED_AFTER=N  pwrite() to an O_DIRECT descriptor fails with EINVAL
//                                  once N bytes in all were asked of such writes, as a file system
//                                  that takes some direct writes and not others.
//   AESGPU_TEST_WRITE_LOG=PATH     each pwrite() is appended to PATH as "start direct|buffered
//                                  OFFSET LENGTH" before and "end direct|buffered OFFSET" after it
//                                  (a refused one as "refused direct OFFSET"), and each fallocate()
//                                  as "reserve MODE OFFSET LENGTH": which writes overlapped in time.
//   AESGPU_TEST_FALLOCATE_STOPS_AT=N  fallocate() that sets the length (mode 0) past N lengthens
//                                  the file to N and fails with EDQUOT, as a quota that runs out
//                                  partway (ext4 raises the length as it allocates).
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdarg>
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

// Appends `line` to the file that the environment variable `log` names, if it names one.
void append_to_log(const char *log, const std::string &line) {
    const char *path = std::getenv(log);
    if (!path) return;
    const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    const std::string text = line + "\n";
    [[maybe_unused]] const auto written = ::write(fd, text.data(), text.size());
    ::close(fd);
}

void log_sync_event(const std::string &line) {
    append_to_log("AESGPU_TEST_SYNC_LOG", line);
}

std::string path_of(int fd) {
    char target[4096];
    const std::string link = "/proc/self/fd/" + std::to_string(fd);
    const ssize_t length = ::readlink(link.c_str(), target, sizeof target - 1);
    return length < 0 ? "?" : std::string(target, static_cast<std::size_t>(length));
}

template <typename Function>
Function real_function(const char *name) {
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
    static const auto real = real_function<int (*)(int, const char *, int, const char *, unsigned)>("renameat2");
    return real(from_dir, from, to_dir, to, flags);
}

namespace {

// True once more than the bytes `limit_variable` allows have gone through `counter`; sets errno
// (to `errno_variable`'s value where that is set).
bool fails_now(std::atomic<long long> &counter, std::size_t bytes, const char *limit_variable,
               const char *errno_variable, int default_errno) {
    const char *limit = std::getenv(limit_variable);
    if (!limit) return false;
    if (counter.fetch_add(static_cast<long long>(bytes)) + static_cast<long long>(bytes) <= std::atoll(limit)) {
        return false;
    }
    const char *code = errno_variable ? std::getenv(errno_variable) : nullptr;
    errno = code ? std::atoi(code) : default_errno;
    return true;
}

} // namespace

namespace {

// open() and its other names (glibc 2.39 binds large-file and fortified calls to these).
int open_or_refuse(const char *symbol, const char *path, int flags, mode_t mode) {
    if ((flags & O_DIRECT) && std::getenv("AESGPU_TEST_REFUSE_O_DIRECT")) {
        errno = EINVAL;
        return -1;
    }
    const auto real = real_function<int (*)(const char *, int, ...)>(symbol);
    return real(path, flags, mode);
}

mode_t mode_argument(int flags, va_list arguments) {
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(arguments, mode_t) : 0;
}

} // namespace

extern "C" int open(const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    const mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    return open_or_refuse("open", path, flags, mode);
}

extern "C" int __open_2(const char *path, int flags) {
    return open_or_refuse("__open_2", path, flags, 0);
}

// On x86-64 the large-file names are the same functions in glibc.
extern "C" int open64(const char *path, int flags, ...) __attribute__((alias("open")));
extern "C" int __open64_2(const char *path, int flags) __attribute__((alias("__open_2")));

namespace {

int openat_or_refuse(const char *symbol, int directory, const char *path, int flags, mode_t mode) {
    if ((flags & O_TMPFILE) == O_TMPFILE && std::getenv("AESGPU_TEST_REFUSE_O_TMPFILE")) {
        errno = EOPNOTSUPP;
        return -1;
    }
    const auto real = real_function<int (*)(int, const char *, int, ...)>(symbol);
    return real(directory, path, flags, mode);
}

} // namespace

extern "C" int openat(int directory, const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    const mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    return openat_or_refuse("openat", directory, path, flags, mode);
}

extern "C" int __openat_2(int directory, const char *path, int flags) {
    return openat_or_refuse("__openat_2", directory, path, flags, 0);
}

extern "C" int openat64(int directory, const char *path, int flags, ...) __attribute__((alias("openat")));
extern "C" int __openat64_2(int directory, const char *path, int flags) __attribute__((alias("__openat_2")));

namespace {

void log_write_event(const std::string &line) {
    append_to_log("AESGPU_TEST_WRITE_LOG", line);
}

} // namespace

extern "C" ssize_t pwrite(int fd, const void *data, std::size_t bytes, off_t offset) {
    static std::atomic<long long> written{0};
    static std::atomic<long long> written_directly{0};
    if (fails_now(written, bytes, "AESGPU_TEST_PWRITE_FAILS_AFTER", "AESGPU_TEST_PWRITE_ERRNO", ENOSPC)) return -1;
    const int flags = ::fcntl(fd, F_GETFL);
    const bool direct = flags >= 0 && (flags & O_DIRECT);
    const std::string where = std::to_string(offset);
    if (direct && fails_now(written_directly, bytes, "AESGPU_TEST_DIRECT_PWRITE_REFUSED_AFTER", nullptr, EINVAL)) {
        log_write_event("refused direct " + where);
        return -1;
    }
    const std::string kind = direct ? "direct " : "buffered ";
    log_write_event("start " + kind + where + " " + std::to_string(bytes));
    if (const char *slow = std::getenv("AESGPU_TEST_SLOW_PWRITE_MS")) {
        std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(slow)));
    }
    static const auto real = real_function<ssize_t (*)(int, const void *, std::size_t, off_t)>("pwrite");
    const ssize_t result = real(fd, data, bytes, offset);
    const int saved = errno;
    log_write_event("end " + kind + where);
    errno = saved;
    return result;
}

extern "C" int fallocate(int fd, int mode, off_t offset, off_t length) {
    log_write_event("reserve " + std::to_string(mode) + " " + std::to_string(offset) + " " + std::to_string(length));
    static const auto real = real_function<int (*)(int, int, off_t, off_t)>("fallocate");
    if (const char *stop = std::getenv("AESGPU_TEST_FALLOCATE_STOPS_AT"); stop && mode == 0) {
        const off_t at = std::atoll(stop);
        if (offset + length > at) {
            if (at > offset) (void)real(fd, 0, offset, at - offset);
            errno = EDQUOT;
            return -1;
        }
    }
    return real(fd, mode, offset, length);
}

// On x86-64 the large-file name is the same function in glibc.
extern "C" int fallocate64(int fd, int mode, off_t offset, off_t length) __attribute__((alias("fallocate")));

extern "C" ssize_t pread(int fd, void *data, std::size_t bytes, off_t offset) {
    static std::atomic<long long> read{0};
    if (fails_now(read, bytes, "AESGPU_TEST_PREAD_FAILS_AFTER", "AESGPU_TEST_PREAD_ERRNO", EIO)) return -1;
    static const auto real = real_function<ssize_t (*)(int, void *, std::size_t, off_t)>("pread");
    return real(fd, data, bytes, offset);
}
