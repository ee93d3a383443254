#include "engine/data/cache_key.h"

#include "engine/data/sha256.h"

namespace tuneframe::data {
namespace {

nlohmann::json latent_inputs(CacheEntryKind kind, const LatentKeyInputs& in) {
    nlohmann::json inputs = {
        {"kind", to_string(kind)},
        {"key_version", kCacheKeyVersion},
        {"source", in.source},
        {"trim_in", in.trim_in},
        {"trim_out", in.trim_out ? nlohmann::json(*in.trim_out) : nlohmann::json(nullptr)},
        {"frame_indices", in.frame_indices},
        {"frames", in.frames},
        {"height", in.height},
        {"width", in.width},
        {"resize_mode", in.resize_mode},
        {"crop_x", in.crop_x},
        {"crop_y", in.crop_y},
        {"vae", in.vae},
        {"vae_tiling", in.vae_tiling},
        {"dtype", in.dtype}};
    if (kind == CacheEntryKind::Image && in.condition_frame) {
        inputs["condition_frame"] = *in.condition_frame;
    }
    if (kind == CacheEntryKind::Image && !in.condition_padding.empty()) {
        inputs["condition_padding"] = in.condition_padding;
    }
    return inputs;
}

} // namespace

std::string_view to_string(CacheEntryKind kind) {
    switch (kind) {
    case CacheEntryKind::Video:
        return "video";
    case CacheEntryKind::Image:
        return "image";
    case CacheEntryKind::Prompt:
        return "prompt";
    case CacheEntryKind::ImageEmbeds:
        return "image_embeds";
    case CacheEntryKind::Invalid:
        break;
    }
    return "invalid";
}

CacheKey::CacheKey(CacheEntryKind kind, nlohmann::json inputs)
    : kind_(kind)
    , inputs_(std::move(inputs))
    , hex_(Sha256::hex_of(canonical_text())) {}

CacheKey CacheKey::video(const LatentKeyInputs& inputs) {
    return CacheKey(CacheEntryKind::Video, latent_inputs(CacheEntryKind::Video, inputs));
}

CacheKey CacheKey::image(const LatentKeyInputs& inputs) {
    return CacheKey(CacheEntryKind::Image, latent_inputs(CacheEntryKind::Image, inputs));
}

CacheKey CacheKey::image_embeds(const LatentKeyInputs& inputs, const std::string& image_encoder) {
    LatentKeyInputs picture = inputs;
    picture.condition_padding.clear();
    nlohmann::json key = latent_inputs(CacheEntryKind::ImageEmbeds, picture);
    if (picture.condition_frame) {
        key["condition_frame"] = *picture.condition_frame;
    }
    key.erase("vae");
    key.erase("vae_tiling");
    key["image_encoder"] = image_encoder;
    return CacheKey(CacheEntryKind::ImageEmbeds, std::move(key));
}

CacheKey CacheKey::prompt(const PromptKeyInputs& in) {
    return CacheKey(CacheEntryKind::Prompt, {{"kind", to_string(CacheEntryKind::Prompt)},
                                             {"key_version", kCacheKeyVersion},
                                             {"caption", in.caption},
                                             {"tokenizer", in.tokenizer},
                                             {"text_encoder", in.text_encoder},
                                             {"text_length", in.text_length},
                                             {"dtype", in.dtype}});
}

std::string CacheKey::canonical_text() const {
    // Paths and captions are UTF-8 from the manifest; a stray byte from the file system must
    // not abort a run, and replacing it still gives a stable key.
    return inputs_.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace tuneframe::data
