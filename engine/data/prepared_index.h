#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

// prepared.jsonl: what `prepare` leaves in the run folder for the trainer. JSON Lines, each
// with "v" and a "kind"; the first line describes the dataset, then one line per usable sample
// and one per skipped clip (docs/protocol.md, "prepare"):
//   {"v":1,"kind":"dataset","manifest":…,"cache_dir":…,"model":…,"task":"t2v","dtype":"fp32",
//    "text_length":226,"samples":5,"skipped":2}
//   {"v":1,"kind":"sample","line":1,"path":…,"caption":…,"frames":49,"height":480,"width":720,
//    "bucket":"49x480x720","latent":"video_latents/ab/ab….safetensors","prompt":…,
//    "image_latent":…, "image_embeds":…}
//   {"v":1,"kind":"skipped","line":7,"path":…,"reason":"corrupt","message":…}
namespace tuneframe::data {

inline constexpr int kPreparedIndexVersion = 1;

struct PreparedDataset {
    std::string manifest;  // absolute
    std::string cache_dir; // absolute; the samples' files are relative to it
    std::string model;     // absolute pipeline folder
    std::string task;      // t2v | i2v
    std::string dtype;     // of the cached tensors: fp32 | bf16 | fp16
    std::int64_t text_length = 0;
};

struct PreparedSample {
    std::int64_t line = 0; // 1-based line of the manifest
    std::string path;      // the clip, absolute
    std::string caption;   // as T5 saw it, trigger word included
    int frames = 0;
    int height = 0;
    int width = 0;
    std::string latent;       // video moments, relative to cache_dir
    std::string prompt;       // prompt embeddings, relative to cache_dir
    std::string image_latent; // image-to-video: the condition's moments; empty for t2v
    std::string image_embeds; // image-to-video with an image encoder (Wan 2.1): its tokens

    // "FxHxW", what batches group by.
    std::string bucket() const;
};

struct SkippedClip {
    std::int64_t line = 0; // 1-based line of the manifest
    std::string path;      // may be empty for a manifest line that names none
    std::string reason; // stable name: "not_found", "corrupt", "too_short", "bad_manifest_line", …
    std::string message; // English, for people
};

struct PreparedIndex {
    static constexpr const char* kFileName = "prepared.jsonl";

    PreparedDataset dataset;
    std::vector<PreparedSample> samples;
    std::vector<SkippedClip> skipped;

    // Throws core::Error: Io when the file cannot be read; BadInput naming the file, the line
    // and the field for a malformed line, and for a version newer than kPreparedIndexVersion
    // (a newer engine wrote it). Unknown fields and kinds are ignored, so minor additions stay
    // readable.
    static PreparedIndex read(const std::filesystem::path& file);
    static PreparedIndex parse(std::string_view text, const std::string& origin);

    std::string to_jsonl() const;
    // Atomic (temporary file, fsync, rename); throws core::Error (Io).
    void write(const std::filesystem::path& file) const;

    std::filesystem::path file_in_cache(const std::string& relative) const {
        return std::filesystem::path(dataset.cache_dir) / relative;
    }
    // Changes when any sample's tensors or bucket change: the trainer records it with its
    // checkpoints to tell a resumed run it is fed something else.
    std::string fingerprint() const;
};

} // namespace tuneframe::data
