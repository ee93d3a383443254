#include "common/t5_tokenizer.h"

#include "common/sentencepiece_model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

namespace tuneframe::common {
namespace {

// SentencePiece's word-boundary mark, U+2581.
constexpr std::string_view kSpieceUnderline = "\xE2\x96\x81";
// A NormalizerSpec { add_dummy_prefix: false } as ModelProto field 3. Protobuf merges repeated
// occurrences of a message field, so appending it to spiece.model is the MergeFrom transformers
// does for legacy=False.
constexpr std::string_view kNoDummyPrefix("\x1A\x02\x18\x00", 4);

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

// Python's str.isspace(), which str.strip() uses.
bool is_python_space(char32_t c) {
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

// The code point starting at `pos` and its length in bytes; a malformed byte counts as itself.
std::pair<char32_t, std::size_t> decode_utf8(std::string_view text, std::size_t pos) {
    const auto lead = static_cast<unsigned char>(text[pos]);
    std::size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : 4;
    if (lead >= 0x80 && ((lead & 0xC0) == 0x80 || lead >= 0xF8 || pos + length > text.size())) {
        return {lead, 1};
    }
    char32_t code = length == 1 ? lead : lead & (0x7F >> length);
    for (std::size_t i = 1; i < length; ++i) {
        code = (code << 6) | (static_cast<unsigned char>(text[pos + i]) & 0x3F);
    }
    return {code, length};
}

std::string python_lstrip(std::string_view text) {
    std::size_t pos = 0;
    while (pos < text.size()) {
        auto [code, length] = decode_utf8(text, pos);
        if (!is_python_space(code)) {
            break;
        }
        pos += length;
    }
    return std::string(text.substr(pos));
}

std::string python_rstrip(std::string_view text) {
    std::size_t end = text.size();
    while (end > 0) {
        std::size_t start = end - 1;
        while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) {
            --start;
        }
        if (!is_python_space(decode_utf8(text, start).first)) {
            break;
        }
        end = start;
    }
    return std::string(text.substr(0, end));
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
    for (std::size_t pos = 0; (pos = text.find(from, pos)) != std::string::npos; pos += to.size()) {
        text.replace(pos, from.size(), to);
    }
    return text;
}

nlohmann::json read_optional_json(const std::filesystem::path& path) {
    std::error_code error;
    if (!std::filesystem::exists(path, error)) {
        return nlohmann::json::object();
    }
    std::ifstream stream(path);
    try {
        nlohmann::json value = nlohmann::json::parse(stream);
        if (!value.is_object()) {
            throw TokenizerError("'" + path.string() + "' does not hold a JSON object.",
                                 "Restore the file from the model's download.");
        }
        return value;
    } catch (const nlohmann::json::exception& e) {
        throw TokenizerError("'" + path.string() + "' is not valid JSON: " + e.what(),
                             "Restore the file from the model's download.");
    }
}

std::string read_bytes(const std::filesystem::path& path) {
    std::ifstream stream(path, std::ios::binary);
    if (!stream) {
        throw TokenizerError("cannot read '" + path.string() + "'.",
                             "Check that the file exists and is readable.");
    }
    std::ostringstream buffer;
    buffer << stream.rdbuf();
    return buffer.str();
}

// A special token is written either as a string or as an AddedToken object.
std::optional<std::string> token_content(const nlohmann::json& value) {
    if (value.is_string()) {
        return value.get<std::string>();
    }
    if (value.is_object() && value.contains("content") && value["content"].is_string()) {
        return value["content"].get<std::string>();
    }
    return std::nullopt;
}

bool flag(const nlohmann::json& object, const char* key, bool fallback) {
    auto it = object.find(key);
    return it != object.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

// A stretch of the prompt: either text for SentencePiece or one added token.
struct Chunk {
    std::string text;
    const AddedToken* token = nullptr;
};

// The special tokens as transformers resolves them: tokenizer_config.json, then
// special_tokens_map.json, then T5's defaults; no additional tokens means the <extra_id_N>.
struct SpecialTokens {
    std::string eos = "</s>";
    std::string pad = "<pad>";
    std::string unk = "<unk>";
    std::vector<std::string> additional;
};

SpecialTokens read_special_tokens(const nlohmann::json& config, const nlohmann::json& map) {
    auto find = [&](const char* key, std::string& target) {
        for (const nlohmann::json* source : {&config, &map}) {
            if (source->contains(key)) {
                if (auto content = token_content((*source)[key])) {
                    target = *content;
                    return;
                }
            }
        }
    };
    SpecialTokens special;
    find("eos_token", special.eos);
    find("pad_token", special.pad);
    find("unk_token", special.unk);
    for (const nlohmann::json* source : {&config, &map}) {
        auto list = source->find("additional_special_tokens");
        if (list != source->end() && list->is_array()) {
            for (const auto& value : *list) {
                if (auto content = token_content(value)) {
                    special.additional.push_back(*content);
                }
            }
            break;
        }
    }
    return special;
}

// T5Tokenizer's added tokens by id: its own <extra_id_N> first, then the saved table
// (added_tokens_decoder, or an older folder's added_tokens.json, which transformers loads
// without stripping), then </s>, <pad> and <unk> from the SentencePiece vocabulary.
std::map<std::int64_t, AddedToken> read_added_tokens(const nlohmann::json& config,
                                                     const nlohmann::json& added_json,
                                                     SpecialTokens& special,
                                                     const SentencePieceModel& model) {
    const int extra_ids = config.value("extra_ids", 100);
    const auto listed = std::count_if(
        special.additional.begin(), special.additional.end(),
        [](const std::string& token) { return token.find("<extra_id_") != std::string::npos; });
    if (listed > 0 && extra_ids > 0 && listed != extra_ids) {
        throw TokenizerError("extra_ids is " + std::to_string(extra_ids) + " but " +
                                 std::to_string(listed) + " <extra_id_N> tokens are listed.",
                             "Make extra_ids in tokenizer_config.json match the token list.");
    }
    std::map<std::int64_t, AddedToken> by_id;
    for (AddedToken& token : t5_extra_id_tokens(model.piece_count(), extra_ids)) {
        if (listed == 0) {
            special.additional.push_back(token.content);
        }
        by_id[token.id] = std::move(token);
    }
    const std::set<std::string> specials = [&] {
        std::set<std::string> all(special.additional.begin(), special.additional.end());
        all.insert({special.eos, special.pad, special.unk});
        return all;
    }();
    if (auto decoder = config.find("added_tokens_decoder");
        decoder != config.end() && decoder->is_object()) {
        for (const auto& [key, value] : decoder->items()) {
            if (auto content = token_content(value)) {
                const std::int64_t id = std::stoll(key);
                by_id[id] = {*content,
                             id,
                             flag(value, "lstrip", false),
                             flag(value, "rstrip", false),
                             flag(value, "single_word", false),
                             flag(value, "special", false)};
            }
        }
    } else {
        for (const auto& [content, id] : added_json.items()) {
            if (id.is_number_integer()) {
                by_id[id.get<std::int64_t>()] = {content, id.get<std::int64_t>(),     false, false,
                                                 false,   specials.count(content) > 0};
            }
        }
    }
    for (const std::string& token : {special.pad, special.eos, special.unk}) {
        const bool present = std::any_of(by_id.begin(), by_id.end(), [&](const auto& entry) {
            return entry.second.content == token;
        });
        if (present) {
            continue;
        }
        const std::int64_t id = model.piece_to_id(token);
        if (id == model.unk_id() && token != special.unk) {
            throw TokenizerError("spiece.model has no piece for '" + token + "'.",
                                 "T5 tokenizers need <pad>, </s> and <unk> in their "
                                 "SentencePiece vocabulary.");
        }
        by_id[id] = {token, id, false, false, false, true};
    }
    return by_id;
}

} // namespace

TokenizerError::TokenizerError(const std::string& message, std::string hint)
    : std::runtime_error(message)
    , hint_(std::move(hint)) {}

std::vector<AddedToken> t5_extra_id_tokens(std::int64_t sentencepiece_size, int count) {
    std::vector<AddedToken> tokens;
    for (int i = 0; i < count; ++i) {
        tokens.push_back({"<extra_id_" + std::to_string(i) + ">",
                          sentencepiece_size - 1 + count - i, true, true, false, true});
    }
    return tokens;
}

struct T5Tokenizer::Impl {
    std::optional<SentencePieceModel> model;
    std::filesystem::path folder;
    bool legacy = true;
    bool add_prefix_space = true;
    int model_max_length = 0;
    std::string unk_token = "<unk>";
    std::int64_t eos_id = 1;
    std::int64_t pad_id = 0;
    std::int64_t unk_id = 2;
    std::vector<AddedToken> added; // by id
    std::unordered_map<std::string, std::int64_t> added_ids;
    std::set<std::string> special_tokens; // transformers' all_special_tokens
    std::size_t unk_token_length = 0;

    std::vector<Token> encode_pieces(std::string_view text) const;
    std::vector<Token> sentencepiece_tokenize(std::string_view text) const;
    std::vector<Chunk> split_on_added_tokens(std::string_view text) const;
    void strip_around_added_tokens(std::vector<Chunk>& chunks) const;
};

std::vector<Token> T5Tokenizer::Impl::encode_pieces(std::string_view text) const {
    std::vector<Token> tokens;
    for (auto& [piece, id] : model->encode(text)) {
        // transformers maps pieces to ids through its added tokens first.
        auto added = added_ids.find(piece);
        tokens.push_back({std::move(piece), added != added_ids.end() ? added->second : id});
    }
    return tokens;
}

// T5Tokenizer._tokenize: without the dummy prefix SentencePiece would drop a leading "▁", so
// non-legacy text that starts with one is encoded behind the unk token, which is then removed.
std::vector<Token> T5Tokenizer::Impl::sentencepiece_tokenize(std::string_view text) const {
    if (legacy || !(starts_with(text, kSpieceUnderline) || starts_with(text, " "))) {
        return encode_pieces(text);
    }
    std::vector<Token> tokens = encode_pieces(unk_token + std::string(text));
    if (tokens.size() >= unk_token_length) {
        tokens.erase(tokens.begin(), tokens.begin() + static_cast<long>(unk_token_length));
    }
    return tokens;
}

// transformers' Trie.split: the leftmost, longest added token wins; no empty chunks.
std::vector<Chunk> T5Tokenizer::Impl::split_on_added_tokens(std::string_view text) const {
    std::vector<Chunk> chunks;
    std::size_t start = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const AddedToken* best = nullptr;
        for (const AddedToken& token : added) {
            if (!token.content.empty() &&
                text.compare(pos, token.content.size(), token.content) == 0 &&
                (!best || token.content.size() > best->content.size())) {
                best = &token;
            }
        }
        if (!best) {
            ++pos;
            continue;
        }
        if (pos > start) {
            chunks.push_back({std::string(text.substr(start, pos - start)), nullptr});
        }
        chunks.push_back({best->content, best});
        pos += best->content.size();
        start = pos;
    }
    if (start < text.size()) {
        chunks.push_back({std::string(text.substr(start)), nullptr});
    }
    return chunks;
}

// PreTrainedTokenizer.tokenize's loop over the split, in its order: a token with rstrip eats
// the whitespace that follows it, lstrip the whitespace before it.
void T5Tokenizer::Impl::strip_around_added_tokens(std::vector<Chunk>& chunks) const {
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        if (!chunks[i].token) {
            continue;
        }
        const AddedToken& token = *chunks[i].token;
        Chunk* left = i > 0 ? &chunks[i - 1] : nullptr;
        Chunk* right = i + 1 < chunks.size() ? &chunks[i + 1] : nullptr;
        if (token.rstrip && right && !right->text.empty()) {
            right->text = python_lstrip(right->text);
        }
        if (token.lstrip && left && !left->text.empty()) {
            left->text = python_rstrip(left->text);
        }
        if (token.single_word && left && !left->text.empty() && left->text.back() != ' ') {
            left->text += chunks[i].text;
            left->token = nullptr;
            chunks[i] = {};
        } else if (token.single_word && right && !right->text.empty() && right->text[0] != ' ') {
            chunks[i].text += right->text;
            chunks[i].token = nullptr;
            *right = {};
        }
    }
}

T5Tokenizer::T5Tokenizer(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
T5Tokenizer::T5Tokenizer(T5Tokenizer&&) noexcept = default;
T5Tokenizer& T5Tokenizer::operator=(T5Tokenizer&&) noexcept = default;
T5Tokenizer::~T5Tokenizer() = default;

T5Tokenizer T5Tokenizer::from_folder(const std::filesystem::path& folder,
                                     std::optional<bool> legacy) {
    auto impl = std::make_unique<Impl>();
    impl->folder = folder;
    const std::filesystem::path model = folder / "spiece.model";
    std::error_code error;
    if (!std::filesystem::exists(model, error)) {
        throw TokenizerError("'" + folder.string() + "' has no spiece.model.",
                             "Point at the tokenizer/ folder of a CogVideoX pipeline (T5Tokenizer "
                             "files: spiece.model, tokenizer_config.json, ...).");
    }
    const nlohmann::json config = read_optional_json(folder / "tokenizer_config.json");
    const nlohmann::json special_map = read_optional_json(folder / "special_tokens_map.json");
    const nlohmann::json added_json = read_optional_json(folder / "added_tokens.json");

    // transformers picks legacy=True when the config does not say.
    impl->legacy = legacy.value_or(flag(config, "legacy", true));
    impl->add_prefix_space = flag(config, "add_prefix_space", true);
    if (auto it = config.find("model_max_length");
        it != config.end() && it->is_number_integer() && it->get<std::int64_t>() < INT_MAX) {
        impl->model_max_length = it->get<int>();
    }

    std::string model_bytes = read_bytes(model);
    if (!impl->legacy) {
        model_bytes += kNoDummyPrefix;
    }
    try {
        impl->model = SentencePieceModel::from_bytes(model_bytes);
    } catch (const TokenizerError& error) {
        throw TokenizerError("'" + model.string() + "': " + error.what(),
                             error.hint().empty()
                                 ? "Restore spiece.model from the model's download."
                                 : error.hint());
    }

    SpecialTokens special = read_special_tokens(config, special_map);
    impl->unk_token = special.unk;
    std::map<std::int64_t, AddedToken> by_id;
    try {
        by_id = read_added_tokens(config, added_json, special, *impl->model);
    } catch (const TokenizerError& error) {
        throw TokenizerError("'" + folder.string() + "': " + error.what(), error.hint());
    } catch (const nlohmann::json::exception& error) {
        throw TokenizerError("'" + folder.string() + "': unreadable token tables: " + error.what(),
                             "Restore the tokenizer's JSON files from the model's download.");
    } catch (const std::logic_error&) { // std::stoll on a key that is no number
        throw TokenizerError("'" + folder.string() +
                                 "/tokenizer_config.json': an added_tokens_decoder key is not an "
                                 "id.",
                             "Restore the file from the model's download.");
    }
    for (auto& [id, token] : by_id) {
        impl->added_ids[token.content] = id;
        impl->added.push_back(token);
    }
    impl->special_tokens = {special.additional.begin(), special.additional.end()};
    impl->special_tokens.insert({special.eos, special.pad, special.unk});
    impl->eos_id = impl->added_ids.at(special.eos);
    impl->pad_id = impl->added_ids.at(special.pad);
    impl->unk_id = impl->added_ids.at(special.unk);
    impl->unk_token_length = impl->encode_pieces(impl->unk_token).size();
    return T5Tokenizer(std::move(impl));
}

std::vector<Token> T5Tokenizer::tokenize(std::string_view raw) const {
    const Impl& impl = *impl_;
    // Non-legacy T5Tokenizer.tokenize: "▁" in the text counts as a space, and the prefix space
    // is added here because the SentencePiece model no longer adds one.
    const bool prefixed = !impl.legacy && !raw.empty();
    std::string text(raw);
    if (prefixed) {
        text = replace_all(std::move(text), kSpieceUnderline, " ");
        if (impl.add_prefix_space) {
            text = std::string(kSpieceUnderline) + text;
        }
    }
    std::vector<Chunk> chunks = impl.split_on_added_tokens(text);
    impl.strip_around_added_tokens(chunks);
    std::vector<Token> tokens;
    for (const Chunk& chunk : chunks) {
        if (chunk.text.empty()) {
            continue;
        }
        if (chunk.token) {
            tokens.push_back({chunk.token->content, chunk.token->id});
            continue;
        }
        std::vector<Token> pieces = impl.sentencepiece_tokenize(chunk.text);
        tokens.insert(tokens.end(), std::make_move_iterator(pieces.begin()),
                      std::make_move_iterator(pieces.end()));
    }
    if (prefixed && tokens.size() > 1 && tokens[0].piece == kSpieceUnderline &&
        impl.special_tokens.count(tokens[1].piece)) {
        tokens.erase(tokens.begin());
    }
    return tokens;
}

std::vector<std::int64_t> T5Tokenizer::encode(std::string_view text) const {
    std::vector<std::int64_t> ids;
    for (const Token& token : tokenize(text)) {
        ids.push_back(token.id);
    }
    return ids;
}

std::vector<std::int64_t> T5Tokenizer::encode_for_model(std::string_view text, int max_length,
                                                        bool truncation) const {
    std::vector<std::int64_t> ids = encode(text);
    // prepare_for_model reserves one place for </s> even when the ids already end with it, and
    // leaves the ids alone when they are too short to lose the surplus.
    const std::size_t total = ids.size() + 1;
    if (truncation && max_length > 0 && total > static_cast<std::size_t>(max_length)) {
        const std::size_t surplus = total - static_cast<std::size_t>(max_length);
        if (ids.size() > surplus) {
            ids.resize(ids.size() - surplus);
        }
    }
    if (ids.empty() || ids.back() != impl_->eos_id) {
        ids.push_back(impl_->eos_id);
    }
    return ids;
}

TokenBatch T5Tokenizer::operator()(const std::vector<std::string>& prompts,
                                   const TokenizeOptions& options) const {
    if (options.truncation && options.max_length < 2) {
        throw TokenizerError("max_length must be at least 2 (one token and </s>), not " +
                                 std::to_string(options.max_length) + ".",
                             "Use the model's text length, 226 for CogVideoX.");
    }
    TokenBatch batch;
    std::size_t longest = 0;
    for (const std::string& prompt : prompts) {
        batch.input_ids.push_back(encode_for_model(prompt, options.max_length, options.truncation));
        longest = std::max(longest, batch.input_ids.back().size());
    }
    std::size_t width = 0;
    if (options.padding == Padding::MaxLength) {
        width = static_cast<std::size_t>(std::max(options.max_length, 0));
    } else if (options.padding == Padding::Longest) {
        width = longest;
    }
    for (auto& ids : batch.input_ids) {
        std::vector<std::int64_t> mask(ids.size(), 1);
        if (ids.size() < width) {
            mask.resize(width, 0);
            ids.resize(width, impl_->pad_id);
        }
        batch.attention_mask.push_back(std::move(mask));
    }
    return batch;
}

std::size_t T5Tokenizer::count_tokens(std::string_view text) const {
    return encode_for_model(text, 0, false).size();
}

bool T5Tokenizer::legacy() const {
    return impl_->legacy;
}
int T5Tokenizer::model_max_length() const {
    return impl_->model_max_length;
}
std::int64_t T5Tokenizer::sentencepiece_size() const {
    return impl_->model->piece_count();
}
std::int64_t T5Tokenizer::pad_id() const {
    return impl_->pad_id;
}
std::int64_t T5Tokenizer::eos_id() const {
    return impl_->eos_id;
}
std::int64_t T5Tokenizer::unk_id() const {
    return impl_->unk_id;
}
const std::vector<AddedToken>& T5Tokenizer::added_tokens() const {
    return impl_->added;
}

std::int64_t T5Tokenizer::size() const {
    // len(tokenizer): the SentencePiece vocabulary plus added tokens that lie beyond it.
    std::int64_t size = sentencepiece_size();
    for (const AddedToken& token : impl_->added) {
        size += token.id >= sentencepiece_size() ? 1 : 0;
    }
    return size;
}

} // namespace tuneframe::common
