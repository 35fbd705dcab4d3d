// SPDX-License-Identifier: Apache-2.0
#include "app/logging.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <string_view>

namespace aesgpu {

namespace {

// "warning: " and "debug: " mark those levels; errors and info read as plain sentences, the way
// Unix tools report ("aesgpu: cannot open 'x': No such file or directory").
class LevelPrefix final : public spdlog::custom_flag_formatter {
public:
    void format(const spdlog::details::log_msg &message, const std::tm &, spdlog::memory_buf_t &dest) override {
        std::string_view prefix;
        if (message.level == spdlog::level::warn)
            prefix = "warning: ";
        else if (message.level <= spdlog::level::debug)
            prefix = "debug: ";
        dest.append(prefix.data(), prefix.data() + prefix.size());
    }
    [[nodiscard]] std::unique_ptr<custom_flag_formatter> clone() const override {
        return std::make_unique<LevelPrefix>();
    }
};

} // namespace

void configure_logging(const LogOptions &options) {
    static const auto logger = [] {
        // https://no-color.org: a non-empty NO_COLOR turns colour off.
        const char *no_color = std::getenv("NO_COLOR");
        const bool colour = no_color == nullptr || *no_color == '\0';
        auto created =
            spdlog::stderr_color_mt("aesgpu", colour ? spdlog::color_mode::automatic : spdlog::color_mode::never);
        auto formatter = std::make_unique<spdlog::pattern_formatter>();
        formatter->add_flag<LevelPrefix>('*').set_pattern("aesgpu: %^%*%$%v");
        created->set_formatter(std::move(formatter));
        spdlog::set_default_logger(created);
        return created;
    }();
    auto level = spdlog::level::warn;
    if (options.quiet)
        level = spdlog::level::err;
    else if (options.verbosity == 1)
        level = spdlog::level::info;
    else if (options.verbosity >= 2)
        level = spdlog::level::debug;
    logger->set_level(level);
}

void log_note(NoteLevel level, std::string_view what) {
    spdlog::log(level == NoteLevel::warning ? spdlog::level::warn : spdlog::level::info, "{}", what);
}

void LoggedNotes::note(NoteLevel level, std::string_view what) noexcept {
    try {
        log_note(level, what);
    } catch (...) {
        // spdlog reports its own failures; a note must not end the run.
    }
}

} // namespace aesgpu
