// SPDX-License-Identifier: Apache-2.0
#include "app/info_command.hpp"

#include "aes_cpu/cpu_features.hpp"
#include "aes_cpu/openssl_backend.hpp"
#include "aes_gpu/device_probe.hpp"
#include "app/json_text.hpp"
#include "common/errors.hpp"
#include "common/units.hpp"
#include "engine/backend_selection.hpp"
#include "format/detect.hpp"
#include "io/input_source.hpp"

#include <sys/stat.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <array>
#include <limits>

#include <string>
#include <vector>

namespace aesgpu {

namespace {
const char *yes_no(bool value) {
    return value ? "yes" : "no";
}

// What `--backend auto` runs on here, named as the --json summaries name lanes.
std::string auto_lanes(const GpuProbe &gpu) {
    std::vector<int> devices;
    if (gpu.usable()) {
        for (const GpuDeviceInfo &device : gpu.devices) devices.push_back(device.index);
    }
    return auto_lane_names(devices);
}

void print_info_json(std::ostream &out, const CpuAesFeatures &cpu, const GpuProbe &gpu) {
    nlohmann::ordered_json devices = nlohmann::ordered_json::array();
    for (const GpuDeviceInfo &device : gpu.devices) {
        devices.push_back({{"index", device.index},
                           {"name", device.name},
                           {"multiprocessors", device.multiprocessors},
                           {"memory_bytes", device.global_memory_bytes},
                           {"compute_capability", fmt::format("{}.{}", device.compute_major, device.compute_minor)}});
    }
    const auto version_or_null = [](int version) {
        return version ? nlohmann::ordered_json(cuda_version_text(version)) : nlohmann::ordered_json(nullptr);
    };
    const nlohmann::ordered_json document{
        {"version", AESGPU_VERSION},
        {"openssl", openssl_version_text()},
        {"cpu_threads", default_cpu_threads()},
        {"cpu_aes", {{"aes_ni", cpu.aes_ni}, {"vaes", cpu.vaes}, {"avx512", cpu.avx512}}},
        {"cuda",
         {{"compiled_in", gpu.cuda_compiled_in},
          {"runtime", gpu.cuda_compiled_in ? version_or_null(gpu.runtime_version) : nullptr},
          {"driver", version_or_null(gpu.driver_version)}}},
        {"gpus", std::move(devices)},
        {"gpu_unavailable_reason",
         gpu.usable() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(gpu.unavailable_reason)},
        {"backend_auto", auto_lanes(gpu)}};
    out << json_text(document, 2) << "\n";
}

} // namespace

void print_info(std::ostream &out, bool json) {
    const CpuAesFeatures cpu = detect_cpu_aes_features();
    const GpuProbe gpu = probe_gpus();
    if (json) {
        print_info_json(out, cpu, gpu);
        return;
    }
    out << fmt::format("aesgpu {}\n", AESGPU_VERSION);
    out << fmt::format("OpenSSL:        {}\n", openssl_version_text());
    out << fmt::format("CPU threads:    {}\n", default_cpu_threads());
    out << fmt::format("CPU AES:        AES-NI {}, VAES {}, AVX-512 {}\n", yes_no(cpu.aes_ni), yes_no(cpu.vaes),
                       yes_no(cpu.avx512));

    out << fmt::format("CUDA support:   {}\n", gpu.cuda_compiled_in ? "compiled in" : "not compiled in");
    if (gpu.cuda_compiled_in) {
        out << fmt::format("CUDA runtime:   {}\n", cuda_version_text(gpu.runtime_version));
        out << fmt::format("CUDA driver:    {}\n",
                           gpu.driver_version ? cuda_version_text(gpu.driver_version) : std::string("none"));
    }
    for (const GpuDeviceInfo &device : gpu.devices) {
        out << fmt::format("GPU {}:          {}, {} SMs, {:.1f} GiB, compute capability {}.{}\n", device.index,
                           device.name, device.multiprocessors, double(device.global_memory_bytes) / double(1 << 30),
                           device.compute_major, device.compute_minor);
    }
    if (!gpu.usable()) out << fmt::format("GPU:            unavailable ({})\n", gpu.unavailable_reason);
    out << fmt::format("Backend auto:   {}\n", auto_lanes(gpu));
}

namespace {

struct FileFacts {
    std::optional<std::uint64_t> bytes; // none: a pipe
    CiphertextFacts facts;
};

FileFacts read_file_facts(const std::string &name) {
    struct stat named {};
    if (name != "-" && ::stat(name.c_str(), &named) == 0 && S_ISFIFO(named.st_mode)) {
        // Opening it would wait for a writer, and reading would take that writer's data.
        throw IoError(quoted_name(name) + " is a FIFO: info reads the start of files, which a FIFO would give up");
    }
    InputSource source = InputSource::open(name);
    std::array<std::byte, kCiphertextStartBytes> start{};
    const std::size_t length = source.peek(start);
    return {source.size(), ciphertext_facts(std::span(start).first(length),
                                            source.size().value_or(std::numeric_limits<std::uint64_t>::max()))};
}

// Another tool's file, in words: what it is and what opens it.
const char *describe(ForeignFormat format) {
    switch (format) {
    case ForeignFormat::gzip: return "gzip-compressed data, not aesgpu's (gunzip opens it)";
    case ForeignFormat::zstd: return "zstd-compressed data, not aesgpu's (unzstd opens it)";
    case ForeignFormat::xz: return "xz-compressed data, not aesgpu's (unxz opens it)";
    case ForeignFormat::age: return "an age-encrypted file (age-encryption.org/v1), not aesgpu's: age -d opens it";
    case ForeignFormat::openpgp_public_key:
        return "an OpenPGP message encrypted to a public key, not aesgpu's: gpg -d opens it";
    case ForeignFormat::openpgp_passphrase:
        return "an OpenPGP message encrypted with a passphrase (gpg -c), not aesgpu's: gpg -d opens it";
    case ForeignFormat::openpgp_armored: return "an ASCII-armored OpenPGP message, not aesgpu's: gpg -d opens it";
    case ForeignFormat::text: return "text (its start is printable UTF-8): not encrypted";
    }
    return "another tool's file";
}

const char *format_key(ForeignFormat format) {
    switch (format) {
    case ForeignFormat::gzip: return "gzip";
    case ForeignFormat::zstd: return "zstd";
    case ForeignFormat::xz: return "xz";
    case ForeignFormat::age: return "age";
    case ForeignFormat::openpgp_public_key:
    case ForeignFormat::openpgp_passphrase:
    case ForeignFormat::openpgp_armored: return "openpgp";
    case ForeignFormat::text: return "text";
    }
    return "foreign";
}

// "GCM with a passphrase (aesgpu's header): scrypt N = 2^16, r = 8, p = 1; AES-256; 1 MiB segments"
std::string describe(const CiphertextFacts &facts) {
    switch (facts.kind) {
    case CiphertextKind::gcm_passphrase:
        if (facts.cut_short) {
            return fmt::format("aesgpu's GCM passphrase header, cut short: it has {} of its {} bytes", *facts.cut_short,
                               kPassphraseHeaderBytes);
        }
        if (!facts.header) return "aesgpu's GCM passphrase header, damaged or of another version: " + facts.damaged;
        return fmt::format("GCM with a passphrase (aesgpu's header): scrypt N = 2^{}, r = {}, p = {}; AES-{}; "
                           "segments of {} bytes",
                           facts.header->cost.log2_n, facts.header->cost.r, facts.header->cost.p, facts.key_bytes * 8,
                           facts.header->segment_bytes);
    case CiphertextKind::tink_stream:
        return fmt::format("GCM with a raw {}-byte key (AES-{}), as a Tink stream starts (its header length, {}, "
                           "comes first; raw ECB, CTR or CBC starts so once in 256); the segment size is not "
                           "recorded",
                           facts.key_bytes, facts.key_bytes * 8, stream_header_bytes(facts.key_bytes));
    case CiphertextKind::openssl_salted:
        return "openssl enc with a passphrase ('Salted__' and a salt): the mode, digest and iteration count are not "
               "recorded (decrypt tells ECB, CBC and CTR apart by the length and padding; --md, --iter and "
               "--no-pbkdf2 give the rest)";
    case CiphertextKind::salted_cut_short: return "'Salted__' without a whole salt: cut short";
    case CiphertextKind::base64: return "base64 text (openssl enc -a): decode it first (base64 -d)";
    case CiphertextKind::foreign: return describe(*facts.foreign);
    case CiphertextKind::unrecognised: break;
    }
    return "no header: raw ECB, CTR or CBC, not recognisable";
}

const char *format_key(CiphertextKind kind) {
    switch (kind) {
    case CiphertextKind::gcm_passphrase: return "aesgpu_gcm_passphrase";
    case CiphertextKind::tink_stream: return "tink_gcm";
    case CiphertextKind::openssl_salted: return "openssl_salted";
    case CiphertextKind::salted_cut_short: return "openssl_salted_cut_short";
    case CiphertextKind::base64: return "base64";
    case CiphertextKind::foreign: break;
    case CiphertextKind::unrecognised: return "none";
    }
    return "foreign";
}

nlohmann::ordered_json facts_json(const std::string &name, const FileFacts &file) {
    const CiphertextFacts &facts = file.facts;
    const bool gcm = facts.kind == CiphertextKind::gcm_passphrase || facts.kind == CiphertextKind::tink_stream;
    nlohmann::ordered_json object{
        {"file", name},
        {"bytes", file.bytes ? nlohmann::ordered_json(*file.bytes) : nullptr},
        {"format", facts.foreign ? format_key(*facts.foreign) : format_key(facts.kind)},
        {"mode", gcm ? nlohmann::ordered_json("gcm") : nullptr},
        {"key_bits", facts.key_bytes ? nlohmann::ordered_json(facts.key_bytes * 8) : nullptr}};
    object["kdf"] = nullptr;
    object["segment_bytes"] = nullptr;
    if (facts.header) {
        object["kdf"] = {{"name", "scrypt"},
                         {"log2_n", facts.header->cost.log2_n},
                         {"r", facts.header->cost.r},
                         {"p", facts.header->cost.p}};
        object["segment_bytes"] = facts.header->segment_bytes;
    }
    if (!facts.damaged.empty()) object["error"] = facts.damaged;
    return object;
}

} // namespace

int print_file_info(std::ostream &out, const std::vector<std::string> &files, bool json) {
    int status = 0;
    for (const std::string &name : files) {
        const std::string shown = name == "-" ? "standard input" : printable(name);
        try {
            const FileFacts file = read_file_facts(name);
            if (json) {
                out << json_text(facts_json(name, file)) << "\n";
            } else if (file.bytes == 0) {
                out << shown << ": empty\n";
            } else {
                out << shown << ": "
                    << (file.bytes ? std::to_string(*file.bytes) + (*file.bytes == 1 ? " byte, " : " bytes, ")
                                   : std::string())
                    << describe(file.facts) << "\n";
            }
        } catch (const std::exception &e) {
            spdlog::error("{}", printable(e.what()));
            if (json) out << json_text(nlohmann::ordered_json{{"file", name}, {"error", printable(e.what())}}) << "\n";
            status = 1;
        }
    }
    return status;
}

} // namespace aesgpu
