#include "engine/diffusion/prompt_encoder.h"

#include "engine/core/device/runtime_info.h"
#include "engine/core/error.h"

#include <torch/torch.h>

namespace tuneframe::diffusion {
namespace {

common::T5Tokenizer open_tokenizer(const std::filesystem::path& folder) {
    try {
        return common::T5Tokenizer::from_folder(folder);
    } catch (const common::TokenizerError& error) {
        throw core::Error(core::ErrorCode::BadInput, error.what(), error.hint());
    }
}

} // namespace

PromptEncoder::PromptEncoder(const std::filesystem::path& tokenizer_folder,
                             std::filesystem::path text_encoder_folder,
                             models::WeightsPlacement placement)
    : tokenizer_(open_tokenizer(tokenizer_folder))
    , text_encoder_folder_(std::move(text_encoder_folder))
    , placement_(placement) {}

at::Tensor PromptEncoder::token_ids(const std::string& prompt, int max_length) const {
    common::TokenizeOptions options;
    options.max_length = max_length;
    options.padding = common::Padding::MaxLength;
    options.truncation = true;
    const common::TokenBatch batch = tokenizer_({prompt}, options);
    const auto& ids = batch.input_ids.front();
    return torch::tensor(ids, torch::kLong).reshape({1, static_cast<std::int64_t>(ids.size())});
}

at::Tensor PromptEncoder::encode(const std::string& prompt, int max_length) {
    if (!encoder_) {
        encoder_ = models::load_t5_encoder(text_encoder_folder_, placement_);
    }
    torch::NoGradGuard no_grad;
    const at::Tensor ids = token_ids(prompt, max_length).to(placement_.device);
    return encoder_(ids).to(placement_.dtype);
}

void PromptEncoder::release() {
    if (encoder_) {
        encoder_ = models::T5EncoderModel{nullptr};
        core::release_cached_device_memory();
    }
}

} // namespace tuneframe::diffusion
