// SPDX-License-Identifier: Apache-2.0
// GoogleTest main that prints the random seed, so a failure on random data can be replayed.
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char **argv) {
    testing::InitGoogleTest(&argc, argv);
    std::printf("random seed: %llu (replay with AESGPU_TEST_SEED=%llu)\n",
                static_cast<unsigned long long>(aesgpu::test::test_seed()),
                static_cast<unsigned long long>(aesgpu::test::test_seed()));
    return RUN_ALL_TESTS();
}
