#include "engine/data/dataset_preparer.h"

#include "common/bucket_assignment.h"
#include "common/dataset_manifest.h"
#include "engine/core/device/runtime_info.h"
#include "engine/core/error.h"
#include "engine/core/job_file.h"
#include "engine/core/json_file.h"
#include "engine/core/media_support.h"
#include "engine/data/cache_key.h"
#include "engine/data/clip_preprocessor.h"
#include "engine/data/file_identity.h"
#include "engine/data/latent_cache.h"
#include "engine/data/prepared_index.h"
#include "engine/models/model_family.h"

#include <torch/torch.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <optional>
#include <set>

namespace tuneframe::data {
namespace {

namespace fs = std::filesystem;

// A killed writer's temporary is certainly dead after this long; younger ones may belong to a
// prepare running now on the same cache.
constexpr std::chrono::seconds kStaleTemporaryAge{3600};

fs::path beside(const fs::path& folder, const std::string& path) {
    const fs::path given = fs::u8path(path);
    return (given.is_absolute() ? given : folder / given).lexically_normal();
}

std::string dtype_name(c10::ScalarType dtype) {
    switch (dtype) {
    case c10::kBFloat16:
        return "bf16";
    case c10::kHalf:
        return "fp16";
    default:
        return "fp32";
    }
}

common::BucketConfig bucket_config(const common::DatasetSettings& dataset,
                                   const fs::path& job_file) {
    common::BucketConfig config;
    for (const std::int64_t frames : dataset.frame_buckets) {
        config.frame_buckets.push_back(static_cast<int>(frames));
    }
    for (const auto& [height, width] : dataset.resolution_buckets) {
        config.resolutions.push_back({static_cast<int>(height), static_cast<int>(width)});
    }
    const std::vector<std::string> problems = common::check_bucket_config(config);
    if (!problems.empty()) {
        throw core::Error(core::ErrorCode::BadInput,
                          job_file.string() +
                              ": the dataset's buckets cannot be used: " + problems.front(),
                          "List [height, width] pairs and 4k+1 frame counts, e.g. "
                          "\"resolution_buckets\": [[480, 720]], \"frame_buckets\": [49].");
    }
    return config;
}

common::ManifestReadResult read_manifest(const fs::path& file) {
    common::ManifestReadResult manifest = common::read_manifest(file);
    for (const common::ManifestIssue& issue : manifest.issues) {
        if (issue.line == 0) {
            throw core::Error(core::ErrorCode::Io,
                              "The dataset manifest cannot be read: " + issue.to_string() + ".",
                              "Check dataset.manifest in the job, or export the dataset again "
                              "from the studio.");
        }
    }
    if (manifest.entries.empty()) {
        throw core::Error(
            core::ErrorCode::BadInput,
            "The dataset manifest '" + file.string() + "' lists no usable clip" +
                (manifest.issues.empty() ? "." : ": " + manifest.issues.front().to_string()),
            "Add clips to the dataset and export it again.");
    }
    return manifest;
}

// What one run works with, checked before any clip is touched.
struct Inputs {
    common::TrainingJob job;
    fs::path run_folder;
    fs::path manifest_file;
    fs::path cache_dir;
    std::unique_ptr<models::ModelFolder> model;
    models::WeightsPlacement placement;
    std::string dtype;
    ResizeMode resize_mode = ResizeMode::Invalid;
    common::BucketConfig buckets;
    bool image_to_video = false;
    std::string vae_identity;
    // The image encoder's (Wan 2.1 I2V's CLIP) when image-to-video conditions on one.
    std::optional<std::string> image_encoder_identity;
    std::int64_t text_length = 0;
};

Inputs open_inputs(const fs::path& job_file) {
    Inputs in;
    const fs::path job_path = fs::absolute(job_file).lexically_normal();
    in.job = core::read_job_file(job_path);
    in.run_folder = job_path.parent_path();
    const common::DatasetSettings& dataset = in.job.dataset;
    if (dataset.manifest.empty()) {
        throw core::Error(core::ErrorCode::BadInput,
                          job_path.string() + ": \"dataset.manifest\" is empty.",
                          "Name the dataset's JSON Lines manifest, relative to the job file.");
    }
    in.manifest_file = beside(in.run_folder, dataset.manifest);
    in.cache_dir = dataset.cache_dir.empty()
                       ? (in.run_folder / ".." / ".." / "cache").lexically_normal()
                       : beside(in.run_folder, dataset.cache_dir);
    in.resize_mode = parse_resize_mode(dataset.resize_mode);
    in.buckets = bucket_config(dataset, job_path);

    in.model = models::open_model_folder(beside(in.run_folder, in.job.model));
    in.image_to_video = in.job.task == "i2v";
    if (!in.model->supports(in.job.task)) {
        const bool image_model = in.model->supports("i2v");
        throw core::Error(core::ErrorCode::BadInput,
                          job_path.string() + ": the task is " + in.job.task + " but '" +
                              in.model->root().string() + "' is " +
                              (image_model ? "an image-to-video" : "a text-to-video") + " model.",
                          "Set \"task\" to " + std::string(image_model ? "i2v" : "t2v") +
                              ", or choose a model made for " + in.job.task + ".");
    }
    try {
        in.placement.device = models::parse_device(
            in.job.device == "auto" ? (core::cuda_usable() ? "cuda" : "cpu") : in.job.device);
        in.placement.dtype = models::parse_dtype(in.job.precision);
        models::check_placement(in.placement);
    } catch (const core::Error& error) {
        throw core::Error(error.code(),
                          job_path.string() + ": \"device\" " + in.job.device +
                              " with \"precision\" " + in.job.precision + ": " + error.what(),
                          error.hint());
    }
    in.dtype = dtype_name(in.placement.dtype);
    in.vae_identity = component_identity(in.model->vae_folder(), true);
    const std::vector<fs::path> image_encoder = in.model->image_encoder_folders();
    if (in.image_to_video && !image_encoder.empty()) {
        std::string identity;
        for (const fs::path& folder : image_encoder) {
            identity += component_identity(folder, false) + ";";
        }
        in.image_encoder_identity = identity;
    }
    in.text_length = in.model->text_length();
    return in;
}

// One usable clip on its way into prepared.jsonl.
struct PlannedSample {
    PreparedSample sample;
    bool encoded = false;
};

class PrepareRun {
public:
    PrepareRun(Inputs inputs, core::EventEmitter& events)
        : in_(std::move(inputs))
        , events_(events)
        , cache_(in_.cache_dir) {}

    PrepareSummary run();

private:
    void clip_phase(const common::ManifestReadResult& manifest);
    void prepare_clip(const common::ManifestEntry& entry, std::int64_t line);
    bool encode_clip(ClipPreprocessor& clip, const common::BucketAssignment& bucket,
                     const FramePlacement& placement, const CacheKey& video,
                     const std::optional<CacheKey>& image,
                     const std::optional<CacheKey>& image_embeds,
                     std::optional<std::int64_t> condition_frame, const fs::path& file);
    bool missing(const CacheKey& key);
    void caption_phase();
    void skip(std::int64_t line, const std::string& path, const std::string& reason,
              const std::string& message);

    Inputs in_;
    core::EventEmitter& events_;
    LatentCache cache_;
    std::vector<PlannedSample> planned_;
    PreparedIndex index_;
    PrepareSummary summary_;
    std::unique_ptr<models::VideoAutoencoder> vae_;
    std::unique_ptr<models::ImageEncoder> image_encoder_;
};

void PrepareRun::skip(std::int64_t line, const std::string& path, const std::string& reason,
                      const std::string& message) {
    events_.log("warning",
                "Skipped " +
                    (path.empty() ? "manifest line " + std::to_string(line) : "'" + path + "'") +
                    " (" + reason + "): " + message);
    index_.skipped.push_back({line, path, reason, message});
}

bool PrepareRun::missing(const CacheKey& key) {
    const CacheEntryState state = cache_.state(key);
    if (state == CacheEntryState::Damaged) {
        events_.log("warning", "The cache entry '" + cache_.path(key).string() +
                                   "' is damaged or stale; it is written again.");
    }
    return state != CacheEntryState::Present;
}

// Encodes what the cache lacks; false when it had everything.
bool PrepareRun::encode_clip(ClipPreprocessor& clip, const common::BucketAssignment& bucket,
                             const FramePlacement& placement, const CacheKey& video,
                             const std::optional<CacheKey>& image,
                             const std::optional<CacheKey>& image_embeds,
                             std::optional<std::int64_t> condition_frame, const fs::path& file) {
    const bool need_video = missing(video);
    const bool need_image = image && missing(*image);
    const bool need_embeds = image_embeds && missing(*image_embeds);
    if (!need_video && !need_image && !need_embeds) {
        return false;
    }
    // [1, 3, F, H, W] in [-1, 1]; a damaged frame throws ClipError before anything is loaded.
    const at::Tensor pixels =
        clip.decode(bucket.frame_indices, placement).to(in_.placement.device, in_.placement.dtype);
    if (!vae_) {
        vae_ =
            in_.model->vae(in_.placement, in_.job.dataset.vae_tiling, in_.job.dataset.vae_slicing);
    }
    torch::NoGradGuard no_grad;
    const std::map<std::string, std::string> details = {
        {"source", file.string()},
        {"bucket", std::to_string(bucket.frames) + "x" + std::to_string(bucket.height) + "x" +
                       std::to_string(bucket.width)}};
    if (need_video) {
        const models::DiagonalGaussianDistribution posterior = vae_->encode(pixels);
        cache_.write_moments(video, {posterior.mean[0], posterior.logvar[0]}, details);
        ++summary_.latents_encoded;
    }
    // The clean first frame (or the frame the user chose).
    using torch::indexing::Slice;
    const at::Tensor first = !need_image && !need_embeds ? at::Tensor()
                             : condition_frame ? clip.decode({*condition_frame}, placement)
                                                     .to(in_.placement.device, in_.placement.dtype)
                                               : pixels.index({Slice(), Slice(), Slice(0, 1)});
    if (need_embeds) {
        if (!image_encoder_) {
            image_encoder_ = in_.model->image_encoder(in_.placement);
        }
        const at::Tensor picture = (first[0].select(1, 0).to(torch::kFloat32) + 1) / 2;
        cache_.write_image_embeds(*image_embeds, image_encoder_->encode(picture)[0], details);
        ++summary_.latents_encoded;
    }
    if (need_image) {
        // Encoded as the family's pipeline conditions on it; the trainer adds any noise
        // augmentation itself.
        at::Tensor picture = first;
        if (in_.model->image_condition() == models::ImageCondition::FirstFrameThenZeros) {
            picture = torch::cat(
                {picture, torch::zeros_like(pixels).narrow(2, 1, pixels.size(2) - 1)}, 2);
        }
        const models::DiagonalGaussianDistribution posterior = vae_->encode(picture);
        cache_.write_moments(*image, {posterior.mean[0], posterior.logvar[0]}, details);
        ++summary_.latents_encoded;
    }
    return true;
}

void PrepareRun::prepare_clip(const common::ManifestEntry& entry, std::int64_t line) {
    const fs::path file = common::resolve_manifest_path(entry, in_.manifest_file);
    if (!in_.job.dataset.allow_paths_outside) {
        const std::string outside = common::manifest_path_outside_problem(entry, in_.manifest_file);
        if (!outside.empty()) {
            skip(line, file.string(), "outside_dataset",
                 in_.manifest_file.string() + ", line " + std::to_string(line) + ": \"" +
                     entry.path + "\" " + outside +
                     ". Move the clip into the manifest's folder, or set "
                     "dataset.allow_paths_outside in the job if the manifest is yours.");
            return;
        }
    }
    try {
        ClipPreprocessor clip(file);
        common::ClipGeometry geometry;
        geometry.frame_count = clip.frame_count();
        geometry.trim_in = entry.trim_in;
        geometry.trim_out = entry.trim_out;
        geometry.width = clip.display_width();
        geometry.height = clip.display_height();
        const common::BucketAssignment bucket = common::assign_bucket(geometry, in_.buckets);
        if (!bucket.assigned()) {
            skip(line, file.string(), std::string(common::to_string(bucket.drop_reason)),
                 bucket.message);
            return;
        }
        // The manifest's 0-based line keys the random crop: stable while lines are added
        // after it or other lines are edited.
        const FramePlacement placement =
            place_frames(in_.resize_mode, geometry.width, geometry.height, bucket.width,
                         bucket.height, in_.job.seed, line - 1);
        LatentKeyInputs key;
        key.source = clip_source_identity(entry, file);
        key.trim_in = entry.trim_in;
        key.trim_out = entry.trim_out;
        key.frame_indices = bucket.frame_indices;
        key.frames = bucket.frames;
        key.height = bucket.height;
        key.width = bucket.width;
        key.resize_mode = std::string(to_string(in_.resize_mode));
        if (in_.resize_mode == ResizeMode::RandomCrop) {
            key.crop_x = placement.crop_x;
            key.crop_y = placement.crop_y;
        }
        key.vae = in_.vae_identity;
        key.vae_tiling = in_.job.dataset.vae_tiling;
        key.dtype = in_.dtype;
        const CacheKey video = CacheKey::video(key);
        key.condition_frame = entry.condition_frame;
        if (in_.model->image_condition() == models::ImageCondition::FirstFrameThenZeros) {
            key.condition_padding = "zeros";
        }
        const std::optional<CacheKey> image =
            in_.image_to_video ? std::optional<CacheKey>(CacheKey::image(key)) : std::nullopt;

        PlannedSample planned;
        planned.sample.line = line;
        planned.sample.path = file.string();
        planned.sample.caption = caption_with_trigger(entry.caption, in_.job.trigger_word);
        planned.sample.frames = bucket.frames;
        planned.sample.height = bucket.height;
        planned.sample.width = bucket.width;
        planned.sample.latent = LatentCache::relative_path(video).generic_string();
        if (image) {
            planned.sample.image_latent = LatentCache::relative_path(*image).generic_string();
        }
        std::optional<CacheKey> image_embeds;
        if (in_.image_encoder_identity) {
            image_embeds = CacheKey::image_embeds(key, *in_.image_encoder_identity);
            planned.sample.image_embeds =
                LatentCache::relative_path(*image_embeds).generic_string();
        }
        planned.encoded = encode_clip(clip, bucket, placement, video, image, image_embeds,
                                      entry.condition_frame, file);
        planned_.push_back(std::move(planned));
    } catch (const ClipError& error) {
        skip(line, file.string(), error.reason(), error.what());
    }
}

// Progress counts every line of the manifest that holds something, the lines already skipped
// as unreadable included, so its total is what the studio's dataset has.
void PrepareRun::clip_phase(const common::ManifestReadResult& manifest) {
    const auto clips = static_cast<std::int64_t>(manifest.entries.size());
    std::int64_t done = 0;
    for (const common::ManifestIssue& issue : manifest.issues) {
        done += issue.line > 0 ? 1 : 0;
    }
    const std::int64_t total = clips + done;
    events_.progress(done, total, "clip");
    for (std::int64_t i = 0; i < clips; ++i) {
        prepare_clip(manifest.entries[i], manifest.entry_lines[i]);
        events_.progress(++done, total, "clip");
    }
    if (vae_ || image_encoder_) {
        vae_.reset();
        image_encoder_.reset();
        core::release_cached_device_memory();
    }
}

void PrepareRun::caption_phase() {
    PromptKeyInputs key;
    key.tokenizer = component_identity(in_.model->tokenizer_folder(), false);
    key.text_encoder = component_identity(in_.model->text_encoder_folder(), true);
    key.text_length = in_.text_length;
    key.dtype = in_.dtype;
    // One entry per distinct caption, however many clips share it.
    std::map<std::string, std::optional<CacheKey>> captions;
    std::vector<std::string> to_encode;
    for (PlannedSample& planned : planned_) {
        auto [it, inserted] = captions.try_emplace(planned.sample.caption);
        if (inserted) {
            key.caption = planned.sample.caption;
            it->second = CacheKey::prompt(key);
            if (missing(*it->second)) {
                to_encode.push_back(planned.sample.caption);
            }
        }
        planned.sample.prompt = LatentCache::relative_path(*it->second).generic_string();
    }
    if (to_encode.empty()) {
        return;
    }
    const std::unique_ptr<models::TextEncoder> encoder = in_.model->text_encoder(in_.placement);
    const auto total = static_cast<std::int64_t>(to_encode.size());
    events_.log("info", "prepare: encoding " + std::to_string(total) + " caption" +
                            (total == 1 ? "" : "s"));
    for (std::int64_t i = 0; i < total; ++i) {
        const std::string& caption = to_encode[i];
        const at::Tensor embeds = encoder->encode(caption, static_cast<int>(in_.text_length));
        cache_.write_prompt(*captions.at(caption), embeds[0], {{"caption", caption}});
        events_.progress(i + 1, total, "caption");
    }
    encoder->release();
    summary_.captions_encoded = total;
    const std::set<std::string> encoded(to_encode.begin(), to_encode.end());
    for (PlannedSample& planned : planned_) {
        planned.encoded = planned.encoded || encoded.count(planned.sample.caption) > 0;
    }
}

PrepareSummary PrepareRun::run() {
    const common::ManifestReadResult manifest = read_manifest(in_.manifest_file);
    events_.log("info", "prepare: " + std::to_string(manifest.entries.size()) + " clips from '" +
                            in_.manifest_file.string() + "' into '" + in_.cache_dir.string() +
                            "' on " + in_.placement.device.str() + " in " + in_.dtype);
    for (const common::ManifestIssue& issue : manifest.issues) {
        skip(issue.line, {}, "bad_manifest_line", issue.to_string());
    }
    cache_.remove_stale_temporaries(kStaleTemporaryAge);

    clip_phase(manifest);
    caption_phase();

    index_.dataset.manifest = in_.manifest_file.string();
    index_.dataset.cache_dir = fs::absolute(in_.cache_dir).lexically_normal().string();
    index_.dataset.model = fs::absolute(in_.model->root()).lexically_normal().string();
    index_.dataset.task = in_.job.task;
    index_.dataset.dtype = in_.dtype;
    index_.dataset.text_length = in_.text_length;
    std::map<std::string, std::int64_t> buckets;
    for (const PlannedSample& planned : planned_) {
        index_.samples.push_back(planned.sample);
        ++buckets[planned.sample.bucket()];
        if (planned.encoded) {
            ++summary_.prepared;
        } else {
            ++summary_.reused;
        }
    }
    std::stable_sort(index_.skipped.begin(), index_.skipped.end(),
                     [](const SkippedClip& a, const SkippedClip& b) { return a.line < b.line; });
    summary_.skipped = static_cast<std::int64_t>(index_.skipped.size());
    summary_.index_file = in_.run_folder / PreparedIndex::kFileName;
    summary_.cache_dir = index_.dataset.cache_dir;
    index_.write(summary_.index_file);
    for (const auto& [bucket, count] : buckets) {
        events_.log("info", "prepare: bucket " + bucket + ": " + std::to_string(count) + " sample" +
                                (count == 1 ? "" : "s"));
    }
    if (index_.samples.empty()) {
        throw core::Error(core::ErrorCode::BadInput,
                          "None of the clips in '" + in_.manifest_file.string() +
                              "' can be used; '" + summary_.index_file.string() + "' lists why.",
                          "Fix or replace the clips named in the warnings, or choose frame "
                          "buckets the clips are long enough for.");
    }
    return summary_;
}

} // namespace

std::string caption_with_trigger(const std::string& caption, const std::string& trigger_word) {
    if (trigger_word.empty()) {
        return caption;
    }
    const bool starts_with = caption.compare(0, trigger_word.size(), trigger_word) == 0;
    const bool whole_word =
        caption.size() == trigger_word.size() ||
        (caption.size() > trigger_word.size() &&
         !std::isalnum(static_cast<unsigned char>(caption[trigger_word.size()])));
    if (starts_with && whole_word) {
        return caption;
    }
    return trigger_word + " " + caption;
}

DatasetPreparer::DatasetPreparer(fs::path job_file, core::EventEmitter& events)
    : job_file_(std::move(job_file))
    , events_(events) {}

PrepareSummary DatasetPreparer::run() {
    const auto started = std::chrono::steady_clock::now();
    // Without a job file there is no run folder to log into; reading it says what is wrong.
    const fs::path job_path = fs::absolute(job_file_).lexically_normal();
    if (fs::is_regular_file(job_path)) {
        events_.attach_log(job_path.parent_path() / "events.jsonl");
    }
    events_.phase("prepare");
    core::require_media_for_prepare(job_path, core::engine_has_media());
    Inputs inputs = open_inputs(job_path);
    PrepareSummary summary = PrepareRun(std::move(inputs), events_).run();
    summary.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return summary;
}

} // namespace tuneframe::data
