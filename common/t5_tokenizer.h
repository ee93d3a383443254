#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// The T5 tokenizer front (transformers' slow `T5Tokenizer` over SentencePiece), shared by the
// engine, which feeds the ids to T5, and the studio, which counts a caption's tokens against
// the model's text length with the same code.
namespace tuneframe::common {

// A tokenizer folder that cannot be read, or a call that cannot be honoured. The engine turns it
// into a BadInput error; the studio shows the message and the hint.
class TokenizerError : public std::runtime_error {
public:
    TokenizerError(const std::string& message, std::string hint = {});
    const std::string& hint() const { return hint_; }

private:
    std::string hint_;
};

// transformers' AddedToken: a string matched in the raw text before SentencePiece runs.
// lstrip/rstrip eat the whitespace on that side of the token (the <extra_id_N> tokens do both).
struct AddedToken {
    std::string content;
    std::int64_t id = 0;
    bool lstrip = false;
    bool rstrip = false;
    bool single_word = false;
    bool special = true;
};

struct Token {
    std::string piece;
    std::int64_t id = 0;
};

enum class Padding {
    None,
    Longest,   // to the longest sequence of the batch
    MaxLength, // to `max_length` (what CogVideoX pipelines use)
};

struct TokenizeOptions {
    int max_length = 226; // CogVideoX's text length
    Padding padding = Padding::MaxLength;
    bool truncation = true; // to max_length, </s> included
};

// Right-padded rows of equal length unless padding is None.
struct TokenBatch {
    std::vector<std::vector<std::int64_t>> input_ids;
    std::vector<std::vector<std::int64_t>> attention_mask;
};

class T5Tokenizer {
public:
    // Reads a `tokenizer/` folder as transformers' save_pretrained writes it: spiece.model and,
    // when present, tokenizer_config.json, special_tokens_map.json and added_tokens.json.
    // `legacy` overrides the config's "legacy" (which defaults to true, as in transformers).
    static T5Tokenizer from_folder(const std::filesystem::path& folder,
                                   std::optional<bool> legacy = std::nullopt);

    T5Tokenizer(T5Tokenizer&&) noexcept;
    T5Tokenizer& operator=(T5Tokenizer&&) noexcept;
    ~T5Tokenizer();

    // transformers' `tokenize` + `convert_tokens_to_ids`: no </s>, no padding.
    std::vector<Token> tokenize(std::string_view text) const;
    std::vector<std::int64_t> encode(std::string_view text) const;
    // The ids T5 sees for one prompt: truncated when asked, </s> appended, not padded.
    std::vector<std::int64_t> encode_for_model(std::string_view text, int max_length,
                                               bool truncation) const;
    // `tokenizer(prompts, padding=..., max_length=..., truncation=..., add_special_tokens=True)`.
    TokenBatch operator()(const std::vector<std::string>& prompts,
                          const TokenizeOptions& options = {}) const;
    // Tokens a caption takes before truncation, </s> included: what the studio shows against
    // the model's text length.
    std::size_t count_tokens(std::string_view text) const;

    bool legacy() const;
    int model_max_length() const; // from tokenizer_config.json, or 0
    std::int64_t size() const;    // SentencePiece pieces + added tokens
    std::int64_t sentencepiece_size() const;
    std::int64_t pad_id() const;
    std::int64_t eos_id() const;
    std::int64_t unk_id() const;
    const std::vector<AddedToken>& added_tokens() const;

private:
    struct Impl;
    explicit T5Tokenizer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// T5's <extra_id_N> ids: <extra_id_0> is the last id (sentencepiece_size - 1 + count), counting
// down, as T5Tokenizer assigns them.
std::vector<AddedToken> t5_extra_id_tokens(std::int64_t sentencepiece_size, int count);

} // namespace tuneframe::common
