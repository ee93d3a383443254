#pragma once

// Random T5 encoders and a small trained tokenizer, for init-model's tiny pipelines.

#include "engine/models/t5/t5_encoder.h"

#include <cstdint>
#include <filesystem>

namespace tuneframe::models {

// google/t5-v1_1's structure at toy size: 2 blocks, 4 heads of 8. `vocab_size` must cover the
// tokenizer (its SentencePiece pieces plus 100 <extra_id_N>).
T5Config tiny_t5_config(std::int64_t d_model, std::int64_t vocab_size);
// google/umt5's structure at the same toy size: a relative position table in every block.
T5Config tiny_umt5_config(std::int64_t d_model, std::int64_t vocab_size);

// transformers' T5 initialisation, seeded: normal weights scaled by fan-in, norms one.
void initialise_t5_encoder(T5EncoderModelImpl& model, std::uint64_t seed);

// `folder`/config.json and `folder`/model.safetensors, as transformers' save_pretrained writes
// a T5EncoderModel (shared.weight only; encoder.embed_tokens is tied to it) or a UMT5EncoderModel
// (shared.weight and encoder.embed_tokens.weight, equal).
void write_random_t5_encoder(const T5Config& config, const std::filesystem::path& folder,
                             std::uint64_t seed, c10::ScalarType dtype = c10::kFloat);

struct TokenizerFolder {
    std::int64_t sentencepiece_size = 0;
    std::int64_t size = 0; // with the 100 <extra_id_N>: the T5 vocabulary must be this large
};

// Trains a SentencePiece unigram model on caption_corpus() (pad 0, </s> 1, <unk> 2, no <s>,
// as T5's) and writes `folder` as transformers' T5Tokenizer.save_pretrained does: spiece.model,
// tokenizer_config.json, special_tokens_map.json, added_tokens.json. Deterministic.
TokenizerFolder write_tiny_t5_tokenizer(const std::filesystem::path& folder, int model_max_length,
                                        int vocab_size = 256);

// Both text components of a tiny pipeline, consistent with each other: the tokenizer in
// `tokenizer_folder`, then a T5 of width `d_model` whose vocabulary covers it.
TokenizerFolder write_tiny_text_components(const std::filesystem::path& text_encoder_folder,
                                           const std::filesystem::path& tokenizer_folder,
                                           std::int64_t d_model, int model_max_length,
                                           std::uint64_t seed);

// The same for a Wan pipeline: the tokenizer, then a UMT5 encoder (UMT5EncoderModel) over it.
TokenizerFolder write_tiny_umt5_text_components(const std::filesystem::path& text_encoder_folder,
                                                const std::filesystem::path& tokenizer_folder,
                                                std::int64_t d_model, int model_max_length,
                                                std::uint64_t seed);

} // namespace tuneframe::models
