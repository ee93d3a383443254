#pragma once

// Prompts to UMT5 embeddings as diffusers' Wan pipelines make them (pipeline_wan.py
// `_get_t5_prompt_embeds`): each prompt cleaned (common::wan_prompt_clean), tokenized to
// `max_length` with the attention mask (truncated there, </s> kept), UMT5 run with that mask,
// and every position past the prompt's own tokens set to zero. The encoder's weights are read on
// the first encode() and dropped by release(), so the text encoder (5.7 B parameters for
// umt5-xxl) occupies the device only while it is needed.

#include "common/t5_tokenizer.h"
#include "engine/models/model_components.h"
#include "engine/models/t5/t5_encoder.h"

#include <ATen/Tensor.h>

#include <filesystem>
#include <string>
#include <vector>

namespace tuneframe::models::wan {

// Wan's text length: the I2V transformer splits its context at 512 tokens.
inline constexpr int kMaxSequenceLength = 512;

struct PromptTokens {
    at::Tensor input_ids;      // [N, max_length] int64
    at::Tensor attention_mask; // [N, max_length] int64, 1 for the prompt's tokens and </s>
};

class WanPromptEncoder : public TextEncoder {
public:
    // Throws BadInput when `tokenizer_folder` has no spiece.model; the text encoder folder is
    // read (and checked) on the first encode().
    WanPromptEncoder(const std::filesystem::path& tokenizer_folder,
                     std::filesystem::path text_encoder_folder, WeightsPlacement placement);

    // One prompt -> [1, max_length, d_model] in the placement's dtype, on its device.
    at::Tensor encode(const std::string& prompt, int max_length = kMaxSequenceLength) override;
    // Several prompts in one encoder call, as the pipelines batch a prompt list:
    // [N, max_length, d_model]. The mask keeps the rows independent of each other.
    at::Tensor encode(const std::vector<std::string>& prompts, int max_length = kMaxSequenceLength);
    // The cleaned prompts' ids and mask, on the CPU.
    PromptTokens tokens(const std::vector<std::string>& prompts, int max_length) const;
    void release() override;

    const common::T5Tokenizer& tokenizer() const { return tokenizer_; }

private:
    common::T5Tokenizer tokenizer_;
    std::filesystem::path text_encoder_folder_;
    WeightsPlacement placement_;
    T5EncoderModel encoder_{nullptr};
};

} // namespace tuneframe::models::wan
