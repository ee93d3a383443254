#include "engine/models/t5/t5_init.h"

#include "common/sentencepiece_model.h"
#include "common/t5_tokenizer.h"
#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/tensor_io.h"
#include "engine/models/t5/caption_corpus.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <cmath>
#include <map>

namespace tuneframe::models {
namespace {

constexpr int kExtraIds = 100;

bool name_ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Standard deviation of transformers' T5PreTrainedModel._init_weights (factor 1.0), or 0 for
// a norm weight (set to one).
double t5_init_std(const std::string& name, const T5Config& config) {
    const auto d_model = static_cast<double>(config.d_model);
    if (name == "shared.weight") {
        return 1.0;
    }
    if (name_ends_with(name, "SelfAttention.q.weight")) {
        return 1.0 / std::sqrt(d_model * static_cast<double>(config.d_kv));
    }
    if (name_ends_with(name, "SelfAttention.o.weight")) {
        return 1.0 / std::sqrt(static_cast<double>(config.num_heads * config.d_kv));
    }
    if (name_ends_with(name, "DenseReluDense.wo.weight")) {
        return 1.0 / std::sqrt(static_cast<double>(config.d_ff));
    }
    if (name_ends_with(name, "layer_norm.weight")) {
        return 0.0;
    }
    return 1.0 / std::sqrt(d_model); // k, v, wi_0, wi_1, relative_attention_bias
}

std::string train_sentencepiece(int vocab_size) {
    const std::map<std::string, std::string> options = {
        {"model_type", "unigram"},
        {"vocab_size", std::to_string(vocab_size)},
        {"hard_vocab_limit", "false"}, // a small corpus may support fewer pieces
        {"pad_id", "0"},
        {"eos_id", "1"},
        {"unk_id", "2"},
        {"bos_id", "-1"},
        {"character_coverage", "1.0"},
        {"num_threads", "1"}, // deterministic
        {"minloglevel", "2"},
    };
    return common::train_sentencepiece(caption_corpus(), options);
}

nlohmann::json special_token(const std::string& content) {
    return {{"content", content},
            {"lstrip", false},
            {"normalized", false},
            {"rstrip", false},
            {"single_word", false}};
}

} // namespace

T5Config tiny_t5_config(std::int64_t d_model, std::int64_t vocab_size) {
    T5Config config;
    config.vocab_size = vocab_size;
    config.d_model = d_model;
    config.num_heads = 4;
    config.d_kv = 8;
    config.d_ff = 2 * d_model;
    config.num_layers = 2;
    config.tie_word_embeddings = false;
    return config;
}

T5Config tiny_umt5_config(std::int64_t d_model, std::int64_t vocab_size) {
    T5Config config = tiny_t5_config(d_model, vocab_size);
    config.position_bias_per_layer = true;
    return config;
}

void initialise_t5_encoder(T5EncoderModelImpl& model, std::uint64_t seed) {
    torch::NoGradGuard no_grad;
    at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(seed);
    for (const auto& item : model.named_parameters()) {
        const double std = t5_init_std(item.key(), model.config());
        at::Tensor value = at::empty(item.value().sizes(), at::kFloat);
        if (std == 0.0) {
            value.fill_(1.0);
        } else {
            value.normal_(0.0, std, generator);
        }
        item.value().copy_(value);
    }
}

void write_random_t5_encoder(const T5Config& config, const std::filesystem::path& folder,
                             std::uint64_t seed, c10::ScalarType dtype) {
    // Built in the stored dtype (the draws are float32, cast per parameter): T5-XXL in float32
    // would need 19 GB where bf16 needs 9.5.
    T5EncoderModel model(config, WeightsPlacement{dtype, c10::kCPU});
    initialise_t5_encoder(*model, seed);
    core::NamedTensors tensors = module_tensors(*model);
    if (config.position_bias_per_layer) {
        // transformers 5 reads UMT5's encoder.embed_tokens apart from shared when the embeddings
        // are untied, as Wan's are, so the file holds both, as save_pretrained writes them.
        for (const auto& [name, tensor] : core::NamedTensors(tensors)) {
            if (name == "shared.weight") {
                tensors.emplace_back("encoder.embed_tokens.weight", tensor);
            }
        }
    }
    std::filesystem::create_directories(folder);
    core::write_tensors(folder / "model.safetensors", tensors, {{"format", "pt"}});
    nlohmann::json json = config.to_json();
    json["torch_dtype"] = dtype == c10::kBFloat16 ? "bfloat16"
                          : dtype == c10::kHalf   ? "float16"
                                                  : "float32";
    core::write_json_file(folder / "config.json", json);
}

TokenizerFolder write_tiny_t5_tokenizer(const std::filesystem::path& folder, int model_max_length,
                                        int vocab_size) {
    const std::string model = train_sentencepiece(vocab_size);
    std::filesystem::create_directories(folder);
    core::write_file_atomically(folder / "spiece.model", model);

    // Read back for the piece count; the extra ids follow it.
    auto tokenizer = common::T5Tokenizer::from_folder(folder);
    const std::int64_t pieces = tokenizer.sentencepiece_size();
    nlohmann::json decoder = nlohmann::json::object();
    for (const auto& [token, id] :
         {std::pair{"<pad>", tokenizer.pad_id()}, std::pair{"</s>", tokenizer.eos_id()},
          std::pair{"<unk>", tokenizer.unk_id()}}) {
        nlohmann::json entry = special_token(token);
        entry["special"] = true;
        decoder[std::to_string(id)] = entry;
    }
    nlohmann::json added = nlohmann::json::object();
    nlohmann::json additional = nlohmann::json::array();
    for (const common::AddedToken& token : common::t5_extra_id_tokens(pieces, kExtraIds)) {
        decoder[std::to_string(token.id)] = {{"content", token.content}, {"lstrip", true},
                                             {"normalized", false},      {"rstrip", true},
                                             {"single_word", false},     {"special", true}};
        added[token.content] = token.id;
        additional.push_back(token.content);
    }
    core::write_json_file(folder / "added_tokens.json", added);
    core::write_json_file(folder / "special_tokens_map.json",
                          {{"additional_special_tokens", additional},
                           {"eos_token", special_token("</s>")},
                           {"pad_token", special_token("<pad>")},
                           {"unk_token", special_token("<unk>")}});
    core::write_json_file(folder / "tokenizer_config.json",
                          {{"add_prefix_space", true},
                           {"added_tokens_decoder", decoder},
                           {"additional_special_tokens", additional},
                           {"clean_up_tokenization_spaces", false},
                           {"eos_token", "</s>"},
                           {"extra_ids", kExtraIds},
                           {"legacy", true},
                           {"model_max_length", model_max_length},
                           {"pad_token", "<pad>"},
                           {"sp_model_kwargs", nlohmann::json::object()},
                           {"tokenizer_class", "T5Tokenizer"},
                           {"unk_token", "<unk>"}});
    return {pieces, pieces + kExtraIds};
}

TokenizerFolder write_tiny_text_components(const std::filesystem::path& text_encoder_folder,
                                           const std::filesystem::path& tokenizer_folder,
                                           std::int64_t d_model, int model_max_length,
                                           std::uint64_t seed) {
    const TokenizerFolder tokenizer = write_tiny_t5_tokenizer(tokenizer_folder, model_max_length);
    // Rounded up to a multiple of 128, as T5's 32128 is.
    const std::int64_t vocab_size = (tokenizer.size + 127) / 128 * 128;
    write_random_t5_encoder(tiny_t5_config(d_model, vocab_size), text_encoder_folder, seed);
    return tokenizer;
}

TokenizerFolder write_tiny_umt5_text_components(const std::filesystem::path& text_encoder_folder,
                                                const std::filesystem::path& tokenizer_folder,
                                                std::int64_t d_model, int model_max_length,
                                                std::uint64_t seed) {
    const TokenizerFolder tokenizer = write_tiny_t5_tokenizer(tokenizer_folder, model_max_length);
    const std::int64_t vocab_size = (tokenizer.size + 127) / 128 * 128;
    write_random_t5_encoder(tiny_umt5_config(d_model, vocab_size), text_encoder_folder, seed);
    return tokenizer;
}

} // namespace tuneframe::models
