// prepared.jsonl: what prepare writes is what the trainer reads; a newer version or a damaged
// line is refused with the file, the line and the field named.
#include "engine/core/error.h"
#include "engine/data/prepared_index.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace tuneframe::data {
namespace {

PreparedIndex example() {
    PreparedIndex index;
    index.dataset = {"/p/data.jsonl", "/p/cache", "/models/tiny", "i2v", "bf16", 226};
    PreparedSample a;
    a.line = 1;
    a.path = "/p/clips/gull.mp4";
    a.caption = "tfx a gull\nover the harbour";
    a.frames = 9;
    a.height = 32;
    a.width = 48;
    a.latent = "video_latents/ab/ab01.safetensors";
    a.prompt = "prompt_embeds/cd/cd02.safetensors";
    a.image_latent = "image_latents/ef/ef03.safetensors";
    index.samples.push_back(a);
    a.line = 3;
    a.height = 48;
    a.width = 32;
    index.samples.push_back(a);
    index.skipped.push_back({2, "/p/clips/broken.mp4", "corrupt", "The file is damaged."});
    index.skipped.push_back({5, "", "bad_manifest_line", "data.jsonl, line 5: ..."});
    return index;
}

void expect_same(const PreparedIndex& a, const PreparedIndex& b) {
    EXPECT_EQ(a.dataset.manifest, b.dataset.manifest);
    EXPECT_EQ(a.dataset.cache_dir, b.dataset.cache_dir);
    EXPECT_EQ(a.dataset.model, b.dataset.model);
    EXPECT_EQ(a.dataset.task, b.dataset.task);
    EXPECT_EQ(a.dataset.dtype, b.dataset.dtype);
    EXPECT_EQ(a.dataset.text_length, b.dataset.text_length);
    ASSERT_EQ(a.samples.size(), b.samples.size());
    for (std::size_t i = 0; i < a.samples.size(); ++i) {
        const PreparedSample& x = a.samples[i];
        const PreparedSample& y = b.samples[i];
        EXPECT_EQ(x.line, y.line);
        EXPECT_EQ(x.path, y.path);
        EXPECT_EQ(x.caption, y.caption);
        EXPECT_EQ(x.bucket(), y.bucket());
        EXPECT_EQ(x.latent, y.latent);
        EXPECT_EQ(x.prompt, y.prompt);
        EXPECT_EQ(x.image_latent, y.image_latent);
    }
    ASSERT_EQ(a.skipped.size(), b.skipped.size());
    for (std::size_t i = 0; i < a.skipped.size(); ++i) {
        EXPECT_EQ(a.skipped[i].line, b.skipped[i].line);
        EXPECT_EQ(a.skipped[i].path, b.skipped[i].path);
        EXPECT_EQ(a.skipped[i].reason, b.skipped[i].reason);
        EXPECT_EQ(a.skipped[i].message, b.skipped[i].message);
    }
}

TEST(PreparedIndex, RoundTripsThroughAFile) {
    test::TemporaryDirectory dir;
    const PreparedIndex written = example();
    written.write(dir / PreparedIndex::kFileName);
    const PreparedIndex read = PreparedIndex::read(dir / PreparedIndex::kFileName);
    expect_same(written, read);
    EXPECT_EQ(read.samples[0].bucket(), "9x32x48");
    EXPECT_EQ(read.file_in_cache(read.samples[0].latent),
              std::filesystem::path("/p/cache/video_latents/ab/ab01.safetensors"));
    EXPECT_EQ(read.fingerprint(), written.fingerprint());
}

TEST(PreparedIndex, WritesOneVersionedLinePerRecord) {
    const std::string text = example().to_jsonl();
    int lines = 0;
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
        const auto line = nlohmann::json::parse(text.substr(start, end - start));
        EXPECT_EQ(line["v"], kPreparedIndexVersion);
        EXPECT_TRUE(line.contains("kind"));
        ++lines;
    }
    EXPECT_EQ(lines, 5); // dataset, two samples, two skipped
}

TEST(PreparedIndex, RejectsANewerVersion) {
    std::string text = example().to_jsonl();
    text += "{\"v\":2,\"kind\":\"sample\",\"line\":9}\n";
    try {
        PreparedIndex::parse(text, "run/prepared.jsonl");
        FAIL() << "read a newer version";
    } catch (const core::Error& error) {
        const std::string message = error.what();
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        EXPECT_NE(message.find("run/prepared.jsonl, line 6"), std::string::npos) << message;
        EXPECT_NE(message.find("newer"), std::string::npos) << message;
        EXPECT_FALSE(error.hint().empty());
    }
}

TEST(PreparedIndex, NamesTheLineAndFieldOfADamagedRecord) {
    const std::string head = "{\"v\":1,\"kind\":\"dataset\",\"manifest\":\"m\",\"cache_dir\":\"c\","
                             "\"model\":\"x\",\"task\":\"t2v\",\"dtype\":\"fp32\","
                             "\"text_length\":226}\n";
    try {
        PreparedIndex::parse(head + "{\"v\":1,\"kind\":\"sample\",\"line\":\"one\"}\n", "p.jsonl");
        FAIL();
    } catch (const core::Error& error) {
        EXPECT_NE(std::string(error.what()).find("p.jsonl, line 2, field \"line\""),
                  std::string::npos)
            << error.what();
    }
    EXPECT_THROW(PreparedIndex::parse(head + "{not json\n", "p.jsonl"), core::Error);
    EXPECT_THROW(PreparedIndex::parse("", "p.jsonl"), core::Error) << "no dataset line";
    EXPECT_THROW(PreparedIndex::read("/nonexistent/prepared.jsonl"), core::Error);

    // Fields and kinds a later minor version adds are ignored.
    const PreparedIndex read = PreparedIndex::parse(
        head + "{\"v\":1,\"kind\":\"note\",\"text\":\"hi\"}\n" +
            "{\"v\":1,\"kind\":\"skipped\",\"line\":4,\"reason\":\"too_short\",\"extra\":1}\n",
        "p.jsonl");
    ASSERT_EQ(read.skipped.size(), 1u);
    EXPECT_EQ(read.skipped[0].reason, "too_short");
}

TEST(PreparedIndex, FingerprintFollowsTheSamples) {
    const PreparedIndex a = example();
    PreparedIndex b = example();
    EXPECT_EQ(a.fingerprint(), b.fingerprint());
    b.samples[1].latent = "video_latents/99/9900.safetensors";
    EXPECT_NE(a.fingerprint(), b.fingerprint());
    PreparedIndex c = example();
    c.skipped.clear();
    EXPECT_EQ(a.fingerprint(), c.fingerprint()) << "skipped clips do not train";
}

} // namespace
} // namespace tuneframe::data
