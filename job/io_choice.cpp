// SPDX-License-Identifier: Apache-2.0
#include "job/io_choice.hpp"

#include "io/direct_io.hpp"

#include <utility>

namespace aesgpu {

namespace {

// automatic: why the page cache serves this run better, if it does.
std::optional<StaysBuffered> buffered_pays(std::size_t chunk_bytes, const InputSource &source, const OutputSink *sink,
                                           bool &cache_unseen) {
    if (!source.size() || (sink && !sink->withdrawable())) return StaysBuffered::not_regular_files;
    if (*source.size() < kDirectIoMinBytes) return StaysBuffered::small_file;
    if (chunk_bytes != 0 && chunk_bytes < kDirectIoMinChunkBytes) return StaysBuffered::small_chunk;
    const std::optional<bool> cached =
        mostly_in_page_cache(source.fd(), static_cast<std::uint64_t>(source.start_offset()), *source.size());
    if (cached.value_or(false)) return StaysBuffered::input_cached;
    cache_unseen = !cached.has_value();
    return std::nullopt;
}

} // namespace

DirectIoRefused::DirectIoRefused(bool writing_side, const std::string &file_name,
                                 std::optional<std::string> file_system_refusal)
    : IoError(file_system_refusal
                  ? (writing_side ? "cannot write " : "cannot read ") + file_name + " directly: " + *file_system_refusal
                  : (writing_side ? "direct I/O writes regular files only; " + file_name + " is written as it goes"
                                  : "direct I/O reads regular files only; " + file_name + " is read as it comes")),
      writing(writing_side), name(file_name), refusal(std::move(file_system_refusal)) {}

DirectIoOutcome choose_direct_io(IoChoice choice, std::size_t chunk_bytes, InputSource &source, OutputSink *sink) {
    DirectIoOutcome outcome;
    const bool forced = choice == IoChoice::direct;
    if (forced && !source.size()) throw DirectIoRefused(false, source.display_name(), std::nullopt);
    if (forced && sink && !sink->withdrawable()) throw DirectIoRefused(true, sink->display_name(), std::nullopt);
    if (choice == IoChoice::buffered) {
        outcome.stays_buffered = StaysBuffered::asked;
        return outcome;
    }
    if (choice == IoChoice::automatic) {
        outcome.stays_buffered = buffered_pays(chunk_bytes, source, sink, outcome.cache_unseen);
        if (outcome.stays_buffered) return outcome;
    }
    outcome.reads_refused = source.read_directly();
    if (outcome.reads_refused && forced) throw DirectIoRefused(false, source.display_name(), outcome.reads_refused);
    if (outcome.reads_refused) return outcome;
    outcome.reads_direct = true;
    if (!sink) return outcome;
    outcome.writes_refused = sink->write_directly();
    if (outcome.writes_refused && forced) throw DirectIoRefused(true, sink->display_name(), outcome.writes_refused);
    outcome.writes_direct = !outcome.writes_refused;
    return outcome;
}

} // namespace aesgpu
