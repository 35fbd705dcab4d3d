// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared helpers for the test suite: test vectors, random data, an OpenSSL reference, temp dirs.
#include "cipher/cipher_backend.hpp"
#include "cipher/segments.hpp"
#include "engine/pipeline.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace aesgpu::test {

using Bytes = std::vector<std::uint8_t>;

struct KnownAnswer {
    std::string name; // file and record number, for failure messages
    Bytes key;
    Bytes plaintext;
    Bytes ciphertext;
};

// One record of a testvectors/ file: FIELD -> bytes.
using Record = std::map<std::string, Bytes>;

// Parses a testvectors/ file: blank-line separated records of "FIELD = hex" lines; '#' starts a
// comment. Throws on malformed input.
[[nodiscard]] std::vector<Record> load_records(const std::string &file_name);

// Records of KEY, PLAINTEXT and CIPHERTEXT (same length), e.g. the FIPS-197 and SP 800-38A files.
[[nodiscard]] std::vector<KnownAnswer> load_known_answers(const std::string &file_name);

// FIPS-197 Appendix C and SP 800-38A F.1 together: every key size, both directions.
[[nodiscard]] std::vector<KnownAnswer> all_known_answers();

struct CtrKnownAnswer {
    KnownAnswer answer;
    CounterBlock iv;
};

// SP 800-38A F.5: CTR for every key size.
[[nodiscard]] std::vector<CtrKnownAnswer> ctr_known_answers();

// IVs that make a stream's counter carry across the low 32 bits, the low 64 bits and all 128
// (after 1, 2 or 3 blocks), and a random one.
[[nodiscard]] std::vector<CounterBlock> carrying_ivs();

[[nodiscard]] Bytes from_hex(const std::string &hex);
[[nodiscard]] std::string to_hex(const std::vector<std::uint8_t> &bytes);

// Random bytes from a generator seeded once per process from std::random_device; the seed is
// printed by the test main so a failure can be replayed with AESGPU_TEST_SEED=N.
[[nodiscard]] Bytes random_bytes(std::size_t count);
[[nodiscard]] std::uint64_t test_seed();

// OpenSSL EVP one-shot AES-ECB with OpenSSL's own PKCS#7 handling: the independent reference the
// project's output must match byte for byte. Returns false on a decrypt padding failure.
bool openssl_ecb(const Bytes &key, Direction direction, bool pkcs7_padding, const Bytes &in, Bytes &out);

// OpenSSL EVP one-shot AES-CTR: the reference for CTR (encrypt and decrypt are the same).
[[nodiscard]] Bytes openssl_ctr(const Bytes &key, const CounterBlock &iv, const Bytes &in);

// OpenSSL EVP one-shot AES-CBC of whole blocks, no padding: the reference for CBC.
[[nodiscard]] Bytes openssl_cbc(const Bytes &key, const CounterBlock &iv, Direction direction, const Bytes &in);

// The segments of a GCM job from segment `first_segment` for `plaintext` (each full but the last,
// which holds the rest and ends the stream when `holds_last`), made segment by segment with
// one-shot OpenSSL AES-GCM. `segment_key` is the derived key; nonce = prefix, big-endian segment
// number, last-segment byte.
[[nodiscard]] Bytes reference_gcm_job(const Bytes &segment_key, const NoncePrefix &prefix,
                                      const SegmentGeometry &geometry, std::uint64_t first_segment,
                                      const Bytes &plaintext, bool holds_last);

// `plaintext` as a GCM job from `first_segment` takes it in: each segment's plaintext where its
// ciphertext goes, zeros in its tag's room.
[[nodiscard]] Bytes gcm_job_input(const SegmentGeometry &geometry, std::uint64_t first_segment,
                                  const Bytes &plaintext);

// Runs a GCM job near segment 2^32 on backends that `make` builds (the same spec but for the
// direction): the last segments a stream may have equal the reference and decrypt back; a
// changed bit in segment 2^32 - 1 fails it by that number; a job that would reach segment 2^32,
// or end at 2^32 - 1 without ending the stream, is refused (TooManySegments) and ciphers nothing.
void expect_gcm_jobs_near_the_segment_limit(
    const std::function<std::unique_ptr<CipherBackend>(const Bytes &key, const CipherSpec &spec)> &make);

// A Tink AES-GCM-HKDF stream's segments (no header) for `plaintext`: reference_gcm_job from
// segment 0, the whole stream. The reference the GCM backends must match.
[[nodiscard]] Bytes reference_gcm_segments(const Bytes &segment_key, const NoncePrefix &prefix,
                                           const SegmentGeometry &geometry, const Bytes &plaintext);

// HKDF with OpenSSL's EVP_KDF ("SHA1", "SHA256"), for deriving keys the way a test vector did.
[[nodiscard]] Bytes hkdf(const char *digest, const Bytes &key, const Bytes &salt, const Bytes &info,
                         std::size_t length);

// File to file through the streaming pipeline with `backend`; returns the committed output and
// checks the byte counts the pipeline reports.
[[nodiscard]] Bytes run_pipeline_on_files(CipherBackend &backend, const Bytes &input, const PipelineOptions &options);

class TempDir {
public:
    // A fresh directory under `parent` (default: the system's temporary directory), removed with
    // everything in it by the destructor.
    TempDir();
    explicit TempDir(const std::filesystem::path &parent);
    ~TempDir();
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    [[nodiscard]] const std::filesystem::path &path() const { return path_; }
    [[nodiscard]] std::string file(const std::string &name) const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

// Entries in a directory (not counting . and ..): what a failed run must not have added.
[[nodiscard]] std::size_t count_entries(const std::filesystem::path &directory);

void write_file(const std::string &path, const Bytes &bytes);
// Bytes of `path` in the page cache now (mincore over a mapping of it); -1 where it cannot tell.
[[nodiscard]] long long cached_bytes(const std::string &path);
// True when `path` is on tmpfs, whose pages are the file and never leave the page cache.
[[nodiscard]] bool on_tmpfs(const std::string &path);
[[nodiscard]] Bytes read_file(const std::string &path);

} // namespace aesgpu::test
