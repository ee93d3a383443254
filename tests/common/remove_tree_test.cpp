#include "common/remove_tree.h"

#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace tuneframe {
namespace {

namespace fs = std::filesystem;

TEST(RemoveTree, RemovesNestedFoldersAndFilesButNotWhatLinksPointTo) {
    test::TemporaryDirectory dir;
    const fs::path outside = dir / "outside.txt";
    test::write_bytes(outside, "kept");
    const fs::path tree = dir / "run" / "step-10";
    fs::create_directories(tree / "optimizer" / "deep");
    test::write_bytes(tree / "adapter.safetensors", "x");
    test::write_bytes(tree / "optimizer" / "deep" / "state.bin", "y");
    fs::create_symlink(outside, tree / "link-to-outside");
    fs::create_directory_symlink(dir.path(), tree / "link-to-parent");

    std::error_code error;
    remove_tree(dir / "run", error);

    EXPECT_FALSE(error) << error.message();
    EXPECT_FALSE(fs::exists(dir / "run"));
    EXPECT_TRUE(fs::exists(outside)); // links are removed as links, never followed
}

TEST(RemoveTree, RemovesASingleFileAndAcceptsAMissingPath) {
    test::TemporaryDirectory dir;
    test::write_bytes(dir / "file", "x");
    remove_tree(dir / "file");
    EXPECT_FALSE(fs::exists(dir / "file"));

    std::error_code error;
    remove_tree(dir / "never-there", error);
    EXPECT_FALSE(error);
}

TEST(RemoveTree, ThrowsNamingThePathWhenAParentIsNotAFolder) {
    test::TemporaryDirectory dir;
    test::write_bytes(dir / "file", "x");
    std::error_code error;
    remove_tree(dir / "file" / "child", error);
    EXPECT_EQ(error, std::errc::not_a_directory);
    try {
        remove_tree(dir / "file" / "child");
        FAIL() << "expected a filesystem_error";
    } catch (const fs::filesystem_error& e) {
        EXPECT_EQ(e.path1(), dir / "file" / "child");
    }
}

} // namespace
} // namespace tuneframe
