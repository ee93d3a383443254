#include "common/sentencepiece_model.h"

#include "common/sentencepiece_api.h"
#include "common/t5_tokenizer.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

namespace tuneframe::common {
namespace {

constexpr std::size_t kErrorSize = 512;

// Where the module may be: an explicit override, the install layout beside the running
// program (<prefix>/bin/.. + libdir), the build tree.
std::vector<std::filesystem::path> module_candidates() {
    std::vector<std::filesystem::path> candidates;
    if (const char* path = std::getenv("TUNEFRAME_SENTENCEPIECE_MODULE"); path && *path) {
        candidates.emplace_back(path);
    }
    std::error_code error;
    const auto program = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) {
        candidates.push_back(program.parent_path().parent_path() /
                             TUNEFRAME_SENTENCEPIECE_INSTALL_PATH);
    }
    candidates.emplace_back(TUNEFRAME_SENTENCEPIECE_BUILD_PATH);
    return candidates;
}

const TuneframeSentencePieceApi* load_module() {
    std::string reasons;
    for (const auto& path : module_candidates()) {
        std::error_code error;
        if (!std::filesystem::exists(path, error)) {
            continue;
        }
#ifdef __GLIBC__
        void* handle = dlmopen(LM_ID_NEWLM, path.c_str(), RTLD_NOW | RTLD_LOCAL);
#else
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
#endif
        if (!handle) {
            reasons += std::string(reasons.empty() ? "" : "; ") + dlerror();
            continue;
        }
        using Entry = const TuneframeSentencePieceApi* (*)();
        auto entry = reinterpret_cast<Entry>(dlsym(handle, "tuneframe_sentencepiece_api"));
        const TuneframeSentencePieceApi* api = entry ? entry() : nullptr;
        if (api && api->version == kTuneframeSentencePieceApiVersion) {
            return api;
        }
        reasons += (reasons.empty() ? "" : "; ") + path.string() + " is another version";
    }
    throw TokenizerError("cannot load the SentencePiece module (libtuneframe_sentencepiece.so)" +
                             (reasons.empty() ? std::string(": not found") : ": " + reasons) + ".",
                         "Reinstall Tuneframe, or set TUNEFRAME_SENTENCEPIECE_MODULE to the "
                         "module's path.");
}

const TuneframeSentencePieceApi& api() {
    static const TuneframeSentencePieceApi* const loaded = load_module();
    return *loaded;
}

void collect_piece(void* context, const char* piece, std::size_t length, int id) {
    static_cast<std::vector<std::pair<std::string, int>>*>(context)->emplace_back(
        std::string(piece, length), id);
}

void collect_bytes(void* context, const char* data, std::size_t length) {
    static_cast<std::string*>(context)->assign(data, length);
}

} // namespace

SentencePieceModel::SentencePieceModel(std::shared_ptr<void> processor)
    : processor_(std::move(processor)) {}

SentencePieceModel SentencePieceModel::from_bytes(std::string_view serialized) {
    const TuneframeSentencePieceApi& module = api();
    char error[kErrorSize] = {};
    void* processor = module.load(serialized.data(), serialized.size(), error, sizeof error);
    if (!processor) {
        throw TokenizerError(std::string("not a SentencePiece model: ") + error);
    }
    return SentencePieceModel(std::shared_ptr<void>(processor, module.release));
}

std::vector<std::pair<std::string, int>> SentencePieceModel::encode(std::string_view text) const {
    std::vector<std::pair<std::string, int>> pieces;
    char error[kErrorSize] = {};
    if (api().encode(processor_.get(), text.data(), text.size(), collect_piece, &pieces, error,
                     sizeof error) != 0) {
        throw TokenizerError(std::string("SentencePiece failed on a prompt: ") + error);
    }
    return pieces;
}

int SentencePieceModel::piece_count() const {
    return api().piece_count(processor_.get());
}

int SentencePieceModel::piece_to_id(std::string_view piece) const {
    return api().piece_to_id(processor_.get(), piece.data(), piece.size());
}

int SentencePieceModel::unk_id() const {
    return api().unk_id(processor_.get());
}

std::string train_sentencepiece(const std::vector<std::string>& sentences,
                                const std::map<std::string, std::string>& options) {
    std::vector<const char*> lines;
    std::vector<std::size_t> lengths;
    for (const std::string& sentence : sentences) {
        lines.push_back(sentence.data());
        lengths.push_back(sentence.size());
    }
    std::vector<const char*> keys;
    std::vector<const char*> values;
    for (const auto& [key, value] : options) {
        keys.push_back(key.c_str());
        values.push_back(value.c_str());
    }
    std::string model;
    char error[kErrorSize] = {};
    if (api().train(lines.data(), lengths.data(), lines.size(), keys.data(), values.data(),
                    keys.size(), collect_bytes, &model, error, sizeof error) != 0) {
        throw TokenizerError(std::string("training the SentencePiece model failed: ") + error);
    }
    return model;
}

} // namespace tuneframe::common
