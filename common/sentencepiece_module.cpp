// The tuneframe_sentencepiece module: libsentencepiece behind sentencepiece_api.h. Built as a
// shared module and loaded only through sentencepiece_model.cpp, never linked.
#include "common/sentencepiece_api.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

void set_error(char* error, size_t size, const std::string& message) {
    if (!error || size == 0) {
        return;
    }
    const size_t length = std::min(size - 1, message.size());
    std::memcpy(error, message.data(), length);
    error[length] = '\0';
}

const sentencepiece::SentencePieceProcessor* processor_of(const void* processor) {
    return static_cast<const sentencepiece::SentencePieceProcessor*>(processor);
}

void* load(const char* model, size_t size, char* error, size_t error_size) {
    try {
        auto processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
        const auto status = processor->LoadFromSerializedProto(std::string(model, size));
        if (!status.ok()) {
            set_error(error, error_size, status.ToString());
            return nullptr;
        }
        return processor.release();
    } catch (const std::exception& e) {
        set_error(error, error_size, e.what());
        return nullptr;
    }
}

void release(void* processor) {
    delete static_cast<sentencepiece::SentencePieceProcessor*>(processor);
}

int piece_count(const void* processor) {
    return processor_of(processor)->GetPieceSize();
}

int piece_to_id(const void* processor, const char* piece, size_t length) {
    return processor_of(processor)->PieceToId(std::string(piece, length));
}

int unk_id(const void* processor) {
    return processor_of(processor)->unk_id();
}

int encode(const void* processor, const char* text, size_t length, TuneframeSpmPieceFn emit,
           void* context, char* error, size_t error_size) {
    try {
        std::vector<std::string> pieces;
        const auto status = processor_of(processor)->Encode(std::string(text, length), &pieces);
        if (!status.ok()) {
            set_error(error, error_size, status.ToString());
            return -1;
        }
        for (const std::string& piece : pieces) {
            emit(context, piece.data(), piece.size(), processor_of(processor)->PieceToId(piece));
        }
        return 0;
    } catch (const std::exception& e) {
        set_error(error, error_size, e.what());
        return -1;
    }
}

class Sentences : public sentencepiece::SentenceIterator {
public:
    explicit Sentences(std::vector<std::string> lines)
        : lines_(std::move(lines)) {}
    bool done() const override { return index_ >= lines_.size(); }
    void Next() override { ++index_; }
    const std::string& value() const override { return lines_[index_]; }
    sentencepiece::util::Status status() const override { return {}; }

private:
    std::vector<std::string> lines_;
    size_t index_ = 0;
};

int train(const char* const* sentences, const size_t* lengths, size_t count,
          const char* const* keys, const char* const* values, size_t option_count,
          TuneframeSpmBytesFn emit, void* context, char* error, size_t error_size) {
    try {
        std::vector<std::string> lines;
        for (size_t i = 0; i < count; ++i) {
            lines.emplace_back(sentences[i], lengths[i]);
        }
        std::unordered_map<std::string, std::string> options;
        for (size_t i = 0; i < option_count; ++i) {
            options[keys[i]] = values[i];
        }
        Sentences iterator(std::move(lines));
        std::string model;
        const auto status = sentencepiece::SentencePieceTrainer::Train(options, &iterator, &model);
        if (!status.ok()) {
            set_error(error, error_size, status.ToString());
            return -1;
        }
        emit(context, model.data(), model.size());
        return 0;
    } catch (const std::exception& e) {
        set_error(error, error_size, e.what());
        return -1;
    }
}

const TuneframeSentencePieceApi kApi = {
    kTuneframeSentencePieceApiVersion,
    load,
    release,
    piece_count,
    piece_to_id,
    unk_id,
    encode,
    train,
};

} // namespace

extern "C" __attribute__((visibility("default"))) const TuneframeSentencePieceApi*
tuneframe_sentencepiece_api(void) {
    return &kApi;
}
