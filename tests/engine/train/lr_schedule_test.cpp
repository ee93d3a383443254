// LR schedule edge cases the golden case does not reach: no warmup, steps past the end,
// restarts, and the errors that name the field.
#include "engine/core/error.h"
#include "engine/train/optim/lr_schedule.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tuneframe::train {
namespace {

LRSchedule make(const std::string& name, std::int64_t warmup, std::int64_t total, double cycles = 1,
                double power = 1, double lr = 1e-4) {
    LRScheduleOptions options;
    options.name = name;
    options.warmup_steps = warmup;
    options.training_steps = total;
    options.num_cycles = cycles;
    options.power = power;
    return LRSchedule(options, lr);
}

std::string schedule_error(const std::function<void()>& action) {
    try {
        action();
    } catch (const core::Error& error) {
        return std::string(error.what()) + " | " + error.hint();
    }
    return "(no error)";
}

TEST(LRSchedule, NamesRoundTrip) {
    for (const char* name : {"constant", "constant_with_warmup", "linear", "cosine",
                             "cosine_with_restarts", "polynomial"}) {
        const LRScheduleKind kind = lr_schedule_kind_from_name(name);
        EXPECT_NE(kind, LRScheduleKind::Invalid) << name;
        EXPECT_EQ(lr_schedule_name(kind), name);
    }
    EXPECT_EQ(lr_schedule_kind_from_name("Cosine"), LRScheduleKind::Invalid);
}

TEST(LRSchedule, ConstantIgnoresWarmupAndLength) {
    const LRSchedule schedule = make("constant", 10, 0);
    for (std::int64_t step : {0, 5, 10, 1000}) {
        EXPECT_EQ(schedule.lr(step), 1e-4);
    }
}

TEST(LRSchedule, WarmupRampsFromZero) {
    const LRSchedule schedule = make("constant_with_warmup", 4, 0);
    EXPECT_EQ(schedule.factor(0), 0.0);
    EXPECT_EQ(schedule.factor(1), 0.25);
    EXPECT_EQ(schedule.factor(4), 1.0);
    EXPECT_EQ(schedule.factor(400), 1.0);
}

TEST(LRSchedule, NoWarmupStartsAtFullRate) {
    EXPECT_EQ(make("linear", 0, 10).factor(0), 1.0);
    EXPECT_EQ(make("cosine", 0, 10).factor(0), 1.0);
    EXPECT_EQ(make("polynomial", 0, 10).lr(0), 1e-4);
}

TEST(LRSchedule, DecaysEndAndStayAtTheirFloor) {
    EXPECT_EQ(make("linear", 2, 10).factor(10), 0.0);
    EXPECT_EQ(make("linear", 2, 10).factor(50), 0.0);
    EXPECT_NEAR(make("cosine", 2, 10).factor(10), 0.0, 1e-16);
    EXPECT_NEAR(make("cosine", 2, 10).factor(6), 0.5, 1e-15);
    EXPECT_EQ(make("cosine_with_restarts", 2, 10, 2).factor(10), 0.0);
    const LRSchedule polynomial = make("polynomial", 2, 10, 1, 2);
    EXPECT_DOUBLE_EQ(polynomial.lr(10), LRSchedule::kPolynomialLREnd);
    EXPECT_DOUBLE_EQ(polynomial.lr(11), LRSchedule::kPolynomialLREnd);
    // Halfway through the decay with power 2: a quarter of the range remains.
    EXPECT_DOUBLE_EQ(polynomial.lr(6), (1e-4 - 1e-7) * 0.25 + 1e-7);
}

TEST(LRSchedule, RestartsReturnToFullRate) {
    const LRSchedule schedule = make("cosine_with_restarts", 0, 100, 4);
    EXPECT_EQ(schedule.factor(0), 1.0);
    EXPECT_EQ(schedule.factor(25), 1.0); // the start of the second cycle
    EXPECT_NEAR(schedule.factor(24), 0.5 * (1 + std::cos(3.141592653589793 * 0.96)), 1e-15);
    EXPECT_GT(schedule.factor(24), 0.0);
}

TEST(LRSchedule, ErrorsNameTheField) {
    const std::string unknown = schedule_error([] { make("cosine_annealing", 0, 10); });
    EXPECT_NE(unknown.find("lr_scheduler"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("cosine_annealing"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("constant_with_warmup"), std::string::npos) << unknown;

    const std::string no_length = schedule_error([] { make("linear", 0, 0); });
    EXPECT_NE(no_length.find("max_train_steps"), std::string::npos) << no_length;
    const std::string warmup = schedule_error([] { make("linear", -1, 10); });
    EXPECT_NE(warmup.find("lr_warmup_steps"), std::string::npos) << warmup;
    const std::string too_long = schedule_error([] { make("polynomial", 10, 10); });
    EXPECT_NE(too_long.find("lr_warmup_steps"), std::string::npos) << too_long;
    const std::string tiny_lr = schedule_error([] { make("polynomial", 0, 10, 1, 1, 1e-8); });
    EXPECT_NE(tiny_lr.find("lr must be larger"), std::string::npos) << tiny_lr;
    const std::string cycles = schedule_error([] { make("cosine_with_restarts", 0, 10, -1); });
    EXPECT_NE(cycles.find("lr_num_cycles"), std::string::npos) << cycles;
    const std::string power = schedule_error([] { make("polynomial", 0, 10, 1, -2); });
    EXPECT_NE(power.find("lr_power"), std::string::npos) << power;
    // A schedule that does not read a field does not check it.
    EXPECT_NO_THROW(make("cosine", 0, 10, -1, -2));
    EXPECT_THROW(make("constant", 0, 0).factor(-1), core::Error);
}

} // namespace
} // namespace tuneframe::train
