#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tuneframe::common {

// A SentencePiece model. libsentencepiece runs in the tuneframe_sentencepiece module, in a
// link namespace of its own (sentencepiece_api.h says why); failures throw TokenizerError.
class SentencePieceModel {
public:
    // `serialized`: the bytes of a .model file (a ModelProto).
    static SentencePieceModel from_bytes(std::string_view serialized);

    // (piece, id) pairs; unknown text keeps its own characters as its piece and gets unk_id().
    std::vector<std::pair<std::string, int>> encode(std::string_view text) const;
    int piece_count() const;
    int piece_to_id(std::string_view piece) const; // unk_id() for pieces not in the vocabulary
    int unk_id() const;

private:
    explicit SentencePieceModel(std::shared_ptr<void> processor);
    std::shared_ptr<void> processor_;
};

// Trains a model on `sentences` with SentencePiece trainer options ("model_type" -> "unigram",
// ...) and returns its serialized bytes.
std::string train_sentencepiece(const std::vector<std::string>& sentences,
                                const std::map<std::string, std::string>& options);

} // namespace tuneframe::common
