// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the user asked for, as parsed from the command line; run state lives elsewhere.
#include "bench/bench.hpp"
#include "cipher/cipher_backend.hpp"
#include "cipher/secret_bytes.hpp"
#include "engine/backend_selection.hpp"
#include "engine/gcm_range.hpp"
#include "engine/pipeline.hpp"
#include "job/io_choice.hpp"
#include "keys/passphrase.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace aesgpu {

enum class ProgressChoice { automatic, always, never }; // automatic: when stderr is a terminal
// --io: how a file's bytes reach the ring: IoChoice (job/io_choice.hpp).

struct LogOptions {
    int verbosity = 0; // -v count
    bool quiet = false;
};

struct CipherOptions {
    Direction direction = Direction::encrypt;
    Mode mode = Mode::ecb;            // --mode
    bool mode_given = false;          // decrypt without --mode reads the mode from each file
    std::optional<CounterBlock> iv;   // --iv (ctr with a raw key)
    std::size_t segment_bytes = 0;    // --segment-size (gcm); 0: the default, or the file's
    std::string associated_data;      // --aad (gcm)
    std::string associated_data_file; // --aad-file (gcm): the associated data, read whole
    std::vector<std::string> inputs;  // empty (and no --filelist): standard input
    bool recursive = false;           // -r: the regular files under each directory given
    std::string file_list;            // --filelist: more input names, one a line ("-": standard input)
    bool null_separated = false;      // --null: the file list's names end in NUL bytes
    std::string output_dir;           // --output-dir: every output in this directory, by file name
    bool mirror_tree = false;         // --output-dir-mirror: by the input's whole path under output_dir
    std::string output;               // empty: derive from the input name
    bool to_stdout = false;           // -c
    std::string suffix = ".aes";      // -S: added when encrypting, removed when decrypting
    bool force = false;
    bool keep_input = false;        // -k: what happens anyway; given, it rules out --rm
    bool remove_input = false;      // --rm: delete each input once its output is committed
    bool sync = false;              // --sync: each output durable before it counts as done (--rm implies it)
    bool test_only = false;         // -t (decrypt): check the input, write nothing
    std::optional<ByteRange> range; // --range OFFSET:LENGTH (decrypt, gcm): that much of the plaintext only
    bool json = false;              // --json: one summary object per input on stdout
    // Secrets from the command line (-K, -p) are taken out of the parser's strings (which are then
    // wiped) right after parsing: see seal_secret_arguments().
    SecretBytes key_hex;
    std::string key_file;
    SecretBytes pass_spec;                          // -p/--pass: passphrase mode, `openssl enc -pbkdf2` format
    unsigned iterations = kDefaultPbkdf2Iterations; // --iter: PBKDF2 iterations
    Digest digest = kDefaultDigest;                 // --md: openssl's -md, for PBKDF2 or its old KDF
    bool no_pbkdf2 = false;                         // --no-pbkdf2 (decrypt): openssl's old one-pass KDF
    unsigned key_bits = kDefaultPassphraseKeyBits;  // --key-bits: AES key size in passphrase mode
    bool print_key = false;                         // -P: print (salt and) key on stdout, then stop
    bool keep_before_a_file = false;                // `-k FILE`: ccrypt's -k names a key file
    bool no_pad = false;
    BackendRequest backend;            // --backend, --wait-for-gpu, -T, --streams
    unsigned io_threads = 0;           // 0: default_io_threads()
    IoChoice io = IoChoice::automatic; // --io
    std::size_t chunk_bytes = 0;       // 0: the backend's file chunk, or kStreamChunkBytes for pipes
    ProgressChoice progress = ProgressChoice::automatic;
    LogOptions log;
};

// `aesgpu keygen`: a random key, raw to a new 0600 file or hex to standard output.
struct KeygenOptions {
    std::string output; // empty: hex on standard output
    unsigned bits = 256;
};

// `aesgpu bench`: which measurements, on how much data.
struct BenchOptions {
    std::string backend = "all";                 // cpu, gpu or all
    std::size_t size_bytes = kDefaultBenchBytes; // data per in-memory measurement
    std::string key_bits = "all";                // 128, 192, 256 or all
    std::string mode = "all";                    // ecb, ctr, gcm or all
    std::string direction = "both";              // encrypt, decrypt or both
    std::string file;                            // also time file-to-file on this file, next to cp
    bool json = false;
    int reps = kDefaultBenchReps;
    unsigned threads = 0; // CPU threads for the "all threads" rows; 0: all hardware threads
    // --devices: the GPUs of the GPU rows (empty: all); unset where not given.
    std::optional<std::vector<int>> devices;
};

} // namespace aesgpu
