#include "common/training_job.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <set>

namespace tuneframe::common {
namespace {

using nlohmann::json;
using Type = JobFieldType;

constexpr std::int64_t kLargest = std::numeric_limits<std::int64_t>::max();
constexpr std::size_t kMaxTargets = 64;
constexpr std::size_t kMaxTargetBytes = 256;
constexpr std::size_t kMaxTriggerWordBytes = 256;
constexpr std::size_t kMaxDeviceBytes = 16;
constexpr std::int64_t kMaxValidationSteps = 1000;
constexpr std::int64_t kMaxCheckpointsKept = 100'000;
constexpr std::int64_t kMaxCycles = 10'000;
constexpr std::int64_t kMaxCheckpointedBlocks = 4096;

JobFieldLimit limit_of(std::string field, Type type) {
    JobFieldLimit limit;
    limit.field = std::move(field);
    limit.type = type;
    return limit;
}

// Named rather than bare booleans, so the table reads: (0, 100] is Bound::Open, and a field
// whose null means unset is Null::Unset.
enum class Bound { Closed, Open };
enum class Null { Refused, Unset };

JobFieldLimit integer(std::string field, std::int64_t minimum, std::int64_t maximum,
                      Null null = Null::Refused) {
    JobFieldLimit limit = limit_of(std::move(field), Type::Integer);
    limit.min_integer = minimum;
    limit.max_integer = maximum;
    limit.nullable = null == Null::Unset;
    return limit;
}

JobFieldLimit number(std::string field, double minimum, double maximum, Bound bound = Bound::Closed,
                     Null null = Null::Refused) {
    JobFieldLimit limit = limit_of(std::move(field), Type::Number);
    limit.minimum = minimum;
    limit.maximum = maximum;
    limit.minimum_excluded = bound == Bound::Open;
    limit.nullable = null == Null::Unset;
    return limit;
}

JobFieldLimit text(std::string field, Type type, std::size_t max_bytes) {
    JobFieldLimit limit = limit_of(std::move(field), type);
    limit.max_bytes = max_bytes;
    return limit;
}

JobFieldLimit choice(std::string field, std::vector<std::string> choices) {
    JobFieldLimit limit = limit_of(std::move(field), Type::Choice);
    limit.choices = std::move(choices);
    return limit;
}

JobFieldLimit list(std::string field, Type type, std::size_t min_items, std::size_t max_items) {
    JobFieldLimit limit = limit_of(std::move(field), type);
    limit.min_items = min_items;
    limit.max_items = max_items;
    return limit;
}

JobFieldLimit texts(std::string field, Type type, std::size_t max_items, std::size_t max_bytes) {
    JobFieldLimit limit = list(std::move(field), type, 0, max_items);
    limit.max_bytes = max_bytes;
    return limit;
}

JobFieldLimit integers(std::string field, Type type, std::size_t max_items, std::int64_t minimum,
                       std::int64_t maximum) {
    JobFieldLimit limit = list(std::move(field), type, 1, max_items);
    limit.min_integer = minimum;
    limit.max_integer = maximum;
    return limit;
}

std::vector<JobFieldLimit> make_job_field_limits() {
    const auto object = [](const char* field) {
        return limit_of(field, Type::Object);
    };
    const auto flag = [](const char* field) {
        return limit_of(field, Type::Flag);
    };
    const auto path = [](const char* field) {
        return text(field, Type::Path, kMaxPathBytes);
    };
    const auto probability = [](const char* field) {
        return number(field, 0.0, 1.0);
    };
    const auto steps = [](const char* field) {
        return integer(field, 0, kMaxSteps);
    };
    return {
        integer("v", 1, kJobVersion),
        path("model"),
        choice("mode", {"lora", "full"}),
        choice("task", {"t2v", "i2v"}),
        object("dataset"),
        path("dataset.manifest"),
        path("dataset.cache_dir"),
        integers("dataset.resolution_buckets", Type::Sizes, kMaxBuckets, 16, kMaxBucketSide),
        integers("dataset.frame_buckets", Type::Integers, kMaxBuckets, 1, kMaxBucketFrames),
        choice("dataset.resize_mode", {"stretch", "center_crop", "random_crop"}),
        probability("dataset.random_flip"),
        probability("dataset.caption_dropout"),
        flag("dataset.vae_tiling"),
        flag("dataset.vae_slicing"),
        flag("dataset.allow_paths_outside"),
        number("dataset.image_noise_log_mean", -20.0, 5.0),
        number("dataset.image_noise_log_std", 0.0, 10.0),
        probability("dataset.noised_image_dropout"),
        object("lora"),
        integer("lora.rank", 1, kMaxLoraRank),
        number("lora.alpha", 0.0, 1e6, Bound::Open),
        [] {
            JobFieldLimit targets =
                texts("lora.targets", Type::Texts, kMaxTargets, kMaxTargetBytes);
            targets.min_items = 1;
            return targets;
        }(),
        choice("lora.init", {"kaiming", "gaussian"}),
        choice("lora.base_quantization", {"none", "int8", "fp8"}),
        object("optimizer"),
        choice("optimizer.name",
               {"adamw", "adam", "adamw8bit", "adamw-cpu-offload", "prodigy", "came"}),
        number("optimizer.lr", 0.0, 100.0, Bound::Open),
        number("optimizer.beta1", 0.0, 0.999999),
        number("optimizer.beta2", 0.0, 0.999999),
        number("optimizer.beta3", 0.0, 0.999999, Bound::Closed, Null::Unset),
        number("optimizer.weight_decay", 0.0, 10.0),
        number("optimizer.eps", 0.0, 1.0, Bound::Open),
        object("lr_schedule"),
        choice("lr_schedule.name", {"constant", "constant_with_warmup", "linear", "cosine",
                                    "cosine_with_restarts", "polynomial"}),
        steps("lr_schedule.warmup_steps"),
        integer("lr_schedule.cycles", 1, kMaxCycles),
        number("lr_schedule.power", 0.0, 100.0, Bound::Open),
        steps("max_steps"),
        integer("epochs", 0, kMaxEpochs),
        integer("batch_size", 1, kMaxBatchSize),
        integer("gradient_accumulation", 1, kMaxGradientAccumulation),
        number("max_grad_norm", 0.0, 1e6),
        choice("precision", {"bf16", "fp16", "fp32"}),
        flag("gradient_checkpointing"),
        integer("checkpointed_blocks", 1, kMaxCheckpointedBlocks, Null::Unset),
        flag("checkpoint_keeps_attention"),
        integer("seed", 0, kLargest),
        text("trigger_word", Type::Text, kMaxTriggerWordBytes),
        object("checkpoints"),
        steps("checkpoints.every_steps"),
        integer("checkpoints.keep", 1, kMaxCheckpointsKept),
        object("validation"),
        steps("validation.every_steps"),
        flag("validation.at_start"),
        texts("validation.prompts", Type::Texts, kMaxValidationPrompts, kMaxPromptBytes),
        texts("validation.images", Type::Paths, kMaxValidationPrompts, kMaxPathBytes),
        choice("validation.sampler", {"", "ddim", "dpm", "unipc", "euler"}),
        integer("validation.steps", 1, kMaxValidationSteps),
        number("validation.guidance", 0.0, 50.0),
        number("validation.guidance_2", 0.0, 50.0, Bound::Closed, Null::Unset),
        flag("validation.dynamic_cfg"),
        // 0: the model's own; otherwise what the buckets may hold, checked against the model
        // by train::check_job_against_model.
        integer("validation.frames", 0, kMaxBucketFrames),
        integer("validation.height", 0, kMaxBucketSide),
        integer("validation.width", 0, kMaxBucketSide),
        integer("validation.seed", 0, kLargest),
        object("flow_matching"),
        choice("flow_matching.sigma_source", {"finetrainers", "diffusers", "direct"}),
        choice("flow_matching.density", {"uniform", "logit_normal", "mode"}),
        number("flow_matching.shift", 0.0, 100.0, Bound::Open, Null::Unset),
        number("flow_matching.logit_mean", -10.0, 10.0),
        number("flow_matching.logit_std", 0.0, 10.0, Bound::Open),
        number("flow_matching.mode_scale", 0.0, 10.0),
        choice("flow_matching.loss_weighting", {"none", "sigma_sqrt", "cosmap"}),
        choice("flow_matching.expert", {"both", "high_noise", "low_noise"}),
        object("memory"),
        integer("memory.blocks_to_swap", 0, kMaxCheckpointedBlocks),
        choice("memory.inactive_expert", {"host", "disk"}),
        flag("memory.offload_activations"),
        object("parallel"),
        choice("parallel.plan", {"ddp", "zero1", "zero2", "hybrid"}),
        integer("parallel.sp_size", 1, kMaxParallelSize),
        integer("parallel.tp_size", 1, kMaxParallelSize),
        integer("parallel.pp_size", 1, kMaxParallelSize),
        integer("parallel.zero_stage", 0, 2),
        number("parallel.bucket_mb", 1.0 / 8192, 4096.0),
        number("parallel.timeout_s", 0.0, 86400.0 * 7, Bound::Open),
        // auto | cpu | cuda | cuda:N with N at most kMaxCudaDevice, checked by the reader.
        text("device", Type::Text, kMaxDeviceBytes),
    };
}

std::string joined(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) {
        text += (text.empty() ? "" : ", ") + (name.empty() ? std::string("\"\"") : name);
    }
    return text;
}

std::string number_text(double value) {
    return json(value).dump();
}

// Reads one JSON object of the job against the table: every read names the field by its
// dotted path and takes its type, range and nullability from job_field_limits(); finish()
// rejects fields nobody read, so a misspelt setting is an error, not a default.
class Fields {
public:
    Fields(const json& object, std::string origin, std::string path)
        : object_(object)
        , origin_(std::move(origin))
        , path_(std::move(path)) {
        if (!object_.is_object()) {
            fail(path_, "must be a JSON object", "Write { ... } here.");
        }
    }

    [[noreturn]] void fail(const std::string& field, const std::string& problem,
                           const std::string& hint) const {
        const std::string where = field.empty() ? "the job" : "\"" + field + "\"";
        throw JobError(origin_ + ": " + where + " " + problem + ".", field, hint);
    }

    std::string name(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

    // The value of `key`; nullptr when it is missing, or null where null means unset.
    const json* find(const char* key) {
        seen_.insert(key);
        const auto it = object_.find(key);
        if (it == object_.end()) {
            return nullptr;
        }
        if (it->is_null()) {
            if (!limit(key).nullable) {
                fail(name(key), "is null, which it cannot be",
                     "Leave the field out to keep its default, or give it a value "
                     "(docs/protocol.md lists each field's limits).");
            }
            return nullptr;
        }
        return &*it;
    }

    void read(const char* key, std::string& value) {
        const JobFieldLimit& field = limit(key);
        if (const json* v = find(key)) {
            if (!v->is_string()) {
                fail(name(key), "must be a string", "Put the value in double quotes.");
            }
            value = v->get<std::string>();
        }
        if (field.type == Type::Choice) {
            const auto& choices = field.choices;
            if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
                fail(name(key), "is \"" + value + "\", which is not one of: " + joined(choices),
                     "Use one of the listed values.");
            }
            return;
        }
        check_text(name(key), "is", value, field);
    }

    void read(const char* key, bool& value) {
        expect(key, Type::Flag);
        if (const json* v = find(key)) {
            if (!v->is_boolean()) {
                fail(name(key), "must be true or false", "Write true or false without quotes.");
            }
            value = v->get<bool>();
        }
    }

    void read(const char* key, double& value) {
        std::optional<double> read_value = value;
        read(key, read_value);
        value = *read_value;
    }

    void read(const char* key, std::optional<double>& value) {
        const JobFieldLimit& field = expect(key, Type::Number);
        const json* v = find(key);
        if (!v) {
            return;
        }
        if (!v->is_number() || !std::isfinite(v->get<double>())) {
            fail(name(key), field.nullable ? "must be a number or null" : "must be a number",
                 "Write a number without quotes.");
        }
        const double number = v->get<double>();
        if (number > field.maximum || number < field.minimum ||
            (field.minimum_excluded && number == field.minimum)) {
            fail(name(key),
                 "is " + number_text(number) + ", outside " + (field.minimum_excluded ? "(" : "[") +
                     number_text(field.minimum) + ", " + number_text(field.maximum) + "]",
                 "Choose a value in that range.");
        }
        value = number;
    }

    void read(const char* key, std::int64_t& value) {
        std::optional<std::int64_t> read_value = value;
        read(key, read_value);
        value = *read_value;
    }

    void read(const char* key, std::optional<std::int64_t>& value) {
        const JobFieldLimit& field = expect(key, Type::Integer);
        if (const json* v = find(key)) {
            value = whole(*v, name(key), "is", field.min_integer, field.max_integer,
                          field.nullable ? ", or null to leave it unset" : "");
        }
    }

    void read(const char* key, std::uint64_t& value) {
        std::optional<std::int64_t> read_value;
        read(key, read_value);
        if (read_value) {
            value = static_cast<std::uint64_t>(*read_value); // the table's minimum is 0
        }
    }

    void read(const char* key, std::vector<std::string>& value) {
        const JobFieldLimit& field = limit(key);
        if (field.type != Type::Texts && field.type != Type::Paths) {
            mismatch(key);
        }
        const json* v = find(key);
        if (!v) {
            return;
        }
        if (!v->is_array() ||
            !std::all_of(v->begin(), v->end(), [](const json& e) { return e.is_string(); })) {
            fail(name(key), "must be a list of strings", "Write [\"...\", \"...\"].");
        }
        check_count(key, v->size(), field);
        value = v->get<std::vector<std::string>>();
        for (std::size_t i = 0; i < value.size(); ++i) {
            check_text(name(key), "item " + std::to_string(i + 1) + " is", value[i], field);
        }
    }

    void read(const char* key, std::vector<std::int64_t>& value) {
        const JobFieldLimit& field = expect(key, Type::Integers);
        const json* v = find(key);
        if (!v) {
            return;
        }
        if (!v->is_array()) {
            fail(name(key), "must be a list of whole numbers", "Write [49] or [25, 49].");
        }
        check_count(key, v->size(), field);
        value.clear();
        for (const json& e : *v) {
            value.push_back(whole(e, name(key), "holds", field.min_integer, field.max_integer));
        }
    }

    // [[height, width], ...]: each side any whole number here, so that the caller's messages
    // can say what the sizes must be.
    void read(const char* key, std::vector<std::pair<std::int64_t, std::int64_t>>& value) {
        const JobFieldLimit& field = expect(key, Type::Sizes);
        const json* v = find(key);
        if (!v) {
            return;
        }
        const bool pairs = v->is_array() && std::all_of(v->begin(), v->end(), [](const json& b) {
                               return b.is_array() && b.size() == 2;
                           });
        if (!pairs) {
            fail(name(key), "must be a list of [height, width] pairs",
                 "Write [[480, 720]] or [[480, 720], [720, 480]].");
        }
        check_count(key, v->size(), field);
        value.clear();
        for (const json& b : *v) {
            value.emplace_back(side(b[0], name(key)), side(b[1], name(key)));
        }
    }

    Fields object(const char* key) {
        static const json empty = json::object();
        expect(key, Type::Object);
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
    const JobFieldLimit& limit(const char* key) const { return job_field_limit(name(key)); }

    [[noreturn]] void mismatch(const char* key) const {
        throw std::logic_error("the job reader and job_field_limits() disagree on " + name(key));
    }

    const JobFieldLimit& expect(const char* key, Type type) const {
        const JobFieldLimit& field = limit(key);
        if (field.type != type) {
            mismatch(key);
        }
        return field;
    }

    // The whole number `v` holds, compared with the range before any conversion: 2^63 is
    // "more than", never a negative number.
    std::int64_t whole(const json& v, const std::string& field, const std::string& verb,
                       std::int64_t minimum, std::int64_t maximum,
                       const std::string& or_else = "") const {
        bool above = false;
        bool below = false;
        std::int64_t number = 0;
        if (v.is_number_unsigned()) {
            const auto value = v.get<std::uint64_t>();
            above = maximum < 0 || value > static_cast<std::uint64_t>(maximum);
            number = above ? 0 : static_cast<std::int64_t>(value);
        } else if (v.is_number_integer()) {
            number = v.get<std::int64_t>();
        } else if (v.is_number_float() && std::isfinite(v.get<double>()) &&
                   v.get<double>() == std::floor(v.get<double>())) {
            const double value = v.get<double>();
            above = value >= 0x1p63;
            below = value < -0x1p63;
            number = above || below ? 0 : static_cast<std::int64_t>(value);
        } else {
            fail(field, "must be a whole number", "Write it without a fraction or quotes.");
        }
        if (above || (!below && number > maximum)) {
            fail(field, verb + " " + v.dump() + ", more than " + std::to_string(maximum),
                 "Use at most " + std::to_string(maximum) + or_else + ".");
        }
        if (below || number < minimum) {
            fail(field, verb + " " + v.dump() + ", less than " + std::to_string(minimum),
                 "Use " + std::to_string(minimum) + " or more" + or_else + ".");
        }
        return number;
    }

    // A side of a bucket, clamped to int64: the caller's message says what sizes fit.
    std::int64_t side(const json& v, const std::string& field) const {
        const bool whole_float = v.is_number_float() && std::isfinite(v.get<double>()) &&
                                 v.get<double>() == std::floor(v.get<double>());
        if ((v.is_number_unsigned() &&
             v.get<std::uint64_t>() > static_cast<std::uint64_t>(kLargest)) ||
            (whole_float && v.get<double>() >= 0x1p63)) {
            return kLargest;
        }
        if (whole_float && v.get<double>() < -0x1p63) {
            return INT64_MIN;
        }
        return whole(v, field, "holds", INT64_MIN, kLargest);
    }

    void check_count(const char* key, std::size_t count, const JobFieldLimit& field) const {
        if (count < field.min_items) {
            fail(name(key), count == 0 ? "is empty" : "holds " + std::to_string(count) + " items",
                 "Give at least " + std::to_string(field.min_items) + ".");
        }
        if (count > field.max_items) {
            fail(name(key),
                 "holds " + std::to_string(count) + " items, more than " +
                     std::to_string(field.max_items),
                 "Keep at most " + std::to_string(field.max_items) + ".");
        }
    }

    // A NUL would cut the text short where the system reads it (a path would name another
    // file); a path's names must fit the file system's.
    void check_text(const std::string& field, const std::string& subject, const std::string& text,
                    const JobFieldLimit& limit) const {
        const bool path = limit.type == Type::Path || limit.type == Type::Paths;
        if (const std::size_t nul = text.find('\0'); nul != std::string::npos) {
            fail(field,
                 subject + " \"" + printable(text.substr(0, nul)) +
                     "\\u0000...\", holding a NUL character at byte " + std::to_string(nul + 1),
                 path ? "Remove the NUL: the system would read the path only up to it, another "
                        "file."
                      : "Remove the NUL character.");
        }
        if (text.size() > limit.max_bytes) {
            fail(field,
                 subject + " " + std::to_string(text.size()) + " bytes long, more than " +
                     std::to_string(limit.max_bytes),
                 "Shorten it to at most " + std::to_string(limit.max_bytes) + " bytes.");
        }
        if (!path) {
            return;
        }
        for (std::size_t start = 0; start <= text.size();) {
            const std::size_t end = std::min(text.find('/', start), text.size());
            if (end - start > kMaxPathNameBytes) {
                fail(field,
                     subject + " a path holding a name of " + std::to_string(end - start) +
                         " bytes, more than " + std::to_string(kMaxPathNameBytes),
                     "File systems take names (each part between slashes) of at most " +
                         std::to_string(kMaxPathNameBytes) + " bytes; shorten it.");
            }
            start = end + 1;
        }
    }

    // At most 64 bytes of text for a message, cut between UTF-8 characters.
    static std::string printable(const std::string& text) {
        std::size_t end = std::min<std::size_t>(text.size(), 64);
        while (end < text.size() && end > 0 &&
               (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
            --end;
        }
        return text.substr(0, end) + (end < text.size() ? "..." : "");
    }

    const json& object_;
    std::string origin_;
    std::string path_;
    std::set<std::string> seen_;
};

void read_dataset(Fields f, DatasetSettings& d) {
    f.read("manifest", d.manifest);
    f.read("cache_dir", d.cache_dir);
    const JobFieldLimit& sizes = job_field_limit("dataset.resolution_buckets");
    f.read("resolution_buckets", d.resolution_buckets);
    for (const auto& [height, width] : d.resolution_buckets) {
        const std::string size = std::to_string(height) + "x" + std::to_string(width);
        // A bucket of a million pixels a side would ask prepare for terabytes.
        if (height > sizes.max_integer || width > sizes.max_integer) {
            f.fail(f.name("resolution_buckets"),
                   "holds " + size + ", beyond " + std::to_string(sizes.max_integer) +
                       " pixels a side",
                   "CogVideoX trains at 480x720, Wan at 480x832 or 720x1280; keep each side at "
                   "most " +
                       std::to_string(sizes.max_integer) + ".");
        }
        if (height < sizes.min_integer || width < sizes.min_integer || height % 16 != 0 ||
            width % 16 != 0) {
            f.fail(f.name("resolution_buckets"),
                   "holds " + size + ", which is not a multiple of 16 on both sides",
                   "The video VAEs (8x, or 16x for Wan 2.2 5B) and 2x2 patches need multiples of "
                   "16, e.g. [480, 720] or [480, 832].");
        }
    }
    f.read("frame_buckets", d.frame_buckets);
    for (std::int64_t frames : d.frame_buckets) {
        if ((frames - 1) % 4 != 0) {
            f.fail(f.name("frame_buckets"),
                   "holds " + std::to_string(frames) + ", which is not 4k+1",
                   "The video VAEs compress 4 frames into one after the first: use 81, 49, 25, "
                   "17 or 9.");
        }
    }
    f.read("resize_mode", d.resize_mode);
    f.read("random_flip", d.random_flip);
    f.read("caption_dropout", d.caption_dropout);
    f.read("vae_tiling", d.vae_tiling);
    f.read("vae_slicing", d.vae_slicing);
    f.read("allow_paths_outside", d.allow_paths_outside);
    f.read("image_noise_log_mean", d.image_noise_log_mean);
    f.read("image_noise_log_std", d.image_noise_log_std);
    f.read("noised_image_dropout", d.noised_image_dropout);
    f.finish();
}

void read_lora(Fields f, LoraSettings& l) {
    f.read("rank", l.rank);
    f.read("alpha", l.alpha);
    f.read("targets", l.targets);
    f.read("init", l.init);
    f.read("base_quantization", l.base_quantization);
    f.finish();
}

void read_optimizer(Fields f, OptimizerSettings& o) {
    f.read("name", o.name);
    f.read("lr", o.lr);
    f.read("beta1", o.beta1);
    f.read("beta2", o.beta2);
    f.read("beta3", o.beta3);
    f.read("weight_decay", o.weight_decay);
    f.read("eps", o.eps);
    if (o.name == "came" && !o.beta3) {
        f.fail(f.name("beta3"), "is needed by CAME", "CAME's default is 0.9999.");
    }
    f.finish();
}

void read_lr_schedule(Fields f, LrScheduleSettings& s) {
    f.read("name", s.name);
    f.read("warmup_steps", s.warmup_steps);
    f.read("cycles", s.cycles);
    f.read("power", s.power);
    f.finish();
}

void read_checkpoints(Fields f, CheckpointSettings& c) {
    f.read("every_steps", c.every_steps);
    f.read("keep", c.keep);
    f.finish();
}

void read_validation(Fields f, ValidationSettings& v) {
    f.read("every_steps", v.every_steps);
    f.read("at_start", v.at_start);
    f.read("prompts", v.prompts);
    f.read("images", v.images);
    f.read("sampler", v.sampler);
    f.read("steps", v.steps);
    f.read("guidance", v.guidance);
    f.read("guidance_2", v.guidance_2);
    f.read("dynamic_cfg", v.dynamic_cfg);
    f.read("frames", v.frames);
    f.read("height", v.height);
    f.read("width", v.width);
    f.read("seed", v.seed);
    if ((v.every_steps > 0 || v.at_start) && v.prompts.empty()) {
        f.fail(f.name("prompts"), "is empty while validation is on",
               "Add a prompt, or set every_steps to 0 and at_start to false.");
    }
    f.finish();
}

void read_flow_matching(Fields f, FlowMatchingSettings& m) {
    f.read("sigma_source", m.sigma_source);
    f.read("density", m.density);
    f.read("shift", m.shift);
    f.read("logit_mean", m.logit_mean);
    f.read("logit_std", m.logit_std);
    f.read("mode_scale", m.mode_scale);
    f.read("loss_weighting", m.loss_weighting);
    f.read("expert", m.expert);
    f.finish();
}

void read_memory(Fields f, MemorySettings& m) {
    f.read("blocks_to_swap", m.blocks_to_swap);
    f.read("inactive_expert", m.inactive_expert);
    f.read("offload_activations", m.offload_activations);
    f.finish();
}

void read_parallel(Fields f, ParallelSettings& p) {
    f.read("plan", p.plan);
    f.read("sp_size", p.sp_size);
    f.read("tp_size", p.tp_size);
    f.read("pp_size", p.pp_size);
    f.read("zero_stage", p.zero_stage);
    f.read("bucket_mb", p.bucket_mb);
    f.read("timeout_s", p.timeout_s);
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

// auto, cpu, cuda or cuda:N for a device number c10 can hold.
bool is_device_name(const std::string& d) {
    if (d == "auto" || d == "cpu" || d == "cuda") {
        return true;
    }
    const std::string digits = d.rfind("cuda:", 0) == 0 ? d.substr(5) : std::string();
    return !digits.empty() && digits.size() <= 3 &&
           digits.find_first_not_of("0123456789") == std::string::npos &&
           std::stoi(digits) <= kMaxCudaDevice;
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

const std::vector<JobFieldLimit>& job_field_limits() {
    static const std::vector<JobFieldLimit> limits = make_job_field_limits();
    return limits;
}

const JobFieldLimit* find_job_field_limit(const std::string& field) {
    const std::vector<JobFieldLimit>& limits = job_field_limits();
    const auto found = std::find_if(limits.begin(), limits.end(), [&](const JobFieldLimit& limit) {
        return limit.field == field;
    });
    return found == limits.end() ? nullptr : &*found;
}

const JobFieldLimit& job_field_limit(const std::string& field) {
    const JobFieldLimit* limit = find_job_field_limit(field);
    if (!limit) {
        throw std::logic_error("job_field_limits() has no field " + field);
    }
    return *limit;
}

TrainingJob TrainingJob::from_json(const json& object, const std::string& origin) {
    TrainingJob job;
    Fields f(object, origin, "");
    // A newer job is told apart from a wrong number: its fix is another build.
    if (const auto v = object.find("v");
        v != object.end() && v->is_number() && v->get<double>() > kJobVersion) {
        f.fail("v",
               "is " + v->dump() + ", newer than this build understands (" +
                   std::to_string(kJobVersion) + ")",
               "Update Tuneframe, or write the job with this version.");
    }
    std::int64_t version = kJobVersion;
    f.read("v", version);
    job.version = static_cast<int>(version);
    f.read("model", job.model);
    f.read("mode", job.mode);
    f.read("task", job.task);
    read_dataset(f.object("dataset"), job.dataset);
    read_lora(f.object("lora"), job.lora);
    read_optimizer(f.object("optimizer"), job.optimizer);
    read_lr_schedule(f.object("lr_schedule"), job.lr_schedule);
    f.read("max_steps", job.max_steps);
    f.read("epochs", job.epochs);
    if (job.max_steps == 0 && job.epochs == 0) {
        f.fail("max_steps", "and \"epochs\" are both 0, so training would not run",
               "Set max_steps (e.g. 3000) or epochs.");
    }
    f.read("batch_size", job.batch_size);
    f.read("gradient_accumulation", job.gradient_accumulation);
    f.read("max_grad_norm", job.max_grad_norm);
    f.read("precision", job.precision);
    f.read("gradient_checkpointing", job.gradient_checkpointing);
    f.read("checkpointed_blocks", job.checkpointed_blocks);
    f.read("checkpoint_keeps_attention", job.checkpoint_keeps_attention);
    f.read("seed", job.seed);
    f.read("trigger_word", job.trigger_word);
    read_checkpoints(f.object("checkpoints"), job.checkpoints);
    read_validation(f.object("validation"), job.validation);
    read_flow_matching(f.object("flow_matching"), job.flow_matching);
    read_memory(f.object("memory"), job.memory);
    read_parallel(f.object("parallel"), job.parallel);
    f.read("device", job.device);
    if (!is_device_name(job.device)) {
        f.fail("device", "is \"" + job.device + "\"",
               "Use auto, cpu, cuda or cuda:N (N from 0 to " + std::to_string(kMaxCudaDevice) +
                   ").");
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
    if (!(memory == MemorySettings{})) {
        job["memory"] = {{"blocks_to_swap", memory.blocks_to_swap},
                         {"inactive_expert", memory.inactive_expert},
                         {"offload_activations", memory.offload_activations}};
    }
    return job;
}

bool FlowMatchingSettings::operator==(const FlowMatchingSettings& o) const {
    return sigma_source == o.sigma_source && density == o.density && shift == o.shift &&
           logit_mean == o.logit_mean && logit_std == o.logit_std && mode_scale == o.mode_scale &&
           loss_weighting == o.loss_weighting && expert == o.expert;
}

bool MemorySettings::operator==(const MemorySettings& o) const {
    return blocks_to_swap == o.blocks_to_swap && inactive_expert == o.inactive_expert &&
           offload_activations == o.offload_activations;
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
