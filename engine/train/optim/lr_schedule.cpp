#include "engine/train/optim/lr_schedule.h"

#include "engine/core/error.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace tuneframe::train {
namespace {

constexpr std::array<std::pair<std::string_view, LRScheduleKind>, 6> kScheduleNames{{
    {"constant", LRScheduleKind::Constant},
    {"constant_with_warmup", LRScheduleKind::ConstantWithWarmup},
    {"linear", LRScheduleKind::Linear},
    {"cosine", LRScheduleKind::Cosine},
    {"cosine_with_restarts", LRScheduleKind::CosineWithRestarts},
    {"polynomial", LRScheduleKind::Polynomial},
}};

// get_cosine_schedule_with_warmup's default, which get_scheduler never overrides.
constexpr double kCosineHalfCycle = 0.5;
constexpr double kPi = 3.141592653589793; // math.pi

[[noreturn]] void bad_option(const std::string& message, const std::string& hint) {
    throw core::Error(core::ErrorCode::BadInput, message, hint);
}

} // namespace

LRScheduleKind lr_schedule_kind_from_name(std::string_view name) {
    for (const auto& [known, kind] : kScheduleNames) {
        if (known == name) {
            return kind;
        }
    }
    return LRScheduleKind::Invalid;
}

std::string_view lr_schedule_name(LRScheduleKind kind) {
    for (const auto& [name, known] : kScheduleNames) {
        if (known == kind) {
            return name;
        }
    }
    return "invalid";
}

std::string lr_schedule_names() {
    std::string names;
    for (const auto& entry : kScheduleNames) {
        names += (names.empty() ? "" : ", ") + std::string(entry.first);
    }
    return names;
}

LRSchedule::LRSchedule(const LRScheduleOptions& options, double base_lr)
    : kind_(lr_schedule_kind_from_name(options.name))
    , base_lr_(base_lr)
    , warmup_steps_(options.warmup_steps)
    , training_steps_(options.training_steps)
    , num_cycles_(options.num_cycles)
    , power_(options.power) {
    if (kind_ == LRScheduleKind::Invalid) {
        throw core::Error(core::ErrorCode::Unsupported,
                          "lr_scheduler is \"" + options.name +
                              "\", which Tuneframe does not support.",
                          "Use one of: " + lr_schedule_names() + ".");
    }
    const std::string schedule = "lr_scheduler \"" + options.name + "\"";
    if (!std::isfinite(base_lr) || base_lr < 0) {
        bad_option("lr is " + std::to_string(base_lr) + "; it must be a finite number >= 0.",
                   "Set a learning rate such as 1e-4.");
    }
    if (warmup_steps_ < 0) {
        bad_option("lr_warmup_steps is " + std::to_string(warmup_steps_) + "; it must be >= 0.",
                   "Use 0 for no warmup.");
    }
    if (training_steps_ < 0) {
        bad_option("max_train_steps is " + std::to_string(training_steps_) + "; it must be >= 0.",
                   "Set the number of optimizer steps the run will take.");
    }
    const bool decays =
        kind_ != LRScheduleKind::Constant && kind_ != LRScheduleKind::ConstantWithWarmup;
    if (decays && training_steps_ == 0) {
        bad_option(schedule + " needs the number of training steps (max_train_steps).",
                   "Set max_train_steps, or use a constant schedule.");
    }
    if (kind_ == LRScheduleKind::CosineWithRestarts && !(num_cycles_ >= 0)) {
        bad_option("lr_num_cycles is " + std::to_string(num_cycles_) + "; it must be >= 0.",
                   "cogvideox-factory uses 1.");
    }
    if (kind_ == LRScheduleKind::Polynomial) {
        if (!(power_ >= 0) || !std::isfinite(power_)) {
            bad_option("lr_power is " + std::to_string(power_) + "; it must be >= 0.",
                       "1 decays linearly, 2 quadratically.");
        }
        if (training_steps_ <= warmup_steps_) {
            bad_option(schedule + " decays over max_train_steps - lr_warmup_steps, which is " +
                           std::to_string(training_steps_ - warmup_steps_) + ".",
                       "Make lr_warmup_steps smaller than max_train_steps.");
        }
        if (!(base_lr_ > kPolynomialLREnd)) {
            bad_option(schedule + " decays to 1e-7, so lr must be larger than that; it is " +
                           std::to_string(base_lr_) + ".",
                       "Raise lr, or use the linear schedule.");
        }
    }
}

double LRSchedule::factor(std::int64_t completed_steps) const {
    if (completed_steps < 0) {
        throw core::Error(core::ErrorCode::Internal, "lr schedule asked for a negative step");
    }
    const std::int64_t step = completed_steps;
    if (kind_ == LRScheduleKind::Constant) {
        return 1.0;
    }
    if (step < warmup_steps_) {
        return static_cast<double>(step) /
               static_cast<double>(std::max<std::int64_t>(1, warmup_steps_));
    }
    const double decay_steps =
        static_cast<double>(std::max<std::int64_t>(1, training_steps_ - warmup_steps_));
    const double progress = static_cast<double>(step - warmup_steps_) / decay_steps;
    switch (kind_) {
    case LRScheduleKind::ConstantWithWarmup:
        return 1.0;
    case LRScheduleKind::Linear:
        return std::max(0.0, static_cast<double>(training_steps_ - step) / decay_steps);
    case LRScheduleKind::Cosine:
        return std::max(0.0, 0.5 * (1.0 + std::cos(kPi * kCosineHalfCycle * 2.0 * progress)));
    case LRScheduleKind::CosineWithRestarts:
        if (progress >= 1.0) {
            return 0.0;
        }
        // Python's float % and fmod agree here: both operands are non-negative.
        return std::max(0.0, 0.5 * (1.0 + std::cos(kPi * std::fmod(num_cycles_ * progress, 1.0))));
    case LRScheduleKind::Polynomial: {
        if (step > training_steps_) {
            return kPolynomialLREnd / base_lr_;
        }
        const double range = base_lr_ - kPolynomialLREnd;
        const double remaining = 1.0 - static_cast<double>(step - warmup_steps_) /
                                           static_cast<double>(training_steps_ - warmup_steps_);
        return (range * std::pow(remaining, power_) + kPolynomialLREnd) / base_lr_;
    }
    case LRScheduleKind::Constant:
    case LRScheduleKind::Invalid:
        break;
    }
    throw core::Error(core::ErrorCode::Internal, "lr schedule has no kind");
}

} // namespace tuneframe::train
