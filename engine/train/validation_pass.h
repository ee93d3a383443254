#pragma once

#include "common/training_job.h"
#include "engine/models/model_folder.h"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace tuneframe::train {

struct ValidationVideo {
    std::size_t prompt_index = 0;
    std::filesystem::path file;
    double seconds = 0; // an even share of the pass: the prompts go through every stage together
};

// One validation pass during training: every prompt of the job sampled with the model being
// trained, T5 and the VAE loaded once for all of them, and on a GPU the transformer waiting on
// the host while they run (the family's VideoSampler::generate_all). The transformer is left in
// training mode on its device.
class ValidationPass {
public:
    // Called as each stage begins ("text", "image", "denoise", "decode") and once more, with
    // "", when the last one has ended.
    using StageBoundary = std::function<void(const std::string& stage)>;

    ValidationPass(const models::ModelFolder& model, const common::TrainingJob& job,
                   models::WeightsPlacement placement);

    // Samples every prompt and returns the videos in prompt order, without writing them
    // (`bench --validation` measures this part alone); `seconds` is the whole sampling time.
    // `transformers`: one per expert of the model (the one most models have).
    std::vector<models::SampleResult>
    sample(const std::vector<models::DiffusionTransformer>& transformers,
           const StageBoundary& stage_boundary, double* seconds = nullptr) const;

    // Writes FOLDER/<prompt index>.mp4 for every prompt, then FOLDER/validation.json (the
    // videos and their prompts), whose presence marks the pass complete.
    std::vector<ValidationVideo> run(const std::vector<models::DiffusionTransformer>& transformers,
                                     const std::filesystem::path& folder,
                                     const StageBoundary& stage_boundary) const;

    // Whether a pass wrote FOLDER completely: one that a kill interrupted is run again on resume.
    static bool is_complete(const std::filesystem::path& folder);

private:
    models::SampleRequest request(std::size_t prompt_index) const;

    const models::ModelFolder& model_;
    const common::TrainingJob& job_;
    models::WeightsPlacement placement_;
};

} // namespace tuneframe::train
