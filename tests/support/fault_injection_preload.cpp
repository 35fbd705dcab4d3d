// SPDX-License-Identifier: Apache-2.0
// LD_PRELOAD shim for the CLI tests: failures that are hard to reach for real, on demand.
//   AESGPU_TEST_THREADS_ALLOWED=N  pthread_create succeeds N times, then fails with EAGAIN, as at
//                                  the process or user thread limit (ulimit -u; root and
//                                  containers make that hard to reach).
//   AESGPU_TEST_SLOW_CUDA_DRIVER=MS  loading the CUDA driver (libcuda) takes MS milliseconds more,
//                                  as a GPU that is slow to start (and then, without a driver,
//                                  fails late rather than at once).
#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
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
