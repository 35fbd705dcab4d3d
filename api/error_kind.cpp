// SPDX-License-Identifier: Apache-2.0
#include "api/error_kind.hpp"

#include "aes_gpu/gpu_backend.hpp"
#include "cipher/cipher_backend.hpp"
#include "common/errors.hpp"
#include "engine/gcm_range.hpp"
#include "format/tink_gcm.hpp"
#include "keys/passphrase.hpp"
#ifdef AESGPU_HAVE_CUDA
#include "aes_gpu/cuda_check.hpp"
#endif

#include <new>
#include <optional>
#include <stdexcept>

namespace aesgpu {

namespace {

// What the input, key or settings were: the caller can do something about these.
std::optional<Error> caller_side(const std::exception_ptr &failure) {
    try {
        std::rethrow_exception(failure);
    } catch (const Error &error) {
        return error;
    } catch (const AuthenticationFailed &e) {
        return Error(ErrorKind::authentication, e.what());
    } catch (const RangePastTheEnd &e) { // nothing was written
        return Error(ErrorKind::format, e.what());
    } catch (const FormatError &e) { // NoSaltedHeader, BadPadding, StreamCutShort
        return Error(ErrorKind::format, e.what());
    } catch (const IoError &e) { // BrokenPipe
        return Error(ErrorKind::io, e.what());
    } catch (const KeyError &e) { // a key that is not hex or not a key's size; a key file's content
        return Error(ErrorKind::key, e.what());
    } catch (const EmptyPassphrase &e) {
        return Error(ErrorKind::key, e.what());
    } catch (const NeedsPassphrase &e) {
        return Error(ErrorKind::key, e.what());
    } catch (const TooManySegments &e) { // the file needs a larger segment_bytes
        return Error(ErrorKind::settings, e.what());
    } catch (const std::invalid_argument &e) {
        return Error(ErrorKind::settings, e.what());
    } catch (...) {
        return std::nullopt;
    }
}

// What the machine could not give: a GPU, memory, threads.
std::optional<Error> machine_side(const std::exception_ptr &failure) {
    try {
        std::rethrow_exception(failure);
    } catch (const GpuUnavailable &e) {
        return Error(ErrorKind::gpu, e.what());
#ifdef AESGPU_HAVE_CUDA
    } catch (const CudaError &e) {
        return Error(ErrorKind::gpu, e.what());
#endif
    } catch (const ResourceExhausted &e) {
        return Error(ErrorKind::resources, e.what());
    } catch (const ThreadLimit &e) {
        return Error(ErrorKind::resources, e.what());
    } catch (const std::bad_alloc &) {
        return Error(ErrorKind::resources, kNotEnoughMemory);
    } catch (...) {
        return std::nullopt;
    }
}

} // namespace

Error public_error(const std::exception_ptr &failure) {
    if (std::optional<Error> error = caller_side(failure)) return *error;
    if (std::optional<Error> error = machine_side(failure)) return *error;
    try {
        std::rethrow_exception(failure);
    } catch (const std::exception &e) {
        return {ErrorKind::internal, e.what()};
    } catch (...) {
        return {ErrorKind::internal, "an exception that is not a std::exception"};
    }
}

} // namespace aesgpu
