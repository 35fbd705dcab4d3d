// SPDX-License-Identifier: Apache-2.0
// The public library as a program that links libaesgpu.a sees it: this file includes only
// <aesgpu/aesgpu.hpp> of aesgpu, and links nothing of it but the archive. The bytes are OpenSSL's,
// the output appears only when everything passed, every failure is one Error with its kind, and
// what the caller's own code throws comes back as it was thrown.
#include <aesgpu/aesgpu.hpp>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

Bytes random_bytes(std::size_t size) {
    Bytes bytes(size);
    if (size) {
        EXPECT_EQ(RAND_bytes(bytes.data(), static_cast<int>(size)), 1);
    }
    return bytes;
}

void write_file(const fs::path &path, const Bytes &bytes) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
}

Bytes read_file(const fs::path &path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// OpenSSL's EVP, the reference: `cipher` over `data`, padded as EVP pads by default.
Bytes openssl(const EVP_CIPHER *cipher, const Bytes &key, const std::uint8_t *iv, const Bytes &data) {
    std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> context(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    Bytes out(data.size() + 32);
    int length = 0;
    int tail = 0;
    EXPECT_EQ(EVP_EncryptInit_ex(context.get(), cipher, nullptr, key.data(), iv), 1);
    EXPECT_EQ(EVP_EncryptUpdate(context.get(), out.data(), &length, data.data(), static_cast<int>(data.size())), 1);
    EXPECT_EQ(EVP_EncryptFinal_ex(context.get(), out.data() + length, &tail), 1);
    out.resize(std::size_t(length + tail));
    return out;
}

class Directory {
public:
    Directory() {
        std::string name = (fs::temp_directory_path() / "aesgpu-api-XXXXXX").string();
        path_ = mkdtemp(name.data());
    }
    ~Directory() { fs::remove_all(path_); }
    [[nodiscard]] fs::path operator/(const char *name) const { return path_ / name; }
    [[nodiscard]] std::size_t entries() const {
        return std::size_t(std::distance(fs::directory_iterator(path_), fs::directory_iterator()));
    }

private:
    fs::path path_;
};

aesgpu::Settings cpu(aesgpu::Direction direction, aesgpu::Mode mode) {
    aesgpu::Settings settings;
    settings.direction = direction;
    settings.mode = mode;
    settings.backend = aesgpu::BackendChoice::cpu;
    settings.cpu_threads = 2;
    return settings;
}

// The message and kind of the Error `run` throws; fails the test when it throws none.
template <typename Run>
std::pair<aesgpu::ErrorKind, std::string> error_thrown(Run run) {
    try {
        run();
    } catch (const aesgpu::Error &error) {
        return {error.kind(), error.what()};
    }
    ADD_FAILURE() << "no aesgpu::Error";
    return {aesgpu::ErrorKind::internal, {}};
}

// Runs cipher_file and returns the kind of the Error it threw; fails the test when it threw none.
template <typename Run>
aesgpu::ErrorKind kind_thrown(Run run) {
    const auto [kind, message] = error_thrown(run);
    EXPECT_NE(message, "");
    return kind;
}

// A prompt that answers `answer`, counting in `asked` how often it was asked.
aesgpu::Key prompt_answering(const std::string &answer, int &asked) {
    return aesgpu::Key::passphrase_prompt([answer, &asked](std::span<char> buffer) {
        ++asked;
        std::copy(answer.begin(), answer.end(), buffer.begin());
        return answer.size();
    });
}

class Recorder final : public aesgpu::Observer {
public:
    void starting(const aesgpu::Plan &plan) override {
        lanes = plan.lanes;
        input_bytes = plan.input_bytes;
        reads_direct = plan.reads_direct;
        writes_direct = plan.writes_direct;
    }
    void progress(std::uint64_t done) override {
        EXPECT_GE(done, last) << "progress never goes back";
        last = done;
        ++calls;
        if (stop_at_first) stop_at_first->request_stop();
        if (throw_at_first) throw std::runtime_error("the observer's own failure");
    }
    std::vector<aesgpu::Lane> lanes;
    std::optional<std::uint64_t> input_bytes;
    bool reads_direct = false;
    bool writes_direct = false;
    std::uint64_t last = 0;
    int calls = 0;
    std::stop_source *stop_at_first = nullptr;
    bool throw_at_first = false;
};

TEST(PublicCipherFile, ARawCtrKeyAndIvGiveWhatOpensslGivesAndTheInputsPermissions) {
    Directory dir;
    const Bytes data = random_bytes(3 * (1 << 20) + 7);
    write_file(dir / "in", data);
    fs::permissions(dir / "in", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    const Bytes key = random_bytes(16);
    aesgpu::Settings settings = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ctr);
    settings.iv.emplace();
    for (std::size_t i = 0; i < 16; ++i) (*settings.iv)[i] = std::uint8_t(0xf0 + i);
    aesgpu::Key raw = aesgpu::Key::raw(key);
    Recorder told;
    const aesgpu::Result result = aesgpu::cipher_file(dir / "in", dir / "out", settings, raw, &told);

    EXPECT_EQ(read_file(dir / "out"), openssl(EVP_aes_128_ctr(), key, settings.iv->data(), data));
    EXPECT_EQ(fs::status(dir / "out").permissions(), fs::status(dir / "in").permissions());
    EXPECT_EQ(result.bytes_read, data.size());
    EXPECT_EQ(result.bytes_written, data.size());
    ASSERT_EQ(told.lanes.size(), 1u);
    EXPECT_EQ(told.lanes[0].name, "CPU");
    EXPECT_FALSE(told.lanes[0].is_gpu());
    EXPECT_EQ(told.input_bytes, data.size());
    EXPECT_EQ(told.last, data.size());
    ASSERT_EQ(result.lanes.size(), 1u);
    EXPECT_EQ(result.lanes[0].lane.name, "CPU");
    EXPECT_EQ(result.lanes[0].bytes, (data.size() + 15) / 16 * 16) << "whole blocks";
}

TEST(PublicCipherFile, EcbPadsAsOpensslDoesAndDecryptsBackFromAHexKey) {
    Directory dir;
    const Bytes data = random_bytes(100'003);
    write_file(dir / "in", data);
    const Bytes key = random_bytes(32);
    std::string hex;
    for (const std::uint8_t byte : key) hex += "0123456789abcdef"[byte >> 4], hex += "0123456789abcdef"[byte & 15];
    aesgpu::Key raw = aesgpu::Key::raw_hex(hex);
    aesgpu::cipher_file(dir / "in", dir / "enc", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb), raw);
    EXPECT_EQ(read_file(dir / "enc"), openssl(EVP_aes_256_ecb(), key, nullptr, data));
    aesgpu::cipher_file(dir / "enc", dir / "dec", cpu(aesgpu::Direction::decrypt, aesgpu::Mode::ecb), raw);
    EXPECT_EQ(read_file(dir / "dec"), data);
}

TEST(PublicCipherFile, APassphraseFileIsOpensslsSaltedFormatAndTheKeyFileAndPromptReadIt) {
    Directory dir;
    const Bytes data = random_bytes(70'000);
    write_file(dir / "in", data);
    aesgpu::Key passphrase = aesgpu::Key::passphrase("correct horse");
    aesgpu::cipher_file(dir / "in", dir / "enc", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ctr), passphrase);
    const Bytes encrypted = read_file(dir / "enc");
    ASSERT_GE(encrypted.size(), 16u);
    EXPECT_EQ(std::string(encrypted.begin(), encrypted.begin() + 8), "Salted__");
    EXPECT_EQ(encrypted.size(), data.size() + 16);

    int asked = 0;
    aesgpu::Key prompt = prompt_answering("correct horse", asked);
    aesgpu::cipher_file(dir / "enc", dir / "dec", cpu(aesgpu::Direction::decrypt, aesgpu::Mode::ctr), prompt);
    EXPECT_EQ(read_file(dir / "dec"), data);
    EXPECT_EQ(asked, 1);
}

TEST(PublicCipherFile, GcmRoundTripsAndAWrongKeyOrAssociatedDataLeavesNoOutput) {
    Directory dir;
    const Bytes data = random_bytes(2 * (1 << 20) + 5);
    write_file(dir / "in", data);
    const Bytes key = random_bytes(32);
    aesgpu::Key raw = aesgpu::Key::raw(key);
    aesgpu::Settings encrypt = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm);
    encrypt.associated_data = "file 7";
    aesgpu::cipher_file(dir / "in", dir / "enc", encrypt, raw);
    aesgpu::Settings decrypt = cpu(aesgpu::Direction::decrypt, aesgpu::Mode::gcm);
    decrypt.associated_data = "file 7";
    aesgpu::cipher_file(dir / "enc", dir / "dec", decrypt, raw);
    EXPECT_EQ(read_file(dir / "dec"), data);

    Bytes other_key = key;
    other_key[0] ^= 1;
    aesgpu::Key wrong = aesgpu::Key::raw(other_key);
    EXPECT_EQ(kind_thrown([&] { aesgpu::cipher_file(dir / "enc", dir / "bad", decrypt, wrong); }),
              aesgpu::ErrorKind::authentication);
    decrypt.associated_data = "file 8";
    EXPECT_EQ(kind_thrown([&] { aesgpu::cipher_file(dir / "enc", dir / "bad", decrypt, raw); }),
              aesgpu::ErrorKind::authentication);
    EXPECT_FALSE(fs::exists(dir / "bad"));
    EXPECT_EQ(dir.entries(), 3u) << "in, enc, dec: no temporary file left";
}

TEST(PublicCipherFile, AFileWithoutTheSaltedHeaderFailsBeforeThePromptAsks) {
    Directory dir;
    write_file(dir / "plain", random_bytes(4096));
    int asked = 0;
    aesgpu::Key prompt = aesgpu::Key::passphrase_prompt([&asked](std::span<char>) -> std::size_t {
        ++asked;
        return 0;
    });
    EXPECT_EQ(kind_thrown([&] {
                  aesgpu::cipher_file(dir / "plain", dir / "out", cpu(aesgpu::Direction::decrypt, aesgpu::Mode::ecb),
                                      prompt);
              }),
              aesgpu::ErrorKind::format);
    EXPECT_EQ(asked, 0);
    EXPECT_FALSE(fs::exists(dir / "out"));
}

// Whether the file system under `dir` takes O_DIRECT opens.
bool takes_direct_io(const fs::path &dir) {
    const fs::path probe = dir / "probe";
    const int fd = ::open(probe.c_str(), O_CREAT | O_WRONLY | O_DIRECT, 0600);
    if (fd < 0) return false;
    ::close(fd);
    fs::remove(probe);
    return true;
}

// Leaves `path` out of the page cache: its pages on the disk, then dropped.
void drop_from_page_cache(const fs::path &path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(::fdatasync(fd), 0);
    EXPECT_EQ(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
    ::close(fd);
}

// "large": random data over kDirectIoMinBytes (64 MiB); "small": its first 1000 bytes. Returns the large one's.
Bytes write_large_and_small(const Directory &dir) {
    const Bytes data = random_bytes((65u << 20) + 9);
    write_file(dir / "large", data);
    write_file(dir / "small", Bytes(data.begin(), data.begin() + 1000));
    return data;
}

TEST(PublicCipherFile, ALargeUncachedFileGoesPastThePageCacheAsTheCommandsIoAuto) {
    Directory dir;
    const bool direct = takes_direct_io(dir / ".");
    const Bytes data = write_large_and_small(dir);
    const Bytes key = random_bytes(16);
    aesgpu::Key raw = aesgpu::Key::raw(key);
    aesgpu::Settings settings = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    Recorder small;
    aesgpu::cipher_file(dir / "small", dir / "small.aes", settings, raw, &small);
    EXPECT_FALSE(small.reads_direct) << "a small file";
    Recorder cached;
    aesgpu::cipher_file(dir / "large", dir / "cached.aes", settings, raw, &cached);
    EXPECT_FALSE(cached.reads_direct) << "a file in the page cache already";
    drop_from_page_cache(dir / "large");
    Recorder uncached;
    aesgpu::cipher_file(dir / "large", dir / "large.aes", settings, raw, &uncached);
    EXPECT_EQ(uncached.reads_direct, direct) << "large and not cached: direct where the file system takes it";
    EXPECT_EQ(uncached.writes_direct, direct);
    const Bytes expected = openssl(EVP_aes_128_ecb(), key, nullptr, data);
    EXPECT_EQ(read_file(dir / "large.aes"), expected);
    EXPECT_EQ(read_file(dir / "cached.aes"), expected);
}

// Settings::io as the command's --io: direct past the page cache even for a small file (or an io
// Error where the file system refuses it), buffered through it even for a large uncached one, and
// direct on a pipe or standard stream refused before anything is opened.
TEST(PublicCipherFile, IoDirectAndBufferedGoAsAskedAndDirectTakesRegularFilesOnly) {
    Directory dir;
    const bool takes_direct = takes_direct_io(dir / ".");
    const Bytes data = write_large_and_small(dir);
    const Bytes key = random_bytes(16);
    aesgpu::Key raw = aesgpu::Key::raw(key);
    aesgpu::Settings settings = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    settings.io = aesgpu::IoChoice::direct;
    if (takes_direct) {
        Recorder small;
        aesgpu::cipher_file(dir / "small", dir / "small.aes", settings, raw, &small);
        EXPECT_TRUE(small.reads_direct) << "asked for: a small file too";
        EXPECT_TRUE(small.writes_direct);
        EXPECT_EQ(read_file(dir / "small.aes"),
                  openssl(EVP_aes_128_ecb(), key, nullptr, Bytes(data.begin(), data.begin() + 1000)));
    } else {
        const auto [kind, message] =
            error_thrown([&] { aesgpu::cipher_file(dir / "small", dir / "small.aes", settings, raw); });
        EXPECT_EQ(kind, aesgpu::ErrorKind::io);
        EXPECT_NE(message.find("directly"), std::string::npos) << message;
        EXPECT_FALSE(std::filesystem::exists(dir / "small.aes"));
    }

    settings.io = aesgpu::IoChoice::buffered;
    drop_from_page_cache(dir / "large");
    Recorder buffered;
    aesgpu::cipher_file(dir / "large", dir / "large.aes", settings, raw, &buffered);
    EXPECT_FALSE(buffered.reads_direct) << "asked for: a large uncached file stays on the page cache";
    EXPECT_FALSE(buffered.writes_direct);
    EXPECT_EQ(read_file(dir / "large.aes"), openssl(EVP_aes_128_ecb(), key, nullptr, data));

    settings.io = aesgpu::IoChoice::direct;
    ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
    // A FIFO opened would wait here for a writer: the refusal comes first.
    auto [kind, message] = error_thrown([&] { aesgpu::cipher_file(dir / "fifo", dir / "f.aes", settings, raw); });
    EXPECT_EQ(kind, aesgpu::ErrorKind::settings);
    EXPECT_EQ(message, "io direct reads regular files only; '" + (dir / "fifo").string() + "' is not one");
    std::tie(kind, message) = error_thrown([&] { aesgpu::cipher_file(dir / "small", "-", settings, raw); });
    EXPECT_EQ(kind, aesgpu::ErrorKind::settings);
    EXPECT_EQ(message, "io direct writes regular files only; standard output is written as it goes");
    std::tie(kind, message) = error_thrown([&] { aesgpu::cipher_file(dir / "small", dir / "fifo", settings, raw); });
    EXPECT_EQ(kind, aesgpu::ErrorKind::settings);
    EXPECT_EQ(message, "io direct writes regular files only; '" + (dir / "fifo").string() + "' is written as it goes");
}

// Which tasks cipher_files tried, and what to do at one of them.
class FileRecorder final : public aesgpu::Observer {
public:
    void next_file(std::size_t index, const aesgpu::FileTask &task) override {
        tried.push_back(index);
        EXPECT_EQ(task.output.filename().string(), task.input.filename().string() + ".out");
        if (stop_at == index) stop.request_stop();
        if (throw_at == index) throw std::runtime_error("the observer's own failure");
        if (throw_error_at == index) throw aesgpu::Error(aesgpu::ErrorKind::key, "the observer's own Error");
    }
    std::vector<std::size_t> tried;
    std::stop_source stop;
    std::optional<std::size_t> stop_at;
    std::optional<std::size_t> throw_at;
    std::optional<std::size_t> throw_error_at;
};

std::vector<aesgpu::FileTask> tasks_for(const Directory &dir, const std::vector<std::string> &names) {
    std::vector<aesgpu::FileTask> tasks;
    for (const std::string &name : names) tasks.push_back({dir / name.c_str(), dir / (name + ".out").c_str()});
    return tasks;
}

TEST(PublicCipherFiles, EachFileGoesOnPastAFailureAndThePromptAsksOnce) {
    Directory dir;
    const Bytes a = random_bytes(1000);
    const Bytes c = random_bytes((1 << 20) + 7);
    write_file(dir / "a", a);
    write_file(dir / "c", c);
    int asked = 0;
    aesgpu::Key prompt = prompt_answering("correct horse", asked);
    FileRecorder told;
    const std::vector<aesgpu::FileTask> tasks = tasks_for(dir, {"a", "missing", "c"});
    const std::vector<aesgpu::FileOutcome> outcomes =
        aesgpu::cipher_files(tasks, cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm), prompt, &told);
    ASSERT_EQ(outcomes.size(), 3u);
    ASSERT_TRUE(outcomes[0].result);
    EXPECT_FALSE(outcomes[0].error);
    EXPECT_EQ(outcomes[0].result->bytes_read, a.size());
    ASSERT_TRUE(outcomes[1].error);
    EXPECT_FALSE(outcomes[1].result);
    EXPECT_EQ(outcomes[1].error->kind(), aesgpu::ErrorKind::io);
    ASSERT_TRUE(outcomes[2].result) << "a failed file does not stop the ones after it";
    EXPECT_EQ(told.tried, (std::vector<std::size_t>{0, 1, 2}));
    EXPECT_EQ(asked, 1) << "one Key, asked once for every file";
    EXPECT_FALSE(fs::exists(dir / "missing.out"));

    // And back, each file with its own salt under the one passphrase.
    aesgpu::Key same = aesgpu::Key::passphrase("correct horse");
    const std::vector<aesgpu::FileTask> back = {{dir / "a.out", dir / "a.back"}, {dir / "c.out", dir / "c.back"}};
    for (const aesgpu::FileOutcome &outcome :
         aesgpu::cipher_files(back, cpu(aesgpu::Direction::decrypt, aesgpu::Mode::gcm), same)) {
        EXPECT_TRUE(outcome.result) << (outcome.error ? outcome.error->what() : "");
    }
    EXPECT_EQ(read_file(dir / "a.back"), a);
    EXPECT_EQ(read_file(dir / "c.back"), c);
}

// A file the Key does not fit fails alone: a raw Key for a passphrase file is that file's failure
// (ErrorKind::key), not a Key that cannot be had.
TEST(PublicCipherFiles, AFileTheKeyDoesNotFitFailsAlone) {
    Directory dir;
    const Bytes b = random_bytes(3000);
    write_file(dir / "a", random_bytes(1000));
    write_file(dir / "b", b);
    aesgpu::Key passphrase = aesgpu::Key::passphrase("pw");
    aesgpu::cipher_file(dir / "a", dir / "a.gcm", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm), passphrase);
    aesgpu::Key raw = aesgpu::Key::raw(random_bytes(16));
    aesgpu::cipher_file(dir / "b", dir / "b.gcm", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm), raw);
    FileRecorder told;
    const std::vector<aesgpu::FileTask> tasks = {{dir / "a.gcm", dir / "a.gcm.out"},
                                                 {dir / "b.gcm", dir / "b.gcm.out"}};
    const std::vector<aesgpu::FileOutcome> outcomes =
        aesgpu::cipher_files(tasks, cpu(aesgpu::Direction::decrypt, aesgpu::Mode::gcm), raw, &told);
    ASSERT_EQ(outcomes.size(), 2u);
    ASSERT_TRUE(outcomes[0].error);
    EXPECT_EQ(outcomes[0].error->kind(), aesgpu::ErrorKind::key);
    EXPECT_NE(std::string(outcomes[0].error->what()).find("a.gcm"), std::string::npos) << outcomes[0].error->what();
    ASSERT_TRUE(outcomes[1].result) << (outcomes[1].error ? outcomes[1].error->what() : "");
    EXPECT_EQ(read_file(dir / "b.gcm.out"), b);
    EXPECT_EQ(told.tried, (std::vector<std::size_t>{0, 1}));
}

// A failure that would come again for every file fails the rest untried, with the same Error; a stop
// fails every file left; what the Observer throws ends the run as it was thrown.
TEST(PublicCipherFiles, AFailureThatWouldComeAgainFailsTheRestUntried) {
    Directory dir;
    for (const char *name : {"a", "b", "c"}) write_file(dir / name, random_bytes(100));
    const std::vector<aesgpu::FileTask> tasks = tasks_for(dir, {"a", "b", "c"});
    const auto expect_all_failed_as_the_first = [&](const std::vector<aesgpu::FileOutcome> &outcomes,
                                                    aesgpu::ErrorKind kind) {
        ASSERT_EQ(outcomes.size(), 3u);
        ASSERT_TRUE(outcomes[0].error);
        EXPECT_EQ(outcomes[0].error->kind(), kind) << outcomes[0].error->what();
        for (const aesgpu::FileOutcome &outcome : outcomes) {
            ASSERT_TRUE(outcome.error);
            EXPECT_FALSE(outcome.result);
            EXPECT_EQ(outcome.error->kind(), kind);
            EXPECT_EQ(std::string(outcome.error->what()), outcomes[0].error->what());
        }
        for (const char *name : {"a.out", "b.out", "c.out"}) EXPECT_FALSE(fs::exists(dir / name)) << name;
    };
    {
        aesgpu::Key no_file = aesgpu::Key::key_file(dir / "no-such-key");
        FileRecorder told;
        expect_all_failed_as_the_first(
            aesgpu::cipher_files(tasks, cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb), no_file, &told),
            aesgpu::ErrorKind::key);
        EXPECT_EQ(told.tried, std::vector<std::size_t>{0}) << "the key cannot be had for the others either";
    }
    aesgpu::Key raw = aesgpu::Key::raw(random_bytes(16));
    {
        aesgpu::Settings settings;
        settings.mode = aesgpu::Mode::ecb;
        settings.backend = aesgpu::BackendChoice::gpu;
        settings.devices = {99}; // on no machine here
        FileRecorder told;
        expect_all_failed_as_the_first(aesgpu::cipher_files(tasks, settings, raw, &told), aesgpu::ErrorKind::gpu);
        EXPECT_EQ(told.tried, std::vector<std::size_t>{0}) << "no such GPU for the others either";
    }
    FileRecorder stopping;
    stopping.stop_at = 1;
    const std::vector<aesgpu::FileOutcome> stopped = aesgpu::cipher_files(
        tasks, cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb), raw, &stopping, stopping.stop.get_token());
    ASSERT_EQ(stopped.size(), 3u);
    EXPECT_TRUE(stopped[0].result);
    for (std::size_t i : {1u, 2u}) {
        ASSERT_TRUE(stopped[i].error) << i;
        EXPECT_EQ(stopped[i].error->kind(), aesgpu::ErrorKind::stopped) << i;
    }
    EXPECT_EQ(stopping.tried, (std::vector<std::size_t>{0, 1})) << "a task after the stop is not about to be tried";
    EXPECT_TRUE(fs::exists(dir / "a.out"));
    EXPECT_FALSE(fs::exists(dir / "b.out"));
    EXPECT_FALSE(fs::exists(dir / "c.out"));

    FileRecorder throwing;
    throwing.throw_at = 1;
    aesgpu::Settings replace = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    replace.overwrite = true;
    EXPECT_THROW((void)aesgpu::cipher_files(tasks, replace, raw, &throwing), std::runtime_error);
    EXPECT_EQ(throwing.tried, (std::vector<std::size_t>{0, 1}));
    EXPECT_FALSE(fs::exists(dir / "b.out"));

    // An aesgpu::Error of the observer's own is not a task's outcome: it too ends them all.
    FileRecorder throwing_error;
    throwing_error.throw_error_at = 1;
    EXPECT_THROW((void)aesgpu::cipher_files(tasks, replace, raw, &throwing_error), aesgpu::Error);
    EXPECT_EQ(throwing_error.tried, (std::vector<std::size_t>{0, 1}));
    EXPECT_FALSE(fs::exists(dir / "b.out"));
}

// A block device is written into, never replaced: only when asked, and the refusal names the
// setting, not the command's -f.
TEST(PublicCipherFile, ABlockDeviceIsWrittenIntoOnlyWhenAsked) {
    Directory dir;
    write_file(dir / "in", random_bytes(100));
    if (::mknod((dir / "blk").c_str(), S_IFBLK | 0600, makedev(7, 0)) != 0) GTEST_SKIP() << "no mknod here";
    aesgpu::Key raw = aesgpu::Key::raw(random_bytes(16));
    const auto [kind, message] = error_thrown(
        [&] { aesgpu::cipher_file(dir / "in", dir / "blk", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb), raw); });
    EXPECT_EQ(kind, aesgpu::ErrorKind::io);
    EXPECT_EQ(message,
              "refusing to write to block device '" + (dir / "blk").string() + "' (set overwrite to write into it)");
}

struct PromptGaveUp {};

// The message of the Error `run` throws; fails the test when it throws none.
template <typename Run>
std::string message_thrown(Run run) {
    return error_thrown(run).second;
}

TEST(PublicCipherFile, MessagesNameSettingsNotTheCommandsFlags) {
    Directory dir;
    write_file(dir / "in", random_bytes(1000));
    aesgpu::Key passphrase = aesgpu::Key::passphrase("pw");
    aesgpu::cipher_file(dir / "in", dir / "gcm", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm), passphrase);
    aesgpu::Key raw = aesgpu::Key::raw(random_bytes(32));
    aesgpu::Settings ragged = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    ragged.no_pad = true;
    fs::create_directory(dir / "a directory");
    aesgpu::Key directory = aesgpu::Key::key_file(dir / "a directory");
    const std::vector<std::string> messages = {
        message_thrown([&] {
            aesgpu::cipher_file(dir / "gcm", dir / "out", cpu(aesgpu::Direction::decrypt, aesgpu::Mode::gcm), raw);
        }),
        message_thrown([&] { aesgpu::cipher_file(dir / "in", dir / "out", ragged, raw); }),
        message_thrown([&] {
            aesgpu::cipher_file(dir / "in", dir / "out", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb), directory);
        }),
        message_thrown([] { (void)aesgpu::iv_from_hex("0x00"); }),
        message_thrown([&] {
            aesgpu::cipher_file(dir / "in", dir / "gcm", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm),
                                passphrase);
        }),
        message_thrown([&] { // a passphrase for a raw key's file
            aesgpu::cipher_file(dir / "in", dir / "raw-gcm", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm), raw);
            aesgpu::cipher_file(dir / "raw-gcm", dir / "out", cpu(aesgpu::Direction::decrypt, aesgpu::Mode::gcm),
                                passphrase);
        }),
    };
    EXPECT_NE(messages[0].find("passphrase"), std::string::npos) << messages[0];
    EXPECT_NE(messages[1].find("no_pad"), std::string::npos) << messages[1];
    EXPECT_NE(messages[2].find("directory"), std::string::npos) << messages[2];
    EXPECT_NE(messages[4].find("already exists (set overwrite"), std::string::npos) << messages[4];
    EXPECT_NE(messages[5].find("it has no aesgpu passphrase header"), std::string::npos) << messages[5];
    for (const std::string &message : messages) {
        EXPECT_EQ(message.find("--"), std::string::npos) << message;
        EXPECT_EQ(message.find(" -p"), std::string::npos) << message;
        EXPECT_EQ(message.find(" -f"), std::string::npos) << message;
    }
}

TEST(PublicCipherFile, NeitherTheInputNorTheOutputMayBeTheKeyFile) {
    Directory dir;
    const Bytes key = random_bytes(16);
    write_file(dir / "key", key);
    fs::create_hard_link(dir / "key", dir / "another name");
    write_file(dir / "in", random_bytes(100));
    aesgpu::Key key_file = aesgpu::Key::key_file(dir / "key");
    aesgpu::Settings settings = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    settings.overwrite = true;
    EXPECT_EQ(kind_thrown([&] { aesgpu::cipher_file(dir / "in", dir / "another name", settings, key_file); }),
              aesgpu::ErrorKind::settings);
    EXPECT_EQ(kind_thrown([&] { aesgpu::cipher_file(dir / "key", dir / "out", settings, key_file); }),
              aesgpu::ErrorKind::settings);
    EXPECT_EQ(read_file(dir / "key"), key) << "the key is intact";
    EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(PublicCipherFile, GcmSegmentsNoReaderTakesAreRefusedBeforeAnyOutput) {
    Directory dir;
    write_file(dir / "in", random_bytes(100));
    aesgpu::Key passphrase = aesgpu::Key::passphrase("pw");
    aesgpu::Key raw = aesgpu::Key::raw(random_bytes(16));
    for (const std::size_t segment : {std::size_t{64 << 20} + 1, std::size_t{1} << 32, SIZE_MAX}) {
        aesgpu::Settings settings = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm);
        settings.segment_bytes = segment;
        EXPECT_EQ(kind_thrown([&] { aesgpu::cipher_file(dir / "in", dir / "out", settings, passphrase); }),
                  aesgpu::ErrorKind::settings)
            << segment;
        EXPECT_EQ(kind_thrown([&] { aesgpu::cipher_file(dir / "in", dir / "out", settings, raw); }),
                  aesgpu::ErrorKind::settings)
            << segment;
    }
    aesgpu::Settings largest = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm);
    largest.segment_bytes = 64 << 20;
    aesgpu::cipher_file(dir / "in", dir / "out", largest, passphrase);
    aesgpu::cipher_file(dir / "out", dir / "back", cpu(aesgpu::Direction::decrypt, aesgpu::Mode::gcm), passphrase);
    EXPECT_EQ(read_file(dir / "back"), read_file(dir / "in")) << "the largest segment a reader takes";
}

TEST(PublicCipherFile, AKeySharedByThreadsIsAskedForOnceAndTheWarningsThrowAsTheyWereThrown) {
    Directory dir;
    write_file(dir / "a", random_bytes(100'000));
    write_file(dir / "b", random_bytes(100'000));
    std::atomic<int> asked = 0;
    aesgpu::Key prompt = aesgpu::Key::passphrase_prompt([&asked](std::span<char> buffer) {
        ++asked;
        std::this_thread::sleep_for(std::chrono::milliseconds(50)); // both calls are in by now
        buffer[0] = 'x';
        return std::size_t{1};
    });
    const aesgpu::Settings settings = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ctr);
    std::thread other([&] { aesgpu::cipher_file(dir / "a", dir / "a.aes", settings, prompt); });
    aesgpu::cipher_file(dir / "b", dir / "b.aes", settings, prompt);
    other.join();
    EXPECT_EQ(asked, 1);

    write_file(dir / "key", random_bytes(16));
    fs::permissions(dir / "key", fs::perms::owner_read | fs::perms::others_read);
    aesgpu::Key told = aesgpu::Key::key_file(dir / "key", [](std::string_view) { throw PromptGaveUp{}; });
    EXPECT_THROW(aesgpu::cipher_file(dir / "a", dir / "c", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb), told),
                 PromptGaveUp);
    aesgpu::Key too_long = aesgpu::Key::passphrase_prompt([](std::span<char> buffer) { return buffer.size() + 1; });
    EXPECT_EQ(kind_thrown([&] {
                  aesgpu::cipher_file(dir / "a", dir / "c", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb),
                                      too_long);
              }),
              aesgpu::ErrorKind::key);
    EXPECT_FALSE(fs::exists(dir / "c"));
}

TEST(PublicCipherFile, WhatThePromptOrTheObserverThrowsComesBackAsItWasThrown) {
    Directory dir;
    write_file(dir / "in", random_bytes(4096));
    aesgpu::Key prompt = aesgpu::Key::passphrase_prompt([](std::span<char>) -> std::size_t { throw PromptGaveUp{}; });
    EXPECT_THROW(
        aesgpu::cipher_file(dir / "in", dir / "out", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb), prompt),
        PromptGaveUp);

    aesgpu::Key passphrase = aesgpu::Key::passphrase("pw");
    Recorder told;
    told.throw_at_first = true;
    try {
        aesgpu::cipher_file(dir / "in", dir / "out", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb), passphrase,
                            &told);
        ADD_FAILURE() << "nothing thrown";
    } catch (const aesgpu::Error &) {
        ADD_FAILURE() << "the observer's exception came back as an aesgpu::Error";
    } catch (const std::runtime_error &e) {
        EXPECT_STREQ(e.what(), "the observer's own failure");
    }
    EXPECT_FALSE(fs::exists(dir / "out"));
}

// The child of a death test is this binary run again: with these in its environment, the
// fault-injection preload refuses O_TMPFILE there, as a file system without it (NFS, vfat) does.
class NoUnnamedFilesInTheChild {
public:
    NoUnnamedFilesInTheChild() {
        for (const char *name : {"LD_PRELOAD", "AESGPU_TEST_REFUSE_O_TMPFILE", "ASAN_OPTIONS"}) {
            if (const char *value = std::getenv(name)) saved_.emplace_back(name, value);
        }
        setenv("LD_PRELOAD", AESGPU_FAULT_INJECTION, 1);
        setenv("AESGPU_TEST_REFUSE_O_TMPFILE", "1", 1);
        // The preload comes before a sanitizer's runtime in the child.
        const char *asan = std::getenv("ASAN_OPTIONS");
        setenv("ASAN_OPTIONS", (std::string(asan ? asan : "") + ":verify_asan_link_order=0").c_str(), 1);
    }
    ~NoUnnamedFilesInTheChild() {
        for (const char *name : {"LD_PRELOAD", "AESGPU_TEST_REFUSE_O_TMPFILE", "ASAN_OPTIONS"}) unsetenv(name);
        for (const auto &[name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
    }

private:
    std::vector<std::pair<std::string, std::string>> saved_;
};

// Ends the process at the call's first progress report, as a signal would end a program that
// takes signals on a thread of its own: after running the cleanups, when it has them. Exits 0
// when the output was being written under a hidden name, then.
class EndsAtFirstProgress final : public aesgpu::Observer {
public:
    EndsAtFirstProgress(fs::path dir, aesgpu::InterruptCleanups *cleanups)
        : dir_(std::move(dir)), cleanups_(cleanups) {}
    void progress(std::uint64_t) override {
        const auto entries = std::distance(fs::directory_iterator(dir_), fs::directory_iterator());
        if (cleanups_) cleanups_->run_all();
        std::_Exit(entries == 2 ? 0 : 3); // the input, and the output under a hidden name
    }

private:
    fs::path dir_;
    aesgpu::InterruptCleanups *cleanups_;
};

// A program that ends itself on a signal runs the InterruptCleanups it gave the call first: where
// the file system has no O_TMPFILE, the output written under a hidden name is then removed. A
// program that gave none leaves that file behind.
TEST(PublicCipherFileDeathTest, InterruptCleanupsRemoveTheHiddenOutputOfARunningCall) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    // The child runs this body again from the start: it takes the parent's directory from its
    // environment, and makes none of its own.
    const bool in_child = std::getenv("AESGPU_TEST_CLEANUP_DIR") != nullptr;
    for (const bool with_cleanups : {true, false}) {
        SCOPED_TRACE(with_cleanups ? "with InterruptCleanups" : "without");
        std::optional<Directory> made;
        if (!in_child) {
            made.emplace();
            write_file(*made / "in", random_bytes(3 << 20));
            setenv("AESGPU_TEST_CLEANUP_DIR", (*made / "in").parent_path().c_str(), 1);
        }
        const fs::path dir = std::getenv("AESGPU_TEST_CLEANUP_DIR");
        {
            const NoUnnamedFilesInTheChild refused;
            EXPECT_EXIT(
                {
                    if (!std::getenv("AESGPU_TEST_REFUSE_O_TMPFILE")) std::_Exit(4);
                    aesgpu::InterruptCleanups cleanups;
                    EndsAtFirstProgress observer(dir, with_cleanups ? &cleanups : nullptr);
                    aesgpu::Key key = aesgpu::Key::raw(random_bytes(16));
                    aesgpu::cipher_file(dir / "in", dir / "out", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb),
                                        key, &observer, {}, with_cleanups ? &cleanups : nullptr);
                    std::_Exit(5); // no progress report
                },
                testing::ExitedWithCode(0), "");
        }
        if (in_child) continue;
        unsetenv("AESGPU_TEST_CLEANUP_DIR");
        EXPECT_EQ(made->entries(), with_cleanups ? 1u : 2u) << "the hidden output";
        EXPECT_FALSE(fs::exists(dir / "out"));
    }
}

TEST(PublicCipherFile, AStopBeforeOrDuringTheRunLeavesNoOutput) {
    Directory dir;
    write_file(dir / "in", random_bytes(1 << 20));
    aesgpu::Key passphrase = aesgpu::Key::passphrase("pw");
    const aesgpu::Settings settings = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm);
    std::stop_source before;
    before.request_stop();
    EXPECT_EQ(kind_thrown([&] {
                  aesgpu::cipher_file(dir / "in", dir / "out", settings, passphrase, nullptr, before.get_token());
              }),
              aesgpu::ErrorKind::stopped);

    std::stop_source during;
    Recorder told;
    told.stop_at_first = &during;
    EXPECT_EQ(kind_thrown([&] {
                  aesgpu::cipher_file(dir / "in", dir / "out", settings, passphrase, &told, during.get_token());
              }),
              aesgpu::ErrorKind::stopped);
    EXPECT_EQ(told.calls, 1);
    EXPECT_FALSE(fs::exists(dir / "out"));
    EXPECT_EQ(dir.entries(), 1u);
}

TEST(PublicCipherFile, SettingsThatWouldBeIgnoredOrCannotWorkAreRefusedBeforeAnyOutput) {
    Directory dir;
    write_file(dir / "in", random_bytes(1000));
    aesgpu::Key raw = aesgpu::Key::raw(random_bytes(16));
    aesgpu::Key passphrase = aesgpu::Key::passphrase("pw");
    const auto refused = [&](aesgpu::Settings settings, aesgpu::Key &key) {
        return kind_thrown([&] { aesgpu::cipher_file(dir / "in", dir / "out", settings, key); });
    };
    aesgpu::Settings ecb_with_iv = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    ecb_with_iv.iv.emplace();
    EXPECT_EQ(refused(ecb_with_iv, raw), aesgpu::ErrorKind::settings);
    aesgpu::Settings ctr_passphrase_iv = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ctr);
    ctr_passphrase_iv.iv.emplace();
    EXPECT_EQ(refused(ctr_passphrase_iv, passphrase), aesgpu::ErrorKind::settings);
    EXPECT_EQ(refused(cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ctr), raw), aesgpu::ErrorKind::settings)
        << "CTR with a raw key and no iv";
    aesgpu::Settings ctr_no_pad = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ctr);
    ctr_no_pad.no_pad = true;
    EXPECT_EQ(refused(ctr_no_pad, passphrase), aesgpu::ErrorKind::settings);
    aesgpu::Settings ecb_associated = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    ecb_associated.associated_data = "x";
    EXPECT_EQ(refused(ecb_associated, raw), aesgpu::ErrorKind::settings);
    aesgpu::Settings iterations_raw = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    iterations_raw.pbkdf2_iterations = 5;
    EXPECT_EQ(refused(iterations_raw, raw), aesgpu::ErrorKind::settings) << "PBKDF2 with a raw key";
    aesgpu::Settings gcm192 = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm);
    gcm192.passphrase_key_bits = 192;
    EXPECT_EQ(refused(gcm192, passphrase), aesgpu::ErrorKind::settings);
    aesgpu::Settings gcm_iterations = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm);
    gcm_iterations.pbkdf2_iterations = 5;
    EXPECT_EQ(refused(gcm_iterations, passphrase), aesgpu::ErrorKind::settings) << "gcm derives with scrypt";
    aesgpu::Settings header_segment = cpu(aesgpu::Direction::decrypt, aesgpu::Mode::gcm);
    header_segment.segment_bytes = 8192;
    EXPECT_EQ(refused(header_segment, passphrase), aesgpu::ErrorKind::settings) << "the header gives it";
    aesgpu::Settings header_bits = cpu(aesgpu::Direction::decrypt, aesgpu::Mode::gcm);
    header_bits.passphrase_key_bits = 128;
    EXPECT_EQ(refused(header_bits, passphrase), aesgpu::ErrorKind::settings) << "the header gives the key size";
    aesgpu::Settings cpu_waits = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    cpu_waits.wait_for_gpu = true;
    EXPECT_EQ(refused(cpu_waits, raw), aesgpu::ErrorKind::settings);
    aesgpu::Settings odd_bits = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    odd_bits.passphrase_key_bits = 100;
    EXPECT_EQ(refused(odd_bits, passphrase), aesgpu::ErrorKind::settings);
    aesgpu::Key gcm24 = aesgpu::Key::raw(random_bytes(24));
    EXPECT_EQ(refused(cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm), gcm24), aesgpu::ErrorKind::settings);
    aesgpu::Settings no_pad_ragged = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    no_pad_ragged.no_pad = true;
    EXPECT_EQ(refused(no_pad_ragged, raw), aesgpu::ErrorKind::format) << "1000 bytes are not whole blocks";
    EXPECT_FALSE(fs::exists(dir / "out"));

    EXPECT_EQ(kind_thrown([] { (void)aesgpu::iv_from_hex("00112233445566778899aabbccddeef"); }),
              aesgpu::ErrorKind::settings);
    EXPECT_EQ(aesgpu::iv_from_hex("000102030405060708090a0b0c0d0eFF")[15], 0xff);
    EXPECT_EQ(kind_thrown([] { (void)aesgpu::Key::raw(Bytes(15)); }), aesgpu::ErrorKind::key);
    EXPECT_EQ(kind_thrown([] { (void)aesgpu::Key::raw_hex("0x00"); }), aesgpu::ErrorKind::key);
    EXPECT_EQ(kind_thrown([] { (void)aesgpu::Key::passphrase(""); }), aesgpu::ErrorKind::key);
    aesgpu::Key missing = aesgpu::Key::key_file(dir / "no such key");
    EXPECT_EQ(refused(cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb), missing), aesgpu::ErrorKind::key);
}

// remove_input: the input goes only once its output is in place and proven (decrypting: GCM's
// tags), and never where removing its name would not remove its data; refused before any work.
TEST(PublicCipherFile, RemoveInputTakesTheInputOnlyOnceTheOutputIsInPlaceAndProven) {
    Directory dir;
    const Bytes plain = random_bytes(5000);
    const Bytes key_bytes = random_bytes(16);
    write_file(dir / "in", plain);
    aesgpu::Key key = aesgpu::Key::raw(key_bytes);
    aesgpu::Settings ecb = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    ecb.remove_input = true;
    const aesgpu::Result encrypted = aesgpu::cipher_file(dir / "in", dir / "in.aes", ecb, key);
    EXPECT_TRUE(encrypted.input_removed);
    EXPECT_FALSE(fs::exists(dir / "in"));
    EXPECT_TRUE(read_file(dir / "in.aes") == openssl(EVP_aes_128_ecb(), key_bytes, nullptr, plain));

    // ECB's padding passes a wrong key about once in 256: no removal on decrypt outside GCM.
    aesgpu::Settings ecb_back = cpu(aesgpu::Direction::decrypt, aesgpu::Mode::ecb);
    ecb_back.remove_input = true;
    EXPECT_EQ(kind_thrown([&] { aesgpu::cipher_file(dir / "in.aes", dir / "back", ecb_back, key); }),
              aesgpu::ErrorKind::settings);
    EXPECT_TRUE(fs::exists(dir / "in.aes"));
    EXPECT_FALSE(fs::exists(dir / "back"));

    // GCM: a wrong key leaves the ciphertext; the right one removes it once the output is in place.
    write_file(dir / "in", plain);
    aesgpu::Settings gcm = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm);
    gcm.remove_input = true;
    EXPECT_TRUE(aesgpu::cipher_file(dir / "in", dir / "in.gcm", gcm, key).input_removed);
    aesgpu::Settings gcm_back = cpu(aesgpu::Direction::decrypt, aesgpu::Mode::gcm);
    gcm_back.remove_input = true;
    aesgpu::Key wrong = aesgpu::Key::raw(random_bytes(16));
    EXPECT_EQ(kind_thrown([&] { aesgpu::cipher_file(dir / "in.gcm", dir / "back", gcm_back, wrong); }),
              aesgpu::ErrorKind::authentication);
    EXPECT_TRUE(fs::exists(dir / "in.gcm"));
    EXPECT_FALSE(fs::exists(dir / "back"));
    EXPECT_TRUE(aesgpu::cipher_file(dir / "in.gcm", dir / "back", gcm_back, key).input_removed);
    EXPECT_FALSE(fs::exists(dir / "in.gcm"));
    EXPECT_TRUE(read_file(dir / "back") == plain);

    // A second hard link would keep the data: refused before any output, and the input stays.
    write_file(dir / "linked", plain);
    fs::create_hard_link(dir / "linked", dir / "other name");
    EXPECT_EQ(kind_thrown([&] { aesgpu::cipher_file(dir / "linked", dir / "linked.aes", ecb, key); }),
              aesgpu::ErrorKind::io);
    EXPECT_TRUE(fs::exists(dir / "linked"));
    EXPECT_FALSE(fs::exists(dir / "linked.aes"));
    // No input file, or no output file, to stand for it.
    EXPECT_EQ(kind_thrown([&] { aesgpu::cipher_file("-", dir / "x.aes", ecb, key); }), aesgpu::ErrorKind::settings);
    EXPECT_EQ(kind_thrown([&] { aesgpu::cipher_file(dir / "linked", "-", ecb, key); }), aesgpu::ErrorKind::settings);
    // A device is written as the data comes: nothing complete to stand for the input.
    fs::remove(dir / "other name");
    const auto [kind, message] = error_thrown([&] { aesgpu::cipher_file(dir / "linked", "/dev/null", ecb, key); });
    EXPECT_EQ(kind, aesgpu::ErrorKind::settings);
    EXPECT_EQ(message, "remove_input needs a complete output file; '/dev/null' is not a regular file");
    EXPECT_TRUE(fs::exists(dir / "linked"));
}

// `settings` refused before anything is opened: ErrorKind::settings, a message that holds `words`,
// and no output.
void expect_settings_refused(const fs::path &input, const fs::path &output, const aesgpu::Settings &settings,
                             aesgpu::Key &key, const std::string &words) {
    const auto [kind, message] = error_thrown([&] { aesgpu::cipher_file(input, output, settings, key); });
    EXPECT_EQ(kind, aesgpu::ErrorKind::settings) << message;
    EXPECT_NE(message.find(words), std::string::npos) << message;
    EXPECT_FALSE(fs::exists(output));
}

// Settings have no default mode: encrypting without one is refused before anything is opened (it
// used to write openssl's ECB). Decrypting without one reads it, but iv and no_pad need it given.
TEST(PublicCipherFile, EncryptingWithoutAModeIsRefused) {
    Directory dir;
    write_file(dir / "in", random_bytes(1000));
    aesgpu::Key key = aesgpu::Key::raw(random_bytes(16));
    const auto refused = [&](const aesgpu::Settings &settings, const std::string &words) {
        expect_settings_refused(dir / "in", dir / "out", settings, key, words);
    };
    aesgpu::Settings settings = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    settings.mode.reset();
    refused(settings, "mode: none given; choose one: Mode::ecb, Mode::ctr, Mode::cbc or Mode::gcm");
    settings.direction = aesgpu::Direction::decrypt;
    settings.iv = aesgpu::iv_from_hex("000102030405060708090a0b0c0d0e0f");
    refused(settings, "iv needs the mode it is for (ctr or cbc): give mode");
    settings.iv.reset();
    settings.no_pad = true;
    refused(settings, "no_pad needs mode ecb given: without a mode, the padding tells ECB from CBC");
}

// openssl enc -pbkdf2's passphrase file (Salted__, a salt, then the data under PBKDF2-HMAC-SHA256
// of 10000 iterations), made with EVP from a fixed salt so that the file is the same every run.
Bytes openssl_passphrase_file(const EVP_CIPHER *cipher, const std::string &passphrase, std::uint8_t salt_byte,
                              const Bytes &data) {
    const Bytes salt(8, salt_byte);
    Bytes key_and_iv(std::size_t(EVP_CIPHER_key_length(cipher) + 16));
    EXPECT_EQ(PKCS5_PBKDF2_HMAC(passphrase.data(), static_cast<int>(passphrase.size()), salt.data(),
                                static_cast<int>(salt.size()), 10000, EVP_sha256(), static_cast<int>(key_and_iv.size()),
                                key_and_iv.data()),
              1);
    const Bytes key(key_and_iv.begin(), key_and_iv.begin() + EVP_CIPHER_key_length(cipher));
    const Bytes body = openssl(cipher, key, key_and_iv.data() + key.size(), data);
    constexpr std::string_view kMagic = "Salted__";
    Bytes file(kMagic.size() + salt.size() + body.size());
    std::copy(kMagic.begin(), kMagic.end(), file.begin());
    std::copy(salt.begin(), salt.end(), file.begin() + std::ptrdiff_t(kMagic.size()));
    std::copy(body.begin(), body.end(), file.begin() + std::ptrdiff_t(kMagic.size() + salt.size()));
    return file;
}

// Decrypting without a mode reads it from the input by the command's rules: openssl's passphrase
// files of each mode (the length says CTR, the padding ECB or CBC), aesgpu's GCM files (its
// passphrase header; a raw key's by segment 0's tag) and a raw key's ECB. Result::mode says which.
TEST(PublicCipherFile, DecryptingWithoutAModeReadsItFromTheInput) {
    Directory dir;
    Bytes data(5000);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7 + 3);
    const auto decrypted_as = [&](const char *name, aesgpu::Key &key) {
        aesgpu::Settings settings = cpu(aesgpu::Direction::decrypt, aesgpu::Mode::ecb);
        settings.mode.reset();
        settings.overwrite = true;
        const aesgpu::Result result = aesgpu::cipher_file(dir / name, dir / "back", settings, key);
        EXPECT_EQ(read_file(dir / "back"), data) << name;
        return result.mode;
    };
    const Bytes odd(data.begin(), data.begin() + 4999); // CTR: not whole blocks
    write_file(dir / "ctr", openssl_passphrase_file(EVP_aes_256_ctr(), "secret", 1, odd));
    write_file(dir / "cbc", openssl_passphrase_file(EVP_aes_256_cbc(), "secret", 2, data));
    write_file(dir / "ecb", openssl_passphrase_file(EVP_aes_256_ecb(), "secret", 3, data));
    for (const auto &[name, mode] : {std::pair{"cbc", aesgpu::Mode::cbc}, std::pair{"ecb", aesgpu::Mode::ecb}}) {
        aesgpu::Key passphrase = aesgpu::Key::passphrase("secret");
        EXPECT_EQ(decrypted_as(name, passphrase), mode) << name;
    }
    {
        aesgpu::Key passphrase = aesgpu::Key::passphrase("secret");
        aesgpu::Settings settings = cpu(aesgpu::Direction::decrypt, aesgpu::Mode::ecb);
        settings.mode.reset();
        EXPECT_EQ(aesgpu::cipher_file(dir / "ctr", dir / "ctr.back", settings, passphrase).mode, aesgpu::Mode::ctr);
        EXPECT_EQ(read_file(dir / "ctr.back"), odd);
    }
    const Bytes raw = random_bytes(32);
    for (const aesgpu::Mode mode : {aesgpu::Mode::gcm, aesgpu::Mode::ecb}) {
        aesgpu::Key key = aesgpu::Key::raw(raw);
        write_file(dir / "plain", data);
        aesgpu::cipher_file(dir / "plain", dir / "raw", cpu(aesgpu::Direction::encrypt, mode), key);
        EXPECT_EQ(decrypted_as("raw", key), mode);
        fs::remove(dir / "raw");
    }
    aesgpu::Key passphrase = aesgpu::Key::passphrase("secret");
    aesgpu::cipher_file(dir / "plain", dir / "gcm", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm), passphrase);
    EXPECT_EQ(decrypted_as("gcm", passphrase), aesgpu::Mode::gcm);
}

// A ciphertext whose first bytes say it cannot be read as asked fails before anything is written:
// openssl's passphrase format given a raw key (CTR would otherwise "decrypt" it to noise), and
// base64 text (openssl enc -a).
TEST(PublicCipherFile, ACiphertextWhoseStartSaysOtherwiseIsRefused) {
    Directory dir;
    write_file(dir / "salted", openssl_passphrase_file(EVP_aes_256_ctr(), "secret", 1, random_bytes(4096)));
    const std::string text(200, 'Q');
    write_file(dir / "base64", Bytes(text.begin(), text.end()));
    aesgpu::Key raw = aesgpu::Key::raw(random_bytes(32));
    aesgpu::Settings ctr = cpu(aesgpu::Direction::decrypt, aesgpu::Mode::ctr);
    ctr.iv.emplace();
    auto [kind, message] = error_thrown([&] { aesgpu::cipher_file(dir / "salted", dir / "out", ctr, raw); });
    EXPECT_EQ(kind, aesgpu::ErrorKind::key);
    EXPECT_EQ(message, "'" + (dir / "salted").string() +
                           "' starts with 'Salted__': it was encrypted with a passphrase, not a raw key");
    std::tie(kind, message) = error_thrown([&] {
        aesgpu::cipher_file(dir / "base64", dir / "out", cpu(aesgpu::Direction::decrypt, aesgpu::Mode::ecb), raw);
    });
    EXPECT_EQ(kind, aesgpu::ErrorKind::format);
    EXPECT_EQ(message, "'" + (dir / "base64").string() + "' looks base64-encoded (openssl enc -a): decode it first");
    EXPECT_FALSE(fs::exists(dir / "out"));
}

// What a regular file's length tells fails before the prompt asks: a ragged ECB file, and one that
// needs more segments than a GCM stream numbers (2^32 of 64 bytes: a sparse file of 193 GiB; the
// passphrase header leaves the first segment less room than a raw key's).
TEST(PublicCipherFile, AFileOfALengthItsModeCannotTakeFailsBeforeThePromptAsks) {
    Directory dir;
    Bytes ecb = openssl_passphrase_file(EVP_aes_256_ecb(), "secret", 1, random_bytes(4096));
    ecb.pop_back();
    write_file(dir / "ragged", ecb);
    write_file(dir / "big", {});
    ASSERT_EQ(::truncate((dir / "big").c_str(), 193LL << 30), 0);
    int asked = 0;
    aesgpu::Key prompt = aesgpu::Key::passphrase_prompt([&asked](std::span<char>) -> std::size_t {
        ++asked;
        return 0;
    });
    auto [kind, message] = error_thrown([&] {
        aesgpu::cipher_file(dir / "ragged", dir / "out", cpu(aesgpu::Direction::decrypt, aesgpu::Mode::ecb), prompt);
    });
    EXPECT_EQ(kind, aesgpu::ErrorKind::format);
    EXPECT_NE(message.find("is not a multiple of 16 bytes"), std::string::npos) << message;
    aesgpu::Settings gcm = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm);
    gcm.segment_bytes = 64;
    std::tie(kind, message) = error_thrown([&] { aesgpu::cipher_file(dir / "big", dir / "out", gcm, prompt); });
    EXPECT_EQ(kind, aesgpu::ErrorKind::settings);
    EXPECT_EQ(message, "'" + (dir / "big").string() +
                           "' would take 4317336919 segments of 64 bytes: a GCM stream has at most 2^32 (its nonce "
                           "numbers them in 4 bytes); give a larger segment_bytes");
    EXPECT_EQ(asked, 0);
    EXPECT_FALSE(fs::exists(dir / "out"));
}

// Many files decrypted without a mode: each is read as its own start says.
TEST(PublicCipherFiles, DecryptingWithoutAModeReadsEachFilesOwn) {
    Directory dir;
    const Bytes data = random_bytes(5000);
    const Bytes odd(data.begin(), data.begin() + 4999);
    write_file(dir / "cbc", openssl_passphrase_file(EVP_aes_256_cbc(), "secret", 1, data));
    write_file(dir / "ecb", openssl_passphrase_file(EVP_aes_256_ecb(), "secret", 2, data));
    write_file(dir / "ctr", openssl_passphrase_file(EVP_aes_256_ctr(), "secret", 3, odd));
    write_file(dir / "plain", data);
    aesgpu::Key passphrase = aesgpu::Key::passphrase("secret");
    aesgpu::cipher_file(dir / "plain", dir / "gcm", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm), passphrase);
    aesgpu::Settings settings = cpu(aesgpu::Direction::decrypt, aesgpu::Mode::ecb);
    settings.mode.reset();
    const std::vector<aesgpu::FileOutcome> outcomes =
        aesgpu::cipher_files(tasks_for(dir, {"cbc", "ecb", "ctr", "gcm"}), settings, passphrase);
    ASSERT_EQ(outcomes.size(), 4u);
    const std::array modes{aesgpu::Mode::cbc, aesgpu::Mode::ecb, aesgpu::Mode::ctr, aesgpu::Mode::gcm};
    for (std::size_t i = 0; i < modes.size(); ++i) {
        ASSERT_TRUE(outcomes[i].result) << i << ": " << outcomes[i].error->what();
        EXPECT_EQ(outcomes[i].result->mode, modes[i]) << i;
    }
    EXPECT_EQ(read_file(dir / "cbc.out"), data);
    EXPECT_EQ(read_file(dir / "ecb.out"), data);
    EXPECT_EQ(read_file(dir / "ctr.out"), odd);
    EXPECT_EQ(read_file(dir / "gcm.out"), data);
}

// Where a mode read from the input decided and the run failed, the message says what else the file
// may be: a CTR file of whole blocks whose padding fits neither ECB nor CBC; a raw key's file whose
// first byte is a GCM file's and whose segment 0 fails; a file that a GCM setting alone sent to GCM.
TEST(PublicCipherFile, AFailureOfAModeReadFromTheInputSaysWhatElseItMayBe) {
    Directory dir;
    Bytes data(4096); // whole blocks: the padding decides between ECB and CBC
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 13 + 5);
    write_file(dir / "ctr", openssl_passphrase_file(EVP_aes_256_ctr(), "secret", 4, data));
    aesgpu::Settings settings = cpu(aesgpu::Direction::decrypt, aesgpu::Mode::ecb);
    settings.mode.reset();
    aesgpu::Key passphrase = aesgpu::Key::passphrase("secret");
    const auto [ctr_kind, ctr_message] =
        error_thrown([&] { aesgpu::cipher_file(dir / "ctr", dir / "out", settings, passphrase); });
    EXPECT_EQ(ctr_kind, aesgpu::ErrorKind::format) << ctr_message;
    EXPECT_NE(ctr_message.find("or a file of mode ctr (give mode)"), std::string::npos) << ctr_message;

    aesgpu::Key raw = aesgpu::Key::raw(random_bytes(32));
    write_file(dir / "plain", data);
    aesgpu::cipher_file(dir / "plain", dir / "gcm", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm), raw);
    aesgpu::Key other = aesgpu::Key::raw(random_bytes(32));
    const auto [gcm_kind, gcm_message] =
        error_thrown([&] { aesgpu::cipher_file(dir / "gcm", dir / "out", settings, other); });
    EXPECT_EQ(gcm_kind, aesgpu::ErrorKind::authentication) << gcm_message;
    EXPECT_NE(gcm_message.find("its first byte is what a gcm file's would be"), std::string::npos) << gcm_message;

    write_file(dir / "ecb", openssl_passphrase_file(EVP_aes_256_ecb(), "secret", 5, data));
    settings.associated_data = "context";
    const auto [ecb_kind, ecb_message] =
        error_thrown([&] { aesgpu::cipher_file(dir / "ecb", dir / "out", settings, passphrase); });
    EXPECT_EQ(ecb_kind, aesgpu::ErrorKind::format) << ecb_message;
    EXPECT_NE(ecb_message.find("is no gcm file made with a passphrase, and associated_data and segment_bytes are for"),
              std::string::npos)
        << ecb_message;
    EXPECT_FALSE(fs::exists(dir / "out"));
}

// A range of a GCM file: its bytes alone, from the segments that hold them; past the end, nothing
// written; of another mode, refused.
TEST(PublicCipherFile, ReadsARangeOfAGcmFile) {
    Directory dir;
    const Bytes data = random_bytes(3 * 65536 + 1234);
    write_file(dir / "plain", data);
    aesgpu::Key key = aesgpu::Key::raw(random_bytes(16));
    aesgpu::Settings settings = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm);
    settings.segment_bytes = 65536;
    aesgpu::cipher_file(dir / "plain", dir / "gcm", settings, key);
    settings.direction = aesgpu::Direction::decrypt;
    settings.range = aesgpu::Range{100000, 70000};
    const aesgpu::Result result = aesgpu::cipher_file(dir / "gcm", dir / "part", settings, key);
    EXPECT_EQ(read_file(dir / "part"), Bytes(data.begin() + 100000, data.begin() + 170000));
    EXPECT_EQ(result.bytes_written, 70000u);
    EXPECT_LT(result.bytes_read, 3 * 65536u) << "only the segments that hold the range are read";
    settings.range = aesgpu::Range{data.size() - 10, std::nullopt};
    aesgpu::cipher_file(dir / "gcm", dir / "tail", settings, key);
    EXPECT_EQ(read_file(dir / "tail"), Bytes(data.end() - 10, data.end()));
    settings.range = aesgpu::Range{data.size() - 10, 11};
    const auto [past_kind, past] = error_thrown([&] { aesgpu::cipher_file(dir / "gcm", dir / "past", settings, key); });
    EXPECT_EQ(past_kind, aesgpu::ErrorKind::format) << past;
    EXPECT_FALSE(fs::exists(dir / "past"));
    settings.mode = aesgpu::Mode::ecb;
    settings.segment_bytes = 0;
    const auto [ecb_kind, ecb] = error_thrown([&] { aesgpu::cipher_file(dir / "gcm", dir / "ecb", settings, key); });
    EXPECT_EQ(ecb_kind, aesgpu::ErrorKind::settings);
    EXPECT_EQ(ecb, "range applies to mode gcm only");
}

// What a range cannot be is refused before a passphrase is asked for: a range from a pipe (the
// header read from it already) or of a file that reads as another mode; io direct with a range,
// and a negative Descriptor, before anything is opened.
TEST(PublicCipherFile, AnImpossibleRangeIsRefusedBeforeThePassphraseIsAskedFor) {
    Directory dir;
    write_file(dir / "plain", random_bytes(100000));
    aesgpu::Key passphrase = aesgpu::Key::passphrase("secret");
    aesgpu::cipher_file(dir / "plain", dir / "gcm", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm), passphrase);
    aesgpu::cipher_file(dir / "plain", dir / "ecb", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb), passphrase);
    int asked = 0;
    const auto prompt = [&asked] {
        return aesgpu::Key::passphrase_prompt([&asked](std::span<char> buffer) {
            ++asked;
            const std::string_view secret = "secret";
            std::copy(secret.begin(), secret.end(), buffer.begin());
            return secret.size();
        });
    };
    aesgpu::Settings settings = cpu(aesgpu::Direction::decrypt, aesgpu::Mode::gcm);
    settings.range = aesgpu::Range{0, 5};
    int ends[2];
    ASSERT_EQ(pipe(ends), 0);
    const Bytes file = read_file(dir / "gcm");
    std::thread writer([&] {
        (void)!write(ends[1], file.data(), std::min<std::size_t>(file.size(), 4096));
        close(ends[1]);
    });
    aesgpu::Key from_pipe = prompt();
    const auto [pipe_kind, pipe_message] =
        error_thrown([&] { aesgpu::cipher_file(aesgpu::Descriptor{ends[0]}, dir / "out", settings, from_pipe); });
    writer.join();
    close(ends[0]);
    EXPECT_EQ(pipe_kind, aesgpu::ErrorKind::settings) << pipe_message;
    EXPECT_NE(pipe_message.find("a file that can seek"), std::string::npos) << pipe_message;
    settings.mode.reset();
    aesgpu::Key of_ecb = prompt();
    const auto [ecb_kind, ecb_message] =
        error_thrown([&] { aesgpu::cipher_file(dir / "ecb", dir / "out", settings, of_ecb); });
    EXPECT_EQ(ecb_kind, aesgpu::ErrorKind::settings) << ecb_message;
    EXPECT_NE(ecb_message.find("a GCM stream only"), std::string::npos) << ecb_message;
    EXPECT_EQ(asked, 0) << "no passphrase is asked for a range that cannot be read";
    EXPECT_FALSE(fs::exists(dir / "out"));
    settings.mode = aesgpu::Mode::gcm;
    settings.io = aesgpu::IoChoice::direct;
    expect_settings_refused(dir / "gcm", dir / "out", settings, passphrase, "io direct with a range");
    settings.io = aesgpu::IoChoice::automatic;
    const auto [kind, message] =
        error_thrown([&] { aesgpu::cipher_file(aesgpu::Descriptor{-1}, dir / "out", settings, passphrase); });
    EXPECT_EQ(kind, aesgpu::ErrorKind::settings) << message;
    EXPECT_EQ(message, "input: descriptor -1 is no open descriptor");
}

// A passphrase setting the file's own header gives is refused where the mode read is GCM, as it is
// where mode gcm is given.
TEST(PublicCipherFile, AFileReadAsGcmRefusesTheKeySizeItsHeaderGives) {
    Directory dir;
    write_file(dir / "plain", random_bytes(1000));
    aesgpu::Key passphrase = aesgpu::Key::passphrase("secret");
    aesgpu::cipher_file(dir / "plain", dir / "gcm", cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm), passphrase);
    aesgpu::Settings settings = cpu(aesgpu::Direction::decrypt, aesgpu::Mode::gcm);
    settings.mode.reset();
    settings.passphrase_key_bits = 128;
    expect_settings_refused(dir / "gcm", dir / "out", settings, passphrase, "passphrase_key_bits: ");
}

// Any descriptor as input and output, not only standard input and output: here the two ends of
// two pipes, none of them 0 or 1. The library reads and writes them and closes neither.
TEST(PublicCipherFile, ReadsAndWritesDescriptorsTheCallerOpened) {
    const Bytes data = random_bytes(300000);
    const Bytes key = random_bytes(16);
    int in[2];
    int out[2];
    ASSERT_EQ(pipe(in), 0);
    ASSERT_EQ(pipe(out), 0);
    ASSERT_GT(std::min({in[0], in[1], out[0], out[1]}), 1);
    std::thread writer([&] {
        for (std::size_t done = 0; done < data.size();) {
            const ssize_t wrote = write(in[1], data.data() + done, data.size() - done);
            if (wrote <= 0) break;
            done += std::size_t(wrote);
        }
        close(in[1]);
    });
    Bytes received;
    std::thread reader([&] {
        std::uint8_t buffer[65536];
        for (ssize_t got; (got = read(out[0], buffer, sizeof buffer)) > 0;)
            received.insert(received.end(), buffer, buffer + got);
    });
    aesgpu::Key raw = aesgpu::Key::raw(key);
    const aesgpu::Result result = aesgpu::cipher_file(aesgpu::Descriptor{in[0]}, aesgpu::Descriptor{out[1]},
                                                      cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb), raw);
    EXPECT_NE(fcntl(out[1], F_GETFD), -1) << "the caller's output descriptor is still open";
    close(out[1]);
    writer.join();
    reader.join();
    EXPECT_EQ(received, openssl(EVP_aes_128_ecb(), key, nullptr, data));
    EXPECT_EQ(result.bytes_read, data.size());
    EXPECT_NE(fcntl(in[0], F_GETFD), -1) << "the caller's input descriptor is still open";
    close(in[0]);
}

// A value outside its enum (a cast, a file read without checking) is refused as any bad setting,
// before anything is opened; it used to run (Direction(9) decrypted without taking the padding off).
TEST(PublicCipherFile, ValuesOutsideTheirEnumsAreRefused) {
    Directory dir;
    write_file(dir / "in", random_bytes(1000));
    aesgpu::Key key = aesgpu::Key::raw(random_bytes(16));
    const auto refused = [&](const aesgpu::Settings &settings, const std::string &words) {
        expect_settings_refused(dir / "in", dir / "out", settings, key, words);
    };
    aesgpu::Settings settings = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    settings.direction = static_cast<aesgpu::Direction>(9);
    refused(settings, "direction holds 9, which is no Direction");
    settings = cpu(aesgpu::Direction::encrypt, static_cast<aesgpu::Mode>(7));
    refused(settings, "mode holds 7, which is no Mode");
    settings = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    settings.backend = static_cast<aesgpu::BackendChoice>(-1);
    refused(settings, "backend holds -1, which is no BackendChoice");
    settings = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    settings.io = static_cast<aesgpu::IoChoice>(3);
    refused(settings, "io holds 3, which is no IoChoice");
}

// CBC takes an IV as CTR does, and its errors say CBC.
TEST(PublicCipherFile, CbcsIvErrorsNameCbc) {
    Directory dir;
    write_file(dir / "in", random_bytes(1000));
    aesgpu::Key raw = aesgpu::Key::raw(random_bytes(16));
    aesgpu::Key passphrase = aesgpu::Key::passphrase("pw");
    const auto message = [&](const aesgpu::Settings &settings, aesgpu::Key &key) {
        return error_thrown([&] { aesgpu::cipher_file(dir / "in", dir / "out", settings, key); }).second;
    };
    EXPECT_EQ(message(cpu(aesgpu::Direction::encrypt, aesgpu::Mode::cbc), raw),
              "iv is required for mode cbc with a raw key: a fixed IV would give equal starts equal ciphertext");
    aesgpu::Settings with_iv = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::cbc);
    with_iv.iv.emplace();
    EXPECT_EQ(message(with_iv, passphrase), "iv applies to modes ctr and cbc with a raw key only (a passphrase "
                                            "derives its own)");
    with_iv.mode = aesgpu::Mode::gcm;
    EXPECT_EQ(message(with_iv, raw), "iv applies to modes ctr and cbc with a raw key only (a passphrase derives its "
                                     "own)");
}

// As the command refuses it: a task whose output exists now and is another task's input (under any
// name) would replace that input before it is read. Refused before any work.
TEST(PublicCipherFiles, AnOutputThatIsAnotherTasksInputRefusesTheRun) {
    Directory dir;
    const Bytes first = random_bytes(3000);
    write_file(dir / "a", first);
    write_file(dir / "b.aes", random_bytes(4000));
    fs::create_hard_link(dir / "b.aes", dir / "b.other");
    const Bytes second = read_file(dir / "b.aes");
    aesgpu::Key key = aesgpu::Key::raw(random_bytes(16));
    aesgpu::Settings settings = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ctr);
    settings.iv.emplace();
    settings.overwrite = true;
    for (const char *later : {"b.aes", "b.other"}) {
        const std::vector<aesgpu::FileTask> tasks{{dir / "a", dir / "b.aes"}, {dir / later, dir / "c"}};
        const auto [kind, message] = error_thrown([&] { (void)aesgpu::cipher_files(tasks, settings, key); });
        EXPECT_EQ(kind, aesgpu::ErrorKind::settings);
        EXPECT_NE(message.find("the output of task 0 is the input of task 1"), std::string::npos) << message;
        EXPECT_TRUE(read_file(dir / "b.aes") == second);
        EXPECT_FALSE(fs::exists(dir / "c"));
    }
}

// Two calls removing one input at once: the one that takes it succeeds; the other fails, and as an
// Error promises, its output is absent. Both have read the input (they meet in starting()).
TEST(PublicCipherFile, TwoCallsRemovingOneInputLeaveTheLosersOutputAbsent) {
    Directory dir;
    const Bytes plain = random_bytes(20000);
    write_file(dir / "in", plain);
    aesgpu::Key key = aesgpu::Key::raw(random_bytes(16));
    aesgpu::Settings settings = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::gcm);
    settings.remove_input = true;
    std::mutex mutex;
    std::condition_variable met;
    int started = 0;
    class Meeting final : public aesgpu::Observer {
    public:
        Meeting(std::mutex &m, std::condition_variable &c, int &s) : mutex_(m), met_(c), started_(s) {}
        void starting(const aesgpu::Plan &) override {
            std::unique_lock lock(mutex_);
            ++started_;
            met_.notify_all();
            EXPECT_TRUE(met_.wait_for(lock, std::chrono::seconds(20), [this] { return started_ == 2; }));
        }

    private:
        std::mutex &mutex_;
        std::condition_variable &met_;
        int &started_;
    };
    std::array<std::optional<aesgpu::Result>, 2> results;
    std::array<std::optional<aesgpu::Error>, 2> errors;
    std::vector<std::thread> threads;
    for (int i = 0; i < 2; ++i) {
        threads.emplace_back([&, i] {
            Meeting meeting(mutex, met, started);
            try {
                results[i] =
                    aesgpu::cipher_file(dir / "in", dir / ("out" + std::to_string(i)).c_str(), settings, key, &meeting);
            } catch (const aesgpu::Error &error) {
                errors[i] = error;
            }
        });
    }
    for (std::thread &thread : threads) thread.join();
    EXPECT_FALSE(fs::exists(dir / "in"));
    ASSERT_EQ(int(results[0].has_value()) + int(results[1].has_value()), 1);
    const int winner = results[0] ? 0 : 1;
    EXPECT_TRUE(results[winner]->input_removed);
    EXPECT_TRUE(fs::exists(dir / ("out" + std::to_string(winner)).c_str()));
    ASSERT_TRUE(errors[1 - winner]);
    EXPECT_EQ(errors[1 - winner]->kind(), aesgpu::ErrorKind::io) << errors[1 - winner]->what();
    EXPECT_FALSE(fs::exists(dir / ("out" + std::to_string(1 - winner)).c_str())) << errors[1 - winner]->what();
}

TEST(PublicCipherFile, AnExistingOutputIsReplacedOnlyWhenAskedAndAKeyFileOthersReadIsTold) {
    Directory dir;
    const Bytes data = random_bytes(5000);
    write_file(dir / "in", data);
    write_file(dir / "out", Bytes{'k', 'e', 'e', 'p'});
    const Bytes key = random_bytes(16);
    write_file(dir / "key", key);
    fs::permissions(dir / "key", fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read);
    std::vector<std::string> warnings;
    aesgpu::Key key_file = aesgpu::Key::key_file(dir / "key", [&](std::string_view w) { warnings.emplace_back(w); });
    aesgpu::Settings settings = cpu(aesgpu::Direction::encrypt, aesgpu::Mode::ecb);
    EXPECT_EQ(kind_thrown([&] { aesgpu::cipher_file(dir / "in", dir / "out", settings, key_file); }),
              aesgpu::ErrorKind::io);
    EXPECT_EQ(read_file(dir / "out"), (Bytes{'k', 'e', 'e', 'p'}));
    settings.overwrite = true;
    aesgpu::cipher_file(dir / "in", dir / "out", settings, key_file);
    EXPECT_EQ(read_file(dir / "out"), openssl(EVP_aes_128_ecb(), key, nullptr, data));
    EXPECT_EQ(warnings.size(), 1u) << "the key file is read once, when first needed";
    EXPECT_STREQ(aesgpu::version(), AESGPU_EXPECTED_VERSION);
}

} // namespace

namespace {

// Where the machine has an NVIDIA device node, a GPU that cannot be used is a failure, not a skip.
bool gpu_expected() {
    return fs::exists("/dev/nvidia0");
}

TEST(PublicCipherFile, TheGpusAloneAndBesideTheCpuGiveOpensslsBytes) {
    Directory dir;
    const Bytes data = random_bytes(40 * (1 << 20) + 3);
    write_file(dir / "in", data);
    const Bytes key = random_bytes(32);
    aesgpu::Key raw = aesgpu::Key::raw(key);
    const Bytes expected = openssl(EVP_aes_256_ecb(), key, nullptr, data);
    for (const aesgpu::BackendChoice backend : {aesgpu::BackendChoice::gpu, aesgpu::BackendChoice::all}) {
        aesgpu::Settings settings;
        settings.mode = aesgpu::Mode::ecb;
        settings.backend = backend;
        settings.wait_for_gpu = backend == aesgpu::BackendChoice::gpu; // else the CPU may do it all as they start
        settings.overwrite = true;
        Recorder told;
        aesgpu::Result result;
        try {
            result = aesgpu::cipher_file(dir / "in", dir / "out", settings, raw, &told);
        } catch (const aesgpu::Error &error) {
            if (error.kind() == aesgpu::ErrorKind::gpu && !gpu_expected()) GTEST_SKIP() << error.what();
            throw;
        }
        EXPECT_EQ(read_file(dir / "out"), expected);
        std::uint64_t gpu_bytes = 0;
        std::uint64_t all_bytes = 0;
        for (const aesgpu::LaneResult &lane : result.lanes) {
            all_bytes += lane.bytes;
            if (lane.lane.is_gpu()) gpu_bytes += lane.bytes;
            EXPECT_EQ(lane.lane.is_gpu(), lane.lane.name.starts_with("GPU")) << lane.lane.name;
        }
        EXPECT_EQ(all_bytes, expected.size()) << "the lanes together ciphered the padded input once";
        if (settings.wait_for_gpu) {
            EXPECT_EQ(gpu_bytes, all_bytes) << "every block through a GPU";
        }
        EXPECT_EQ(told.lanes.size(), result.lanes.size());
        EXPECT_TRUE(
            std::any_of(told.lanes.begin(), told.lanes.end(), [](const aesgpu::Lane &lane) { return lane.is_gpu(); }));
    }
}

} // namespace
