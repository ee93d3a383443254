// A job file is one JSON value and nothing after it: a NUL byte (where the JSON parser would
// stop as at the end) and trailing data are refused, as are files no job could be.
#include "engine/core/error.h"
#include "engine/core/job_file.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <fstream>

#include <sys/stat.h>

namespace tuneframe::core {
namespace {

namespace fs = std::filesystem;

fs::path write(const fs::path& file, const std::string& bytes) {
    std::ofstream(file, std::ios::binary) << bytes;
    return file;
}

std::string refusal_of(const fs::path& file) {
    try {
        read_job_file(file);
        return {};
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::BadInput) << error.what();
        EXPECT_FALSE(error.hint().empty()) << error.what();
        return error.what();
    }
}

TEST(JobFile, ANulByteAndWhateverFollowsIsRefused) {
    test::TemporaryDirectory folder;
    const std::string job = "{\"max_steps\": 10,\n \"seed\": 3}";
    EXPECT_EQ(read_job_file(write(folder / "good.json", job)).max_steps, 10);
    const std::string message =
        refusal_of(write(folder / "nul.json", job + std::string(1, '\0') + "garbage"));
    EXPECT_NE(message.find("NUL"), std::string::npos) << message;
    EXPECT_NE(message.find("line 2, column 12"), std::string::npos) << message;
    EXPECT_NE(message.find("nul.json"), std::string::npos) << message;
    EXPECT_FALSE(refusal_of(write(folder / "lone.json", job + std::string(1, '\0'))).empty());
    // Trailing data without a NUL was refused already, and still is.
    EXPECT_FALSE(refusal_of(write(folder / "two.json", job + "{}")).empty());
    // The same for the sweep's grid, read through read_job_json.
    EXPECT_THROW(
        read_job_json(write(folder / "grid.json", "{\"axes\": {}}" + std::string(1, '\0'))), Error);
}

TEST(JobFile, AFieldRefusalNamesTheFieldAndTheFile) {
    test::TemporaryDirectory folder;
    try {
        read_job_file(write(folder / "job.json", R"({"batch_size": 4611686018427387904})"));
        FAIL() << "batch_size 2^62 was read";
    } catch (const Error& error) {
        EXPECT_EQ(error.field(), "batch_size");
        EXPECT_NE(std::string(error.what()).find("job.json"), std::string::npos);
    }
}

TEST(JobFile, WhatCannotBeAJobFileIsRefusedUnread) {
    test::TemporaryDirectory folder;
    // A FIFO would block the read until a writer comes.
    const fs::path fifo = folder / "fifo.json";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_NE(refusal_of(fifo).find("not a regular file"), std::string::npos);
    EXPECT_NE(refusal_of(folder.path()).find("not a regular file"), std::string::npos);
    // Far larger than any job the limits allow.
    const std::string huge = "{\"trigger_word\": \"" + std::string(5 << 20, 'x') + "\"}";
    EXPECT_NE(refusal_of(write(folder / "huge.json", huge)).find("more than"), std::string::npos);
}

} // namespace
} // namespace tuneframe::core
