#include "engine/train/sampling/prepared_training_dataset.h"

#include "engine/core/error.h"
#include "engine/core/tensor_io.h"

namespace tuneframe::train {
namespace {

at::Tensor tensor_in(const std::map<std::string, at::Tensor>& tensors,
                     const std::filesystem::path& file, const std::string& name) {
    auto it = tensors.find(name);
    if (it == tensors.end()) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The cache file '" + file.string() + "' has no tensor '" + name + "'.",
                          "Delete it and run prepare again; it re-encodes what is missing.");
    }
    return it->second;
}

} // namespace

PreparedTrainingDataset::PreparedTrainingDataset(data::PreparedIndex index)
    : index_(std::move(index)) {}

std::unique_ptr<PreparedTrainingDataset>
PreparedTrainingDataset::open(const std::filesystem::path& run,
                              const std::filesystem::path& job_file) {
    const std::filesystem::path file = run / data::PreparedIndex::kFileName;
    if (!std::filesystem::exists(file)) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The run '" + run.string() + "' has not been prepared (no " +
                              data::PreparedIndex::kFileName + ").",
                          "Run `tuneframe-engine prepare --job " + job_file.string() +
                              "` first; it encodes the clips this run trains on.");
    }
    return std::make_unique<PreparedTrainingDataset>(data::PreparedIndex::read(file));
}

std::int64_t PreparedTrainingDataset::size() const {
    return static_cast<std::int64_t>(index_.samples.size());
}

std::string PreparedTrainingDataset::bucket(std::int64_t index) const {
    return index_.samples.at(static_cast<std::size_t>(index)).bucket();
}

TrainingExample PreparedTrainingDataset::load(std::int64_t index) const {
    const data::PreparedSample& sample = index_.samples.at(static_cast<std::size_t>(index));
    TrainingExample example;
    const auto latent_file = index_.file_in_cache(sample.latent);
    const auto latents = core::read_tensors(latent_file);
    example.latent_mean = tensor_in(latents, latent_file, "mean");
    example.latent_logvar = tensor_in(latents, latent_file, "logvar");
    const auto prompt_file = index_.file_in_cache(sample.prompt);
    example.prompt_embeds =
        tensor_in(core::read_tensors(prompt_file), prompt_file, "prompt_embeds");
    if (!sample.image_latent.empty()) {
        const auto image_file = index_.file_in_cache(sample.image_latent);
        const auto image = core::read_tensors(image_file);
        example.image_mean = tensor_in(image, image_file, "mean");
        example.image_logvar = tensor_in(image, image_file, "logvar");
    }
    if (!sample.image_embeds.empty()) {
        const auto embeds_file = index_.file_in_cache(sample.image_embeds);
        example.image_embeds =
            tensor_in(core::read_tensors(embeds_file), embeds_file, "image_embeds");
    }
    return example;
}

std::string PreparedTrainingDataset::fingerprint() const {
    return index_.fingerprint();
}

} // namespace tuneframe::train
