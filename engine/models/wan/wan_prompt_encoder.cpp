#include "engine/models/wan/wan_prompt_encoder.h"

#include "common/prompt_clean.h"
#include "engine/core/device/runtime_info.h"
#include "engine/core/error.h"

#include <torch/torch.h>

namespace tuneframe::models::wan {
namespace {

common::T5Tokenizer open_umt5_tokenizer(const std::filesystem::path& folder) {
    const std::filesystem::path model = folder / "spiece.model";
    std::error_code error;
    if (!std::filesystem::exists(model, error)) {
        throw core::Error(core::ErrorCode::BadInput,
                          "'" + model.string() +
                              "' does not exist; Wan's tokenizer is a "
                              "SentencePiece T5Tokenizer.",
                          "Point at the tokenizer/ folder of a Wan pipeline (spiece.model, "
                          "tokenizer_config.json, special_tokens_map.json).");
    }
    try {
        return common::T5Tokenizer::from_folder(folder);
    } catch (const common::TokenizerError& failure) {
        throw core::Error(core::ErrorCode::BadInput, failure.what(), failure.hint());
    }
}

at::Tensor rows_to_tensor(const std::vector<std::vector<std::int64_t>>& rows) {
    const auto count = static_cast<std::int64_t>(rows.size());
    const auto width = rows.empty() ? 0 : static_cast<std::int64_t>(rows.front().size());
    at::Tensor out = torch::empty({count, width}, torch::kLong);
    auto access = out.accessor<std::int64_t, 2>();
    for (std::int64_t i = 0; i < count; ++i) {
        for (std::int64_t j = 0; j < width; ++j) {
            access[i][j] = rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
        }
    }
    return out;
}

} // namespace

WanPromptEncoder::WanPromptEncoder(const std::filesystem::path& tokenizer_folder,
                                   std::filesystem::path text_encoder_folder,
                                   WeightsPlacement placement)
    : tokenizer_(open_umt5_tokenizer(tokenizer_folder))
    , text_encoder_folder_(std::move(text_encoder_folder))
    , placement_(placement) {}

PromptTokens WanPromptEncoder::tokens(const std::vector<std::string>& prompts,
                                      int max_length) const {
    std::vector<std::string> cleaned;
    cleaned.reserve(prompts.size());
    for (const std::string& prompt : prompts) {
        cleaned.push_back(common::wan_prompt_clean(prompt));
    }
    common::TokenizeOptions options;
    options.max_length = max_length;
    options.padding = common::Padding::MaxLength;
    options.truncation = true;
    common::TokenBatch batch;
    try {
        batch = tokenizer_(cleaned, options);
    } catch (const common::TokenizerError& failure) {
        throw core::Error(core::ErrorCode::BadInput, failure.what(),
                          "Wan pipelines use a text length of 512.");
    }
    return {rows_to_tensor(batch.input_ids), rows_to_tensor(batch.attention_mask)};
}

at::Tensor WanPromptEncoder::encode(const std::string& prompt, int max_length) {
    return encode(std::vector<std::string>{prompt}, max_length);
}

at::Tensor WanPromptEncoder::encode(const std::vector<std::string>& prompts, int max_length) {
    if (!encoder_) {
        encoder_ = load_t5_encoder(text_encoder_folder_, placement_);
    }
    torch::NoGradGuard no_grad;
    const PromptTokens tokens = this->tokens(prompts, max_length);
    const at::Tensor mask = tokens.attention_mask.to(placement_.device);
    const at::Tensor hidden =
        encoder_(tokens.input_ids.to(placement_.device), mask).to(placement_.dtype); // [N, L, D]
    // The pipelines keep each prompt's first mask.sum() rows and pad with zeros.
    const at::Tensor lengths = mask.gt(0).sum(1, /*keepdim=*/true);                // [N, 1]
    const at::Tensor positions = torch::arange(hidden.size(1), lengths.options()); // [L]
    const at::Tensor kept = (positions.unsqueeze(0) < lengths).unsqueeze(-1);      // [N, L, 1]
    return at::where(kept, hidden, at::zeros({}, hidden.options()));
}

void WanPromptEncoder::release() {
    if (encoder_) {
        encoder_ = T5EncoderModel{nullptr};
        core::release_cached_device_memory();
    }
}

} // namespace tuneframe::models::wan
