// The dataset manifest: lines round-trip, every bad line is reported with file, line and field,
// and writing is atomic.
#include "common/dataset_manifest.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <sys/stat.h>

namespace tuneframe::common {
namespace {

namespace fs = std::filesystem;

ManifestEntry full_entry() {
    ManifestEntry entry;
    entry.path = "clips/beach at dawn.mp4";
    entry.caption = "Waves roll in, \"slowly\"; 海浪\nsecond line";
    entry.trim_in = 12;
    entry.trim_out = 80;
    entry.hash = "sha256:" + std::string(64, 'a');
    entry.width = 720;
    entry.height = 480;
    entry.frames = 120;
    entry.fps = 23.976;
    return entry;
}

void expect_same(const ManifestEntry& a, const ManifestEntry& b) {
    EXPECT_EQ(a.path, b.path);
    EXPECT_EQ(a.caption, b.caption);
    EXPECT_EQ(a.trim_in, b.trim_in);
    EXPECT_EQ(a.trim_out, b.trim_out);
    EXPECT_EQ(a.image, b.image);
    EXPECT_EQ(a.hash, b.hash);
    EXPECT_EQ(a.width, b.width);
    EXPECT_EQ(a.height, b.height);
    EXPECT_EQ(a.frames, b.frames);
    EXPECT_DOUBLE_EQ(a.fps, b.fps);
}

// The issue reported for a one-line manifest.
ManifestIssue only_issue(const std::string& line) {
    const ManifestReadResult result = parse_manifest(line + "\n", "data.jsonl");
    EXPECT_TRUE(result.entries.empty()) << line;
    EXPECT_EQ(result.issues.size(), 1u) << line;
    return result.issues.empty() ? ManifestIssue{} : result.issues.front();
}

TEST(DatasetManifest, EntriesRoundTrip) {
    ManifestEntry image;
    image.path = "/data/stills/cat.png";
    image.caption = "";
    image.image = true;
    image.frames = 1;
    const std::vector<ManifestEntry> entries = {full_entry(), image};

    const std::string text = format_manifest(entries);
    EXPECT_EQ(text.rfind("{\"v\":1,\"path\":\"clips/beach at dawn.mp4\",\"caption\":", 0), 0u)
        << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);

    const ManifestReadResult result = parse_manifest(text, "data.jsonl");
    ASSERT_TRUE(result.ok()) << result.issues.front().to_string();
    ASSERT_EQ(result.entries.size(), 2u);
    expect_same(result.entries[0], entries[0]);
    expect_same(result.entries[1], entries[1]);
    EXPECT_EQ(result.entry_lines, (std::vector<std::int64_t>{1, 2}));
    EXPECT_NE(format_manifest_line(image).find("\"trim_out\":null"), std::string::npos);
}

TEST(DatasetManifest, OptionalFieldsDefaultAndUnknownFieldsAreIgnored) {
    const ManifestReadResult result = parse_manifest(
        "\xEF\xBB\xBF{\"v\":1,\"path\":\"a.mp4\",\"caption\":\"x\",\"future_field\":[1,2]}\r\n"
        "\n   \n"
        "{\"v\":1,\"path\":\"b.mp4\",\"caption\":\"y\",\"trim_out\":null,\"fps\":null}\n",
        "data.jsonl");
    ASSERT_TRUE(result.ok()) << result.issues.front().to_string();
    ASSERT_EQ(result.entries.size(), 2u);
    EXPECT_EQ(result.entries[0].trim_in, 0);
    EXPECT_FALSE(result.entries[0].trim_out.has_value());
    EXPECT_FALSE(result.entries[0].image);
    EXPECT_EQ(result.entries[0].frames, 0);
    EXPECT_EQ(result.entry_lines, (std::vector<std::int64_t>{1, 4}));
}

TEST(DatasetManifest, BadLinesNameFileLineAndFieldAndTheRestStillLoads) {
    const ManifestReadResult result = parse_manifest(
        "{\"v\":1,\"path\":\"good.mp4\",\"caption\":\"fine\"}\n"
        "{\"v\":1,\"path\":\"bad.mp4\",\"caption\":\"x\",\"trim_in\":30,\"trim_out\":10}\n"
        "{\"v\":1,\"path\":\"also-good.mp4\",\"caption\":\"fine\"}\n",
        "/data/set/data.jsonl");
    ASSERT_EQ(result.entries.size(), 2u);
    ASSERT_EQ(result.issues.size(), 1u);
    const ManifestIssue& issue = result.issues.front();
    EXPECT_EQ(issue.file, "/data/set/data.jsonl");
    EXPECT_EQ(issue.line, 2);
    EXPECT_EQ(issue.field, "trim_out");
    EXPECT_EQ(issue.to_string().rfind("/data/set/data.jsonl, line 2, field \"trim_out\": ", 0), 0u)
        << issue.to_string();
    EXPECT_EQ(result.entry_lines, (std::vector<std::int64_t>{1, 3}));
}

// Found by the dataset_manifest fuzzer: a number past double's range made nlohmann throw
// out_of_range, which ended the whole read instead of becoming one line's issue.
TEST(DatasetManifest, NumberOutOfRangeIsOneLinesIssue) {
    const ManifestReadResult result =
        parse_manifest("{\"v\":1,\"path\":\"a.mp4\",\"caption\":\"x\",\"fps\":1e600}\n"
                       "{\"v\":1,\"path\":\"b.mp4\",\"caption\":\"fine\"}\n",
                       "data.jsonl");
    ASSERT_EQ(result.entries.size(), 1u);
    ASSERT_EQ(result.issues.size(), 1u);
    EXPECT_EQ(result.issues.front().line, 1);
    EXPECT_NE(result.issues.front().message.find("not valid JSON"), std::string::npos)
        << result.issues.front().message;
}

TEST(DatasetManifest, EachKindOfMistakeIsReportedAgainstItsField) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({"path":"a.mp4","caption":"x"})", "v"},
        {R"({"v":"1","path":"a.mp4","caption":"x"})", "v"},
        {R"({"v":2,"path":"a.mp4","caption":"x"})", "v"},
        {R"({"v":1,"caption":"x"})", "path"},
        {R"({"v":1,"path":"","caption":"x"})", "path"},
        {R"({"v":1,"path":7,"caption":"x"})", "path"},
        {R"({"v":1,"path":"a.mp4"})", "caption"},
        {R"({"v":1,"path":"a.mp4","caption":"x","trim_in":-2})", "trim_in"},
        {R"({"v":1,"path":"a.mp4","caption":"x","trim_in":1.5})", "trim_in"},
        {R"({"v":1,"path":"a.mp4","caption":"x","trim_out":130,"frames":120})", "trim_out"},
        {R"({"v":1,"path":"a.mp4","caption":"x","image":"yes"})", "image"},
        {R"({"v":1,"path":"a.png","caption":"x","image":true,"frames":5})", "frames"},
        {R"({"v":1,"path":"a.mp4","caption":"x","hash":"md5:abc"})", "hash"},
        {R"({"v":1,"path":"a.mp4","caption":"x","width":-5})", "width"},
        {R"({"v":1,"path":"a.mp4","caption":"x","fps":"fast"})", "fps"},
        {R"([1,2,3])", ""},
        {R"({"v":1,"path":"a.mp4",)", ""},
    };
    for (const auto& [line, field] : cases) {
        const ManifestIssue issue = only_issue(line);
        EXPECT_EQ(issue.field, field) << line << " -> " << issue.to_string();
        EXPECT_EQ(issue.line, 1) << line;
        EXPECT_FALSE(issue.message.empty()) << line;
    }
    EXPECT_NE(only_issue(R"({"v":2,"path":"a.mp4","caption":"x"})").message.find("update"),
              std::string::npos);
}

TEST(DatasetManifest, RelativePathsResolveAgainstTheManifestFolder) {
    ManifestEntry entry;
    entry.path = "../clips/./a.mp4";
    EXPECT_EQ(resolve_manifest_path(entry, "/data/set/data.jsonl"), fs::path("/data/clips/a.mp4"));
    entry.path = "/elsewhere/b.mp4";
    EXPECT_EQ(resolve_manifest_path(entry, "/data/set/data.jsonl"), fs::path("/elsewhere/b.mp4"));
}

TEST(DatasetManifest, PathsLeavingTheManifestFolderAreNamed) {
    test::TemporaryDirectory root;
    fs::create_directories(root / "set" / "clips");
    test::write_bytes(root / "outside.mp4", "x");
    test::write_bytes(root / "set" / "clips" / "inside.mp4", "x");
    fs::create_symlink(root / "outside.mp4", root / "set" / "link.mp4");
    fs::create_symlink(root.path(), root / "set" / "up");
    fs::create_symlink(root / "set" / "clips" / "inside.mp4", root / "set" / "inner.mp4");
    const fs::path manifest = root / "set" / "data.jsonl";
    const auto problem = [&manifest](const std::string& path) {
        ManifestEntry entry;
        entry.path = path;
        return manifest_path_outside_problem(entry, manifest);
    };
    EXPECT_EQ(problem("clips/inside.mp4"), "");
    EXPECT_EQ(problem("clips/../clips/inside.mp4"), "");
    EXPECT_EQ(problem("inner.mp4"), "");
    EXPECT_EQ(problem("clips/not-yet.mp4"), "") << "a missing clip is reported as missing";
    EXPECT_NE(problem("../outside.mp4").find(".."), std::string::npos);
    EXPECT_NE(problem("../../../../etc/passwd").find(".."), std::string::npos);
    EXPECT_NE(problem("clips/../../outside.mp4").find(".."), std::string::npos);
    EXPECT_NE(problem((root / "outside.mp4").string()).find("absolute"), std::string::npos);
    EXPECT_NE(problem("/etc/passwd").find("absolute"), std::string::npos);
    EXPECT_NE(problem("/dev/zero").find("absolute"), std::string::npos);
    EXPECT_NE(problem("link.mp4").find("symbolic link"), std::string::npos);
    EXPECT_NE(problem("up/outside.mp4").find("symbolic link"), std::string::npos);
    EXPECT_NE(problem("up/missing.mp4").find("symbolic link"), std::string::npos);
    EXPECT_NE(problem((root / "set" / ".." / "outside.mp4").string()).find("absolute"),
              std::string::npos);
    EXPECT_NE(problem((root / "set" / "link.mp4").string()).find("symbolic link"),
              std::string::npos);
    EXPECT_NE(problem((root / "set" / "up" / "outside.mp4").string()).find("symbolic link"),
              std::string::npos);
    EXPECT_NE(problem((root / "set" / "up" / "set" / "link.mp4").string()).find("symbolic link"),
              std::string::npos);
    EXPECT_NE(problem((root / "set" / "up" / "missing.mp4").string()).find("symbolic link"),
              std::string::npos);
}

// Absolute paths that other tools (and users) write for clips beside the manifest.
TEST(DatasetManifest, AbsolutePathsInsideTheManifestFolderAreInside) {
    test::TemporaryDirectory root;
    fs::create_directories(root / "set" / "clips");
    test::write_bytes(root / "set" / "clips" / "inside.mp4", "x");
    fs::create_symlink(root / "set", root / "alias");
    fs::create_symlink(root / "set" / "clips" / "inside.mp4", root / "set" / "inner.mp4");
    const auto problem = [](const fs::path& manifest, const fs::path& path) {
        ManifestEntry entry;
        entry.path = path.string();
        return manifest_path_outside_problem(entry, manifest);
    };
    const fs::path manifest = root / "set" / "data.jsonl";
    EXPECT_EQ(problem(manifest, root / "set" / "clips" / "inside.mp4"), "");
    EXPECT_EQ(problem(manifest, root / "set" / "clips" / ".." / "clips" / "inside.mp4"), "");
    EXPECT_EQ(problem(manifest, root / "set" / "inner.mp4"), "");
    EXPECT_EQ(problem(manifest, root / "set" / "clips" / "not-yet.mp4"), "");
    // The folder reached through a link, from either side.
    EXPECT_EQ(problem(manifest, root / "alias" / "clips" / "inside.mp4"), "");
    EXPECT_EQ(problem(root / "alias" / "data.jsonl", root / "set" / "clips" / "inside.mp4"), "");
    EXPECT_EQ(problem("data.jsonl", fs::absolute("clips") / "a.mp4"), "")
        << "a manifest named relative to the working folder";
    ManifestEntry entry;
    entry.path = (root / "set" / "clips" / "inside.mp4").string();
    EXPECT_EQ(resolve_manifest_path(entry, manifest), root / "set" / "clips" / "inside.mp4");
}

TEST(DatasetManifest, SpecialFilesAreNotOpened) {
    test::TemporaryDirectory folder;
    const fs::path fifo = folder / "data.jsonl";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // Opening the FIFO would block this test forever; ctest's timeout would then fail it.
    for (const fs::path& special : {fifo, fs::path("/dev/zero"), folder.path()}) {
        const ManifestReadResult result = read_manifest(special);
        ASSERT_EQ(result.issues.size(), 1u) << special;
        EXPECT_NE(result.issues[0].message.find("not a regular file"), std::string::npos);
        EXPECT_TRUE(result.entries.empty());
    }
}

TEST(DatasetManifest, WriteIsAtomicAndReadBack) {
    test::TemporaryDirectory folder;
    const fs::path file = folder / "data.jsonl";
    test::write_bytes(file, "old contents\n");
    std::string error;
    ASSERT_TRUE(write_manifest(file, {full_entry()}, &error)) << error;
    const ManifestReadResult result = read_manifest(file);
    ASSERT_TRUE(result.ok());
    ASSERT_EQ(result.entries.size(), 1u);
    expect_same(result.entries[0], full_entry());
    for (const auto& item : fs::directory_iterator(folder.path())) {
        EXPECT_EQ(item.path().filename(), "data.jsonl") << "left behind: " << item.path();
    }
}

TEST(DatasetManifest, WriteFailuresNameTheFileAndKeepTheOldOne) {
    test::TemporaryDirectory folder;
    std::string error;
    const fs::path missing_folder = folder / "no such folder" / "data.jsonl";
    EXPECT_FALSE(write_manifest(missing_folder, {full_entry()}, &error));
    EXPECT_NE(error.find(missing_folder.string()), std::string::npos) << error;

    const fs::path file = folder / "data.jsonl";
    test::write_bytes(file, "keep me\n");
    ManifestEntry bad = full_entry();
    bad.trim_out = 3;
    EXPECT_FALSE(write_manifest(file, {full_entry(), bad}, &error));
    EXPECT_NE(error.find("entry 2"), std::string::npos) << error;
    EXPECT_NE(error.find("trim_out"), std::string::npos) << error;
    EXPECT_EQ(test::read_bytes(file), "keep me\n");

    ManifestEntry not_utf8 = full_entry();
    not_utf8.caption = "caf\xE9";
    EXPECT_FALSE(write_manifest(file, {not_utf8}, &error));
    EXPECT_NE(error.find("UTF-8"), std::string::npos) << error;
    EXPECT_THROW(format_manifest_line(not_utf8), std::invalid_argument);
}

TEST(DatasetManifest, UnreadableFileIsOneIssueNamingIt) {
    const ManifestReadResult result = read_manifest("/nonexistent/folder/data.jsonl");
    ASSERT_EQ(result.issues.size(), 1u);
    EXPECT_EQ(result.issues[0].line, 0);
    EXPECT_NE(result.issues[0].to_string().find("/nonexistent/folder/data.jsonl"),
              std::string::npos);
}

} // namespace
} // namespace tuneframe::common
