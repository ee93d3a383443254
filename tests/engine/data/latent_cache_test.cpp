// The latent cache: entries round-trip with their dtype and metadata, a damaged or foreign file
// is not taken for an entry, and killed writers' temporaries are cleaned up once stale.
#include "engine/core/error.h"
#include "engine/data/latent_cache.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::data {
namespace {

namespace fs = std::filesystem;

CacheKey video_key(int frames = 9) {
    LatentKeyInputs in;
    in.source = {{"hash", "sha256:" + std::string(64, 'a')}};
    in.frames = frames;
    in.height = 32;
    in.width = 48;
    in.resize_mode = "stretch";
    in.dtype = "fp32";
    return CacheKey::video(in);
}

TEST(LatentCache, NamesEntriesByKindAndKey) {
    const CacheKey key = video_key();
    const fs::path relative = LatentCache::relative_path(key);
    EXPECT_EQ(relative.generic_string(),
              "video_latents/" + key.hex().substr(0, 2) + "/" + key.hex() + ".safetensors");
    LatentKeyInputs in;
    EXPECT_EQ(LatentCache::relative_path(CacheKey::image(in)).begin()->string(), "image_latents");
    EXPECT_EQ(LatentCache::relative_path(CacheKey::prompt({})).begin()->string(), "prompt_embeds");
}

TEST(LatentCache, MomentsRoundTripWithDtypeAndMetadata) {
    test::TemporaryDirectory dir;
    const LatentCache cache(dir / "cache");
    const CacheKey key = video_key();
    EXPECT_EQ(cache.state(key), CacheEntryState::Absent);

    torch::manual_seed(1);
    const Moments written{torch::randn({16, 3, 4, 6}).to(torch::kBFloat16),
                          torch::randn({16, 3, 4, 6}).clamp(-30, 20).to(torch::kBFloat16)};
    cache.write_moments(key, written, {{"source", "/clips/a.mp4"}, {"bucket", "9x32x48"}});
    EXPECT_EQ(cache.state(key), CacheEntryState::Present);

    const Moments read = cache.read_moments(LatentCache::relative_path(key));
    EXPECT_EQ(read.mean.scalar_type(), torch::kBFloat16);
    EXPECT_EQ(read.mean.sizes(), written.mean.sizes());
    EXPECT_TRUE(torch::equal(read.mean, written.mean));
    EXPECT_TRUE(torch::equal(read.logvar, written.logvar));

    const auto metadata = cache.read_metadata(LatentCache::relative_path(key));
    EXPECT_EQ(metadata.at("key"), key.hex());
    EXPECT_EQ(metadata.at("kind"), "video");
    EXPECT_EQ(metadata.at("bucket"), "9x32x48");
    EXPECT_EQ(metadata.at("source"), "/clips/a.mp4");
    EXPECT_EQ(metadata.at("key_inputs"), key.canonical_text());
    EXPECT_EQ(metadata.at("cache_version"), "1");

    // No temporary is left beside the entry.
    for (const auto& file : fs::directory_iterator(cache.path(key).parent_path())) {
        EXPECT_EQ(file.path(), cache.path(key));
    }
}

TEST(LatentCache, PromptEmbeddingsRoundTrip) {
    test::TemporaryDirectory dir;
    const LatentCache cache(dir.path());
    PromptKeyInputs in;
    in.caption = "a gull";
    const CacheKey key = CacheKey::prompt(in);
    const at::Tensor embeds = torch::randn({64, 32});
    cache.write_prompt(key, embeds, {{"caption", "a gull"}});
    EXPECT_EQ(cache.state(key), CacheEntryState::Present);
    EXPECT_TRUE(torch::equal(cache.read_prompt(LatentCache::relative_path(key)), embeds));
    EXPECT_THROW(cache.read_moments(LatentCache::relative_path(key)), core::Error);
    EXPECT_THROW(cache.write_moments(key, {embeds, embeds}), core::Error);
}

TEST(LatentCache, DamagedOrForeignFilesAreNotEntries) {
    test::TemporaryDirectory dir;
    const LatentCache cache(dir.path());
    const CacheKey key = video_key(9);
    const CacheKey other = video_key(13);
    cache.write_moments(other, {torch::zeros({1}), torch::zeros({1})});

    fs::create_directories(cache.path(key).parent_path());
    test::write_bytes(cache.path(key), "not a safetensors file");
    EXPECT_EQ(cache.state(key), CacheEntryState::Damaged);

    // Another key's complete entry under this key's name (a renamed file) is not this entry.
    fs::copy_file(cache.path(other), cache.path(key), fs::copy_options::overwrite_existing);
    EXPECT_EQ(cache.state(key), CacheEntryState::Damaged);

    cache.write_moments(key, {torch::ones({2}), torch::ones({2})});
    EXPECT_EQ(cache.state(key), CacheEntryState::Present);
    EXPECT_THROW(cache.read_moments("video_latents/00/missing.safetensors"), core::Error);
}

TEST(LatentCache, StaleTemporariesAreRemoved) {
    test::TemporaryDirectory dir;
    const LatentCache cache(dir.path());
    const CacheKey key = video_key();
    cache.write_moments(key, {torch::zeros({1}), torch::zeros({1})});
    const fs::path folder = cache.path(key).parent_path();
    const fs::path stale = folder / ("." + key.hex() + ".safetensors.tmp-AAAAAA");
    const fs::path fresh = folder / ("." + key.hex() + ".safetensors.tmp-BBBBBB");
    test::write_bytes(stale, "x");
    test::write_bytes(fresh, "x");
    fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(2));

    EXPECT_EQ(cache.remove_stale_temporaries(std::chrono::hours(1)), 1u);
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(fresh));
    EXPECT_TRUE(fs::exists(cache.path(key)));
}

TEST(LatentCache, AnUnwritableCacheIsAnIoError) {
    test::TemporaryDirectory dir;
    test::write_bytes(dir / "cache", "a file where the cache folder should be");
    const LatentCache cache(dir / "cache");
    try {
        cache.write_moments(video_key(), {torch::zeros({1}), torch::zeros({1})});
        FAIL() << "wrote into a file";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::Io);
        EXPECT_NE(std::string(error.what()).find("cache"), std::string::npos) << error.what();
    }
}

} // namespace
} // namespace tuneframe::data
