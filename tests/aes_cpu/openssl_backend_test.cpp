// SPDX-License-Identifier: Apache-2.0
// The OpenSSL backend: known answers, agreement with one-shot OpenSSL across thread counts and
// piece boundaries, and misuse.
#include "aes_cpu/evp_cipher.hpp"
#include "aes_cpu/openssl_backend.hpp"
#include "common/errors.hpp"
#include "support/allocation_hooks.hpp"
#include "support/offset_jobs.hpp"
#include "support/test_support.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace aesgpu::test {
namespace {

Bytes run_backend(OpenSslBackend &backend, const Bytes &in, std::uint64_t first_block = 0) {
    backend.configure_slots(3, in.size() + 16);
    const std::size_t slot = 1;
    if (!in.empty()) std::memcpy(backend.slot_buffer(slot).data(), in.data(), in.size()); // no null source
    backend.submit({.slot = slot, .bytes = in.size(), .first_block = first_block});
    backend.wait(slot);
    const auto *data = reinterpret_cast<const std::uint8_t *>(backend.slot_buffer(slot).data());
    return Bytes(data, data + in.size());
}

TEST(KnownAnswers, VectorFilesHoldAllKeySizes) {
    const auto answers = all_known_answers();
    ASSERT_EQ(answers.size(), 6u);
    int sizes[3] = {0, 0, 0};
    for (const auto &answer : answers) ++sizes[(answer.key.size() - 16) / 8];
    EXPECT_EQ(sizes[0], 2);
    EXPECT_EQ(sizes[1], 2);
    EXPECT_EQ(sizes[2], 2);
}

TEST(EvpAesCipher, KnownAnswersBothDirections) {
    for (const auto &answer : all_known_answers()) {
        SCOPED_TRACE(answer.name);
        Bytes out(answer.plaintext.size());
        EvpAesCipher encrypt(answer.key, Direction::encrypt);
        encrypt.transform(std::as_bytes(std::span(answer.plaintext)), std::as_writable_bytes(std::span(out)));
        EXPECT_EQ(to_hex(out), to_hex(answer.ciphertext));
        EvpAesCipher decrypt(answer.key, Direction::decrypt);
        decrypt.transform(std::as_bytes(std::span(answer.ciphertext)), std::as_writable_bytes(std::span(out)));
        EXPECT_EQ(to_hex(out), to_hex(answer.plaintext));
    }
}

TEST(OpenSslBackend, KnownAnswersBothDirections) {
    for (const auto &answer : all_known_answers()) {
        SCOPED_TRACE(answer.name);
        OpenSslBackend encrypt(answer.key, Direction::encrypt, 2);
        EXPECT_EQ(to_hex(run_backend(encrypt, answer.plaintext)), to_hex(answer.ciphertext));
        OpenSslBackend decrypt(answer.key, Direction::decrypt, 2);
        EXPECT_EQ(to_hex(run_backend(decrypt, answer.ciphertext)), to_hex(answer.plaintext));
    }
}

TEST(OpenSslBackend, MatchesOpenSslAcrossThreadsAndPieceBoundaries) {
    // 1 MiB is the smallest piece a job is cut into; sizes straddle one and several pieces.
    const std::size_t sizes[] = {0, 16, 4096, (1u << 20) - 16, 1u << 20, (1u << 20) + 16, (3u << 20) + 48};
    for (const std::size_t key_bytes : {16u, 24u, 32u}) {
        const Bytes key = random_bytes(key_bytes);
        for (const unsigned threads : {1u, 2u, 3u, 8u}) {
            OpenSslBackend encrypt(key, Direction::encrypt, threads);
            OpenSslBackend decrypt(key, Direction::decrypt, threads);
            EXPECT_EQ(encrypt.threads(), threads);
            for (const std::size_t size : sizes) {
                SCOPED_TRACE("key " + std::to_string(key_bytes) + " threads " + std::to_string(threads) + " size " +
                             std::to_string(size));
                const Bytes plain = random_bytes(size);
                Bytes expected;
                ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, false, plain, expected));
                const Bytes cipher = run_backend(encrypt, plain);
                EXPECT_TRUE(cipher == expected);
                EXPECT_TRUE(run_backend(decrypt, cipher) == plain);
            }
        }
    }
}

TEST(OpenSslBackend, CtrKnownAnswersBothDirections) {
    for (const auto &[answer, iv] : ctr_known_answers()) {
        SCOPED_TRACE(answer.name);
        for (const Direction direction : {Direction::encrypt, Direction::decrypt}) {
            OpenSslBackend backend(answer.key, CipherSpec(direction, Mode::ctr, iv), 2);
            EXPECT_EQ(to_hex(run_backend(backend, answer.plaintext)), to_hex(answer.ciphertext));
            EXPECT_EQ(to_hex(run_backend(backend, answer.ciphertext)), to_hex(answer.plaintext));
        }
    }
}

// A job's pieces run on several threads, each from its own counter: the job must equal one
// OpenSSL CTR stream, also where the counter carries inside a piece or between two, and for a job
// that starts part-way into the stream.
TEST(OpenSslBackend, CtrMatchesOpenSslAcrossPiecesCarriesAndStreamOffsets) {
    const std::size_t sizes[] = {16, (1u << 20) - 16, (1u << 20) + 16, (3u << 20) + 48};
    for (const std::size_t key_bytes : {16u, 24u, 32u}) {
        const Bytes key = random_bytes(key_bytes);
        for (const CounterBlock &iv : carrying_ivs()) {
            for (const unsigned threads : {1u, 3u}) {
                OpenSslBackend backend(key, CipherSpec(Direction::encrypt, Mode::ctr, iv), threads);
                for (const std::size_t size : sizes) {
                    SCOPED_TRACE("key " + std::to_string(key_bytes) + " threads " + std::to_string(threads) + " size " +
                                 std::to_string(size));
                    const Bytes plain = random_bytes(size + 16 * 5);
                    const Bytes expected = openssl_ctr(key, iv, plain);
                    EXPECT_TRUE(run_backend(backend, Bytes(plain.begin(), plain.begin() + size)) ==
                                Bytes(expected.begin(), expected.begin() + size));
                    EXPECT_TRUE(run_backend(backend, Bytes(plain.begin() + 80, plain.end()), 5) ==
                                Bytes(expected.begin() + 80, expected.end()));
                }
            }
        }
    }
}

// CBC deciphers in pieces on every thread, each piece XORing its first block with the ciphertext
// block before it, taken before the piece before it (in place) overwrote it; jobs after the first
// start from the chain the pipeline kept (CipherJob::chain). Encrypting goes on from job to job
// on one thread. Both against one-shot OpenSSL, at piece and job borders.
TEST(OpenSslBackend, CbcMatchesOpenSslAcrossPiecesAndJobs) {
    const std::size_t sizes[] = {16, (1u << 20) - 16, (1u << 20) + 16, (3u << 20) + 48};
    for (const std::size_t key_bytes : {16u, 24u, 32u}) {
        const Bytes key = random_bytes(key_bytes);
        CounterBlock iv{};
        const Bytes iv_bytes = random_bytes(16);
        std::copy(iv_bytes.begin(), iv_bytes.end(), iv.begin());
        for (const std::size_t size : sizes) {
            const Bytes plain = random_bytes(size);
            const Bytes cipher = openssl_cbc(key, iv, Direction::encrypt, plain);
            for (const unsigned threads : {1u, 3u}) {
                SCOPED_TRACE("key " + std::to_string(key_bytes) + " threads " + std::to_string(threads) + " size " +
                             std::to_string(size));
                OpenSslBackend decrypt(key, CipherSpec(Direction::decrypt, Mode::cbc, iv), threads);
                EXPECT_TRUE(run_backend(decrypt, cipher) == plain) << "one job from block 0";
                // The same ciphertext as two jobs: the second from its chain.
                const std::size_t half = size / 32 * 16;
                decrypt.configure_slots(2, size + 16);
                std::memcpy(decrypt.slot_buffer(0).data(), cipher.data(), half);
                std::memcpy(decrypt.slot_buffer(1).data(), cipher.data() + half, size - half);
                CipherJob second{.slot = 1, .bytes = size - half, .first_block = half / 16};
                if (half > 0) std::memcpy(second.chain.data(), cipher.data() + half - 16, 16);
                decrypt.submit({.slot = 0, .bytes = half});
                decrypt.submit(second);
                decrypt.wait(0);
                decrypt.wait(1);
                Bytes joined(size);
                std::memcpy(joined.data(), decrypt.slot_buffer(0).data(), half);
                std::memcpy(joined.data() + half, decrypt.slot_buffer(1).data(), size - half);
                EXPECT_TRUE(joined == plain) << "two jobs";
            }
            // Encrypting: job after job, each from the last ciphertext block of the one before.
            OpenSslBackend encrypt(key, CipherSpec(Direction::encrypt, Mode::cbc, iv), 3);
            const std::size_t third = size / 48 * 16;
            Bytes joined;
            for (const auto &[from, to] : {std::pair{std::size_t{0}, third}, std::pair{third, size}}) {
                const Bytes part = run_backend(encrypt,
                                               Bytes(plain.begin() + static_cast<std::ptrdiff_t>(from),
                                                     plain.begin() + static_cast<std::ptrdiff_t>(to)),
                                               from / 16);
                joined.insert(joined.end(), part.begin(), part.end());
            }
            EXPECT_TRUE(joined == cipher) << "size " << size;
        }
    }
}

// Tink's own AES-GCM-HKDF streaming test vector (tink-cc,
// streamingaead/internal/testing/aes_gcm_hkdf_streaming_test_vectors.cc): AES-128, HKDF-SHA1,
// 64-byte segments, associated data "aad". The segment key is derived here as that vector says;
// the backend must give its three segments byte for byte, and take them back.
struct TinkVector {
    Bytes segment_key;
    CipherSpec encrypt;
    Bytes plaintext;
    Bytes segments; // c0 c1 c2
};

TinkVector tink_vector() {
    const std::string text =
        "This is a fairly long plaintext. It is of the exact length to create three output blocks. ";
    const std::string aad = "aad";
    TinkVector v;
    v.segment_key = hkdf("SHA1", from_hex("6eb56cdc726dfbe5d57f2fcdc6e9345b"),
                         from_hex("93b3af5e14ab378d065addfc8484da64"), Bytes(aad.begin(), aad.end()), 16);
    v.encrypt = CipherSpec(Direction::encrypt, Mode::gcm);
    const Bytes prefix = from_hex("2c0862877baea8");
    std::copy(prefix.begin(), prefix.end(), v.encrypt.gcm.nonce_prefix.begin());
    v.encrypt.gcm.geometry = {64, 24};
    v.plaintext.assign(text.begin(), text.end());
    v.segments = from_hex("db92d9c77406a406168478821c4298eab3e6d531277f4c1a051714faebcaefcbca7b7be05e9445ea"
                          "a0bb2904153398a25084dd80ae0edcd1c3079fcea2cd3770630ee36f7539207b8ec9d754956d486b"
                          "71cdf989f0ed6fba6779b63558be0a66e668df14e1603cd2"
                          "af8944844078345286d0b292e772e7190775c51a0f83e40c0b75821027e7e538e111");
    return v;
}

// Runs one GCM job of `segments` segments from segment 0 ending the stream, in place.
Bytes run_gcm_job(OpenSslBackend &backend, const Bytes &laid_out, std::uint32_t segments) {
    backend.configure_slots(2, laid_out.size() + 16);
    std::memcpy(backend.slot_buffer(1).data(), laid_out.data(), laid_out.size());
    backend.submit(
        {.slot = 1, .bytes = laid_out.size(), .first_segment = 0, .segments = segments, .holds_last_segment = true});
    backend.wait(1);
    const auto *data = reinterpret_cast<const std::uint8_t *>(backend.slot_buffer(1).data());
    return Bytes(data, data + laid_out.size());
}

// The plaintext of `segments` (ciphertext layout) with each segment's plaintext where its
// ciphertext is, and its tag's room left as is.
Bytes lay_out(const Bytes &plaintext, const Bytes &segments, const SegmentGeometry &geometry) {
    Bytes laid = segments;
    std::size_t from = 0;
    std::size_t to = 0;
    for (std::uint64_t number = 0; from < plaintext.size() || number == 0; ++number) {
        const std::size_t length = std::min(plaintext.size() - from, geometry.plaintext_capacity(number));
        std::copy_n(plaintext.begin() + static_cast<std::ptrdiff_t>(from), length,
                    laid.begin() + static_cast<std::ptrdiff_t>(to));
        from += length;
        to += length + 16;
        if (length < geometry.plaintext_capacity(number)) break;
    }
    return laid;
}

TEST(OpenSslBackend, GcmSegmentsMatchTinksTestVector) {
    const TinkVector v = tink_vector();
    ASSERT_EQ(v.segments.size(), v.plaintext.size() + 3 * 16);
    EXPECT_EQ(
        to_hex(reference_gcm_segments(v.segment_key, v.encrypt.gcm.nonce_prefix, v.encrypt.gcm.geometry, v.plaintext)),
        to_hex(v.segments));
    OpenSslBackend encrypt(v.segment_key, v.encrypt, 2);
    EXPECT_EQ(to_hex(run_gcm_job(encrypt, lay_out(v.plaintext, v.segments, v.encrypt.gcm.geometry), 3)),
              to_hex(v.segments));
    CipherSpec decrypt_spec = v.encrypt;
    decrypt_spec.direction = Direction::decrypt;
    OpenSslBackend decrypt(v.segment_key, decrypt_spec, 2);
    EXPECT_EQ(to_hex(run_gcm_job(decrypt, v.segments, 3)),
              to_hex(lay_out(v.plaintext, v.segments, v.encrypt.gcm.geometry)));
}

TEST(OpenSslBackend, GcmRefusesEveryChangedByteNamingItsSegment) {
    const TinkVector v = tink_vector();
    CipherSpec spec = v.encrypt;
    spec.direction = Direction::decrypt;
    OpenSslBackend decrypt(v.segment_key, spec, 3);
    for (std::size_t at = 0; at < v.segments.size(); ++at) {
        Bytes changed = v.segments;
        changed[at] ^= 0x01;
        const std::string segment = at < 40 ? "0" : at < 104 ? "1" : "2";
        try {
            (void)run_gcm_job(decrypt, changed, 3);
            ADD_FAILURE() << "a flipped bit at " << at << " passed";
        } catch (const AuthenticationFailed &e) {
            EXPECT_EQ(std::string(e.what()), "authentication failed in segment " + segment) << at;
        }
    }
    // A job whose short last segment is not the stream's last does not fit; a wrong key fails.
    decrypt.configure_slots(1, v.segments.size());
    std::memcpy(decrypt.slot_buffer(0).data(), v.segments.data(), v.segments.size());
    EXPECT_THROW(decrypt.submit({.slot = 0, .bytes = v.segments.size(), .segments = 3, .holds_last_segment = false}),
                 std::invalid_argument)
        << "a short last segment cannot be a middle one";
    OpenSslBackend wrong_key(random_bytes(16), spec, 1);
    EXPECT_THROW((void)run_gcm_job(wrong_key, v.segments, 3), AuthenticationFailed);
}

// Segments in several pieces on several threads, two of them changed: the first one is named
// every time, whichever piece ends first. (Before, the first piece to end did: the job's first
// piece runs on the submitting thread after the others are posted, so a later one usually won.)
TEST(OpenSslBackend, GcmNamesTheFirstFailingSegmentWhicheverPieceEndsFirst) {
    const Bytes key = random_bytes(16);
    CipherSpec spec(Direction::encrypt, Mode::gcm);
    spec.gcm.geometry = {kCipherPieces.min_piece_bytes / 4, 24};
    const std::size_t segments = 32; // four pieces of eight on four threads
    OpenSslBackend seal(key, spec, 4);
    const CipherJob job = full_segments_job(spec.gcm.geometry, 0, segments * spec.gcm.geometry.segment_bytes);
    Bytes sealed = run_job_at(seal, random_bytes(job.bytes), job);
    // The last byte of segment 7 (numbered 8: the job starts at segment 1), last in the first
    // piece, and the first of segment 24 (numbered 25), first in the last piece.
    sealed[8 * spec.gcm.geometry.segment_bytes - 1] ^= 1;
    sealed[24 * spec.gcm.geometry.segment_bytes] ^= 1;
    spec.direction = Direction::decrypt;
    OpenSslBackend open(key, spec, 4);
    for (int round = 0; round < 20; ++round) {
        try {
            (void)run_job_at(open, sealed, job);
            ADD_FAILURE() << "changed segments passed";
        } catch (const AuthenticationFailed &e) {
            EXPECT_EQ(std::string(e.what()), "authentication failed in segment 8") << "round " << round;
        }
    }
}

TEST(OpenSslBackend, GcmMatchesTheReferenceAcrossThreadsAndSegmentSizes) {
    for (const std::size_t key_bytes : {16u, 32u}) {
        const Bytes key = random_bytes(key_bytes);
        for (const std::size_t segment_bytes : {std::size_t{256}, std::size_t{4096}, std::size_t{1} << 20}) {
            CipherSpec spec(Direction::encrypt, Mode::gcm);
            const Bytes prefix = random_bytes(7);
            std::copy(prefix.begin(), prefix.end(), spec.gcm.nonce_prefix.begin());
            spec.gcm.geometry = {segment_bytes, 1 + key_bytes + 7};
            for (const unsigned threads : {1u, 4u}) {
                const Bytes plain = random_bytes(3 * segment_bytes + 7);
                const Bytes expected = reference_gcm_segments(key, spec.gcm.nonce_prefix, spec.gcm.geometry, plain);
                const auto segments =
                    static_cast<std::uint32_t>(spec.gcm.geometry.segments_for_plaintext(plain.size()));
                OpenSslBackend encrypt(key, spec, threads);
                EXPECT_TRUE(run_gcm_job(encrypt, lay_out(plain, expected, spec.gcm.geometry), segments) == expected)
                    << key_bytes << " " << segment_bytes << " " << threads;
            }
        }
    }
}

// The nonce numbers segments in 4 bytes: the last ones a stream may have still work, and none
// past them is ciphered (segment 2^32 would reuse segment 0's nonce).
TEST(OpenSslBackend, GcmJobsNearTheSegmentLimit) {
    expect_gcm_jobs_near_the_segment_limit([](const Bytes &key, const CipherSpec &spec) {
        return std::unique_ptr<CipherBackend>(std::make_unique<OpenSslBackend>(key, spec, 2));
    });
}

TEST(OpenSslBackend, SlotsWorkIndependently) {
    const Bytes key = random_bytes(16);
    OpenSslBackend backend(key, Direction::encrypt, 2);
    const std::size_t slot_bytes = 1 << 20;
    backend.configure_slots(4, slot_bytes);
    std::vector<Bytes> plains;
    for (std::size_t slot = 0; slot < 4; ++slot) {
        plains.push_back(random_bytes(slot_bytes));
        std::memcpy(backend.slot_buffer(slot).data(), plains.back().data(), slot_bytes);
        backend.submit({slot, slot_bytes});
    }
    for (std::size_t slot = 4; slot-- > 0;) { // out of submission order on purpose
        backend.wait(slot);
        Bytes expected;
        ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, false, plains[slot], expected));
        EXPECT_EQ(std::memcmp(backend.slot_buffer(slot).data(), expected.data(), slot_bytes), 0) << "slot " << slot;
    }
}

// Out of place (ECB, CTR) or in place away from the slot's start (GCM): the bytes in-place jobs
// give, and an input left as it was where the output went elsewhere.
TEST(OpenSslBackend, JobsAtOffsetsAndOutOfPlaceGiveWhatInPlaceGives) {
    const Bytes key = random_bytes(16);
    const Bytes data = random_bytes((3 << 20) + 4096 + 48);
    for (const CipherSpec &spec : {CipherSpec(Direction::encrypt), CipherSpec(Direction::decrypt),
                                   CipherSpec(Direction::encrypt, Mode::ctr, CounterBlock{0xff, 0xff})}) {
        OpenSslBackend backend(key, spec, 4);
        CipherJob at_block{.first_block = 7};
        const Bytes expected = run_job_at(backend, data, at_block);
        at_block.input_offset = kOffsetInput;
        at_block.output_offset = kOffsetOutput;
        Bytes input_after;
        EXPECT_TRUE(run_job_at(backend, data, at_block, &input_after) == expected) << mode_name(spec.mode);
        EXPECT_TRUE(input_after == data) << "the input was overwritten";
    }
    CipherSpec gcm(Direction::encrypt, Mode::gcm);
    gcm.gcm.geometry = {4096, 24};
    OpenSslBackend backend(key, gcm, 4);
    const Bytes segments = random_bytes(40 * 4096);
    CipherJob job = full_segments_job(gcm.gcm.geometry, 0, segments.size());
    const Bytes expected = run_job_at(backend, segments, job);
    job.input_offset = job.output_offset = kOffsetInput + 8;
    EXPECT_TRUE(run_job_at(backend, segments, job) == expected);

    backend.configure_slots(1, 8192);
    // An output overlaps its input only exactly; no job reaches past its slot.
    EXPECT_THROW(backend.submit({.slot = 0,
                                 .bytes = 4096,
                                 .input_offset = 0,
                                 .output_offset = 16,
                                 .segments = 1,
                                 .holds_last_segment = true}),
                 std::invalid_argument);
    OpenSslBackend ecb(key, Direction::encrypt, 1);
    ecb.configure_slots(1, 8192);
    EXPECT_THROW(ecb.submit({.slot = 0, .bytes = 4096, .input_offset = 0, .output_offset = 16}), std::invalid_argument);
    EXPECT_THROW(ecb.submit({.slot = 0, .bytes = 4096, .input_offset = 4096, .output_offset = 16}),
                 std::invalid_argument);
    EXPECT_THROW(ecb.submit({.slot = 0, .bytes = 4096, .input_offset = 0, .output_offset = 4112}),
                 std::invalid_argument);
    ecb.submit({.slot = 0, .bytes = 4096, .input_offset = 0, .output_offset = 4096});
    ecb.wait(0);
}

// GCM out of place (direct I/O): the plaintext as the file has it becomes the segments the in-place
// job gives, each thread moving its own segments' text as it ciphers them (before, a reader or
// writer thread copied every byte once more); the segments decrypt back to that plaintext, and a
// flipped bit fails its segment by number.
TEST(OpenSslBackend, GcmOutOfPlaceGivesWhatInPlaceGives) {
    const Bytes key = random_bytes(16);
    OpenSslBackend seal(key, offset_gcm_spec(Direction::encrypt), 3);
    OpenSslBackend open(key, offset_gcm_spec(Direction::decrypt), 3);
    expect_gcm_apart_gives_what_in_place_gives(seal, open, seal);
}

TEST(OpenSslBackend, RejectsMisuse) {
    const Bytes key = random_bytes(32);
    OpenSslBackend backend(key, Direction::encrypt, 1);
    backend.configure_slots(3, 64);
    EXPECT_THROW(backend.submit({0, 15}), std::invalid_argument);
    EXPECT_THROW(backend.submit({0, 80}), std::invalid_argument);
    EXPECT_THROW(backend.submit({3, 16}), std::out_of_range);
    EXPECT_THROW((void)backend.slot_buffer(7), std::out_of_range);
    for (const std::size_t bad : {0u, 15u, 17u, 20u, 33u}) {
        const Bytes bad_key(bad, 1);
        EXPECT_THROW(OpenSslBackend(bad_key, Direction::encrypt, 1), std::invalid_argument) << bad;
    }
}

TEST(OpenSslBackend, ARingTooBigForMemoryIsResourceExhausted) {
    // The pipeline retries smaller chunks on ResourceExhausted (as for the GPU ring), so the CPU
    // ring must report exactly that, not std::bad_alloc, and still work afterwards.
    const Bytes key = random_bytes(16);
    OpenSslBackend backend(key, Direction::encrypt, 2);
    EXPECT_THROW(backend.configure_slots(4, std::size_t{1} << 46), ResourceExhausted);
    backend.configure_slots(2, 4096);
    const Bytes plain = random_bytes(4096);
    std::memcpy(backend.slot_buffer(0).data(), plain.data(), plain.size());
    backend.submit({0, plain.size()});
    backend.wait(0);
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, false, plain, expected));
    const auto *out = reinterpret_cast<const std::uint8_t *>(backend.slot_buffer(0).data());
    EXPECT_TRUE(Bytes(out, out + plain.size()) == expected);
}

TEST(OpenSslBackend, DescribesItself) {
    const Bytes key = random_bytes(16);
    OpenSslBackend backend(key, Direction::decrypt, 3);
    EXPECT_NE(backend.describe().find("3 threads"), std::string::npos) << backend.describe();
    EXPECT_NE(backend.describe().find("OpenSSL"), std::string::npos) << backend.describe();
}

TEST(OpenSslBackend, PostingEveryPieceMatchesOpenSslAndCiphersNothingOnTheCaller) {
    // Beside GPUs every piece goes to a worker, so the thread that feeds the GPUs never ciphers:
    // the listener hears of each job's end on a worker. Alone, a job of one piece runs on the
    // caller, which then tells the listener itself.
    const Bytes key = random_bytes(32);
    for (const CpuSubmit submit : {CpuSubmit::post_every_piece, CpuSubmit::caller_runs_first_piece}) {
        for (const unsigned threads : {1u, 3u}) {
            const bool posts = submit == CpuSubmit::post_every_piece;
            SCOPED_TRACE(std::string(posts ? "post every piece" : "caller runs one") + ", threads " +
                         std::to_string(threads));
            OpenSslBackend backend(key, Direction::encrypt, threads, submit);
            EXPECT_EQ(backend.threads(), threads);
            std::mutex mutex;
            std::vector<std::thread::id> told_on;
            ASSERT_TRUE(backend.set_job_end_listener([&](std::size_t) {
                std::lock_guard lock(mutex);
                told_on.push_back(std::this_thread::get_id());
            }));
            for (const std::size_t size : {std::size_t{4096}, std::size_t{1} << 20, (std::size_t{3} << 20) + 16}) {
                const Bytes plain = random_bytes(size);
                Bytes expected;
                ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, false, plain, expected));
                EXPECT_TRUE(run_backend(backend, plain) == expected) << size;
            }
            std::lock_guard lock(mutex);
            ASSERT_EQ(told_on.size(), 3u);
            for (std::size_t job = 0; job < told_on.size(); ++job) {
                const bool on_caller = told_on[job] == std::this_thread::get_id();
                if (posts) {
                    EXPECT_FALSE(on_caller) << "job " << job;
                } else if (threads == 1 || job < 2) {
                    // Alone with one thread, or a job of one piece (the first two): the caller ran it.
                    // (A job of several pieces ends on whichever thread finishes last.)
                    EXPECT_TRUE(on_caller) << "job " << job;
                }
            }
        }
    }
}

TEST(OpenSslBackend, TellsItsListenerOfEachJobEndOnceBeforeWaitReturns) {
    const Bytes key = random_bytes(16);
    for (const CpuSubmit submit : {CpuSubmit::post_every_piece, CpuSubmit::caller_runs_first_piece}) {
        OpenSslBackend backend(key, Direction::encrypt, 3, submit);
        const std::size_t slots = 5;
        backend.configure_slots(slots, (2u << 20) + 4096);
        std::vector<std::atomic<int>> ends(slots);
        ASSERT_TRUE(backend.set_job_end_listener([&](std::size_t slot) { ++ends.at(slot); }));
        for (int round = 1; round <= 4; ++round) {
            for (std::size_t slot = 0; slot < slots; ++slot) backend.submit({slot, (2u << 20) + 4096});
            for (std::size_t slot = 0; slot < slots; ++slot) {
                backend.wait(slot);
                EXPECT_EQ(ends[slot].load(), round) << "slot " << slot;
            }
        }
    }
}

TEST(OpenSslBackend, HasRoomForJobsThatKeepEveryThreadBusy) {
    // 8 MiB jobs in 1 MiB pieces: 16 threads take two at once, and one more waits behind them.
    EXPECT_EQ(cpu_jobs_at_once(16, 8u << 20), 3u);
    EXPECT_EQ(cpu_jobs_at_once(2, 8u << 20), 2u);   // two 4 MiB pieces: one job, one queued
    EXPECT_EQ(cpu_jobs_at_once(32, 1u << 20), 33u); // one piece a job
    const Bytes key = random_bytes(16);
    OpenSslBackend backend(key, Direction::encrypt, 16, CpuSubmit::post_every_piece);
    backend.configure_slots(2, 8u << 20);
    EXPECT_EQ(backend.jobs_at_once(), 3u);
}

TEST(OpenSslBackend, AJobThatCannotBeHandedOutFailsAtWaitInsteadOfHanging) {
    // Every allocation of submit() and wait() fails in turn: the job then fails with bad_alloc or
    // succeeds, and the backend can always be destroyed (no piece is left unfinished).
    const Bytes key = random_bytes(16);
    const Bytes plain = random_bytes(4 << 20); // four 1 MiB pieces over 4 threads
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, false, plain, expected));
    for (const CpuSubmit submit : {CpuSubmit::caller_runs_first_piece, CpuSubmit::post_every_piece})
        at_every_allocation([&](int successes) {
            SCOPED_TRACE("allocation " + std::to_string(successes + 1) + " fails");
            auto backend = std::make_unique<OpenSslBackend>(key, Direction::encrypt, 4, submit);
            backend->configure_slots(2, plain.size());
            std::memcpy(backend->slot_buffer(0).data(), plain.data(), plain.size());
            bool failed = false;
            bool reached = false;
            {
                const FailingAllocation failing(successes);
                try {
                    backend->submit({0, plain.size()});
                    backend->wait(0);
                } catch (const std::bad_alloc &) {
                    failed = true;
                }
                reached = failing.reached();
            }
            if (!failed) {
                EXPECT_EQ(std::memcmp(backend->slot_buffer(0).data(), expected.data(), expected.size()), 0);
            }
            // Destroyed on another thread, so that a hang fails the test instead of stalling it.
            auto destroyed = std::async(std::launch::async, [&backend] { backend.reset(); });
            if (destroyed.wait_for(std::chrono::seconds(10)) == std::future_status::timeout) {
                ADD_FAILURE() << "the backend cannot be destroyed: a piece never finished";
                std::quick_exit(1);
            }
            return reached;
        });
}

} // namespace
} // namespace aesgpu::test
