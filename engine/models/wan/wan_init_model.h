#pragma once

#include "engine/models/model_family.h"
#include "engine/models/wan/wan_architectures.h"

#include <nlohmann/json.hpp>

namespace tuneframe::models::wan {

// `init-model` for Wan: transformer/ (and transformer_2/ for two experts) with random weights
// and model_index.json; tiny architectures always, real ones with `complete`, also get vae/,
// text_encoder/ (UMT5), tokenizer/ (a small SentencePiece model), scheduler/ (UniPC with the
// flow shift) and, for Wan 2.1 I2V, image_encoder/ and image_processor/ (CLIP), so a whole
// pipeline trains and samples offline.
InitModelResult write_wan_pipeline(const WanArchitecture& architecture,
                                   const InitModelOptions& options);

// The UniPC scheduler the Wan checkpoints configure (flow prediction, flow sigmas).
nlohmann::json wan_scheduler_config(double flow_shift);

} // namespace tuneframe::models::wan
