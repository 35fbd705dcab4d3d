// SPDX-License-Identifier: Apache-2.0
#pragma once
// aesgpu as a library: one call encrypts or decrypts one file, on every GPU and the CPU, in the
// formats the aesgpu command writes (docs/FORMAT.md): ECB and CTR as `openssl enc` writes them
// (raw keys, or openssl's Salted__ header and PBKDF2), and GCM as Tink's AES-GCM-HKDF streaming,
// with aesgpu's passphrase header in front when a passphrase keys it.
//
//     aesgpu::Settings settings;
//     settings.mode = aesgpu::Mode::gcm; // required: there is no default mode
//     aesgpu::Key key = aesgpu::Key::raw_hex(hex);
//     aesgpu::cipher_file("plain.txt", "plain.txt.aes", settings, key);
//
// find_package(aesgpu) gives the target aesgpu::aesgpu; pkg-config's name is aesgpu.
//
// What a program that links it must know:
// - The output appears only when everything succeeded and was checked (a GCM tag, ECB's padding):
//   it is written to an unnamed temporary file beside the target and linked into place at the
//   end, so an error, an exception from the observer or a stop leaves no output behind. A process
//   killed meanwhile leaves nothing either where the file system has O_TMPFILE (ext4, xfs, btrfs,
//   tmpfs); elsewhere a hidden ".NAME.XXXXXX" file (0600) may remain. A new output gets the
//   input's permission bits and times, as gzip does. A replaced output (Settings::overwrite)
//   keeps its owner, and its mode is never wider than before. An output name that is a symbolic
//   link is replaced (with overwrite), never written through; /dev/stdout, /dev/fd/N and
//   /proc/self/fd/N are the streams they name. An output that is a FIFO, terminal or device (or "-") is written as
//   the data comes and cannot be withdrawn; overwrite does not apply to it. A program that ends
//   itself on a signal passes InterruptCleanups and runs them first: then no hidden file remains.
// - Signals are the program's: the library installs no handler. To stop a run from another
//   thread or a signal-handling thread, request a stop on the std::stop_source whose token was
//   passed; cipher_file then throws Error{ErrorKind::stopped} after the chunk in hand. Not seen
//   meanwhile: a read waiting on a pipe (or a key file that is a FIFO) and the key derivation
//   (PBKDF2 with many iterations, scrypt). A signal handler itself must not call the library:
//   hand the signal to a thread (sigwait) that requests the stop.
// - Ignore or block SIGPIPE when the output may be a pipe: a reader that went away is then an
//   Error{ErrorKind::io}, not the end of the process.
// - Every callback of the Observer runs on the calling thread, one at a time.
// - Calls may run at once on several threads, on different files. They may share a Key.
// - Key material is held in memory that is wiped when it is freed; it never appears in a message.
#include <aesgpu/types.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace aesgpu {

// A part of a plaintext: `length` bytes from `offset` (none: to the end).
struct Range {
    std::uint64_t offset = 0;
    std::optional<std::uint64_t> length;
};

// What a caller prefers. Field names are what an Error's message names when one is wrong.
struct Settings {
    Direction direction = Direction::encrypt;
    // No default. Encrypting without one is refused (ErrorKind::settings): the mode decides what
    // the output is. Decrypting without one reads it from the input as the aesgpu command does
    // (docs/usage.md, Modes): aesgpu's GCM passphrase header is GCM; openssl's passphrase files
    // (Salted__) are CTR where their data is not whole 16-byte blocks, else ECB or CBC as the last
    // block's padding fits (both fitting, one file in 256, is ErrorKind::format: give the mode).
    // With a raw key, a first byte that is Tink's header length reads as GCM, and segment 0's tag
    // must then prove it (ErrorKind::authentication where it does not: give the mode); anything
    // else reads as ECB. A Salted__ file cut short to no whole blocks reads as CTR and decrypts to
    // garbage: give the mode where files may be cut. associated_data or segment_bytes say GCM; iv
    // and no_pad need the mode given. A pipe in openssl's passphrase format is held (up to
    // 64 MiB) to find its end. Result::mode says what it read.
    std::optional<Mode> mode;
    // ctr and cbc with a raw key: CTR's first counter block, CBC's IV (required: a fixed one would
    // repeat the keystream, or give equal starts equal ciphertext, across files). A passphrase
    // derives its own; ecb and gcm take none. Every enum field holds one of its enum's values, or
    // the call is refused (ErrorKind::settings).
    std::optional<std::array<std::uint8_t, 16>> iv;
    bool no_pad = false; // ecb: whole 16-byte blocks only, no PKCS#7 padding
    // Decrypting gcm: only this part of the plaintext, from its segments alone, each checked against
    // its tag, from an input that can seek (a regular file or block device), refused otherwise
    // before any key is asked for. The output holds those bytes; a range that ends past the
    // plaintext is ErrorKind::format, nothing written. The Observer hears no starting() or
    // progress() for a range: it is a few segments, read where they lie.
    std::optional<Range> range;
    unsigned pbkdf2_iterations = kDefaultPbkdf2Iterations;    // ecb and ctr with a passphrase
    unsigned passphrase_key_bits = kDefaultPassphraseKeyBits; // 128, 192 or 256 (gcm: 128 or 256)
    // gcm with a raw key: the ciphertext segment size (Tink's; not recorded in the file, so decrypt
    // with the same). 0: kDefaultSegmentBytes. A passphrase file's header records its own.
    std::size_t segment_bytes = 0;
    std::string associated_data; // gcm: bound to every segment, not secret
    BackendChoice backend = BackendChoice::automatic;
    // The CPU does not cipher while the GPUs start (about 0.3 s): with gpu, every block goes
    // through a GPU; with all, the CPU starts with them; with automatic, it stands in only where
    // every GPU failed. Not for cpu.
    bool wait_for_gpu = false;
    std::vector<int> devices; // CUDA device numbers to use; empty: every GPU this process sees
    unsigned cpu_threads = 0; // 0: every hardware thread
    bool overwrite = false;   // replace an existing output file
    bool durable = false;     // return only once the output and its name are on the disk (fsync)
    // Past the page cache or through it (IoChoice). direct: the input and output must be regular
    // files (an output may not exist yet) on a file system that takes O_DIRECT, else an Error.
    IoChoice io = IoChoice::automatic;
    // Remove the input once the output is in place and on the disk (durable too), as gzip does.
    // The input file is locked (flock) for it, so that of two calls removing one input the second
    // fails before its output appears.
    // Checked before any work: the input must be a regular file whose name removes its data (no
    // symbolic link, no other hard link) from a directory this process may change, and the output
    // a file. Decrypting, gcm only: the one mode that proves the key right before the only
    // ciphertext goes (ECB's padding passes a wrong key about once in 256; CTR checks nothing).
    bool remove_input = false;
};

// Where the key comes from. Move-only; whatever it holds is wiped when it is destroyed. A key file
// is read, and a prompt asked, once: at the first call that needs it, for every call that uses the
// Key after (make a new Key to ask again, e.g. after a wrong passphrase).
class Key {
public:
    // The AES key itself: 16, 24 or 32 bytes (gcm: 16 or 32).
    static Key raw(std::span<const std::uint8_t> key);
    // The same as hexadecimal digits (32, 48 or 64 of them).
    static Key raw_hex(std::string_view hex);
    // A key file as the aesgpu command reads it: 16, 24 or 32 raw bytes, or that many as hex
    // digits. Read when the key is first needed; `warn`, when given, is told when others may read
    // or change the file (as ssh warns about private keys).
    static Key key_file(const std::filesystem::path &path,
                        std::function<void(std::string_view warning)> warn = nullptr);
    // A passphrase: the key is derived from it (PBKDF2-HMAC-SHA256 for ecb and ctr, as
    // `openssl enc -pbkdf2`; scrypt for gcm) with a salt kept in the file's header.
    static Key passphrase(std::string_view passphrase);
    // A passphrase asked for only once it is needed, after the input's header was read and checked
    // (a file that is not of the format fails without asking): `ask` writes it into `buffer` and
    // returns its length. The buffer holds 1023 bytes (wiped afterwards), as much as openssl keeps
    // of a line it reads: a longer passphrase cannot come this way (a longer length is an Error);
    // give it to Key::passphrase, which takes any length. What `ask` throws comes out of
    // cipher_file as it was thrown.
    static Key passphrase_prompt(std::function<std::size_t(std::span<char> buffer)> ask);

    Key(Key &&other) noexcept;
    Key &operator=(Key &&other) noexcept;
    Key(const Key &) = delete;
    Key &operator=(const Key &) = delete;
    ~Key();

    struct Source; // the library's side

private:
    explicit Key(std::unique_ptr<Source> source);
    std::unique_ptr<Source> source_;
    friend Source &key_source(Key &key);
};

// One of the processors that cipher a file's chunks.
struct Lane {
    std::string name; // "CPU", "GPU" (where it is the only one), "GPU 1"
    int device = -1;  // a GPU's CUDA device number; -1 for the CPU
    [[nodiscard]] bool is_gpu() const { return device >= 0; }
};

// How a run was set up, as it starts.
struct Plan {
    std::vector<Lane> lanes;                  // what may cipher the file (the CPU may only stand in while GPUs start)
    std::size_t chunk_bytes = 0;              // the input bytes of one job
    std::size_t ring_slots = 0;               // the jobs in flight at most
    std::optional<std::uint64_t> input_bytes; // none for a pipe or a device
    // Past the page cache (O_DIRECT), as Settings::io chose (automatic: for a regular file of 64 MiB
    // or more that is not in the page cache already, where its file system allows). A direct
    // output is durable when the call returns.
    bool reads_direct = false;
    bool writes_direct = false;
};

// One input and where its output goes, for cipher_files.
struct FileTask {
    std::filesystem::path input;
    std::filesystem::path output;
};

// Told what a run does as it goes; the defaults do nothing. What a callback throws ends the run
// (no output) and comes out of cipher_file as it was thrown.
class Observer {
public:
    virtual ~Observer() = default;
    // cipher_files: the task about to be tried (`index` into the tasks), before its starting().
    virtual void next_file(std::size_t /*index*/, const FileTask & /*task*/) {}
    virtual void starting(const Plan & /*plan*/) {}
    // After each chunk is written: the input bytes done so far.
    virtual void progress(std::uint64_t /*bytes_done*/) {}
    // The run goes on, but not as asked: `automatic` or `all` found no usable GPU and uses the CPU
    // alone; `what` is the reason (e.g. "no CUDA driver").
    virtual void note(std::string_view /*what*/) {}
};

struct LaneResult {
    Lane lane;
    std::uint64_t bytes = 0; // the bytes handed to it (ECB and CTR: in whole 16-byte blocks)
};

struct Result {
    Mode mode = Mode::ecb; // as given, or as read from the input
    std::uint64_t bytes_read = 0;
    std::uint64_t bytes_written = 0;
    double seconds = 0;
    std::vector<LaneResult> lanes;
    bool input_removed = false; // Settings::remove_input did
};

enum class ErrorKind {
    settings,       // a setting that cannot work or would be ignored (named in the message), a key
                    // size the mode does not take, the key file as input or output
    key,            // the key cannot be had: not hex or not 16/24/32 bytes, a key file that cannot be
                    // read or holds no key, an empty passphrase; a raw key for a passphrase's file
    io,             // the input or output: not there, exists already, unreadable, disk full, pipe closed
    format,         // the input is not what its settings say: no Salted__ header, a GCM header that
                    // does not fit, a length no such file has, base64 text (openssl enc -a), ECB
                    // padding wrong (most often a wrong key)
    authentication, // a GCM segment's tag did not match: wrong key or associated data, or changed data
    gpu,            // `gpu` was asked for and no GPU could be used, or one failed
    resources,      // not enough memory (host or GPU) or threads
    stopped,        // the caller's stop_token asked for a stop
    internal,       // a bug: please report it
};

// The one exception cipher_file throws (besides what the caller's own callbacks throw). what() is
// one line; it names the setting or file where one is the cause.
class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string &message) : std::runtime_error(message), kind_(kind) {}
    [[nodiscard]] ErrorKind kind() const noexcept { return kind_; }

private:
    ErrorKind kind_;
};

// For a program that ends itself when a signal comes (as the aesgpu command does): what such an
// end must undo first. Where the file system has no O_TMPFILE, an output is written under a hidden
// name until it is complete, and a process that ends meanwhile leaves it behind. Give the calls
// one of these and, on the thread that takes the signal (sigwait; never in a signal handler: this
// locks and allocates), call run_all() and then end the process. Calls may share one; it must
// outlive every call given it.
class InterruptCleanups {
public:
    InterruptCleanups();
    ~InterruptCleanups();
    InterruptCleanups(const InterruptCleanups &) = delete;
    InterruptCleanups &operator=(const InterruptCleanups &) = delete;

    // Removes the hidden outputs of every call running now and keeps any call from making another
    // or finishing (they wait from then on): end the process next.
    void run_all() noexcept;

    struct Registry; // the library's own

private:
    friend Registry &registry_of(InterruptCleanups &cleanups) noexcept;
    std::unique_ptr<Registry> registry_;
};

// A file descriptor the program opened, to read from or write to in place of a path. The library
// neither closes it nor changes its flags; a descriptor is read or written from where it stands,
// as the data comes (as a pipe), and messages name it "descriptor N". It must block (no
// O_NONBLOCK): a read or write that would wait fails as ErrorKind::io.
struct Descriptor {
    int fd = -1;
};

// The input or output of cipher_file: a path ("-" is standard input or output) or a Descriptor.
class Endpoint {
public:
    Endpoint(std::filesystem::path path) : path_(std::move(path)) {}
    Endpoint(const char *path) : path_(path) {}
    Endpoint(const std::string &path) : path_(path) {}
    Endpoint(Descriptor descriptor) : descriptor_(descriptor) {}
    [[nodiscard]] const std::filesystem::path &path() const { return path_; }
    [[nodiscard]] std::optional<Descriptor> descriptor() const { return descriptor_; }

private:
    std::filesystem::path path_;
    std::optional<Descriptor> descriptor_;
};

// Encrypts or decrypts `input` into `output` (a new file, or a replaced one with
// settings.overwrite; "-" is standard input or output; a Descriptor). Throws Error; the output is
// then absent (a pipe, device or descriptor keeps what was written). `cleanups`: see
// InterruptCleanups.
Result cipher_file(const Endpoint &input, const Endpoint &output, const Settings &settings, Key &key,
                   Observer *observer = nullptr, std::stop_token stop = {}, InterruptCleanups *cleanups = nullptr);

// What became of one FileTask of cipher_files: its Result, or the Error it failed with (its output
// is then absent, as cipher_file leaves it).
struct FileOutcome {
    std::optional<Result> result;
    std::optional<Error> error;
};

// Each task in turn with one Key (a key file read, a prompt asked, once), as the aesgpu command
// runs several files: a file that fails does not stop the ones after it. A failure that would come
// again for every file fails the rest untried with the same Error: the Key cannot be had (a key
// file that cannot be read, a prompt that gave nothing), or the settings need a GPU and none is
// there (ErrorKind::gpu; a GPU busy or short of memory is tried again for the next file). A file
// the Key does not fit (a passphrase file given a raw key) fails alone. After a stop, every task
// left fails untried with ErrorKind::stopped. What the Observer or a prompt throws ends the run and comes out as it was
// thrown. Returns one outcome per task, in order. Before any task, throws Error{ErrorKind::settings}
// where a task's output exists and is another task's input (under any name), as the command refuses
// such a run.
std::vector<FileOutcome> cipher_files(std::span<const FileTask> tasks, const Settings &settings, Key &key,
                                      Observer *observer = nullptr, std::stop_token stop = {},
                                      InterruptCleanups *cleanups = nullptr);

// A CTR or CBC IV (Settings::iv) from exactly 32 hexadecimal digits; throws Error{ErrorKind::settings}.
[[nodiscard]] std::array<std::uint8_t, 16> iv_from_hex(std::string_view hex);

// "0.1.0".
[[nodiscard]] const char *version() noexcept;

} // namespace aesgpu
