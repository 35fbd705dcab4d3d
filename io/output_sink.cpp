// SPDX-License-Identifier: Apache-2.0
#include "io/output_sink.hpp"

#include "common/errors.hpp"
#include "io/direct_io.hpp"
#include "io/hidden_name.hpp"
#include "io/input_source.hpp"
#include "io/io_threads.hpp"

#include <fcntl.h>
#include <linux/fs.h>    // FS_IOC_GETFLAGS, FS_APPEND_FL
#include <linux/magic.h> // OVERLAYFS_SUPER_MAGIC
#include <stdio.h>       // renameat2
#include <sys/ioctl.h>
#include <sys/vfs.h> // fstatfs
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <filesystem>
#include <functional>
#include <utility>
#include <vector>

namespace aesgpu {

namespace {

OutputNeedsOverwrite exists_error(const std::string &name) {
    return {name + " already exists", "overwrite"};
}

// What a name stands for: the file there (a symbolic link itself, never what it points to), or
// nothing yet.
struct Target {
    std::filesystem::path path; // where a new file goes, or the file it replaces
    bool exists = false;
    struct stat status {}; // of what is there: a link's own, for a link
    bool is_link = false;  // a symbolic link, which the output replaces as any file
};

// Names that stand for a stream of this process or the system's, whose symbolic links are there to
// be written through: /dev/stdout and /dev/stderr (links in /dev itself, which only root writes),
// /dev/fd/N and /proc/self/fd/N (procfs). Not /dev/shm or /dev/mqueue: anyone may make links there.
bool names_a_system_stream(const std::string &given) {
    const std::filesystem::path path = given;
    const std::filesystem::path parent = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    struct statfs file_system {};
    if (::statfs(parent.c_str(), &file_system) == 0 && file_system.f_type == PROC_SUPER_MAGIC) return true;
    std::error_code error;
    return std::filesystem::canonical(parent, error) == "/dev" && !error;
}

Target resolve_target(const std::string &given) {
    Target target{.path = given};
    const bool link = ::lstat(given.c_str(), &target.status) == 0 && S_ISLNK(target.status.st_mode);
    if (link && !names_a_system_stream(given)) {
        target.exists = true;
        target.is_link = true;
        return target;
    }
    if (::stat(given.c_str(), &target.status) == 0) {
        target.exists = true;
        // A system stream that is a regular file (/dev/fd/3 of `3>file`) is replaced where it lies.
        // (Others are opened by the name given.)
        if (link && S_ISREG(target.status.st_mode)) {
            std::error_code error;
            target.path = std::filesystem::canonical(given, error);
            if (error) throw IoError(errno_message("cannot use", quoted_name(given), error.value()));
        }
        return target;
    }
    if (errno != ENOENT) throw IoError(errno_message("cannot use", quoted_name(given), errno));
    return target;
}

// A hidden file beside the target, made by `make` (which returns 0 or an errno) and registered for
// removal on a signal in the same step; another name is tried while one is taken.
struct HiddenFile {
    std::string name;
    InterruptCleanup cleanup;
};

HiddenFile make_hidden_file(CleanupRegistry *cleanups, int directory, const std::string &target_name,
                            const std::function<int(const char *)> &make, std::string_view failure,
                            std::string_view subject) {
    int error = EEXIST;
    for (int attempt = 0; attempt < 100 && error == EEXIST; ++attempt) {
        std::string name = hidden_name(target_name);
        InterruptCleanup cleanup = InterruptCleanup::after(
            cleanups,
            [&] {
                error = make(name.c_str());
                return error == 0;
            },
            [directory, name] { (void)::unlinkat(directory, name.c_str(), 0); });
        if (error == 0) return {std::move(name), std::move(cleanup)};
    }
    throw IoError(errno_message(failure, subject, error));
}

std::string fd_link(int fd) {
    return "/proc/self/fd/" + std::to_string(fd);
}

// An unnamed file in `directory`, created with the mode the kernel gives a new file there (the
// umask, or the directory's default ACL); nothing when the file system or kernel has no O_TMPFILE,
// or when it could not be linked by name later (no /proc).
UniqueFd open_unnamed_temporary(int directory, const std::string &display_directory) {
    UniqueFd fd(::openat(directory, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0666));
    if (!fd.valid()) {
        if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL || errno == ENOENT) return {};
        throw IoError(errno_message("cannot create a file in", display_directory, errno));
    }
    struct stat opened {};
    struct stat linked {};
    if (::fstat(fd.get(), &opened) != 0 || ::stat(fd_link(fd.get()).c_str(), &linked) != 0 ||
        !same_file(opened, linked)) {
        return {};
    }
    return fd;
}

// The mode the kernel gives a new file in `directory` (the umask, or the directory's default
// ACL), learnt from an empty probe file made and removed in one step: the output itself is
// created 0600, so no one can open it before it is complete. 0600 when no probe can be made.
mode_t new_file_mode(CleanupRegistry *cleanups, int directory, const std::string &target_name) {
    const std::string probe = hidden_name(target_name);
    mode_t mode = 0600;
    (void)InterruptCleanup::after(
        cleanups,
        [&] {
            UniqueFd fd(::openat(directory, probe.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666));
            struct stat st {};
            if (fd.valid() && ::fstat(fd.get(), &st) == 0) mode = st.st_mode & 0777;
            if (fd.valid()) (void)::unlinkat(directory, probe.c_str(), 0);
            return false; // nothing left to undo
        },
        {});
    return mode;
}

// True when the directory (an O_PATH descriptor) has the append-only attribute (chattr +a): a
// file can be added there, but none renamed or removed. False where the flags cannot be read.
bool append_only(int directory) {
    const UniqueFd fd(::openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK));
    int flags = 0;
    return fd.valid() && ::ioctl(fd.get(), FS_IOC_GETFLAGS, &flags) == 0 && (flags & FS_APPEND_FL) != 0;
}

void refuse_same_file(const struct stat &target, const OutputPolicy &policy, const std::string &name) {
    if (policy.input_status && same_file(target, *policy.input_status)) {
        throw IoError("refusing to write " + name + ": it is the input file");
    }
}

} // namespace

OutputSink::OutputSink(Kind kind, UniqueFd owned, int fd, std::string display_name)
    : kind_(kind), owned_fd_(std::move(owned)), fd_(fd), display_name_(std::move(display_name)) {}

OutputSink::OutputSink(OutputSink &&other) noexcept
    : kind_(other.kind_), owned_fd_(std::move(other.owned_fd_)), fd_(std::exchange(other.fd_, -1)),
      display_name_(std::move(other.display_name_)), directory_(std::move(other.directory_)),
      target_name_(std::move(other.target_name_)), temporary_name_(std::exchange(other.temporary_name_, {})),
      interrupt_cleanups_(other.interrupt_cleanups_), cleanup_(std::move(other.cleanup_)),
      attributes_(other.attributes_), overwrite_(other.overwrite_), committed_(other.committed_),
      durable_(other.durable_), bytes_written_(other.bytes_written_), expected_size_(other.expected_size_),
      reserved_bytes_(other.reserved_bytes_), io_threads_(other.io_threads_), may_map_(other.may_map_),
      mapped_(std::move(other.mapped_)), direct_fd_(std::move(other.direct_fd_)),
      direct_alignment_(other.direct_alignment_), direct_queue_(std::move(other.direct_queue_)), notes_(other.notes_),
      held_back_(std::move(other.held_back_)), direct_refused_at_(other.direct_refused_at_), behind_(other.behind_) {
    other.mapped_.reset();
}

OutputSink::~OutputSink() {
    mapped_.reset();
    owned_fd_.reset(); // an unnamed temporary file not linked in is gone with its descriptor
    if (!temporary_name_.empty() && !committed_) (void)::unlinkat(directory_.get(), temporary_name_.c_str(), 0);
    cleanup_.release();
}

OutputSink OutputSink::standard_output(const struct stat *input_status) {
    return descriptor(STDOUT_FILENO, "standard output", input_status);
}

OutputSink OutputSink::descriptor(int fd, std::string name, const struct stat *input_status) {
    const int flags = ::fcntl(fd, F_GETFL);
    // main() puts an O_PATH descriptor, good for nothing, where standard output was closed.
    if (flags < 0 || (flags & O_PATH) != 0 || (flags & O_ACCMODE) == O_RDONLY) {
        throw IoError("cannot write to " + name + ": it is closed (or open for reading only)");
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw IoError(errno_message("cannot use", name, errno));
    // `aesgpu encrypt f -c >> f` would read its own output forever.
    if (S_ISREG(st.st_mode) && input_status && same_file(st, *input_status)) {
        throw IoError("refusing to write " + name + ": it is the input file");
    }
    enlarge_pipe_buffer(fd);
    return OutputSink(Kind::direct, UniqueFd{}, fd, std::move(name));
}

OutputSink OutputSink::create(const std::string &path, const OutputPolicy &policy) {
    if (path == "-") return standard_output(policy.input_status);
    const std::string name = quoted_name(path);
    const Target target = resolve_target(path);
    const bool regular_input = policy.input_status && S_ISREG(policy.input_status->st_mode);

    Attributes attributes;
    if (regular_input) {
        // The input's group too: its group bits are meant for that group, and where the process
        // may not set it (not a member) apply_attributes() drops them, as gzip does.
        attributes.mode = policy.input_status->st_mode & 0777;
        attributes.group = policy.input_status->st_gid;
        attributes.times_from = *policy.input_status;
    }
    struct stat standard_out {};
    if (target.exists && ::fstat(STDOUT_FILENO, &standard_out) == 0 && same_file(target.status, standard_out)) {
        // -o /dev/stdout, or the file standard output was redirected to: the same as -c.
        return standard_output(policy.input_status);
    }
    if (target.is_link) {
        // Never written through: whoever could make the link could aim it at any file of ours
        // (a directory another user may write). The output takes the link's place, as gzip's does.
        if (!policy.overwrite) throw OutputNeedsOverwrite(name + " is a symbolic link", "replace");
    } else if (target.exists) {
        const struct stat &existing = target.status;
        refuse_same_file(existing, policy, name);
        if (S_ISDIR(existing.st_mode)) throw IoError("cannot write " + name + ": it is a directory");
        if (S_ISBLK(existing.st_mode) && !policy.overwrite) throw BlockDeviceNeedsOverwrite(name);
        if (!S_ISREG(existing.st_mode)) {
            // A FIFO, a terminal or a device: nothing to replace atomically, so write straight into it.
            // A link put there since it was looked at is not followed (but a system stream's).
            const int no_follow = names_a_system_stream(path) ? 0 : O_NOFOLLOW;
            UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | no_follow));
            if (!fd.valid()) throw IoError(errno_message("cannot open", name, errno));
            enlarge_pipe_buffer(fd.get());
            const int raw = fd.get();
            return OutputSink(Kind::direct, std::move(fd), raw, name);
        }
        if (!policy.overwrite) throw exists_error(name);
        // -f replaces the contents as `> file` would: the owner, group and permissions stay (never
        // set-user-ID, set-group-ID or sticky), and never wider than the input's.
        attributes.mode = existing.st_mode & 0777 & (attributes.mode ? *attributes.mode : 0777);
        attributes.owner = existing.st_uid;
        attributes.group = existing.st_gid;
    }

    const std::filesystem::path directory_path =
        target.path.has_parent_path() ? target.path.parent_path() : std::filesystem::path(".");
    const std::string target_name = target.path.filename().string();
    const std::string display_directory = quoted_name(directory_path.string());
    if (target_name.empty()) throw IoError("cannot write " + name + ": a file name cannot end in '/'");
    if (target_name == "." || target_name == "..") throw IoError("cannot write " + name + ": it is a directory");
    UniqueFd directory(::open(directory_path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!directory.valid()) throw IoError(errno_message("cannot open the directory", display_directory, errno));

    Kind kind = Kind::unnamed_temporary;
    UniqueFd fd = policy.unnamed_temporary ? open_unnamed_temporary(directory.get(), display_directory) : UniqueFd();
    // Replacing a file, or naming a temporary one, ends in a rename that an append-only directory
    // refuses, and what was made for it could not be removed either: refuse before making anything.
    // (An unnamed temporary file is linked in as a new name, which such a directory allows.)
    if ((!fd.valid() || target.exists) && append_only(directory.get())) {
        throw IoError("cannot " + std::string(target.exists ? "replace " : "create ") + name + ": its directory " +
                      display_directory +
                      " is append-only (chattr +a), where nothing can be renamed or removed, so the output could "
                      "not be put in place whole; write it elsewhere");
    }
    std::string temporary_name;
    InterruptCleanup cleanup;
    if (!fd.valid()) {
        kind = Kind::named_temporary;
        const int dir = directory.get();
        if (!attributes.mode) attributes.mode = new_file_mode(policy.interrupt_cleanups, dir, target_name);
        // Private (0600) until it is complete.
        HiddenFile hidden = make_hidden_file(
            policy.interrupt_cleanups, dir, target_name,
            [&](const char *file) {
                fd = UniqueFd(::openat(dir, file, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600));
                return fd.valid() ? 0 : errno;
            },
            "cannot create a file in", display_directory);
        temporary_name = std::move(hidden.name);
        cleanup = std::move(hidden.cleanup);
    }

    const int raw = fd.get();
    OutputSink sink(kind, std::move(fd), raw, name);
    sink.directory_ = std::move(directory);
    sink.target_name_ = target_name;
    sink.temporary_name_ = std::move(temporary_name);
    sink.interrupt_cleanups_ = policy.interrupt_cleanups;
    sink.cleanup_ = std::move(cleanup);
    sink.attributes_ = attributes;
    sink.overwrite_ = policy.overwrite;
    sink.io_threads_ = policy.io_threads;
    sink.may_map_ = policy.io_threads > 1;
    return sink;
}

OutputSink OutputSink::discard() {
    return OutputSink(Kind::discard, UniqueFd{}, -1, "nothing (test only)");
}

void OutputSink::write_all(std::span<const std::byte> bytes) {
    write_gathered(std::span(&bytes, 1));
}

void OutputSink::write_gathered(std::span<const std::span<const std::byte>> parts) {
    const Gathered<const std::byte> bytes(parts);
    if (kind_ == Kind::discard) {
        bytes_written_ += bytes.size();
        return;
    }
    if (direct_fd_.valid()) {
        for (const std::span<const std::byte> part : parts) {
            write_held_back(); // these bytes bring no room for it
            const std::uint64_t at = bytes_written_;
            bytes_written_ += part.size(); // first: what write_direct holds back ends here
            write_direct(part, at);
        }
        return;
    }
    if (may_map_ && !mapped_ && bytes.size() >= 2 * kFileCopyPieces.min_piece_bytes) {
        if (auto writer =
                MappedFileWriter::start(fd_, display_name_, bytes_written_, expected_size_, io_threads_, notes_)) {
            mapped_.emplace(std::move(*writer));
        } else {
            may_map_ = false;
        }
    }
    if (mapped_) {
        mapped_->append(bytes);
    } else {
        for (const std::span<const std::byte> part : parts) write_sequential(part);
    }
    bytes_written_ += bytes.size();
    if (behind_.window) push_behind();
}

void OutputSink::write_with_room(std::span<std::byte> bytes, std::size_t room_before) {
    const std::size_t held = held_back_.size();
    const std::uint64_t at = bytes_written_ - held;
    if (!direct_fd_.valid() || held == 0 || held > room_before ||
        !direct_aligned(bytes.data() - held, at, 0, direct_alignment_)) {
        write_all(bytes);
        return;
    }
    std::byte *const start = bytes.data() - held;
    std::copy(held_back_.begin(), held_back_.end(), start);
    held_back_.clear();
    bytes_written_ += bytes.size(); // first: what write_direct holds back ends here
    write_direct({start, held + bytes.size()}, at);
}

// What write_direct held back goes through the page cache, at its place: the output's end, as
// each write first sends on what the one before held back. No direct write is under way then
// (each call waits for its own), so none can meet its page.
void OutputSink::write_held_back() {
    if (held_back_.empty()) return;
    write_buffered_at(held_back_, bytes_written_ - held_back_.size());
    held_back_.clear();
}

std::optional<std::string> OutputSink::write_directly(DirectEngine engine) {
    return write_directly([engine] { return make_direct_queue(engine); });
}

void OutputSink::send_notes_to(NoteSink *notes) {
    notes_ = notes;
    if (direct_queue_.queue) direct_queue_.queue->send_notes_to(notes);
}

std::optional<std::string> OutputSink::write_directly(const DirectQueueMaker &make_queue) {
    if (kind_ == Kind::discard) return "nothing is written";
    if (kind_ == Kind::direct) return "it is written as it goes (standard output, a FIFO or a device)";
    if (mapped_ || bytes_written_ % kFallbackDirectAlignment != 0) return "writing has begun";
    // The temporary file has the umask's mode until commit() gives it its own: under a umask
    // such as 0277 its owner may not open it for writing again. Only the owner, only meanwhile.
    struct stat status {};
    const bool widened = ::fstat(fd_, &status) == 0 && (status.st_mode & S_IWUSR) == 0 &&
                         ::fchmod(fd_, (status.st_mode & 07777) | S_IWUSR) == 0;
    DirectFile direct = reopen_direct(fd_, O_WRONLY);
    if (widened && ::fchmod(fd_, status.st_mode & 07777) != 0) {
        throw IoError(errno_message("cannot set permissions of", display_name_, errno));
    }
    if (!direct.fd.valid()) return direct.refusal;
    direct_queue_ = make_queue();
    if (!direct_queue_.queue) return "io_uring only, and " + direct_queue_.why_not_io_uring;
    direct_queue_.queue->send_notes_to(notes_);
    direct_fd_ = std::move(direct.fd);
    direct_alignment_ = direct.alignment;
    may_map_ = false;
    behind_.window = 0;
    durable_ = true;
    reserve_direct_space();
    return std::nullopt;
}

void OutputSink::expect_size(std::uint64_t bytes) {
    expected_size_ = bytes;
    if (direct_fd_.valid()) reserve_direct_space();
}

// Space for the whole direct output in one step, once its size is known: a full disk fails here,
// before any data, and the file's blocks lie together. The length becomes the expected one at
// once (only the temporary file is written directly, and commit() gives it the length written):
// a direct write past the end of the file is one ext4 serialises, each holding the inode lock
// until its data is on the disk, so that writes went one at a time; within the length they are
// in flight together. (Buffered outputs leave it to the page cache's delayed allocation; mapped
// ones reserve their own.)
// A reservation that fails partway (a quota, EDQUOT) may have lengthened the file already, so
// commit() cuts it to the length written whether or not this succeeded.
void OutputSink::reserve_direct_space() {
    if (expected_size_ == 0) return;
    reserved_bytes_ = expected_size_;
    if (::fallocate(fd_, 0, 0, static_cast<off_t>(expected_size_)) != 0 && errno == ENOSPC) {
        throw IoError(errno_message("error writing", display_name_, errno));
    }
}

// The reservation is the largest the output could be (padding, tags), and the file's length until
// now (or part of it): setting the length written frees the blocks past it.
void OutputSink::release_unwritten_reservation() {
    if (reserved_bytes_ <= bytes_written_) return;
    if (::ftruncate(fd_, static_cast<off_t>(bytes_written_)) != 0) {
        throw IoError(errno_message("error writing", display_name_, errno));
    }
}

// Writes `bytes` at file offset `at`: the aligned front with O_DIRECT, cut into as many requests
// as the queue keeps in flight, the rest through the page cache. What a direct write leaves undone
// (the file system refuses it after all, EINVAL, or writes short) goes through the page cache too,
// but only once every direct write of the call has ended: a buffered write reads in the page it
// starts in, and if a neighbour's direct write to that page were still under way, the stale page
// would be written back over it later.
void OutputSink::write_direct(std::span<const std::byte> bytes, std::uint64_t at) {
    struct Undone {
        std::size_t offset; // in `bytes`
        std::size_t length;
        bool refused; // EINVAL with nothing of the piece written: no direct writes from now on
    };
    std::vector<Undone> undone;
    const std::size_t alignment = direct_alignment_;
    const std::size_t aligned =
        direct_aligned(bytes.data(), at, 0, alignment) ? bytes.size() / alignment * alignment : 0;
    if (aligned > 0) {
        const std::size_t piece = piece_length(aligned, direct_queue_.queue->depth(), kFileCopyPieces);
        std::vector<DirectRequest> requests;
        for (std::size_t offset = 0; offset < aligned; offset += piece) {
            // The queue takes one kind of request for reads and writes; a write only reads its data.
            requests.push_back({const_cast<std::byte *>(bytes.data()) + offset, std::min(piece, aligned - offset),
                                static_cast<off_t>(at + offset)});
        }
        std::vector<DirectResult> results(requests.size());
        direct_queue_.queue->run(DirectOp::write, direct_fd_.get(), requests, results);
        for (std::size_t i = 0; i < requests.size(); ++i) {
            const DirectResult &result = results[i];
            if (result.error != 0 && result.error != EINVAL) {
                throw IoError(errno_message("error writing", display_name_, result.error));
            }
            const std::size_t offset = static_cast<std::size_t>(requests[i].offset - static_cast<off_t>(at));
            if (result.done < requests[i].length) {
                undone.push_back({offset + result.done, requests[i].length - result.done,
                                  result.error == EINVAL && result.done == 0});
            }
        }
    }
    // An unaligned end that starts aligned waits for the next bytes, which may bring it room to be
    // written directly with them (write_with_room); anything else unaligned goes through the cache.
    const std::size_t rest = bytes.size() - aligned;
    if (rest > 0 && rest < alignment && (at + aligned) % alignment == 0) {
        held_back_.assign(bytes.begin() + static_cast<std::ptrdiff_t>(aligned), bytes.end());
    } else if (rest > 0) {
        undone.push_back({aligned, rest, false});
    }
    for (const Undone &piece : undone) write_buffered_at(bytes.subspan(piece.offset, piece.length), at + piece.offset);
    const auto refused = std::find_if(undone.begin(), undone.end(), [](const Undone &piece) { return piece.refused; });
    if (refused != undone.end()) {
        direct_refused_at_ = at + refused->offset;
        direct_fd_.reset(); // the rest is written through the page cache; commit() still flushes it
        write_held_back();
    }
    if (::lseek(fd_, static_cast<off_t>(at + bytes.size()), SEEK_SET) < 0) {
        throw IoError(errno_message("error writing", display_name_, errno));
    }
}

void OutputSink::write_buffered_at(std::span<const std::byte> bytes, std::uint64_t at) {
    DirectResult result;
    transfer_at(DirectOp::write, fd_, {const_cast<std::byte *>(bytes.data()), bytes.size(), static_cast<off_t>(at)},
                result);
    // A pwrite() of nothing with no error (never seen on a file) is an error too, not a loop.
    if (result.done < bytes.size()) {
        throw IoError(errno_message("error writing", display_name_, result.error != 0 ? result.error : EIO));
    }
}

void OutputSink::write_behind(std::uint64_t window_bytes) {
    struct stat st {};
    if (kind_ == Kind::discard || mapped_ || direct_fd_.valid() || ::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
        return; // direct writes leave nothing in the page cache to push
    }
    const auto page = static_cast<off_t>(::sysconf(_SC_PAGESIZE));
    behind_.window = std::max(page, static_cast<off_t>(window_bytes) / page * page);
    behind_.sent = behind_.dropped = std::max<off_t>(0, ::lseek(fd_, 0, SEEK_CUR)) / page * page;
    struct statfs fs {};
    behind_.whole_file_sync = ::fstatfs(fd_, &fs) == 0 && fs.f_type == OVERLAYFS_SUPER_MAGIC;
    may_map_ = false; // a mapping dirties a whole window of its own
}

// Starts writing what came since the last call, then waits for and drops all but the last window.
void OutputSink::push_behind() {
    const off_t now = ::lseek(fd_, 0, SEEK_CUR);
    if (now < 0 || now - behind_.sent < behind_.window) return;
    if (behind_.whole_file_sync) {
        // Everything written so far reaches the disk, the last window too: one call, not two.
        if (::fdatasync(fd_) != 0) throw IoError(errno_message("error writing", display_name_, errno));
    } else if (::sync_file_range(fd_, behind_.sent, now - behind_.sent, SYNC_FILE_RANGE_WRITE) != 0) {
        throw IoError(errno_message("error writing", display_name_, errno));
    }
    behind_.sent = now;
    while (behind_.sent - behind_.dropped > behind_.window) {
        const off_t length = behind_.sent - behind_.window - behind_.dropped;
        constexpr unsigned kWritten = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
        if (!behind_.whole_file_sync && ::sync_file_range(fd_, behind_.dropped, length, kWritten) != 0) {
            throw IoError(errno_message("error writing", display_name_, errno));
        }
        // From a little before: only whole folios go, and a large one may straddle the last end.
        const off_t from = std::max<off_t>(0, behind_.dropped - kLargestFolioBytes);
        behind_.dropped += length;
        (void)::posix_fadvise(fd_, from, behind_.dropped - from, POSIX_FADV_DONTNEED);
    }
}

void OutputSink::write_sequential(std::span<const std::byte> bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t wrote = ::write(fd_, bytes.data() + done, bytes.size() - done);
        if (wrote < 0) {
            if (errno == EINTR) continue;
            if (errno == EPIPE) throw BrokenPipe(errno_message("error writing", display_name_, errno));
            throw IoError(errno_message("error writing", display_name_, errno));
        }
        done += static_cast<std::size_t>(wrote);
    }
}

void OutputSink::apply_attributes() {
    const int fd = owned_fd_.get();
    std::optional<mode_t> mode = attributes_.mode;
    if (attributes_.owner || attributes_.group) {
        // Keeping another user's ownership needs privilege; keeping the group needs membership.
        // Where neither is allowed, the file is the caller's, as any new file would be, and the
        // group's permissions, meant for the old group, are not handed to the new one.
        const uid_t owner = attributes_.owner.value_or(static_cast<uid_t>(-1));
        const gid_t group = attributes_.group.value_or(static_cast<gid_t>(-1));
        if (::fchown(fd, owner, group) != 0 && ::fchown(fd, static_cast<uid_t>(-1), group) != 0) {
            // Neither: the group check below drops the group's permissions.
        }
        struct stat now {};
        if (mode && attributes_.group && (::fstat(fd, &now) != 0 || now.st_gid != *attributes_.group)) {
            *mode &= ~static_cast<mode_t>(070);
        }
    }
    if (mode && ::fchmod(fd, *mode) != 0) {
        throw IoError(errno_message("cannot set permissions of", display_name_, errno));
    }
    if (attributes_.times_from) {
        const timespec times[2] = {attributes_.times_from->st_atim, attributes_.times_from->st_mtim};
        (void)::futimens(fd, times); // best effort, as gzip: the contents are what matter
    }
}

// An unnamed temporary file gets its name by linkat(); -f links it under a hidden name first
// and renames that over the target, so the target is replaced in one step.
void OutputSink::link_into_place() {
    const std::string source = fd_link(owned_fd_.get());
    const int dir = directory_.get();
    if (!overwrite_) {
        if (::linkat(AT_FDCWD, source.c_str(), dir, target_name_.c_str(), AT_SYMLINK_FOLLOW) == 0) return;
        if (errno == EEXIST) throw exists_error(display_name_);
        throw IoError(errno_message("cannot create", display_name_, errno));
    }
    // The hidden name is registered for removal until the rename has taken it.
    const HiddenFile hidden = make_hidden_file(
        interrupt_cleanups_, dir, target_name_,
        [&](const char *name) {
            return ::linkat(AT_FDCWD, source.c_str(), dir, name, AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
        },
        "cannot create", display_name_);
    if (::renameat(dir, hidden.name.c_str(), dir, target_name_.c_str()) != 0) {
        const int error = errno;
        (void)::unlinkat(dir, hidden.name.c_str(), 0);
        throw IoError(errno_message("cannot replace", display_name_, error));
    }
}

// A named temporary file is renamed onto the target; without overwrite, never over a file that
// appeared while we were writing.
void OutputSink::rename_into_place() {
    const int dir = directory_.get();
    const char *from = temporary_name_.c_str();
    const char *to = target_name_.c_str();
    if (!overwrite_) {
        if (::renameat2(dir, from, dir, to, RENAME_NOREPLACE) == 0) return;
        if (errno == EEXIST) throw exists_error(display_name_);
        if (errno != EINVAL && errno != ENOSYS) throw IoError(errno_message("cannot create", display_name_, errno));
        // The file system cannot promise "no replace": check, then rename.
        struct stat st {};
        if (::fstatat(dir, to, &st, AT_SYMLINK_NOFOLLOW) == 0) throw exists_error(display_name_);
    }
    if (::renameat(dir, from, dir, to) != 0) throw IoError(errno_message("cannot create", display_name_, errno));
}

void OutputSink::commit() {
    if (mapped_) mapped_->finish();
    write_held_back();
    if (kind_ == Kind::discard) {
        committed_ = true;
        return;
    }
    if (kind_ == Kind::direct) {
        // A file or device behind standard output can be flushed; a pipe, socket or terminal
        // cannot (EINVAL), and what reached it is out of our hands already.
        if (durable_ && ::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) {
            throw IoError(errno_message("error writing", display_name_, errno));
        }
        if (owned_fd_.valid() && owned_fd_.close() != 0) {
            throw IoError(errno_message("error writing", display_name_, errno));
        }
        committed_ = true;
        return;
    }
    apply_attributes();
    release_unwritten_reservation();
    if (durable_ && ::fsync(fd_) != 0) throw IoError(errno_message("error writing", display_name_, errno));
    if (kind_ == Kind::unnamed_temporary) {
        // Linked by its descriptor, so closed after: O_TMPFILE exists only on local file systems,
        // where close() reports nothing that write() did not.
        link_into_place();
        committed_ = true;
        if (owned_fd_.close() != 0) throw IoError(errno_message("error writing", display_name_, errno));
        sync_directory();
        return;
    }
    if (owned_fd_.close() != 0) throw IoError(errno_message("error writing", display_name_, errno));
    rename_into_place();
    committed_ = true;
    cleanup_.release();
    sync_directory();
}

void OutputSink::sync_directory() {
    if (!durable_) return;
    // directory_ is O_PATH, which fsync() refuses: open the directory itself through it.
    const UniqueFd directory(::openat(directory_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!directory.valid() || ::fsync(directory.get()) != 0) {
        throw IoError(errno_message("cannot sync the directory of", display_name_, errno));
    }
}

bool OutputSink::is_terminal() const {
    return ::isatty(fd_) == 1;
}

bool OutputSink::shares_file_with(int other_fd) const {
    struct stat ours {};
    struct stat theirs {};
    return ::fstat(fd_, &ours) == 0 && ::fstat(other_fd, &theirs) == 0 && same_file(ours, theirs) &&
           !S_ISCHR(ours.st_mode);
}

} // namespace aesgpu
