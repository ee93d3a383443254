#include "engine/models/t5/caption_corpus.h"

#include <array>

namespace tuneframe::models {
namespace {

// The demo dataset is procedurally generated clips of moving shapes; its captions, and what
// users type about such clips, draw on these words.
constexpr std::array<const char*, 12> kColours = {"red",   "orange", "yellow", "green",
                                                  "blue",  "purple", "pink",   "white",
                                                  "black", "gray",   "cyan",   "magenta"};
constexpr std::array<const char*, 8> kShapes = {"circle",  "square", "triangle", "star",
                                                "hexagon", "ring",   "diamond",  "rectangle"};
constexpr std::array<const char*, 6> kSizes = {"small", "large", "tiny", "big", "bright", "soft"};
constexpr std::array<const char*, 10> kMotions = {"moves",   "slides", "bounces", "rotates",
                                                  "drifts",  "spins",  "glides",  "floats",
                                                  "zigzags", "wobbles"};
constexpr std::array<const char*, 9> kPaths = {
    "from left to right", "from right to left", "upward",
    "downward",           "in a circle",        "diagonally",
    "back and forth",     "toward the center",  "along the edge"};
constexpr std::array<const char*, 7> kBackgrounds = {
    "a dark background", "a white background", "a gray background", "a blue gradient",
    "a black backdrop",  "a checkered floor",  "a plain wall"};
constexpr std::array<const char*, 11> kCamera = {
    "The camera is static.",       "The camera pans left.",     "The camera pans right.",
    "The camera zooms in.",        "The camera zooms out.",     "The camera tilts up.",
    "The camera tilts down.",      "The camera slowly orbits.", "The camera follows it.",
    "The camera shakes slightly.", "The camera pulls back."};

template <std::size_t N>
const char* pick(const std::array<const char*, N>& words, std::size_t index) {
    return words[index % N];
}

} // namespace

std::vector<std::string> caption_corpus() {
    std::vector<std::string> captions;
    // Strides coprime with each list's length walk through many combinations without repeats.
    for (std::size_t i = 0; i < 160; ++i) {
        captions.push_back(std::string("A ") + pick(kSizes, i * 5) + " " + pick(kColours, i) + " " +
                           pick(kShapes, i * 3) + " " + pick(kMotions, i * 7) + " " +
                           pick(kPaths, i * 4) + " over " + pick(kBackgrounds, i * 3) + ". " +
                           pick(kCamera, i * 2));
    }
    for (std::size_t i = 0; i < 40; ++i) {
        captions.push_back(std::string("Two ") + pick(kColours, i * 5) + " " +
                           pick(kShapes, i + 2) + "s and a " + pick(kColours, i * 7 + 3) + " " +
                           pick(kShapes, i * 3 + 1) + " " + pick(kMotions, i * 3) + " " +
                           pick(kPaths, i * 2 + 1) + ", then stop. " + pick(kCamera, i * 5));
    }
    return captions;
}

} // namespace tuneframe::models
