// SPDX-License-Identifier: Apache-2.0
#pragma once
// One file encrypted or decrypted in one call, as zstd's FIO_compressFilename or age's Encrypt:
// the header (openssl's Salted__ or the GCM stream headers), the key (raw, or derived from a
// passphrase), the backend, the ring's size, the pipeline and the commit: run_file. The command
// line calls it once per file, the public library once per call, the bench once per timed run.
// It reads no terminal: what a caller wants to say or do along the way it gets through
// RunObserver, and the key through KeySource. Nothing below it logs: what the caller may want to
// hear (a thread pool that makes do with fewer threads, a GPU clean-up call that failed) reaches
// CipherObserver::note.
//
// Every callback runs on the calling thread, one at a time.
//
// A program that links this must decide what a signal or a closed pipe does to a half-written
// output. A file sink's output is linked into place only by OutputSink::commit (which
// RunObserver::commit_run has done): destroyed before then, it leaves nothing behind, but a process
// killed meanwhile may leave its temporary file where the kernel gives no unnamed one (O_TMPFILE),
// unless the sink registered it in a CleanupRegistry (OutputPolicy::interrupt_cleanups) that the
// program runs first. aesgpu's own app blocks the terminating signals and takes them on a sigwait
// thread, which runs its registry (not async-signal-safe: never from a signal handler).
// A sink to a pipe or device holds what was written as soon as it is written. Ignore SIGPIPE in a
// program that writes to a pipe, so that a closed reader is a BrokenPipe (an IoError), not death.
#include "cipher/cipher_backend.hpp"
#include "cipher/secret_bytes.hpp"
#include "common/note_sink.hpp"
#include "engine/backend_selection.hpp"
#include "engine/gcm_range.hpp"
#include "engine/pipeline.hpp"
#include "format/detect.hpp"
#include "format/file_format.hpp"
#include "io/input_source.hpp"
#include "io/output_sink.hpp"
#include "job/io_choice.hpp"
#include "job/key_source.hpp"
#include "keys/passphrase.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace aesgpu {

// What a caller prefers: the format's settings, and how to run it. The key is not here
// (KeySource), nor anything about terminals or names.
struct CipherSettings : FormatSettings {
    BackendRequest backend;
    std::size_t chunk_bytes = 0; // 0: the backend's choice for files, kStreamChunkBytes for streams
    // The memory the run may use, in bytes, the page cache of its files included (0: no limit).
    // None: the control group's limit, where one is set (cgroup_memory_limit).
    std::optional<std::uint64_t> memory_limit;
};

// Encrypting: a fresh header; decrypting: the header read from the start of `source`. Asks `keys`
// for a raw key's size only, never for a passphrase. Throws as file_format_for.
[[nodiscard]] std::unique_ptr<FileFormat> file_format_for(const CipherSettings &settings, KeySource &keys,
                                                          InputSource &source);

// How much of a stream decrypting without a mode holds to find its end, where the end decides
// (openssl's passphrase format: its length, then its padding). A longer one is refused before
// anything is written (ModeNotRecorded): its mode must be given.
inline constexpr std::uint64_t kModeLookaheadBytes = 64ull << 20;

// Decrypting without a mode: how `source` reads, from its first bytes (peeked: the header is still
// to be read) and length (format/detect's guess_mode). A stream in openssl's passphrase format is
// held up to kModeLookaheadBytes to learn its length. Where the padding decides, the guess gets
// the data's last blocks. Asks `keys` for a raw key's size only. Where the guess leaves it to
// segment 0 (first_segment_decides), the caller checks that segment with
// authenticate_first_segment (engine/segment_chunks) before the run; where it leaves it to the
// padding, cipher_key decides. Throws ModeNotRecorded (no_pad, a stream too long to hold).
[[nodiscard]] ModeGuess guess_input_mode(InputSource &source, KeySource &keys, std::size_t segment_bytes,
                                         bool no_pad = false);

// The key the data is ciphered with: the raw key as given; PBKDF2 of the passphrase and salt (as
// `openssl enc -pbkdf2 -md sha256`); for GCM the segment key (HKDF of the raw key, or of scrypt
// of the passphrase, with the stream salt and the associated data). Asks for a passphrase here.
// Where `guess` leaves the mode to the padding (padding_decides), the mode that fits, into
// `guess` (and its key), or ModeNotRecorded or BadPadding as mode_by_padding throws them.
// A passphrase line longer than openssl keeps: openssl's formats take what openssl keeps
// (KeySource::openssl_line); decrypting GCM from `source` (where its segments start), the whole
// line, or what openssl keeps where only that opens segment 0.
// CTR or CBC with a raw key and no settings.iv is std::invalid_argument: a fixed IV would give
// every such file the same keystream or first block.
[[nodiscard]] CipherKey cipher_key(const FileFormat &format, KeySource &keys, ModeGuess *guess = nullptr,
                                   InputSource *source = nullptr);

// How the job was set up, as it starts. `selected` stays valid until cipher_file_with_key returns:
// an observer may keep it for its commit.
struct JobPlan {
    const SelectedBackend &selected;
    std::size_t chunk_bytes; // asked for: the pipeline may take less where memory is short
    std::size_t slot_bytes;  // a ring slot: the chunk, or whole GCM segments
    std::size_t ring_slots;
    std::uint64_t memory_limit;       // settings' or the control group's (0: none): the ring takes a share
    bool input_dropped_behind;        // memory is tight: the input leaves the page cache once read,
    std::uint64_t write_behind_bytes; // and the output is written to the disk every so many bytes
};

// Told what a file job does as it goes, on the caller's thread (the pipeline writes there). The
// defaults do nothing, and commit commits.
class CipherObserver {
public:
    virtual ~CipherObserver() = default;
    virtual void backend_selected(const SelectedBackend & /*selected*/) {}
    virtual void starting(const JobPlan & /*plan*/) {}
    virtual void progress(std::uint64_t /*bytes_done*/) {}
    // What went otherwise than asked without failing the run (fewer threads), or may have left
    // something behind (a GPU clean-up that failed). Told before the next progress report, and the
    // last ones once the job is over (after the commit), also when it failed.
    virtual void note(NoteLevel /*level*/, std::string_view /*what*/) {}
    // Everything is through and checked: put the output in place (sink.commit()). A caller may
    // report first, or hold signals off while it commits and removes the input.
    virtual void commit(OutputSink &sink, const PipelineStats & /*stats*/) { sink.commit(); }
};

// With the header and key in hand: chooses the backend, sizes the ring (and keeps it within a
// control group's memory limit), runs the pipeline and commits. Its bytes count the headers too.
// Throws IoError, FormatError (BadPadding, AuthenticationFailed, StreamCutShort), TooManySegments,
// GpuUnavailable, ResourceExhausted; a file sink is then not committed (a stream sink holds what was
// written already).
PipelineStats cipher_file_with_key(InputSource &source, OutputSink &sink, const CipherSettings &settings,
                                   const FileFormat &format, const CipherKey &key, CipherObserver &observer);

// An input that a byte range cannot be read from, found before anything is read from it (a FIFO
// named) or once its header is (not seekable, not GCM). A caller words it from `why` and `input`
// (a display name, as InputSource gives it: quoted); what() is the library's own wording.
class RangeUnreadable : public std::invalid_argument {
public:
    enum class Why { fifo, not_seekable, not_gcm };
    RangeUnreadable(Why reason, std::string input_name);
    Why why;
    std::string input;
};

// Decrypting a GCM file, only `range` of its plaintext (engine/gcm_range): the segments that hold
// it, each checked against its tag, read from a file that can seek (a regular file or block
// device) whose header `format` read already. Then observer.commit (no other callback: no backend
// is set up). Throws RangeUnreadable (check_range_input), and as decrypt_gcm_range
// (RangePastTheEnd with nothing written).
PipelineStats decrypt_range(InputSource &source, OutputSink &sink, const FileFormat &format, const CipherKey &key,
                            const ByteRange &range, CipherObserver &observer);

// What decrypt_range needs of its input, checked by itself: a file that can seek, then a GCM
// stream. Throws RangeUnreadable.
void check_range_input(const InputSource &source, const FileFormat &format);

// Where a whole run reads or writes: a path ("-": standard input or output), or a descriptor the
// caller opened (fd >= 0), which the run neither closes nor moves but for its reads or writes.
struct RunEnd {
    std::string path;
    int fd = -1;
    [[nodiscard]] bool is_descriptor() const { return fd >= 0; }
};

// One whole run, as the command and the public library ask for it.
struct FileRun {
    RunEnd input;
    RunEnd output;
    CipherSettings settings;
    // Decrypting: settings.mode is read from the input (guess_input_mode) and what decides it
    // checked before the run (segment 0's tag, the padding).
    bool mode_from_file = false;
    // Decrypting GCM from a file that can seek: only this part of the plaintext (decrypt_range).
    std::optional<ByteRange> range;
    IoChoice io = IoChoice::automatic;
    bool overwrite = false;    // OutputPolicy::overwrite
    bool durable = false;      // the output on the disk before the run returns
    bool remove_input = false; // prepare_input_removal, then commit_removing_input
    unsigned io_threads = 1;
    CleanupRegistry *interrupt_cleanups = nullptr;
};

// The step a whole run is in, as RunObserver::step tells it: a failure is the step's (a caller
// words it so, e.g. a FormatError while the header is read against one while the data runs).
enum class RunStep {
    opening,
    reading_mode,
    reading_header,
    opening_output,
    checking_length,
    choosing_io,
    deriving_key,
    checking_first_segment,
    holding_key,
    running
};

// Told the steps of a whole run besides what CipherObserver is told; each may throw to stop the
// run there (no output). Its CipherObserver::commit is not called: commit_run is.
class RunObserver : public CipherObserver {
public:
    // Each step as it starts, with the settings as they stand (the mode read, once it is).
    virtual void step(RunStep /*step*/, const CipherSettings & /*settings*/) {}
    // The input, open; nothing read from it yet.
    virtual void input_opened(InputSource & /*source*/) {}
    // Decrypting without a mode: what the input's start says (where the padding decides, `guess`
    // says ECB until the key is in hand: key_in_hand then has the mode).
    virtual void mode_read(const InputSource & /*source*/, const ModeGuess & /*guess*/) {}
    // The header read (decrypting) or made (encrypting).
    virtual void header_read(const InputSource & /*source*/, const FileFormat & /*format*/) {}
    // The output, opened; none: the run ends once the key is in hand (nothing is written). The
    // default opens run.output (OutputPolicy from `run`, durable where asked) and, with
    // remove_input, prepare_input_removal.
    virtual std::optional<OutputSink> open_output(InputSource &source, const FileRun &run);
    // None where open_output gave none.
    virtual void output_opened(const InputSource & /*source*/, const OutputSink * /*sink*/) {}
    // Not for a range. The default: choose_direct_io (for the input alone where the output keeps
    // nothing), told to io_chosen; under IoChoice::direct it throws DirectIoRefused.
    virtual void choose_io(InputSource &source, OutputSink *sink, const FileRun &run);
    virtual void io_chosen(const DirectIoOutcome & /*io*/) {}
    // cipher_key's result and what deriving it took; `guess` (where the mode was read) holds the
    // mode the padding said, where it decided.
    virtual void key_derived(const FileFormat & /*format*/, const CipherKey & /*key*/, double /*seconds*/,
                             const ModeGuess * /*guess*/) {}
    // The key, checked where segment 0 decided the mode.
    virtual void key_in_hand(const CipherKey & /*key*/) {}
    // The data is through and checked: `commit` puts the output in place (and removes the input
    // where asked). A caller may report first, or hold signals off around it.
    virtual void commit_run(const PipelineStats & /*stats*/, const std::function<void()> &commit) { commit(); }
};

// The whole run, in the order that asks for a passphrase only once everything that needs none has
// passed: the input opened (a FIFO named for a range is refused before its open would wait) and,
// decrypting, its first bytes checked (check_ciphertext_start); the mode read from its start where
// asked; the header read or made; the output opened (and checked for the input's removal); a
// regular file's length checked (check_input_length: whole blocks, segments the stream can
// number); the I/O path chosen; the GPU checked where the key is still to be asked for
// (KeySource::will_prompt); the key, and segment 0's tag where it decides the mode; then the data
// (or the range) and the commit. Throws as each step does.
PipelineStats run_file(const FileRun &run, KeySource &keys, RunObserver &observer);

} // namespace aesgpu
