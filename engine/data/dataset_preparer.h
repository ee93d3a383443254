#pragma once

#include "common/training_job.h"
#include "engine/core/event_emitter.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace tuneframe::data {

struct PrepareSummary {
    std::int64_t prepared = 0;        // usable samples this run encoded something for
    std::int64_t reused = 0;          // usable samples served wholly from the cache
    std::int64_t skipped = 0;         // clips and manifest lines left out, each with its reason
    std::int64_t latents_encoded = 0; // cache entries written: video, and image for i2v
    std::int64_t captions_encoded = 0;
    double seconds = 0;
    std::filesystem::path index_file; // <run>/prepared.jsonl
    std::filesystem::path cache_dir;
};

// The caption T5 sees: "X caption" for trigger word X (cogvideox-factory's --id_token), unless
// the caption already starts with X as a word of its own.
std::string caption_with_trigger(const std::string& caption, const std::string& trigger_word);

// `tuneframe-engine prepare`: turns a job's dataset into cache entries and the run's
// prepared.jsonl. Order: read the manifest; for each clip open it, assign its bucket
// (common/bucket_assignment.h) and look its entries up; decode and VAE-encode only what is
// missing; then T5-encode the captions that are missing. The VAE is loaded for the clip phase
// and dropped before T5 is loaded for the caption phase, so one model at a time occupies the
// device. Entries are written atomically as they are made, so a killed run loses at most the
// clip it was on. A clip that cannot be used is a `log` warning and a line in prepared.jsonl,
// never a failure; a job, model or manifest that cannot be used, and a cache that cannot be
// written, throw core::Error.
class DatasetPreparer {
public:
    // job_file: job.json; its folder is the run folder (prepared.jsonl, events.jsonl).
    DatasetPreparer(std::filesystem::path job_file, core::EventEmitter& events);

    PrepareSummary run();

private:
    std::filesystem::path job_file_;
    core::EventEmitter& events_;
};

} // namespace tuneframe::data
