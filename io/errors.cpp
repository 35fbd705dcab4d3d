#include "io/errors.hpp"

#include <cstring>
#include <string>

namespace aesgpu {

std::string errno_message(std::string_view action, std::string_view subject, int err) {
    const std::string_view reason = std::strerror(err);
    std::string message;
    message.reserve(action.size() + subject.size() + reason.size() + 3);
    message.append(action).append(" ").append(subject).append(": ").append(reason);
    return message;
}

} // namespace aesgpu
