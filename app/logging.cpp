#include "app/logging.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace aesgpu {

void configure_logging(const LogOptions &options) {
    static const auto logger = [] {
        auto created = spdlog::stderr_color_mt("aesgpu");
        created->set_pattern("aesgpu: %^%l%$: %v");
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

} // namespace aesgpu
