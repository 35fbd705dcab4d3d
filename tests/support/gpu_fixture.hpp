// SPDX-License-Identifier: Apache-2.0
#pragma once
// GPU tests skip themselves, with the reason, where no usable CUDA device is present (CI).
#include "aes_gpu/device_probe.hpp"

#include <gtest/gtest.h>

namespace aesgpu::test {

class Gpu : public testing::Test {
protected:
    void SetUp() override {
        const GpuProbe probe = probe_gpus();
        if (!probe.usable()) GTEST_SKIP() << "no usable CUDA device: " << probe.unavailable_reason;
    }
};

} // namespace aesgpu::test
