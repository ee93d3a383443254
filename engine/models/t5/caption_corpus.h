#pragma once

#include <string>
#include <vector>

namespace tuneframe::models {

// 200 short captions of moving shapes, colours and camera moves: the text the tiny pipeline's
// SentencePiece model is trained on at init-model time. Always the same list.
std::vector<std::string> caption_corpus();

} // namespace tuneframe::models
