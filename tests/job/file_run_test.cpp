// SPDX-License-Identifier: Apache-2.0
// One file in one call, as a program that links the library calls it: the bytes are OpenSSL's,
// a passphrase file starts with openssl's Salted__ header, the output appears only when the
// observer commits it, and what can fail without the key fails before the key is asked for.
#include "common/errors.hpp"
#include "format/openssl_enc.hpp"
#include "format/tink_gcm.hpp"
#include "job/file_run.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace aesgpu::test {
namespace {

CipherSettings cpu_settings(Direction direction, Mode mode) {
    CipherSettings settings;
    settings.direction = direction;
    settings.mode = mode;
    settings.backend.choice = BackendChoice::cpu;
    settings.backend.cpu_threads = 2;
    settings.chunk_bytes = 4096; // several chunks for the small files here
    return settings;
}

// Counts how often the secret is asked for: a prompt would ask the user each time, a key file be
// read.
class CountingKey final : public KeySource {
public:
    CountingKey(std::span<const std::uint8_t> secret, bool passphrase) : secret_(secret), passphrase_(passphrase) {}
    static CountingKey passphrase(const std::string &text) {
        return {std::span(reinterpret_cast<const std::uint8_t *>(text.data()), text.size()), true};
    }
    [[nodiscard]] bool passphrase_mode() const override { return passphrase_; }
    const SecretBytes &secret() override {
        ++asked;
        return secret_;
    }
    int asked = 0;

private:
    SecretBytes secret_;
    bool passphrase_;
};

// Records what the run told, in order; commits only when `commits`.
class RecordingObserver final : public RunObserver {
public:
    explicit RecordingObserver(const TempDir &dir, bool commits = true) : dir_(dir), commits_(commits) {}
    void backend_selected(const SelectedBackend &) override { events.push_back("selected"); }
    void starting(const JobPlan &plan) override {
        events.push_back("starting");
        ring_slots = plan.ring_slots;
        memory_limit = plan.memory_limit;
        input_dropped_behind = plan.input_dropped_behind;
        write_behind_bytes = plan.write_behind_bytes;
    }
    void progress(std::uint64_t done) override {
        EXPECT_GE(done, last_progress) << "progress never goes back";
        last_progress = done;
    }
    void commit_run(const PipelineStats &stats, const std::function<void()> &commit) override {
        events.push_back("commit");
        entries_before_commit = count_entries(dir_.path());
        bytes_at_commit = stats.bytes_read;
        if (commits_) commit();
    }
    std::vector<std::string> events;
    std::uint64_t last_progress = 0;
    std::uint64_t bytes_at_commit = 0;
    std::size_t entries_before_commit = 0;
    std::size_t ring_slots = 0;
    std::uint64_t memory_limit = 0;
    bool input_dropped_behind = false;
    std::uint64_t write_behind_bytes = 0;

private:
    const TempDir &dir_;
    bool commits_;
};

PipelineStats cipher(const std::string &from, const std::string &to, const CipherSettings &settings, KeySource &keys,
                     RunObserver &observer) {
    FileRun run;
    run.input.path = from;
    run.output.path = to;
    run.settings = settings;
    return run_file(run, keys, observer);
}

TEST(FileRun, ARawCtrKeyGivesWhatOpensslGives) {
    TempDir dir;
    const Bytes key = random_bytes(32);
    const Bytes plain = random_bytes(5 * 4096 + 7);
    write_file(dir.file("in"), plain);
    CipherSettings settings = cpu_settings(Direction::encrypt, Mode::ctr);
    CounterBlock iv{};
    iv.back() = 0xfe; // the counter carries into the next byte within the file
    settings.iv = iv;
    RawKey keys(key);
    RecordingObserver observer(dir);
    const PipelineStats stats = cipher(dir.file("in"), dir.file("out"), settings, keys, observer);
    EXPECT_TRUE(read_file(dir.file("out")) == openssl_ctr(key, iv, plain));
    EXPECT_EQ(stats.bytes_read, plain.size());
    EXPECT_EQ(observer.events, (std::vector<std::string>{"selected", "starting", "commit"}));
    EXPECT_EQ(observer.last_progress, plain.size());
    EXPECT_EQ(observer.entries_before_commit, 1u) << "only the input before the commit";
}

// A memory limit the caller gives stands for the control group's: under 1 GiB the input leaves the
// page cache once read and the output is written out every sixteenth of it; 0 is no limit at all.
TEST(FileRun, AMemoryLimitGivenIsTheRunsAndATightOneKeepsThePageCacheSmall) {
    TempDir dir;
    const Bytes key = random_bytes(16);
    const Bytes plain = random_bytes(3 * 4096 + 5);
    write_file(dir.file("in"), plain);
    CipherSettings settings = cpu_settings(Direction::encrypt, Mode::ecb);
    settings.memory_limit = std::uint64_t{256} << 20;
    RawKey keys(key);
    RecordingObserver tight(dir);
    (void)cipher(dir.file("in"), dir.file("tight"), settings, keys, tight);
    EXPECT_EQ(tight.memory_limit, std::uint64_t{256} << 20);
    EXPECT_TRUE(tight.input_dropped_behind);
    EXPECT_EQ(tight.write_behind_bytes, std::uint64_t{16} << 20);
    Bytes expected;
    ASSERT_TRUE(openssl_ecb(key, Direction::encrypt, true, plain, expected));
    EXPECT_TRUE(read_file(dir.file("tight")) == expected);

    settings.memory_limit = 0;
    RecordingObserver unlimited(dir);
    (void)cipher(dir.file("in"), dir.file("unlimited"), settings, keys, unlimited);
    EXPECT_EQ(unlimited.memory_limit, 0u) << "no limit, whatever the control group's";
    EXPECT_FALSE(unlimited.input_dropped_behind);
    EXPECT_EQ(unlimited.write_behind_bytes, 0u);
    EXPECT_TRUE(read_file(dir.file("unlimited")) == expected);
}

// The header asks a raw key for its size only where the size shapes it (GCM's stream salt): a
// key file is read when the key is first needed, after the input's header and the output.
TEST(FileRun, TheHeaderAsksForARawKeyOnlyWhereItsSizeShapesIt) {
    TempDir dir;
    write_file(dir.file("in"), random_bytes(100));
    for (const Mode mode : {Mode::ecb, Mode::ctr, Mode::gcm}) {
        const Bytes key = random_bytes(16);
        CountingKey keys(key, false);
        InputSource source = InputSource::open(dir.file("in"));
        const auto format = file_format_for(cpu_settings(Direction::encrypt, mode), keys, source);
        EXPECT_EQ(keys.asked, mode == Mode::gcm ? 1 : 0) << int(mode);
        EXPECT_EQ(format->header().size(), mode == Mode::gcm ? 24u : 0u) << int(mode);
    }
}

TEST(FileRun, APassphraseEcbFileIsOpensslsSaltedFormatAndDecryptsBack) {
    TempDir dir;
    const Bytes plain = random_bytes(3 * 4096 + 9);
    write_file(dir.file("in"), plain);
    CipherSettings settings = cpu_settings(Direction::encrypt, Mode::ecb);
    settings.pbkdf2_iterations = 1000;
    settings.passphrase_key_bits = 192;
    CountingKey keys = CountingKey::passphrase("correct horse");
    RecordingObserver observer(dir);
    (void)cipher(dir.file("in"), dir.file("enc"), settings, keys, observer);

    // "Salted__", the salt, then ECB under PBKDF2-HMAC-SHA256(passphrase, salt): openssl enc -pbkdf2.
    const Bytes encrypted = read_file(dir.file("enc"));
    ASSERT_GE(encrypted.size(), kSaltedHeaderBytes);
    EXPECT_EQ(std::memcmp(encrypted.data(), "Salted__", 8), 0);
    Salt salt{};
    std::memcpy(salt.data(), encrypted.data() + 8, salt.size());
    const SecretBytes derived = derive_key(keys.secret(), salt, 1000, 24);
    Bytes expected;
    ASSERT_TRUE(
        openssl_ecb(Bytes(derived.view().begin(), derived.view().end()), Direction::encrypt, true, plain, expected));
    EXPECT_TRUE(Bytes(encrypted.begin() + kSaltedHeaderBytes, encrypted.end()) == expected);

    settings.direction = Direction::decrypt;
    RecordingObserver back(dir);
    const PipelineStats stats = cipher(dir.file("enc"), dir.file("dec"), settings, keys, back);
    EXPECT_TRUE(read_file(dir.file("dec")) == plain);
    EXPECT_EQ(stats.bytes_read, encrypted.size()) << "the header counts as read";
}

TEST(FileRun, AFileWithoutASaltedHeaderFailsBeforeThePassphraseIsAsked) {
    TempDir dir;
    write_file(dir.file("in"), Bytes(64, std::uint8_t{0x01})); // no header of any kind
    CountingKey keys = CountingKey::passphrase("never asked");
    RecordingObserver observer(dir);
    try {
        (void)cipher(dir.file("in"), dir.file("out"), cpu_settings(Direction::decrypt, Mode::ctr), keys, observer);
        ADD_FAILURE() << "a file without Salted__ was decrypted with a passphrase";
    } catch (const NoSaltedHeader &e) {
        EXPECT_EQ(e.start, CiphertextStart::unknown);
    }
    EXPECT_EQ(keys.asked, 0) << "a prompt would have asked for nothing";
    EXPECT_TRUE(observer.events.empty());
    EXPECT_EQ(count_entries(dir.path()), 1u) << "only the input";
}

TEST(FileRun, GcmRoundTripsAndAWrongKeyCommitsNothing) {
    TempDir dir;
    const Bytes key = random_bytes(32);
    const Bytes plain = random_bytes(3 * 1000 + 11);
    write_file(dir.file("in"), plain);
    CipherSettings settings = cpu_settings(Direction::encrypt, Mode::gcm);
    settings.segment_bytes = 1000;
    settings.associated_data = "file 1";
    RawKey keys(key);
    RecordingObserver observer(dir);
    (void)cipher(dir.file("in"), dir.file("enc"), settings, keys, observer);

    settings.direction = Direction::decrypt;
    RecordingObserver back(dir);
    (void)cipher(dir.file("enc"), dir.file("dec"), settings, keys, back);
    EXPECT_TRUE(read_file(dir.file("dec")) == plain);
    std::filesystem::remove(dir.file("dec"));

    for (const bool wrong_key : {true, false}) {
        Bytes other_key = key;
        other_key[0] ^= wrong_key ? 1 : 0;
        CipherSettings other = settings;
        if (!wrong_key) other.associated_data = "file 2";
        RawKey other_keys(other_key);
        RecordingObserver refused(dir);
        EXPECT_THROW((void)cipher(dir.file("enc"), dir.file("dec"), other, other_keys, refused), AuthenticationFailed);
        EXPECT_EQ(refused.events, (std::vector<std::string>{"selected", "starting"})) << "never asked to commit";
        EXPECT_EQ(count_entries(dir.path()), 2u) << "only the plaintext and the ciphertext";
    }
}

TEST(FileRun, TheOutputAppearsOnlyWhenTheObserverCommitsIt) {
    // The caller owns the commit (to hold signals off, remove the input, report first): a job
    // whose observer does not commit leaves nothing, though every byte went through.
    TempDir dir;
    const Bytes plain = random_bytes(2 * 4096);
    write_file(dir.file("in"), plain);
    RawKey keys(random_bytes(16));
    RecordingObserver observer(dir, /*commits=*/false);
    const PipelineStats stats =
        cipher(dir.file("in"), dir.file("out"), cpu_settings(Direction::encrypt, Mode::ecb), keys, observer);
    EXPECT_EQ(observer.bytes_at_commit, plain.size());
    EXPECT_EQ(stats.bytes_written, plain.size() + 16) << "PKCS#7 adds a whole block";
    EXPECT_EQ(count_entries(dir.path()), 1u) << "only the input";
}

TEST(FileRun, SettingsThatCannotWorkAreRefusedBeforeAnyOutput) {
    TempDir dir;
    write_file(dir.file("in"), random_bytes(100));
    RecordingObserver observer(dir);
    // What format's GCM size check threw, for a caller to word from its fields.
    const auto unfit_of = [&](const CipherSettings &settings, RawKey &key) -> std::optional<GcmSizeUnfit> {
        try {
            (void)cipher(dir.file("in"), dir.file("out"), settings, key, observer);
        } catch (const GcmSizeUnfit &unfit) {
            return unfit;
        }
        return std::nullopt;
    };
    RawKey aes192(random_bytes(24)); // Tink's GCM streams take 16- or 32-byte keys
    const std::optional<GcmSizeUnfit> key_size = unfit_of(cpu_settings(Direction::encrypt, Mode::gcm), aes192);
    ASSERT_TRUE(key_size);
    EXPECT_EQ(key_size->why, GcmSizeUnfit::Why::key_size);
    EXPECT_EQ(key_size->key_bytes, 24u);
    RawKey ctr_key(random_bytes(16));
    EXPECT_THROW(
        (void)cipher(dir.file("in"), dir.file("out"), cpu_settings(Direction::encrypt, Mode::ctr), ctr_key, observer),
        std::invalid_argument)
        << "CTR with a raw key and no IV: a default counter would repeat the keystream in every such file";
    CipherSettings tiny_segments = cpu_settings(Direction::encrypt, Mode::gcm);
    // A 16-byte key's stream header is 24 bytes: with a tag, no room for a byte of data.
    tiny_segments.segment_bytes = stream_header_bytes(16) + kGcmTagBytes;
    RawKey aes128(random_bytes(16));
    const std::optional<GcmSizeUnfit> segment = unfit_of(tiny_segments, aes128);
    ASSERT_TRUE(segment);
    EXPECT_EQ(segment->why, GcmSizeUnfit::Why::segment_too_small);
    EXPECT_EQ(segment->key_bytes, 16u);
    EXPECT_TRUE(observer.events.empty());
    EXPECT_EQ(count_entries(dir.path()), 1u) << "only the input";
}

} // namespace
} // namespace aesgpu::test
