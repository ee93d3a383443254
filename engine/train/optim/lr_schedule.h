#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tuneframe::train {

enum class LRScheduleKind {
    Invalid,
    Constant,
    ConstantWithWarmup,
    Linear,
    Cosine,
    CosineWithRestarts,
    Polynomial,
};

// The names diffusers' get_scheduler takes ("constant", "cosine_with_restarts", ...); Invalid
// for any other.
LRScheduleKind lr_schedule_kind_from_name(std::string_view name);
std::string_view lr_schedule_name(LRScheduleKind kind);
// "constant, constant_with_warmup, ..." for error hints.
std::string lr_schedule_names();

// The arguments cogvideox-factory passes to get_scheduler; the error messages name the fields
// as its command line does.
struct LRScheduleOptions {
    std::string name = "constant";   // lr_scheduler
    std::int64_t warmup_steps = 0;   // lr_warmup_steps
    std::int64_t training_steps = 0; // max_train_steps; not read by the constant schedules
    // lr_num_cycles: cosine_with_restarts only. Plain "cosine" is always one half-cosine,
    // because get_scheduler does not pass num_cycles on to it.
    double num_cycles = 1;
    double power = 1; // lr_power: polynomial only, whose lr_end is diffusers' fixed 1e-7
};

// diffusers' get_scheduler (optimization.py) as a pure function of the number of completed
// optimizer steps: LambdaLR's base_lr * lr_lambda(step), in double, with the reference's
// operation order, so a checkpoint needs only the step count. In the usual loop
// (optimizer.step(); lr_scheduler.step()) optimizer step k + 1 runs at lr(k).
class LRSchedule {
public:
    // Throws core::Error (BadInput or Unsupported) naming the field for an unknown name, a
    // negative count, a schedule that needs training steps without them, or a polynomial
    // schedule whose base lr is not above its 1e-7 end.
    LRSchedule(const LRScheduleOptions& options, double base_lr);

    LRScheduleKind kind() const { return kind_; }
    double base_lr() const { return base_lr_; }
    double factor(std::int64_t completed_steps) const; // lr_lambda
    double lr(std::int64_t completed_steps) const { return base_lr_ * factor(completed_steps); }

    static constexpr double kPolynomialLREnd = 1e-7;

private:
    LRScheduleKind kind_ = LRScheduleKind::Invalid;
    double base_lr_ = 0;
    std::int64_t warmup_steps_ = 0;
    std::int64_t training_steps_ = 0;
    double num_cycles_ = 1;
    double power_ = 1;
};

} // namespace tuneframe::train
