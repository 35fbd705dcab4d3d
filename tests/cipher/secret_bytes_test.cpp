// SPDX-License-Identifier: Apache-2.0
// SecretBytes wipes key material before its memory goes back to the allocator. The test watches
// the very buffer being freed (support/allocation_hooks.hpp), so it fails the moment
// the wipe is dropped: a freed buffer still holding the key is what a core dump or a later
// allocation would see.
#include "cipher/secret_bytes.hpp"
#include "support/allocation_hooks.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<const void *> watched{nullptr};
std::size_t watched_bytes = 0;
std::atomic<int> wiped_when_freed{-1}; // -1: not freed yet, 0: held data, 1: all zero

void inspect(const void *pointer) noexcept {
    if (pointer != watched.load()) return;
    const auto *bytes = static_cast<const unsigned char *>(pointer);
    wiped_when_freed = std::all_of(bytes, bytes + watched_bytes, [](unsigned char b) { return b == 0; }) ? 1 : 0;
    watched = nullptr;
}
} // namespace

namespace aesgpu::test {
namespace {

void watch(const SecretBytes &secret) {
    watch_frees(inspect);
    watched_bytes = secret.size();
    wiped_when_freed = -1;
    watched = secret.view().data();
}

TEST(SecretBytes, MemoryIsWipedBeforeItIsFreed) {
    {
        SecretBytes secret(Bytes(64, 0xA5));
        watch(secret);
    }
    EXPECT_EQ(wiped_when_freed.load(), 1) << "the destructor freed the key unwiped";

    SecretBytes replaced(Bytes(32, 0x5A));
    watch(replaced);
    replaced = SecretBytes(Bytes(8, 1));
    EXPECT_EQ(wiped_when_freed.load(), 1) << "move assignment freed the old key unwiped";
}

TEST(SecretBytes, WipeClearsInPlace) {
    SecretBytes secret(Bytes(48, 0x3C));
    const std::uint8_t *bytes = secret.view().data();
    secret.wipe();
    EXPECT_TRUE(secret.empty());
    EXPECT_TRUE(std::all_of(bytes, bytes + 48, [](std::uint8_t b) { return b == 0; }));
}

TEST(SecretBytes, MovesLeaveNothingBehind) {
    SecretBytes moved_from(Bytes(16, 7));
    SecretBytes moved_to(std::move(moved_from));
    EXPECT_EQ(moved_to.size(), 16u);
    EXPECT_TRUE(moved_from.empty()); // NOLINT(bugprone-use-after-move): the contract under test
}

TEST(SecretBytes, TakeWipesTheParsersString) {
    std::string text(40, 'k'); // longer than any small-string buffer: on the heap
    const char *original = text.data();
    const SecretBytes secret = SecretBytes::take(text);
    EXPECT_EQ(secret.text(), std::string(40, 'k'));
    EXPECT_TRUE(text.empty());
    EXPECT_TRUE(std::all_of(original, original + 40, [](char c) { return c == 0; })) << "the string still holds it";
}

// Secret<T> holds fixed-size key-derived state (round keys, kernel parameters) where it lies: its
// bytes must be zero once it is destroyed or moved from. The test owns the storage, so it can look.
TEST(Secret, WipesWhereItLiesWhenDestroyedAndWhenMovedFrom) {
    using Key = Secret<std::array<std::uint8_t, 48>>;
    alignas(Key) unsigned char storage[sizeof(Key)];
    const auto all_zero = [&] {
        return std::all_of(std::begin(storage), std::end(storage), [](unsigned char b) { return b == 0; });
    };

    Key *held = new (storage) Key();
    (*held)->fill(0xA5);
    EXPECT_FALSE(all_zero());
    const Key moved(std::move(*held));
    EXPECT_EQ((*moved)[47], 0xA5);
    EXPECT_TRUE(all_zero()) << "the moved-from secret kept the key";

    (*held)->fill(0x3C);
    held->~Key();
    EXPECT_TRUE(all_zero()) << "the destructor left the key in memory";
}

} // namespace
} // namespace aesgpu::test
