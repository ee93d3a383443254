#pragma once

#include "common/training_job.h"

#include <numeric>
#include <optional>
#include <string>
#include <vector>

// Which of a two-expert model's transformers (Wan 2.2 A14B: `transformer` for high noise,
// `transformer_2` for low) a run trains, and the names each goes by in checkpoints, folders and
// exported files. One-transformer models have one expert, 0, named nothing. A namespace of its
// own: the trainer's file keeps same-named helpers of its own in the same unity build.
namespace tuneframe::train::run_experts {

// Every expert of a one-transformer model or when `expert` is "both"; else the one it names.
inline std::vector<int> trained(const common::TrainingJob& job, int experts) {
    if (experts < 2 || job.flow_matching.expert == "both") {
        std::vector<int> all(static_cast<std::size_t>(experts));
        std::iota(all.begin(), all.end(), 0);
        return all;
    }
    return {job.flow_matching.expert == "high_noise" ? 0 : 1};
}

// The prefix of an expert's tensors in a checkpoint: none for the first, the folder's name and
// a dot for the others ("transformer_2.").
inline std::string checkpoint_prefix(int expert) {
    return expert == 0 ? std::string() : "transformer_" + std::to_string(expert + 1) + ".";
}

// The pipeline folder an expert lives in: "transformer", "transformer_2".
inline std::string folder_name(int expert) {
    return expert == 0 ? std::string("transformer") : "transformer_" + std::to_string(expert + 1);
}

// As flow_matching.expert, export's --expert and the Wan community's file names say it.
inline std::string name(int expert) {
    return expert == 0 ? "high_noise" : "low_noise";
}

inline std::optional<int> parse(const std::string& text) {
    if (text == "high_noise") {
        return 0;
    }
    if (text == "low_noise") {
        return 1;
    }
    return std::nullopt;
}

} // namespace tuneframe::train::run_experts
