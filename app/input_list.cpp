// SPDX-License-Identifier: Apache-2.0
#include "app/input_list.hpp"

#include "app/output_naming.hpp"
#include "common/errors.hpp"
#include "common/unique_fd.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <filesystem>
#include <map>
#include <system_error>
#include <utility>

namespace aesgpu {

namespace {

namespace fs = std::filesystem;

// Encrypting to a name made from the input's (no -o, no -c): an input that ends in the suffix
// already is set aside, as zstd does.
bool skipped_for_suffix(const CipherOptions &options, const std::string &name) {
    return options.direction == Direction::encrypt && options.output.empty() && !options.to_stdout &&
           !options.print_key && name != "-" && ends_in_suffix(name, options.suffix);
}

// `named`: given as a FILE or in --filelist, not found by -r.
void add_input(const CipherOptions &options, const std::string &name, InputList &list, bool named) {
    if (!skipped_for_suffix(options, name)) {
        list.inputs.push_back(name);
        return;
    }
    list.skipped.push_back({name,
                            "already ends in " + quoted_name(options.suffix) +
                                ": skipped (to encrypt it anyway, give -o OUT or another -S)",
                            named});
}

// Where a standard stream was closed, main() holds "/" there (O_PATH): /dev/stdin then leads to
// it, a directory no one named, which fails as a closed stream when opened.
bool held_for_a_closed_stream(const struct stat &status) {
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
        struct stat held {};
        const int flags = ::fcntl(fd, F_GETFL);
        if (flags >= 0 && (flags & O_PATH) != 0 && ::fstat(fd, &held) == 0 && held.st_dev == status.st_dev &&
            held.st_ino == status.st_ino) {
            return true;
        }
    }
    return false;
}

// A name given (a FILE argument or in the file list) that is a directory to walk or refuse.
bool is_a_directory(const std::string &name) {
    struct stat status {};
    // What cannot be looked at here fails when it is opened, on its own.
    return name != "-" && ::stat(name.c_str(), &status) == 0 && S_ISDIR(status.st_mode) &&
           !held_for_a_closed_stream(status);
}

// The entries of `directory`, sorted by name, so that runs go in the same order; none, and why
// in `list`, where it cannot be read.
std::vector<fs::directory_entry> sorted_entries(const fs::path &directory, InputList &list) {
    std::vector<fs::directory_entry> entries;
    std::error_code error;
    for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
        entries.push_back(*it);
    }
    if (error) {
        list.unreadable.push_back(
            errno_message("-r cannot read directory", quoted_name(directory.string()), error.value()) +
            ": its files were left as they are");
        return {};
    }
    std::sort(entries.begin(), entries.end(), [](const fs::directory_entry &a, const fs::directory_entry &b) {
        return a.path().filename().native() < b.path().filename().native();
    });
    return entries;
}

// -r: the regular files under `directory`, into `list`. Symbolic links met here are not followed,
// nor taken (a link given as a FILE argument is); decrypt takes only names that end in the suffix.
void walk(const CipherOptions &options, const fs::path &directory, InputList &list) {
    for (const fs::directory_entry &entry : sorted_entries(directory, list)) {
        std::error_code error;
        const fs::file_status status = entry.symlink_status(error);
        const std::string name = entry.path().string();
        if (error) continue; // gone meanwhile
        if (fs::is_symlink(status)) {
            // Said without -v where it would have been taken: a file the user may count on.
            if (options.direction == Direction::encrypt || ends_in_suffix(name, options.suffix)) {
                spdlog::warn("-r: {} is a symbolic link: not followed (name it to take it)", quoted_name(name));
            }
        } else if (fs::is_directory(status)) {
            walk(options, entry.path(), list);
        } else if (!fs::is_regular_file(status)) {
            spdlog::info("-r: {} is not a regular file: left out", quoted_name(name));
        } else if (options.direction == Direction::encrypt || ends_in_suffix(name, options.suffix)) {
            add_input(options, name, list, false);
        } else if (entry.path().filename() == options.suffix) {
            list.skipped.push_back({name, "is named just " + quoted_name(options.suffix) +
                                              ": decrypting it would leave no name; skipped (give it with -o OUT)"});
        }
    }
}

// A file list's names, read from `fd` to its end.
std::vector<std::string> read_names(int fd, bool nul_separated, const std::string &what) {
    FileListParser parser(nul_separated, what);
    std::array<char, 65536> buffer{};
    for (;;) {
        const ssize_t got = ::read(fd, buffer.data(), buffer.size());
        if (got == 0) return parser.finish();
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw UsageError(errno_message("cannot read the file list", what, errno));
        parser.feed(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
    }
}

// --filelist's names ("-": standard input).
std::vector<std::string> read_file_list(const CipherOptions &options) {
    const std::string &path = options.file_list;
    const std::string what = path == "-" ? std::string("standard input") : quoted_name(path);
    std::vector<std::string> names;
    if (path == "-") {
        names = read_names(STDIN_FILENO, options.null_separated, what);
    } else {
        const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
        if (!fd.valid()) throw UsageError(errno_message("cannot open the file list", what, errno));
        names = read_names(fd.get(), options.null_separated, what);
    }
    if (std::find(names.begin(), names.end(), "-") != names.end()) {
        throw UsageError("the file list " + what + " names '-': a file list names files, and standard input is none");
    }
    return names;
}

} // namespace

FileListParser::FileListParser(bool nul_separated, std::string what)
    : separator_(nul_separated ? '\0' : '\n'), what_(std::move(what)) {}

void FileListParser::feed(std::string_view bytes) {
    while (!bytes.empty()) {
        const std::size_t end = std::min(bytes.find(separator_), bytes.size());
        const std::string_view part = bytes.substr(0, end);
        const char *const unit = separator_ == '\n' ? "line" : "name";
        if (separator_ == '\n' && part.find('\0') != std::string_view::npos) {
            throw UsageError(fmt::format("the file list {} has a NUL byte in line {}: its names end at newlines, and "
                                         "no name holds a NUL (give --null for NUL-ended names, as find -print0 "
                                         "writes them)",
                                         what_, ended_ + 1));
        }
        if (name_.size() + part.size() > kMaxListedNameBytes) {
            throw UsageError(fmt::format("the file list {}: {} {} is longer than a path may be ({} bytes): is it a "
                                         "list of file names?",
                                         what_, unit, ended_ + 1, kMaxListedNameBytes));
        }
        name_.append(part);
        if (end == bytes.size()) return;
        end_name();
        bytes.remove_prefix(end + 1);
    }
}

void FileListParser::end_name() {
    if (++ended_ > kMaxListedNames) {
        throw UsageError(
            fmt::format("the file list {} has more than {} names: run it in parts", what_, kMaxListedNames));
    }
    if ((kept_ += name_.size()) > kMaxListedBytes) {
        throw UsageError(fmt::format("the file list {} holds more than {} MiB of names: run it in parts", what_,
                                     kMaxListedBytes >> 20));
    }
    if (!name_.empty()) names_.push_back(std::move(name_));
    name_.clear();
}

std::vector<std::string> FileListParser::finish() {
    if (!name_.empty()) end_name();
    return std::move(names_);
}

std::vector<std::string> parse_file_list(std::string_view text, bool nul_separated) {
    FileListParser parser(nul_separated, "the file list");
    parser.feed(text);
    return parser.finish();
}

InputList expand_inputs(const CipherOptions &options, const std::vector<std::string> &names) {
    InputList list;
    for (const std::string &name : names) {
        if (!is_a_directory(name)) {
            add_input(options, name, list, true);
        } else if (options.recursive) {
            walk(options, name, list);
        } else {
            list.inputs.push_back(name);
            list.directories.push_back(name);
        }
    }
    return list;
}

void refuse_directories(const CipherOptions &options, const InputList &list) {
    if (list.directories.empty()) return;
    const std::string name = quoted_name(list.directories.front());
    if (options.direction == Direction::encrypt) {
        throw UsageError(name + " is a directory (use -r, or tar it: tar c " + name + " | aesgpu encrypt ...)");
    }
    throw UsageError(name + " is a directory (use -r to decrypt the files under it that end in " +
                     quoted_name(options.suffix) + ")");
}

InputList gather_inputs(const CipherOptions &options) {
    std::vector<std::string> names = options.inputs;
    if (!options.file_list.empty()) {
        const std::vector<std::string> listed = read_file_list(options);
        names.insert(names.end(), listed.begin(), listed.end());
    } else if (names.empty()) {
        names.emplace_back("-");
    }
    return expand_inputs(options, names);
}

void check_output_dir(const CipherOptions &options, const std::vector<std::string> &inputs) {
    if (options.output_dir.empty() || options.test_only || options.print_key) return;
    struct stat status {};
    const std::string option = options.mirror_tree ? "--output-dir-mirror" : "--output-dir";
    if (::stat(options.output_dir.c_str(), &status) != 0 || !S_ISDIR(status.st_mode)) {
        throw UsageError(option + " " + quoted_name(options.output_dir) +
                         " is not a directory: make it first (mkdir -p " + quoted_name(options.output_dir) + ")");
    }
    std::map<std::string, std::string> input_of; // output -> the first input written there
    for (const std::string &input : inputs) {
        if (options.mirror_tree) refuse_unmirrorable(input); // the run, before any work
        std::string output;
        try {
            output = resolve_output_path(options, input);
        } catch (const UsageError &) {
            continue; // fails on its own, unnamed
        }
        const auto [first, added] = input_of.emplace(output, input);
        if (!added) {
            throw UsageError(quoted_name(first->second) + " and " + quoted_name(input) + " would both be written to " +
                             quoted_name(output) + " (" + option + " keeps " +
                             (options.mirror_tree ? "their paths" : "file names only") +
                             "): rename one, or run them apart");
        }
    }
}

} // namespace aesgpu
