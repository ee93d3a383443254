#pragma once

#include "common/t5_tokenizer.h"
#include "engine/models/model_components.h"
#include "engine/models/t5/t5_encoder.h"

#include <ATen/Tensor.h>

#include <filesystem>
#include <string>
#include <vector>

namespace tuneframe::diffusion {

// Prompts to T5 embeddings as CogVideoX pipelines make them: padded to `max_length` tokens,
// truncated there with </s> kept, and T5 run without an attention mask (pad tokens take part).
// The encoder's weights are read on the first encode() and dropped by release(), so the text
// encoder (4.8 B parameters for the real models) occupies the device only while it is needed.
class PromptEncoder : public models::TextEncoder {
public:
    PromptEncoder(const std::filesystem::path& tokenizer_folder,
                  std::filesystem::path text_encoder_folder, models::WeightsPlacement placement);

    // One prompt -> [1, max_length, d_model] in the placement's dtype, on its device. Each
    // prompt runs alone, as the pipelines do, so batching never changes the numbers.
    at::Tensor encode(const std::string& prompt, int max_length) override;
    // The ids T5 sees for `prompt`: [1, max_length] int64.
    at::Tensor token_ids(const std::string& prompt, int max_length) const;
    void release() override;

    const common::T5Tokenizer& tokenizer() const { return tokenizer_; }

private:
    common::T5Tokenizer tokenizer_;
    std::filesystem::path text_encoder_folder_;
    models::WeightsPlacement placement_;
    models::T5EncoderModel encoder_{nullptr};
};

} // namespace tuneframe::diffusion
