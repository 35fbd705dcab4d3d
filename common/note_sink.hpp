// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where library code tells what a caller may want to know but cannot throw: a thread pool that
// goes on with fewer threads than asked, a GPU clean-up call that failed. The library never logs;
// the caller decides (the command logs them, the public API hands them to its Observer).
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aesgpu {

enum class NoteLevel {
    info,    // the run goes on as well as it can (the command shows it with -v)
    warning, // something may be left that should not be (GPU memory not cleared)
};

class NoteSink {
public:
    virtual ~NoteSink() = default;
    // May be called from any thread, at once; must not throw. `what` lives only for the call.
    virtual void note(NoteLevel level, std::string_view what) noexcept = 0;
};

// Tells `sink`, where there is one.
inline void note_to(NoteSink *sink, NoteLevel level, std::string_view what) noexcept {
    if (sink) sink->note(level, what);
}

// Notes from any thread, held until the caller's thread tells them (a caller's callbacks run there).
class NoteQueue final : public NoteSink {
public:
    void note(NoteLevel level, std::string_view what) noexcept override {
        try {
            const std::lock_guard lock(mutex_);
            queued_.emplace_back(level, std::string(what));
        } catch (...) {
            // No memory to hold it (or the lock failed): the note is lost, the run is not.
        }
    }
    // Calls tell(level, what) for each note queued so far, oldest first.
    template <typename Tell>
    void tell_queued(Tell &&tell) {
        std::vector<std::pair<NoteLevel, std::string>> queued;
        {
            const std::lock_guard lock(mutex_);
            queued.swap(queued_);
        }
        for (const auto &[level, what] : queued) tell(level, what);
    }

private:
    std::mutex mutex_;
    std::vector<std::pair<NoteLevel, std::string>> queued_;
};

} // namespace aesgpu
