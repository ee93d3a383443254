// Cache keys: each input changes the key and nothing else does; the identities they are built
// from; the caption's trigger word; where a crop lands.
#include "engine/core/error.h"
#include "engine/data/cache_key.h"
#include "engine/data/dataset_preparer.h"
#include "engine/data/file_identity.h"
#include "engine/data/frame_placement.h"
#include "engine/data/sha256.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <stdexcept>
#include <thread>

namespace tuneframe::data {
namespace {

namespace fs = std::filesystem;

// FIPS 180-2 appendix B and the NIST example vectors.
TEST(Sha256, MatchesTheStandardVectors) {
    EXPECT_EQ(Sha256::hex_of(""),
              "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(Sha256::hex_of("abc"),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(Sha256::hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    // A million 'a's fed in uneven pieces.
    Sha256 hash;
    const std::string piece(997, 'a');
    std::size_t fed = 0;
    while (fed + piece.size() <= 1000000) {
        hash.update(piece);
        fed += piece.size();
    }
    hash.update(std::string(1000000 - fed, 'a'));
    EXPECT_EQ(hash.hex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Chunks around the 64-byte block and the 56-byte padding boundary, and empty updates.
TEST(Sha256, StreamingInAnyChunkSizeEqualsOneShot) {
    std::string message(1000, '\0');
    for (std::size_t i = 0; i < message.size(); ++i) {
        message[i] = static_cast<char>((i * 31 + 7) % 256);
    }
    for (const std::size_t length : {0u, 1u, 55u, 56u, 63u, 64u, 65u, 119u, 128u, 1000u}) {
        const std::string_view text(message.data(), length);
        const std::string one_shot = Sha256::hex_of(text);
        for (const std::size_t chunk : {1u, 3u, 7u, 55u, 63u, 64u, 65u, 127u}) {
            Sha256 hash;
            for (std::size_t at = 0; at < length; at += chunk) {
                hash.update(text.substr(at, chunk));
                hash.update(nullptr, 0);
            }
            EXPECT_EQ(hash.hex(), one_shot) << "length " << length << ", chunk " << chunk;
        }
    }
}

TEST(Sha256, DigestBytesMatchHexAndASpentHashRefusesMore) {
    Sha256 hash;
    hash.update("abc");
    const std::array<std::uint8_t, 32> digest = hash.finish();
    EXPECT_EQ(digest[0], 0xba);
    EXPECT_EQ(digest[31], 0xad);
    EXPECT_THROW(hash.update("more"), std::logic_error);
    EXPECT_THROW(hash.finish(), std::logic_error);
    Sha256 first;
    first.update("abc");
    Sha256 moved(std::move(first));
    EXPECT_EQ(moved.hex(), Sha256::hex_of("abc"));
}

LatentKeyInputs latent_inputs() {
    LatentKeyInputs in;
    in.source = {{"hash", "sha256:" + std::string(64, 'a')}};
    in.trim_in = 2;
    in.trim_out = 40;
    in.frame_indices = {2, 6, 10, 14, 18, 22, 26, 30, 34};
    in.frames = 9;
    in.height = 32;
    in.width = 48;
    in.resize_mode = "stretch";
    in.vae = std::string(64, 'b');
    in.dtype = "fp32";
    return in;
}

PromptKeyInputs prompt_inputs() {
    PromptKeyInputs in;
    in.caption = "tfx a gull over the harbour";
    in.tokenizer = std::string(64, 'c');
    in.text_encoder = std::string(64, 'd');
    in.text_length = 226;
    in.dtype = "bf16";
    return in;
}

TEST(CacheKey, IsStableAndHexAndIgnoresFieldOrder) {
    const CacheKey a = CacheKey::video(latent_inputs());
    EXPECT_EQ(a, CacheKey::video(latent_inputs()));
    EXPECT_EQ(a.hex().size(), 64u);
    EXPECT_EQ(a.hex().find_first_not_of("0123456789abcdef"), std::string::npos);
    EXPECT_EQ(a.hex(), Sha256::hex_of(a.canonical_text()));

    LatentKeyInputs reordered = latent_inputs();
    reordered.source = nlohmann::json::object();
    reordered.source["size"] = 10;
    reordered.source["path"] = "/clips/a.mp4";
    LatentKeyInputs ordered = latent_inputs();
    ordered.source = nlohmann::json::object();
    ordered.source["path"] = "/clips/a.mp4";
    ordered.source["size"] = 10;
    EXPECT_EQ(CacheKey::video(reordered), CacheKey::video(ordered));
}

// Keys computed by the hand-written SHA-256 the engine used before libcrypto's: caches written
// then stay valid. A change here orphans every user's latent cache; bump kCacheKeyVersion instead.
TEST(CacheKey, KeysFromBeforeTheLibcryptoSwitchAreUnchanged) {
    EXPECT_EQ(CacheKey::video(latent_inputs()).hex(),
              "14d1017d5f22b97a7abb310a231b0c3fb95acd1f9455db0d842ed93ea6cfe09e");
    EXPECT_EQ(CacheKey::prompt(prompt_inputs()).hex(),
              "a84ff4182dcf04594d872bc40085dc51bad2a3bc6f61e67cce9ee1a03f762aef");

    test::TemporaryDirectory dir;
    test::write_bytes(dir / "config.json", "{\"_class_name\": \"CogVideoXTransformer3DModel\"}\n");
    std::string weights(70001, '\0');
    for (std::size_t i = 0; i < weights.size(); ++i) {
        weights[i] = static_cast<char>((i * 7 + 3) % 251);
    }
    test::write_bytes(dir / "diffusion_pytorch_model.safetensors", weights);
    EXPECT_EQ(component_identity(dir.path(), true),
              "754deb019fefa8339021d7546eb0d68dfcedd4ca8a8ab76af7adb0676623c86a");
}

TEST(CacheKey, EveryLatentInputChangesTheKey) {
    const std::vector<std::pair<const char*, std::function<void(LatentKeyInputs&)>>> changes = {
        {"content hash",
         [](auto& in) {
             in.source["hash"] = "sha256:" + std::string(64, 'e');
         }},
        {"path identity",
         [](auto& in) {
             in.source = {{"path", "/a.mp4"}, {"size", 1}, {"mtime_ns", 2}};
         }},
        {"trim_in",
         [](auto& in) {
             in.trim_in = 3;
         }},
        {"trim_out",
         [](auto& in) {
             in.trim_out = 41;
         }},
        {"trim_out to the end",
         [](auto& in) {
             in.trim_out.reset();
         }},
        {"frame indices",
         [](auto& in) {
             in.frame_indices.back() = 35;
         }},
        {"frame bucket",
         [](auto& in) {
             in.frames = 13;
         }},
        {"height",
         [](auto& in) {
             in.height = 48;
         }},
        {"width",
         [](auto& in) {
             in.width = 32;
         }},
        {"resize mode",
         [](auto& in) {
             in.resize_mode = "center_crop";
         }},
        {"crop x",
         [](auto& in) {
             in.crop_x = 3;
         }},
        {"crop y",
         [](auto& in) {
             in.crop_y = 3;
         }},
        {"vae",
         [](auto& in) {
             in.vae = std::string(64, 'f');
         }},
        {"vae tiling",
         [](auto& in) {
             in.vae_tiling = true;
         }},
        {"dtype",
         [](auto& in) {
             in.dtype = "bf16";
         }},
    };
    std::set<std::string> keys = {CacheKey::video(latent_inputs()).hex(),
                                  CacheKey::image(latent_inputs()).hex()};
    EXPECT_EQ(keys.size(), 2u) << "video and image entries of one clip share a key";
    for (const auto& [name, change] : changes) {
        LatentKeyInputs in = latent_inputs();
        change(in);
        EXPECT_TRUE(keys.insert(CacheKey::video(in).hex()).second) << name;
    }
}

TEST(CacheKey, EveryPromptInputChangesTheKey) {
    const std::vector<std::pair<const char*, std::function<void(PromptKeyInputs&)>>> changes = {
        {"caption",
         [](auto& in) {
             in.caption += ".";
         }},
        {"caption whitespace",
         [](auto& in) {
             in.caption += " ";
         }},
        {"tokenizer",
         [](auto& in) {
             in.tokenizer = std::string(64, 'e');
         }},
        {"text encoder",
         [](auto& in) {
             in.text_encoder = std::string(64, 'e');
         }},
        {"text length",
         [](auto& in) {
             in.text_length = 64;
         }},
        {"dtype",
         [](auto& in) {
             in.dtype = "fp32";
         }},
    };
    std::set<std::string> keys = {CacheKey::prompt(prompt_inputs()).hex()};
    EXPECT_EQ(CacheKey::prompt(prompt_inputs()).kind(), CacheEntryKind::Prompt);
    for (const auto& [name, change] : changes) {
        PromptKeyInputs in = prompt_inputs();
        change(in);
        EXPECT_TRUE(keys.insert(CacheKey::prompt(in).hex()).second) << name;
    }
}

TEST(FileIdentity, ClipUsesTheManifestHashOrTheFileItself) {
    test::TemporaryDirectory dir;
    const fs::path clip = dir / "a.mp4";
    test::write_bytes(clip, "first");
    common::ManifestEntry entry;
    entry.path = "a.mp4";
    const nlohmann::json by_file = clip_source_identity(entry, clip);
    EXPECT_EQ(by_file["path"], fs::absolute(clip).string());
    EXPECT_EQ(by_file["size"], 5);
    EXPECT_EQ(clip_source_identity(entry, clip), by_file);

    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    test::write_bytes(clip, "other");
    EXPECT_NE(clip_source_identity(entry, clip), by_file) << "rewritten in place, same size";

    entry.hash = "sha256:" + std::string(64, '1');
    EXPECT_EQ(clip_source_identity(entry, clip), (nlohmann::json{{"hash", entry.hash}}));
    EXPECT_THROW(clip_source_identity(common::ManifestEntry{}, dir / "missing.mp4"), core::Error);
}

TEST(FileIdentity, ComponentFolderFollowsConfigsAndWeights) {
    test::TemporaryDirectory dir;
    test::write_bytes(dir / "config.json", "{\"latent_channels\": 16}");
    EXPECT_THROW(component_identity(dir.path(), true), core::Error) << "no weights";
    const std::string big(3u << 20, 'w');
    test::write_bytes(dir / "diffusion_pytorch_model.safetensors", big);
    const std::string original = component_identity(dir.path(), true);
    EXPECT_EQ(component_identity(dir.path(), true), original);

    test::write_bytes(dir / ".diffusion_pytorch_model.safetensors.tmp-abc", "partial");
    EXPECT_EQ(component_identity(dir.path(), true), original) << "temporaries do not count";

    test::write_bytes(dir / "config.json", "{\"latent_channels\": 32}");
    const std::string reconfigured = component_identity(dir.path(), true);
    EXPECT_NE(reconfigured, original);

    // Large files count by size, time and first MiB: a rewrite with new bytes past the first
    // MiB is seen through its new modification time.
    std::string changed = big;
    changed[changed.size() - 1] = 'x';
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    test::write_bytes(dir / "diffusion_pytorch_model.safetensors", changed);
    EXPECT_NE(component_identity(dir.path(), true), reconfigured);
}

TEST(CaptionWithTrigger, PrependsTheTriggerWordOnce) {
    EXPECT_EQ(caption_with_trigger("a cat", ""), "a cat");
    EXPECT_EQ(caption_with_trigger("a cat", "tfx"), "tfx a cat");
    EXPECT_EQ(caption_with_trigger("tfx a cat", "tfx"), "tfx a cat");
    EXPECT_EQ(caption_with_trigger("tfx, a cat", "tfx"), "tfx, a cat");
    EXPECT_EQ(caption_with_trigger("tfx", "tfx"), "tfx");
    EXPECT_EQ(caption_with_trigger("tfxcat runs", "tfx"), "tfx tfxcat runs");
    EXPECT_EQ(caption_with_trigger("", "tfx"), "tfx ");
}

TEST(FramePlacement, StretchCoverAndRandomCrops) {
    const FramePlacement stretch = place_frames(ResizeMode::Stretch, 64, 48, 32, 32, 1, 0);
    EXPECT_EQ(stretch.scaled_width, 32);
    EXPECT_EQ(stretch.scaled_height, 32);
    EXPECT_EQ(stretch.crop_x, 0);

    const FramePlacement center = place_frames(ResizeMode::CenterCrop, 64, 48, 32, 32, 1, 0);
    EXPECT_EQ(center.scaled_width, 43); // 64 * 32 / 48, rounded
    EXPECT_EQ(center.scaled_height, 32);
    EXPECT_EQ(center.crop_x, 5);
    EXPECT_EQ(center.crop_y, 0);

    std::set<int> offsets;
    for (std::int64_t clip = 0; clip < 32; ++clip) {
        const FramePlacement random =
            place_frames(ResizeMode::RandomCrop, 48, 64, 32, 32, 42, clip);
        EXPECT_EQ(random.scaled_width, 32);
        EXPECT_EQ(random.scaled_height, 43);
        EXPECT_EQ(random.crop_x, 0);
        EXPECT_GE(random.crop_y, 0);
        EXPECT_LE(random.crop_y, 11);
        const FramePlacement again = place_frames(ResizeMode::RandomCrop, 48, 64, 32, 32, 42, clip);
        EXPECT_EQ(again.crop_y, random.crop_y) << "fixed per (seed, clip)";
        offsets.insert(random.crop_y);
    }
    EXPECT_GE(offsets.size(), 5u) << "offsets vary from clip to clip";
    int differing = 0;
    for (std::int64_t clip = 0; clip < 16; ++clip) {
        differing += place_frames(ResizeMode::RandomCrop, 48, 64, 32, 32, 42, clip).crop_y !=
                     place_frames(ResizeMode::RandomCrop, 48, 64, 32, 32, 43, clip).crop_y;
    }
    EXPECT_GT(differing, 0) << "the seed moves the crops";

    EXPECT_EQ(parse_resize_mode("random_crop"), ResizeMode::RandomCrop);
    EXPECT_THROW(parse_resize_mode("crop"), core::Error);
}

} // namespace
} // namespace tuneframe::data
