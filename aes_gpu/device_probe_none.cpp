// SPDX-License-Identifier: Apache-2.0
// The probe of a build without the CUDA toolkit: it reports that, and nothing else.
#include "aes_gpu/device_probe.hpp"

namespace aesgpu {

GpuProbe probe_gpus() {
    GpuProbe probe;
    probe.unavailable_reason = "this aesgpu was built without CUDA support";
    return probe;
}

} // namespace aesgpu
