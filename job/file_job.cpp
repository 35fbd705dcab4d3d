// SPDX-License-Identifier: Apache-2.0
#include "job/file_job.hpp"

#include "common/errors.hpp"

#include <string>

namespace aesgpu {

PipelineStats run_file_job(const FileJob &job, CipherBackend &backend) {
    const std::optional<std::uint64_t> input_size = job.source.size();
    // At most the input plus a header and padding or tags; the surplus is cut at commit.
    if (input_size) {
        job.sink.expect_size(
            max_output_bytes(job.pipeline, *input_size - std::min(*input_size, job.header_bytes_read)) +
            job.header.size());
    }
    if (!job.header.empty()) job.sink.write_all(job.header);

    PipelineStats stats = run_pipeline(job.source, job.sink, backend, job.pipeline);
    // The whole files' sizes, headers included, as `stat` gives them.
    stats.bytes_read += job.header_bytes_read;
    stats.bytes_written += job.header.size();
    // A file that shrank or grew while it was read gave an output that matches no one version of it.
    if (input_size && stats.bytes_read != *input_size) {
        throw IoError(job.source.display_name() + " changed size while it was read (" + std::to_string(*input_size) +
                      " bytes at the start, " + std::to_string(stats.bytes_read) + " read); " +
                      (job.sink.withdrawable() ? std::string("nothing was written")
                                               : "what was written to " + job.sink.display_name() +
                                                     " matches no one version of it"));
    }
    if (job.commit) {
        job.commit(stats);
    } else {
        job.sink.commit();
    }
    return stats;
}

} // namespace aesgpu
