// SPDX-License-Identifier: Apache-2.0
#include "support/test_support.hpp"

#include "common/errors.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace aesgpu::test {

namespace {

std::string trim(const std::string &text) {
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::mt19937_64 &generator() {
    static std::mt19937_64 engine(test_seed());
    return engine;
}

} // namespace

std::uint64_t test_seed() {
    static const std::uint64_t seed = []() -> std::uint64_t {
        if (const char *fixed = std::getenv("AESGPU_TEST_SEED"))
            return std::uint64_t{std::strtoull(fixed, nullptr, 10)};
        std::random_device device;
        return (std::uint64_t{device()} << 32) ^ device();
    }();
    return seed;
}

Bytes from_hex(const std::string &hex) {
    if (hex.size() % 2 != 0) throw std::invalid_argument("odd-length hex: " + hex);
    Bytes bytes(hex.size() / 2);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        bytes[i] = static_cast<std::uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
    }
    return bytes;
}

std::string to_hex(const std::vector<std::uint8_t> &bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string hex;
    for (const auto b : bytes) {
        hex += digits[b >> 4];
        hex += digits[b & 15];
    }
    return hex;
}

std::vector<Record> load_records(const std::string &file_name) {
    const std::string path = std::string(AESGPU_TESTVECTORS_DIR) + "/" + file_name;
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open test vectors " + path);
    std::vector<Record> records(1);
    std::string line;
    while (std::getline(in, line)) {
        line = trim(line.substr(0, line.find('#')));
        if (line.empty()) {
            if (!records.back().empty()) records.emplace_back();
            continue;
        }
        const auto equals = line.find('=');
        if (equals == std::string::npos) throw std::runtime_error("bad line in " + path + ": " + line);
        records.back()[trim(line.substr(0, equals))] = from_hex(trim(line.substr(equals + 1)));
    }
    if (records.back().empty()) records.pop_back();
    return records;
}

std::vector<KnownAnswer> load_known_answers(const std::string &file_name) {
    std::vector<KnownAnswer> answers;
    for (Record &record : load_records(file_name)) {
        KnownAnswer answer{file_name + " #" + std::to_string(answers.size() + 1), std::move(record["KEY"]),
                           std::move(record["PLAINTEXT"]), std::move(record["CIPHERTEXT"])};
        if (answer.key.empty() || answer.plaintext.empty() || answer.plaintext.size() != answer.ciphertext.size() ||
            record.size() != 3) {
            throw std::runtime_error("record " + answer.name + " needs exactly KEY, PLAINTEXT and CIPHERTEXT");
        }
        answers.push_back(std::move(answer));
    }
    return answers;
}

std::vector<KnownAnswer> all_known_answers() {
    auto answers = load_known_answers("fips197_appendix_c.txt");
    for (auto &answer : load_known_answers("sp800_38a_ecb.txt")) answers.push_back(std::move(answer));
    return answers;
}

Bytes random_bytes(std::size_t count) {
    Bytes bytes(count);
    auto &engine = generator();
    std::size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const std::uint64_t word = engine();
        for (int j = 0; j < 8; ++j) bytes[i + j] = static_cast<std::uint8_t>(word >> (8 * j));
    }
    for (; i < count; ++i) bytes[i] = static_cast<std::uint8_t>(engine());
    return bytes;
}

bool openssl_ecb(const Bytes &key, Direction direction, bool pkcs7_padding, const Bytes &in, Bytes &out) {
    const EVP_CIPHER *cipher = key.size() == 16   ? EVP_aes_128_ecb()
                               : key.size() == 24 ? EVP_aes_192_ecb()
                                                  : EVP_aes_256_ecb();
    std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    const int encrypt = direction == Direction::encrypt ? 1 : 0;
    if (!ctx || EVP_CipherInit_ex(ctx.get(), cipher, nullptr, key.data(), nullptr, encrypt) != 1) {
        throw std::runtime_error("EVP init failed");
    }
    EVP_CIPHER_CTX_set_padding(ctx.get(), pkcs7_padding ? 1 : 0);
    out.assign(in.size() + 16, 0);
    int written = 0;
    int final_written = 0;
    // Test inputs stay far below 2 GiB, so one update call is enough.
    if (EVP_CipherUpdate(ctx.get(), out.data(), &written, in.data(), static_cast<int>(in.size())) != 1) return false;
    if (EVP_CipherFinal_ex(ctx.get(), out.data() + written, &final_written) != 1) return false;
    out.resize(static_cast<std::size_t>(written + final_written));
    return true;
}

std::vector<CtrKnownAnswer> ctr_known_answers() {
    std::vector<CtrKnownAnswer> answers;
    const std::vector<Record> records = load_records("sp800_38a_ctr.txt");
    for (std::size_t i = 0; i < records.size(); ++i) {
        const Record &record = records[i];
        CtrKnownAnswer answer{{"sp800_38a_ctr.txt #" + std::to_string(i + 1), record.at("KEY"), record.at("PLAINTEXT"),
                               record.at("CIPHERTEXT")},
                              {}};
        const Bytes &iv = record.at("IV");
        if (iv.size() != answer.iv.size()) throw std::runtime_error("a CTR IV is 16 bytes");
        std::copy(iv.begin(), iv.end(), answer.iv.begin());
        answers.push_back(answer);
    }
    if (answers.size() != 3) throw std::runtime_error("sp800_38a_ctr.txt should hold 3 records");
    return answers;
}

std::vector<CounterBlock> carrying_ivs() {
    const auto iv_from = [](const std::string &hex) {
        const Bytes bytes = from_hex(hex);
        CounterBlock iv{};
        std::copy(bytes.begin(), bytes.end(), iv.begin());
        return iv;
    };
    const Bytes random = random_bytes(16);
    CounterBlock random_iv{};
    std::copy(random.begin(), random.end(), random_iv.begin());
    return {iv_from("0123456789abcdef01234567ffffffff"), iv_from("0123456789abcdeffffffffffffffffe"),
            iv_from("fffffffffffffffffffffffffffffffd"), random_iv};
}

namespace {

// One-shot EVP over whole blocks (no padding) with `cipher`: CTR's and CBC's references.
Bytes openssl_one_shot(const EVP_CIPHER *cipher, const Bytes &key, const CounterBlock &iv, Direction direction,
                       const Bytes &in) {
    std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    if (!ctx ||
        EVP_CipherInit_ex(ctx.get(), cipher, nullptr, key.data(), iv.data(), direction == Direction::encrypt) != 1 ||
        EVP_CIPHER_CTX_set_padding(ctx.get(), 0) != 1) {
        throw std::runtime_error("EVP init failed");
    }
    Bytes out(in.size());
    int written = 0;
    if (EVP_CipherUpdate(ctx.get(), out.data(), &written, in.data(), static_cast<int>(in.size())) != 1 ||
        static_cast<std::size_t>(written) != in.size()) {
        throw std::runtime_error("EVP AES failed");
    }
    return out;
}

} // namespace

Bytes openssl_ctr(const Bytes &key, const CounterBlock &iv, const Bytes &in) {
    const EVP_CIPHER *cipher = key.size() == 16   ? EVP_aes_128_ctr()
                               : key.size() == 24 ? EVP_aes_192_ctr()
                                                  : EVP_aes_256_ctr();
    return openssl_one_shot(cipher, key, iv, Direction::encrypt, in);
}

Bytes openssl_cbc(const Bytes &key, const CounterBlock &iv, Direction direction, const Bytes &in) {
    const EVP_CIPHER *cipher = key.size() == 16   ? EVP_aes_128_cbc()
                               : key.size() == 24 ? EVP_aes_192_cbc()
                                                  : EVP_aes_256_cbc();
    return openssl_one_shot(cipher, key, iv, direction, in);
}

namespace {

// Segments of a job from `first_segment` that `plaintext` fills: full ones, then the rest (at
// least one).
std::uint64_t job_segments(const SegmentGeometry &geometry, std::uint64_t first_segment, std::size_t plaintext) {
    std::uint64_t segments = 1;
    for (std::size_t covered = geometry.plaintext_capacity(first_segment); covered < plaintext; ++segments) {
        covered += geometry.plaintext_capacity(first_segment + segments);
    }
    return segments;
}

} // namespace

Bytes gcm_job_input(const SegmentGeometry &geometry, std::uint64_t first_segment, const Bytes &plaintext) {
    Bytes laid;
    std::size_t done = 0;
    const std::uint64_t segments = job_segments(geometry, first_segment, plaintext.size());
    for (std::uint64_t i = 0; i < segments; ++i) {
        const std::size_t length = std::min(plaintext.size() - done, geometry.plaintext_capacity(first_segment + i));
        laid.insert(laid.end(), plaintext.begin() + static_cast<std::ptrdiff_t>(done),
                    plaintext.begin() + static_cast<std::ptrdiff_t>(done + length));
        laid.insert(laid.end(), 16, 0);
        done += length;
    }
    return laid;
}

Bytes reference_gcm_segments(const Bytes &segment_key, const NoncePrefix &prefix, const SegmentGeometry &geometry,
                             const Bytes &plaintext) {
    return reference_gcm_job(segment_key, prefix, geometry, 0, plaintext, true);
}

Bytes reference_gcm_job(const Bytes &segment_key, const NoncePrefix &prefix, const SegmentGeometry &geometry,
                        std::uint64_t first_segment, const Bytes &plaintext, bool holds_last) {
    const EVP_CIPHER *cipher = segment_key.size() == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm();
    const std::uint64_t end = first_segment + job_segments(geometry, first_segment, plaintext.size());
    Bytes out;
    std::size_t done = 0;
    for (std::uint64_t number = first_segment; number < end; ++number) {
        const std::size_t length = std::min(plaintext.size() - done, geometry.plaintext_capacity(number));
        std::uint8_t nonce[12];
        std::copy(prefix.begin(), prefix.end(), nonce);
        for (int i = 0; i < 4; ++i) nonce[7 + i] = static_cast<std::uint8_t>(number >> (24 - 8 * i));
        nonce[11] = holds_last && number + 1 == end ? 1 : 0;
        std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
        Bytes segment(length + 16);
        int written = 0;
        int final_written = 0;
        if (!ctx || EVP_EncryptInit_ex(ctx.get(), cipher, nullptr, segment_key.data(), nonce) != 1 ||
            EVP_EncryptUpdate(ctx.get(), segment.data(), &written, plaintext.data() + done, static_cast<int>(length)) !=
                1 ||
            EVP_EncryptFinal_ex(ctx.get(), segment.data() + written, &final_written) != 1 ||
            EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, 16, segment.data() + length) != 1) {
            throw std::runtime_error("EVP AES-GCM failed");
        }
        out.insert(out.end(), segment.begin(), segment.end());
        done += length;
    }
    return out;
}

Bytes hkdf(const char *digest, const Bytes &key, const Bytes &salt, const Bytes &info, std::size_t length) {
    std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nullptr),
                                                                    EVP_PKEY_CTX_free);
    Bytes out(length);
    std::size_t out_length = length;
    if (!ctx || EVP_PKEY_derive_init(ctx.get()) != 1 ||
        EVP_PKEY_CTX_set_hkdf_md(ctx.get(), EVP_get_digestbyname(digest)) != 1 ||
        EVP_PKEY_CTX_set1_hkdf_salt(ctx.get(), salt.data(), static_cast<int>(salt.size())) != 1 ||
        EVP_PKEY_CTX_set1_hkdf_key(ctx.get(), key.data(), static_cast<int>(key.size())) != 1 ||
        EVP_PKEY_CTX_add1_hkdf_info(ctx.get(), info.data(), static_cast<int>(info.size())) != 1 ||
        EVP_PKEY_derive(ctx.get(), out.data(), &out_length) != 1 || out_length != length) {
        throw std::runtime_error("HKDF failed");
    }
    return out;
}

Bytes run_pipeline_on_files(CipherBackend &backend, const Bytes &input, const PipelineOptions &options) {
    TempDir dir;
    write_file(dir.file("in"), input);
    InputSource source = InputSource::open(dir.file("in"));
    OutputSink sink = OutputSink::create(dir.file("out"), {});
    const PipelineStats stats = run_pipeline(source, sink, backend, options);
    sink.commit();
    Bytes output = read_file(dir.file("out"));
    EXPECT_EQ(stats.bytes_read, input.size());
    EXPECT_EQ(stats.bytes_written, output.size());
    return output;
}

TempDir::TempDir() : TempDir(std::filesystem::temp_directory_path()) {}

TempDir::TempDir(const std::filesystem::path &parent) {
    std::string pattern = (parent / "aesgpu-test-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
}

TempDir::~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

long long cached_bytes(const std::string &path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st {};
    long long cached = -1;
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
        const auto length = static_cast<std::size_t>(st.st_size);
        void *map = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, 0);
        const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        std::vector<unsigned char> resident((length + page - 1) / page);
        if (map != MAP_FAILED && ::mincore(map, length, resident.data()) == 0) {
            cached = static_cast<long long>(
                std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return (r & 1) != 0; }) * page);
        }
        if (map != MAP_FAILED) ::munmap(map, length);
    }
    ::close(fd);
    return cached;
}

bool on_tmpfs(const std::string &path) {
    struct statfs fs {};
    return ::statfs(path.c_str(), &fs) == 0 && fs.f_type == TMPFS_MAGIC;
}

void write_file(const std::string &path, const Bytes &bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + path);
}

Bytes read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::size_t count_entries(const std::filesystem::path &directory) {
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(directory), {}));
}

void expect_gcm_jobs_near_the_segment_limit(
    const std::function<std::unique_ptr<CipherBackend>(const Bytes &key, const CipherSpec &spec)> &make) {
    const Bytes key = random_bytes(16);
    CipherSpec encrypt(Direction::encrypt, Mode::gcm);
    const Bytes prefix = random_bytes(kGcmNoncePrefixBytes);
    std::copy(prefix.begin(), prefix.end(), encrypt.gcm.nonce_prefix.begin());
    encrypt.gcm.geometry = {4096, 24};
    CipherSpec decrypt = encrypt;
    decrypt.direction = Direction::decrypt;
    const auto encrypter = make(key, encrypt);
    const auto decrypter = make(key, decrypt);
    // Runs `job` over `input` in slot 0; returns the slot's bytes after it.
    const auto run = [](CipherBackend &backend, CipherJob job, const Bytes &input) {
        backend.configure_slots(2, 4 * 4096);
        std::memcpy(backend.slot_buffer(0).data(), input.data(), input.size());
        job.bytes = input.size();
        backend.submit(job);
        backend.wait(0);
        const auto *data = reinterpret_cast<const std::uint8_t *>(backend.slot_buffer(0).data());
        return Bytes(data, data + input.size());
    };
    // The last three segments a stream may have: 2^32 - 3 and - 2 full, 2^32 - 1 its end.
    const Bytes plain = random_bytes(2 * (4096 - 16) + 100);
    const std::uint64_t first = kMaxSegments - 3;
    const Bytes input = gcm_job_input(encrypt.gcm.geometry, first, plain);
    const CipherJob last_three{.first_segment = first, .segments = 3, .holds_last_segment = true};
    const Bytes expected = reference_gcm_job(key, encrypt.gcm.nonce_prefix, encrypt.gcm.geometry, first, plain, true);
    const Bytes ciphertext = run(*encrypter, last_three, input);
    EXPECT_EQ(to_hex(ciphertext), to_hex(expected)) << "segments 2^32 - 3 to 2^32 - 1";
    const Bytes back = run(*decrypter, last_three, expected);
    for (std::size_t at = 0, from = 0; at < back.size(); at += 4096, from += 4096 - 16) {
        const std::size_t text = std::min<std::size_t>(4096, back.size() - at) - 16;
        EXPECT_TRUE(std::equal(back.begin() + static_cast<std::ptrdiff_t>(at),
                               back.begin() + static_cast<std::ptrdiff_t>(at + text),
                               plain.begin() + static_cast<std::ptrdiff_t>(from)))
            << "segment " << first + at / 4096 << " did not decrypt back";
    }
    // A changed bit in the very last segment fails it, named by its number.
    Bytes changed = expected;
    changed[2 * 4096 + 50] ^= 0x04;
    try {
        (void)run(*decrypter, last_three, changed);
        ADD_FAILURE() << "a changed segment 2^32 - 1 passed";
    } catch (const AuthenticationFailed &e) {
        EXPECT_EQ(std::string(e.what()), "authentication failed in segment 4294967295");
    }
    // Past the limit, or segment 2^32 - 1 with more to come: refused before anything is ciphered.
    const struct {
        CipherJob job;
        std::size_t segments_of_input;
    } refused[] = {
        {{.first_segment = kMaxSegments - 2, .segments = 3, .holds_last_segment = true}, 3},
        {{.first_segment = kMaxSegments, .segments = 1, .holds_last_segment = true}, 1},
        {{.first_segment = kMaxSegments - 1, .segments = 1, .holds_last_segment = false}, 1},
        {{.first_segment = kMaxSegments - 2, .segments = 2, .holds_last_segment = false}, 2},
    };
    for (const auto &[job, segments_of_input] : refused) {
        SCOPED_TRACE("first segment " + std::to_string(job.first_segment) + ", " + std::to_string(job.segments) +
                     (job.holds_last_segment ? ", last" : ", more to come"));
        const Bytes full(segments_of_input * 4096, 0x5a);
        for (CipherBackend *backend : {encrypter.get(), decrypter.get()}) {
            backend->configure_slots(2, 4 * 4096);
            std::memcpy(backend->slot_buffer(0).data(), full.data(), full.size());
            CipherJob sized = job;
            sized.bytes = full.size();
            EXPECT_THROW(backend->submit(sized), TooManySegments);
            const auto *data = reinterpret_cast<const std::uint8_t *>(backend->slot_buffer(0).data());
            EXPECT_TRUE(std::equal(full.begin(), full.end(), data)) << "ciphered though refused";
        }
    }
}

} // namespace aesgpu::test
