#include "common/training_job.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <set>

namespace tuneframe::common {
namespace {

// The largest buckets a job may ask for: far beyond any CogVideoX resolution or length, yet
// small enough that a typo cannot ask prepare for terabytes.
constexpr std::int64_t kMaxBucketSide = 4096;
constexpr std::int64_t kMaxBucketFrames = 1025;

using nlohmann::json;

std::string joined(std::initializer_list<const char*> names) {
    std::string text;
    for (const char* name : names) {
        text += (text.empty() ? "" : ", ") + std::string(name);
    }
    return text;
}

// Reads one JSON object of the job: every read names the field by its dotted path, and
// finish() rejects fields nobody read, so a misspelt setting is an error, not a default.
class Fields {
public:
    Fields(const json& object, std::string origin, std::string path)
        : object_(object)
        , origin_(std::move(origin))
        , path_(std::move(path)) {
        if (!object_.is_object()) {
            fail(path_.empty() ? "" : path_, "must be a JSON object", "Write { ... } here.");
        }
    }

    [[noreturn]] void fail(const std::string& field, const std::string& problem,
                           const std::string& hint) const {
        const std::string where = field.empty() ? "the job" : "\"" + field + "\"";
        throw JobError(origin_ + ": " + where + " " + problem + ".", field, hint);
    }

    std::string name(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

    const json* find(const char* key) {
        seen_.insert(key);
        auto it = object_.find(key);
        return it == object_.end() || it->is_null() ? nullptr : &*it;
    }

    void read(const char* key, std::string& value) {
        if (const json* v = find(key)) {
            if (!v->is_string()) {
                fail(name(key), "must be a string", "Put the value in double quotes.");
            }
            value = v->get<std::string>();
        }
    }

    void read(const char* key, bool& value) {
        if (const json* v = find(key)) {
            if (!v->is_boolean()) {
                fail(name(key), "must be true or false", "Write true or false without quotes.");
            }
            value = v->get<bool>();
        }
    }

    void read(const char* key, double& value, double minimum, double maximum,
              bool minimum_allowed = true) {
        if (const json* v = find(key)) {
            if (!v->is_number() || !std::isfinite(v->get<double>())) {
                fail(name(key), "must be a number", "Write a number without quotes.");
            }
            value = v->get<double>();
        }
        if (value > maximum || value < minimum || (!minimum_allowed && value == minimum)) {
            fail(name(key),
                 "is " + number(value) + ", outside " + (minimum_allowed ? "[" : "(") +
                     number(minimum) + ", " + number(maximum) + "]",
                 "Choose a value in that range.");
        }
    }

    void read(const char* key, std::optional<double>& value) {
        if (const json* v = find(key)) {
            if (!v->is_number() || !std::isfinite(v->get<double>())) {
                fail(name(key), "must be a number or null", "Write a number without quotes.");
            }
            value = v->get<double>();
        }
    }

    void read(const char* key, std::int64_t& value, std::int64_t minimum) {
        if (const json* v = find(key)) {
            value = whole(*v, name(key));
        }
        if (value < minimum) {
            fail(name(key),
                 "is " + std::to_string(value) + ", less than " + std::to_string(minimum),
                 "Use " + std::to_string(minimum) + " or more.");
        }
    }

    void read(const char* key, std::optional<std::int64_t>& value, std::int64_t minimum) {
        if (const json* v = find(key)) {
            value = whole(*v, name(key));
            if (*value < minimum) {
                fail(name(key),
                     "is " + std::to_string(*value) + ", less than " + std::to_string(minimum),
                     "Use " + std::to_string(minimum) + " or more, or null for every block.");
            }
        }
    }

    void read(const char* key, std::uint64_t& value) {
        if (const json* v = find(key)) {
            const std::int64_t number = whole(*v, name(key));
            if (number < 0) {
                fail(name(key), "must not be negative", "Use 0 or a positive whole number.");
            }
            value = static_cast<std::uint64_t>(number);
        }
    }

    void read(const char* key, std::vector<std::string>& value) {
        if (const json* v = find(key)) {
            if (!v->is_array() ||
                !std::all_of(v->begin(), v->end(), [](const json& e) { return e.is_string(); })) {
                fail(name(key), "must be a list of strings", "Write [\"...\", \"...\"].");
            }
            value = v->get<std::vector<std::string>>();
        }
    }

    void read(const char* key, std::vector<std::int64_t>& value) {
        if (const json* v = find(key)) {
            if (!v->is_array()) {
                fail(name(key), "must be a list of whole numbers", "Write [49] or [25, 49].");
            }
            value.clear();
            for (const json& e : *v) {
                value.push_back(whole(e, name(key)));
            }
        }
    }

    void choose(const char* key, std::string& value, std::initializer_list<const char*> choices) {
        read(key, value);
        if (std::none_of(choices.begin(), choices.end(),
                         [&](const char* choice) { return value == choice; })) {
            fail(name(key), "is \"" + value + "\", which is not one of: " + joined(choices),
                 "Use one of the listed values.");
        }
    }

    Fields object(const char* key) {
        static const json empty = json::object();
        const json* v = find(key);
        return Fields(v ? *v : empty, origin_, name(key));
    }

    void finish() const {
        for (auto it = object_.begin(); it != object_.end(); ++it) {
            if (!seen_.count(it.key())) {
                fail(name(it.key().c_str()), "is not a field this version knows",
                     "Check the spelling; docs/protocol.md lists the job's fields.");
            }
        }
    }

private:
    std::int64_t whole(const json& v, const std::string& field) const {
        if (v.is_number_integer() || v.is_number_unsigned()) {
            return v.get<std::int64_t>();
        }
        if (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()) &&
            std::abs(v.get<double>()) < 9e15) {
            return static_cast<std::int64_t>(v.get<double>());
        }
        fail(field, "must be a whole number", "Write it without a fraction or quotes.");
    }

    static std::string number(double value) {
        json j = value;
        return j.dump();
    }

    const json& object_;
    std::string origin_;
    std::string path_;
    std::set<std::string> seen_;
};

void read_dataset(Fields f, DatasetSettings& d) {
    f.read("manifest", d.manifest);
    f.read("cache_dir", d.cache_dir);
    if (const json* buckets = f.find("resolution_buckets")) {
        d.resolution_buckets.clear();
        const bool ok = buckets->is_array() && !buckets->empty() &&
                        std::all_of(buckets->begin(), buckets->end(), [](const json& b) {
                            return b.is_array() && b.size() == 2 && b[0].is_number_integer() &&
                                   b[1].is_number_integer();
                        });
        if (!ok) {
            f.fail(f.name("resolution_buckets"), "must be a list of [height, width] pairs",
                   "Write [[480, 720]] or [[480, 720], [720, 480]].");
        }
        for (const json& b : *buckets) {
            d.resolution_buckets.emplace_back(b[0].get<std::int64_t>(), b[1].get<std::int64_t>());
        }
    }
    for (const auto& [height, width] : d.resolution_buckets) {
        if (height < 16 || width < 16 || height % 16 != 0 || width % 16 != 0) {
            f.fail(f.name("resolution_buckets"),
                   "holds " + std::to_string(height) + "x" + std::to_string(width) +
                       ", which is not a multiple of 16 on both sides",
                   "The video VAEs (8x, or 16x for Wan 2.2 5B) and 2x2 patches need multiples of "
                   "16, e.g. [480, 720] or [480, 832].");
        }
        // A bucket of a million pixels a side would ask prepare for terabytes.
        if (height > kMaxBucketSide || width > kMaxBucketSide) {
            f.fail(f.name("resolution_buckets"),
                   "holds " + std::to_string(height) + "x" + std::to_string(width) + ", beyond " +
                       std::to_string(kMaxBucketSide) + " pixels a side",
                   "CogVideoX trains at 480x720, Wan at 480x832 or 720x1280; keep each side at "
                   "most " +
                       std::to_string(kMaxBucketSide) + ".");
        }
    }
    f.read("frame_buckets", d.frame_buckets);
    if (d.frame_buckets.empty()) {
        f.fail(f.name("frame_buckets"), "is empty", "Give at least one, e.g. [49].");
    }
    for (std::int64_t frames : d.frame_buckets) {
        if (frames > kMaxBucketFrames) {
            f.fail(f.name("frame_buckets"),
                   "holds " + std::to_string(frames) + ", more than " +
                       std::to_string(kMaxBucketFrames) + " frames",
                   "CogVideoX trains on 49 frames, CogVideoX 1.5 and Wan on 81; use at most " +
                       std::to_string(kMaxBucketFrames) + ".");
        }
        if (frames < 1 || (frames - 1) % 4 != 0) {
            f.fail(f.name("frame_buckets"),
                   "holds " + std::to_string(frames) + ", which is not 4k+1",
                   "The video VAEs compress 4 frames into one after the first: use 81, 49, 25, "
                   "17 or 9.");
        }
    }
    f.choose("resize_mode", d.resize_mode, {"stretch", "center_crop", "random_crop"});
    f.read("random_flip", d.random_flip, 0.0, 1.0);
    f.read("caption_dropout", d.caption_dropout, 0.0, 1.0);
    f.read("vae_tiling", d.vae_tiling);
    f.read("vae_slicing", d.vae_slicing);
    f.read("allow_paths_outside", d.allow_paths_outside);
    f.read("image_noise_log_mean", d.image_noise_log_mean, -20.0, 5.0);
    f.read("image_noise_log_std", d.image_noise_log_std, 0.0, 10.0);
    f.read("noised_image_dropout", d.noised_image_dropout, 0.0, 1.0);
    f.finish();
}

void read_lora(Fields f, LoraSettings& l) {
    f.read("rank", l.rank, 1);
    f.read("alpha", l.alpha, 0.0, 1e6, false);
    f.read("targets", l.targets);
    if (l.targets.empty()) {
        f.fail(f.name("targets"), "is empty",
               "CogVideoX trainers adapt [\"to_q\", \"to_k\", "
               "\"to_v\", \"to_out.0\"].");
    }
    f.choose("init", l.init, {"kaiming", "gaussian"});
    f.choose("base_quantization", l.base_quantization, {"none", "int8", "fp8"});
    f.finish();
}

void read_optimizer(Fields f, OptimizerSettings& o) {
    f.choose("name", o.name,
             {"adamw", "adam", "adamw8bit", "adamw-cpu-offload", "prodigy", "came"});
    f.read("lr", o.lr, 0.0, 100.0, false);
    f.read("beta1", o.beta1, 0.0, 0.999999);
    f.read("beta2", o.beta2, 0.0, 0.999999);
    f.read("beta3", o.beta3);
    f.read("weight_decay", o.weight_decay, 0.0, 10.0);
    f.read("eps", o.eps, 0.0, 1.0, false);
    if (o.name == "came" && !o.beta3) {
        f.fail(f.name("beta3"), "is needed by CAME", "CAME's default is 0.9999.");
    }
    f.finish();
}

void read_lr_schedule(Fields f, LrScheduleSettings& s) {
    f.choose("name", s.name,
             {"constant", "constant_with_warmup", "linear", "cosine", "cosine_with_restarts",
              "polynomial"});
    f.read("warmup_steps", s.warmup_steps, 0);
    f.read("cycles", s.cycles, 1);
    f.read("power", s.power, 0.0, 100.0, false);
    f.finish();
}

void read_checkpoints(Fields f, CheckpointSettings& c) {
    f.read("every_steps", c.every_steps, 0);
    f.read("keep", c.keep, 1);
    f.finish();
}

void read_validation(Fields f, ValidationSettings& v) {
    f.read("every_steps", v.every_steps, 0);
    f.read("at_start", v.at_start);
    f.read("prompts", v.prompts);
    f.read("images", v.images);
    f.choose("sampler", v.sampler, {"", "ddim", "dpm", "unipc", "euler"});
    f.read("steps", v.steps, 1);
    f.read("guidance", v.guidance, 0.0, 50.0);
    f.read("guidance_2", v.guidance_2);
    if (v.guidance_2 && !(*v.guidance_2 >= 0 && *v.guidance_2 <= 50)) {
        f.fail(f.name("guidance_2"), "must be between 0 and 50",
               "Wan 2.2 A14B's low-noise expert samples at 3 to 4; leave it out for guidance's.");
    }
    f.read("dynamic_cfg", v.dynamic_cfg);
    f.read("frames", v.frames, 0);
    f.read("height", v.height, 0);
    f.read("width", v.width, 0);
    f.read("seed", v.seed);
    if ((v.every_steps > 0 || v.at_start) && v.prompts.empty()) {
        f.fail(f.name("prompts"), "is empty while validation is on",
               "Add a prompt, or set every_steps to 0 and at_start to false.");
    }
    f.finish();
}

void read_flow_matching(Fields f, FlowMatchingSettings& m) {
    f.choose("sigma_source", m.sigma_source, {"finetrainers", "diffusers", "direct"});
    f.choose("density", m.density, {"uniform", "logit_normal", "mode"});
    f.read("shift", m.shift);
    if (m.shift && !(*m.shift > 0 && *m.shift <= 100)) {
        f.fail(f.name("shift"), "must be above 0 and at most 100",
               "Wan's pipelines use 3.0 at 480p and 5.0 at 720p; leave it out for the model's.");
    }
    f.read("logit_mean", m.logit_mean, -10.0, 10.0);
    f.read("logit_std", m.logit_std, 0.0, 10.0, false);
    f.read("mode_scale", m.mode_scale, 0.0, 10.0);
    f.choose("loss_weighting", m.loss_weighting, {"none", "sigma_sqrt", "cosmap"});
    f.choose("expert", m.expert, {"both", "high_noise", "low_noise"});
    f.finish();
}

void read_parallel(Fields f, ParallelSettings& p) {
    f.choose("plan", p.plan, {"ddp", "zero1", "zero2", "hybrid"});
    f.read("sp_size", p.sp_size, 1);
    f.read("tp_size", p.tp_size, 1);
    f.read("pp_size", p.pp_size, 1);
    f.read("zero_stage", p.zero_stage, 0);
    if (p.zero_stage > 2) {
        f.fail(f.name("zero_stage"), "is " + std::to_string(p.zero_stage) + ", not 0, 1 or 2",
               "Use 0 (every replica keeps all), 1 (optimizer state sharded) or 2 (state and "
               "gradients sharded).");
    }
    f.read("bucket_mb", p.bucket_mb, 1.0 / 8192, 4096.0);
    f.read("timeout_s", p.timeout_s, 0.0, 86400.0 * 7, false);
    if (p.plan != "hybrid" && p.sp_size != 1) {
        f.fail(f.name("sp_size"), "is set but the plan is not \"hybrid\"",
               "Set plan to \"hybrid\" to use sequence parallelism, or sp_size to 1.");
    }
    if (p.plan != "hybrid" && p.tp_size != 1) {
        f.fail(f.name("tp_size"), "is set but the plan is not \"hybrid\"",
               "Set plan to \"hybrid\" to use tensor parallelism, or tp_size to 1.");
    }
    if (p.plan != "hybrid" && p.pp_size != 1) {
        f.fail(f.name("pp_size"), "is set but the plan is not \"hybrid\"",
               "Set plan to \"hybrid\" to use pipeline parallelism, or pp_size to 1.");
    }
    if (p.plan != "hybrid" && p.zero_stage != 0) {
        f.fail(f.name("zero_stage"), "is set but the plan is not \"hybrid\"",
               "Use plan \"zero1\" or \"zero2\" without hybrid parallelism, or set plan to "
               "\"hybrid\".");
    }
    f.finish();
}

json bucket_pairs(const std::vector<std::pair<std::int64_t, std::int64_t>>& buckets) {
    json list = json::array();
    for (const auto& [height, width] : buckets) {
        list.push_back({height, width});
    }
    return list;
}

} // namespace

JobError::JobError(const std::string& message, std::string field, std::string hint)
    : std::runtime_error(message)
    , field_(std::move(field))
    , hint_(std::move(hint)) {}

TrainingJob TrainingJob::from_json(const json& object, const std::string& origin) {
    TrainingJob job;
    Fields f(object, origin, "");
    std::int64_t version = kJobVersion;
    f.read("v", version, 1);
    if (version > kJobVersion) {
        f.fail("v",
               "is " + std::to_string(version) + ", newer than this build understands (" +
                   std::to_string(kJobVersion) + ")",
               "Update Tuneframe, or write the job with this version.");
    }
    job.version = static_cast<int>(version);
    f.read("model", job.model);
    f.choose("mode", job.mode, {"lora", "full"});
    f.choose("task", job.task, {"t2v", "i2v"});
    read_dataset(f.object("dataset"), job.dataset);
    read_lora(f.object("lora"), job.lora);
    read_optimizer(f.object("optimizer"), job.optimizer);
    read_lr_schedule(f.object("lr_schedule"), job.lr_schedule);
    f.read("max_steps", job.max_steps, 0);
    f.read("epochs", job.epochs, 0);
    if (job.max_steps == 0 && job.epochs == 0) {
        f.fail("max_steps", "and \"epochs\" are both 0, so training would not run",
               "Set max_steps (e.g. 3000) or epochs.");
    }
    f.read("batch_size", job.batch_size, 1);
    f.read("gradient_accumulation", job.gradient_accumulation, 1);
    f.read("max_grad_norm", job.max_grad_norm, 0.0, 1e6);
    f.choose("precision", job.precision, {"bf16", "fp16", "fp32"});
    f.read("gradient_checkpointing", job.gradient_checkpointing);
    f.read("checkpointed_blocks", job.checkpointed_blocks, 1);
    f.read("checkpoint_keeps_attention", job.checkpoint_keeps_attention);
    f.read("seed", job.seed);
    f.read("trigger_word", job.trigger_word);
    read_checkpoints(f.object("checkpoints"), job.checkpoints);
    read_validation(f.object("validation"), job.validation);
    read_flow_matching(f.object("flow_matching"), job.flow_matching);
    read_parallel(f.object("parallel"), job.parallel);
    f.read("device", job.device);
    const std::string& d = job.device;
    const bool device_ok = d == "auto" || d == "cpu" || d == "cuda" ||
                           (d.rfind("cuda:", 0) == 0 && d.size() > 5 &&
                            d.find_first_not_of("0123456789", 5) == std::string::npos);
    if (!device_ok) {
        f.fail("device", "is \"" + d + "\"", "Use auto, cpu, cuda or cuda:N.");
    }
    if (job.mode == "full" && job.lora.base_quantization != "none") {
        f.fail("lora.base_quantization",
               "is \"" + job.lora.base_quantization + "\" but mode is \"full\"",
               "Quantized base weights are frozen: use mode \"lora\", or set it to \"none\".");
    }
    // Tensor parallelism splits each layer's optimizer state with the layer: state shaped
    // like the parameter and kept per parameter only.
    const std::string& optimizer = job.optimizer.name;
    if (job.parallel.tp_size > 1 && optimizer != "adamw" && optimizer != "adam" &&
        optimizer != "adamw-cpu-offload") {
        f.fail("optimizer.name", "is \"" + optimizer + "\" but parallel.tp_size is above 1",
               "Its state cannot be split with the layers: use adamw, adam or adamw-cpu-offload "
               "with tensor parallelism.");
    }
    if (job.task == "i2v" && !job.validation.prompts.empty() &&
        job.validation.images.size() != job.validation.prompts.size()) {
        f.fail("validation.images",
               "holds " + std::to_string(job.validation.images.size()) + " images for " +
                   std::to_string(job.validation.prompts.size()) + " prompts",
               "Image-to-video validation needs one first-frame image per prompt.");
    }
    f.finish();
    return job;
}

json TrainingJob::to_json() const {
    const DatasetSettings& d = dataset;
    const ValidationSettings& v = validation;
    json job = {
        {"v", version},
        {"model", model},
        {"mode", mode},
        {"task", task},
        {"dataset",
         {{"manifest", d.manifest},
          {"cache_dir", d.cache_dir},
          {"resolution_buckets", bucket_pairs(d.resolution_buckets)},
          {"frame_buckets", d.frame_buckets},
          {"resize_mode", d.resize_mode},
          {"random_flip", d.random_flip},
          {"caption_dropout", d.caption_dropout},
          {"vae_tiling", d.vae_tiling},
          {"vae_slicing", d.vae_slicing},
          {"allow_paths_outside", d.allow_paths_outside},
          {"image_noise_log_mean", d.image_noise_log_mean},
          {"image_noise_log_std", d.image_noise_log_std},
          {"noised_image_dropout", d.noised_image_dropout}}},
        {"lora",
         {{"rank", lora.rank},
          {"alpha", lora.alpha},
          {"targets", lora.targets},
          {"init", lora.init},
          {"base_quantization", lora.base_quantization}}},
        {"optimizer",
         {{"name", optimizer.name},
          {"lr", optimizer.lr},
          {"beta1", optimizer.beta1},
          {"beta2", optimizer.beta2},
          {"beta3", optimizer.beta3 ? json(*optimizer.beta3) : json(nullptr)},
          {"weight_decay", optimizer.weight_decay},
          {"eps", optimizer.eps}}},
        {"lr_schedule",
         {{"name", lr_schedule.name},
          {"warmup_steps", lr_schedule.warmup_steps},
          {"cycles", lr_schedule.cycles},
          {"power", lr_schedule.power}}},
        {"max_steps", max_steps},
        {"epochs", epochs},
        {"batch_size", batch_size},
        {"gradient_accumulation", gradient_accumulation},
        {"max_grad_norm", max_grad_norm},
        {"precision", precision},
        {"gradient_checkpointing", gradient_checkpointing},
        {"checkpointed_blocks", checkpointed_blocks ? json(*checkpointed_blocks) : json(nullptr)},
        {"checkpoint_keeps_attention", checkpoint_keeps_attention},
        {"seed", seed},
        {"trigger_word", trigger_word},
        {"checkpoints", {{"every_steps", checkpoints.every_steps}, {"keep", checkpoints.keep}}},
        {"validation",
         {{"every_steps", v.every_steps},
          {"at_start", v.at_start},
          {"prompts", v.prompts},
          {"images", v.images},
          {"sampler", v.sampler},
          {"steps", v.steps},
          {"guidance", v.guidance},
          {"dynamic_cfg", v.dynamic_cfg},
          {"frames", v.frames},
          {"height", v.height},
          {"width", v.width},
          {"seed", v.seed}}},
        {"parallel",
         {{"plan", parallel.plan},
          {"sp_size", parallel.sp_size},
          {"tp_size", parallel.tp_size},
          {"pp_size", parallel.pp_size},
          {"zero_stage", parallel.zero_stage},
          {"bucket_mb", parallel.bucket_mb},
          {"timeout_s", parallel.timeout_s}}},
        {"device", device},
    };
    // Written only when set, so the jobs (and the fingerprints) of runs that never use them
    // stay as they were.
    if (v.guidance_2) {
        job["validation"]["guidance_2"] = *v.guidance_2;
    }
    if (!(flow_matching == FlowMatchingSettings{})) {
        const FlowMatchingSettings& m = flow_matching;
        job["flow_matching"] = {{"sigma_source", m.sigma_source},
                                {"density", m.density},
                                {"shift", m.shift ? json(*m.shift) : json(nullptr)},
                                {"logit_mean", m.logit_mean},
                                {"logit_std", m.logit_std},
                                {"mode_scale", m.mode_scale},
                                {"loss_weighting", m.loss_weighting},
                                {"expert", m.expert}};
        if (!m.shift) {
            job["flow_matching"].erase("shift");
        }
    }
    return job;
}

bool FlowMatchingSettings::operator==(const FlowMatchingSettings& o) const {
    return sigma_source == o.sigma_source && density == o.density && shift == o.shift &&
           logit_mean == o.logit_mean && logit_std == o.logit_std && mode_scale == o.mode_scale &&
           loss_weighting == o.loss_weighting && expert == o.expert;
}

json merge_job_json(json base, const json& overrides) {
    if (!base.is_object() || !overrides.is_object()) {
        return overrides;
    }
    for (auto it = overrides.begin(); it != overrides.end(); ++it) {
        auto target = base.find(it.key());
        if (target != base.end() && target->is_object() && it->is_object()) {
            *target = merge_job_json(*target, *it);
        } else {
            base[it.key()] = *it;
        }
    }
    return base;
}

} // namespace tuneframe::common
