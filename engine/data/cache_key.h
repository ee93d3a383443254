#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The latent cache's keys. A key is the SHA-256 of a canonical JSON object (nlohmann's dump,
// whose objects keep their keys sorted) holding everything the cached tensor depends on, so an
// entry is reused exactly when it would come out the same, whichever run or job asks:
//
//   video, image  {"kind", "key_version", "source" (file_identity.h: content hash, or size +
//                  mtime + path), "trim_in", "trim_out", "frame_indices" (the source frames
//                  assign_bucket chose), "frames", "height", "width" (the bucket),
//                  "resize_mode", "crop_x", "crop_y" (random_crop's offset, else -1),
//                  "vae" (component identity of vae/), "vae_tiling", "dtype"}
//   image_embeds  {as image, less "vae", "vae_tiling", "condition_padding"; "image_encoder"
//                  (component identity of image_encoder/ and image_processor/)}
//   prompt        {"kind", "key_version", "caption" (the text T5 sees, trigger word included),
//                  "tokenizer", "text_encoder" (component identities), "text_length", "dtype"}
//
// Left out on purpose: VAE slicing (it only splits a batch, and prepare encodes one clip at a
// time), the device (CPU and CUDA compute the same function), the job seed and the clip's
// place in the manifest (they matter only through the crop offset, which is in the key).
// key_version changes whenever the pixels or tensors an unchanged key stands for would change.
namespace tuneframe::data {

inline constexpr int kCacheKeyVersion = 1;

enum class CacheEntryKind {
    Invalid,
    Video,       // the clip's posterior moments
    Image,       // image-to-video: the first processed frame's moments
    Prompt,      // T5 embeddings of a caption
    ImageEmbeds, // image-to-video: the image encoder's tokens of the condition frame (Wan 2.1)
};

std::string_view to_string(CacheEntryKind kind); // "video", "image", "prompt", "image_embeds"

struct LatentKeyInputs {
    nlohmann::json source; // clip_source_identity()
    std::int64_t trim_in = 0;
    std::optional<std::int64_t> trim_out;
    std::vector<std::int64_t> frame_indices;
    int frames = 0;
    int height = 0;
    int width = 0;
    std::string resize_mode; // stretch | center_crop | random_crop
    int crop_x = -1;
    int crop_y = -1;
    std::string vae; // component_identity() of vae/
    bool vae_tiling = false;
    std::string dtype; // fp32 | bf16 | fp16
    // The image latent's frame when the user chose one (the clip's first used frame otherwise);
    // part of image keys only, so video keys and unchosen images keep their keys.
    std::optional<std::int64_t> condition_frame;
    // What follows the image in the video the family encodes as its condition ("zeros": Wan
    // 2.1's first frame then zero frames); empty for the image alone, so those keys stay as
    // they were.
    std::string condition_padding;
};

struct PromptKeyInputs {
    std::string caption;
    std::string tokenizer;
    std::string text_encoder;
    std::int64_t text_length = 0;
    std::string dtype;
};

class CacheKey {
public:
    static CacheKey video(const LatentKeyInputs& inputs);
    static CacheKey image(const LatentKeyInputs& inputs);
    // The image encoder's tokens of the frame `inputs` names: the image key's inputs with the
    // image encoder's component identity in place of the VAE's.
    static CacheKey image_embeds(const LatentKeyInputs& inputs, const std::string& image_encoder);
    static CacheKey prompt(const PromptKeyInputs& inputs);

    CacheEntryKind kind() const { return kind_; }
    const std::string& hex() const { return hex_; } // 64 lower-case hex digits
    const nlohmann::json& inputs() const { return inputs_; }
    // Exactly the bytes that were hashed.
    std::string canonical_text() const;

    bool operator==(const CacheKey& other) const { return hex_ == other.hex_; }
    bool operator!=(const CacheKey& other) const { return hex_ != other.hex_; }

private:
    CacheKey(CacheEntryKind kind, nlohmann::json inputs);

    CacheEntryKind kind_ = CacheEntryKind::Invalid;
    nlohmann::json inputs_;
    std::string hex_;
};

} // namespace tuneframe::data
