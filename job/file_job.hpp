// SPDX-License-Identifier: Apache-2.0
#pragma once
// One input to one output through a cipher backend: the output's header, the pipeline, the
// check that the input did not change size while it was read, and the commit. The command line
// calls it once per file and the bench once per timed run (as zstd's FIO_compressFilename sits
// under zstdcli.c and benchzstd.c).
#include "cipher/cipher_backend.hpp"
#include "engine/pipeline.hpp"
#include "io/input_source.hpp"
#include "io/output_sink.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

namespace aesgpu {

struct FileJob {
    InputSource &source;
    OutputSink &sink;
    PipelineOptions pipeline;
    // Written before the data (an encrypted file's Salted__ header).
    std::span<const std::byte> header = {};
    // Read from the source already, before the job (a decrypted file's Salted__ header).
    std::uint64_t header_bytes_read = 0;
    // Puts the output in place once the data is through, given the run's figures; the caller may
    // wrap sink.commit() (to report first, or hold signals off meanwhile). Empty: sink.commit().
    std::function<void(const PipelineStats &)> commit = {};
};

// Runs the job; the output is committed only when everything succeeded. Its bytes read and written
// count the headers too (the sizes of the input and output files). Throws IoError (also when a
// regular input changed size while it was read), FormatError, or what the backend throws.
PipelineStats run_file_job(const FileJob &job, CipherBackend &backend);

} // namespace aesgpu
