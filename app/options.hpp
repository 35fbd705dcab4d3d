#pragma once
// What the user asked for, as parsed from the command line; run state lives elsewhere.
#include "io/cipher_backend.hpp"
#include "io/pipeline.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace aesgpu {

enum class BackendChoice { automatic, cpu, gpu };
enum class ProgressChoice { automatic, always, never }; // automatic: when stderr is a terminal

struct LogOptions {
    int verbosity = 0; // -v count
    bool quiet = false;
};

struct CipherOptions {
    Direction direction = Direction::encrypt;
    std::vector<std::string> inputs; // empty: standard input
    std::string output;              // empty: derive from the input name
    bool to_stdout = false;          // -c
    bool force = false;
    std::string key_hex;
    std::string key_file;
    std::string pass_spec;       // -p/--pass: passphrase mode, `openssl enc -pbkdf2` format
    unsigned iterations = 10000; // --iter: PBKDF2 iterations
    unsigned key_bits = 256;     // --key-bits: AES key size in passphrase mode
    bool print_key = false;      // -P: print salt and key, then stop
    bool no_pad = false;
    BackendChoice backend = BackendChoice::automatic;
    unsigned threads = 0;        // 0: all hardware threads
    unsigned streams = 4;        // CUDA streams of the GPU backend
    unsigned io_threads = 0;     // 0: default_io_threads()
    std::size_t chunk_bytes = 0; // 0: the backend's file chunk, or kStreamChunkBytes for pipes
    ProgressChoice progress = ProgressChoice::automatic;
    LogOptions log;
};

} // namespace aesgpu
