#pragma once

// The C interface of the tuneframe_sentencepiece module (sentencepiece_module.cpp).
//
// Why a module: Debian's libsentencepiece carries its own protobuf-lite and exports it; in a
// process that also loads libprotobuf (LibTorch does), the two copies' symbols bind to each
// other and the process crashes before main(). The module is loaded with dlmopen into a link
// namespace of its own, so only plain C types and callbacks cross: no allocation made on one
// side is ever freed on the other.

#include <stddef.h>

extern "C" {

// Receives one piece of an encoding: its bytes (not NUL-terminated) and its id.
typedef void (*TuneframeSpmPieceFn)(void* context, const char* piece, size_t length, int id);
// Receives a trained model's serialized bytes.
typedef void (*TuneframeSpmBytesFn)(void* context, const char* data, size_t length);

enum { kTuneframeSentencePieceApiVersion = 1 };

// Functions return 0 on success, or -1 with a NUL-terminated reason in `error` (truncated to
// `error_size`). A processor is an opaque pointer from `load`, released with `release`.
struct TuneframeSentencePieceApi {
    int version;
    void* (*load)(const char* model, size_t size, char* error, size_t error_size);
    void (*release)(void* processor);
    int (*piece_count)(const void* processor);
    int (*piece_to_id)(const void* processor, const char* piece, size_t length);
    int (*unk_id)(const void* processor);
    int (*encode)(const void* processor, const char* text, size_t length, TuneframeSpmPieceFn emit,
                  void* context, char* error, size_t error_size);
    // Trains on `count` sentences with `option_count` trainer options (key, value).
    int (*train)(const char* const* sentences, const size_t* lengths, size_t count,
                 const char* const* keys, const char* const* values, size_t option_count,
                 TuneframeSpmBytesFn emit, void* context, char* error, size_t error_size);
};

const TuneframeSentencePieceApi* tuneframe_sentencepiece_api(void);
}
