// SPDX-License-Identifier: Apache-2.0
#pragma once
#include "app/options.hpp"
#include "common/note_sink.hpp"

#include <string_view>

namespace aesgpu {

// Logs go to stderr as "aesgpu: LEVEL: message"; stdout carries only data. Default level warn;
// -v info, -vv debug; -q errors only.
void configure_logging(const LogOptions &options);

// What the library notes, in the log: info with -v, warnings always.
void log_note(NoteLevel level, std::string_view what);

// The library's notes from any thread, logged as they come (spdlog's loggers are thread-safe).
class LoggedNotes final : public NoteSink {
public:
    void note(NoteLevel level, std::string_view what) noexcept override;
};

} // namespace aesgpu
