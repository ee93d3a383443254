#include "engine/cli/forward_components.h"

#include "engine/core/error.h"

#include <c10/util/Exception.h>

namespace tuneframe::cli {

const std::vector<ForwardComponent>& forward_components() {
    static const std::vector<ForwardComponent> components = {
        {"transformer",
         "forward transformer --model TRANSFORMER_DIR --inputs FILE --out FILE [--input-prefix P] "
         "[--lora FILE] [--lora-scale S] [--dtype fp32|bf16|fp16] [--device cpu|cuda]",
         run_forward_transformer},
        {"vae-encode",
         "forward vae-encode --model VAE_DIR --inputs FILE (video [B,C,F,H,W] in [-1,1]) "
         "--out FILE [--input-prefix P] [--tiling [--tile-sample-min-height N] "
         "[--tile-sample-min-width N] [--tile-overlap-factor-height F] "
         "[--tile-overlap-factor-width F]] [--slicing] [--seed N (adds latent_sample)] "
         "[--dtype fp32|bf16|fp16] [--device cpu|cuda]",
         run_forward_vae_encode},
        {"vae-decode",
         "forward vae-decode --model VAE_DIR --inputs FILE (latent, or latent_mean) --out FILE "
         "[--input-prefix P] [--tiling [--tile-sample-min-height N] [--tile-sample-min-width N] "
         "[--tile-overlap-factor-height F] [--tile-overlap-factor-width F]] [--slicing] "
         "[--dtype fp32|bf16|fp16] [--device cpu|cuda]",
         run_forward_vae_decode},
        {"t5",
         "forward t5 --model TEXT_ENCODER_DIR --inputs FILE (input_ids, optional attention_mask) "
         "--out FILE [--input-prefix P] [--no-mask] [--dtype fp32|bf16|fp16] [--device cpu|cuda]",
         run_forward_t5},
        {"tokenize",
         "forward tokenize --model TOKENIZER_DIR --prompts FILE.json --out FILE [--max-length N "
         "(226)] [--no-legacy] [--padding max_length|longest] [--no-truncation]",
         run_forward_tokenize},
    };
    return components;
}

void check_input_shape(const std::string& file, const std::string& name, const at::Tensor& tensor,
                       const std::vector<std::string>& layout) {
    bool fits = tensor.dim() == static_cast<std::int64_t>(layout.size());
    for (std::int64_t d = 0; fits && d < tensor.dim(); ++d) {
        fits = tensor.size(d) > 0;
    }
    if (fits) {
        return;
    }
    std::string expected;
    for (const std::string& dimension : layout) {
        expected += (expected.empty() ? "" : ", ") + dimension;
    }
    throw core::Error(core::ErrorCode::BadInput,
                      "'" + file + "': tensor '" + name + "' has shape " +
                          c10::str(tensor.sizes()) + "; it must be [" + expected +
                          "] with every size at least 1.",
                      "Write the input with that layout (../shared/golden's files show it).");
}

} // namespace tuneframe::cli
