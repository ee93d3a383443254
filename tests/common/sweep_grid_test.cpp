// The sweep grid both programs expand: every combination once, in order, with readable labels,
// and mistakes named by axis.
#include "common/sweep_grid.h"

#include <gtest/gtest.h>

namespace tuneframe::common {
namespace {

using json = nlohmann::json;

TEST(SweepGrid, ExpandsEveryCombinationWithLabels) {
    const SweepGrid grid = SweepGrid::from_json(json::parse(R"({"name": "lr-by-rank",
                        "axes": {"optimizer.lr": [1e-4, 0.0003], "lora.rank": [32, 64]}})"),
                                                "grid.json");
    EXPECT_EQ(grid.name, "lr-by-rank");
    ASSERT_EQ(grid.size(), 4u);
    const json base = {{"max_steps", 10}, {"lora", {{"alpha", 16}}}};
    const std::vector<SweepPoint> points = grid.expand(base, "job.json");
    ASSERT_EQ(points.size(), 4u);
    // nlohmann keeps object keys sorted: lora.rank comes first, optimizer.lr changes fastest.
    EXPECT_EQ(points[0].label, "rank=32 lr=1e-4");
    EXPECT_EQ(points[1].label, "rank=32 lr=3e-4");
    EXPECT_EQ(points[2].label, "rank=64 lr=1e-4");
    EXPECT_EQ(points[3].label, "rank=64 lr=3e-4");
    EXPECT_EQ(points[3].job.lora.rank, 64);
    EXPECT_DOUBLE_EQ(points[3].job.optimizer.lr, 3e-4);
    EXPECT_EQ(points[3].job.lora.alpha, 16); // the base stays
    EXPECT_EQ(points[3].job.max_steps, 10);
    EXPECT_EQ(points[1].overrides, json::parse(R"({"lora": {"rank": 32},
                                                    "optimizer": {"lr": 0.0003}})"));
}

TEST(SweepGrid, ValueTextIsShort) {
    EXPECT_EQ(sweep_value_text(json(1e-4)), "1e-4");
    EXPECT_EQ(sweep_value_text(json(2.5e-5)), "2.5e-5");
    EXPECT_EQ(sweep_value_text(json(0.05)), "0.05");
    EXPECT_EQ(sweep_value_text(json(500.0)), "500");
    EXPECT_EQ(sweep_value_text(json(64)), "64");
    EXPECT_EQ(sweep_value_text(json("cosine")), "cosine");
    EXPECT_EQ(sweep_field_short_name("lr_schedule.name"), "sched");
    EXPECT_EQ(sweep_field_short_name("dataset.caption_dropout"), "caption_dropout");
}

TEST(SweepGrid, MistakesNameTheAxis) {
    auto error_of = [](const std::string& text) {
        try {
            SweepGrid::from_json(json::parse(text), "grid.json").expand(json::object(), "job");
        } catch (const JobError& error) {
            return std::string(error.what()) + " | " + error.field();
        }
        return std::string("no error");
    };
    EXPECT_NE(error_of(R"({"axes": {"optimizer.lr": []}})").find("optimizer.lr"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"axes": {}})").find("no axes"), std::string::npos);
    EXPECT_NE(error_of(R"({"axes": {"optimiser.lr": [1]}})").find("not a job field"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"axes": {"optimizer": [1]}})").find("not a job field"),
              std::string::npos);
    // A value the job reader refuses is refused with the combination's label.
    EXPECT_NE(error_of(R"({"axes": {"batch_size": [1, 0]}})").find("batch=0"), std::string::npos);
    EXPECT_NE(error_of(R"([1, 2])").find("axes"), std::string::npos);
    // A full fine-tune trains no adapter: its rank or alpha would give identical runs.
    EXPECT_EQ(SweepGrid::from_json(json::parse(R"({"axes": {"lora.rank": [4, 8]}})"), "grid.json")
                  .expand({{"mode", "lora"}}, "job")
                  .size(),
              2u);
    try {
        SweepGrid::from_json(json::parse(R"({"axes": {"lora.alpha": [4, 8]}})"), "grid.json")
            .expand({{"mode", "full"}}, "job");
        ADD_FAILURE() << "a lora axis on a full fine-tune was expanded";
    } catch (const JobError& error) {
        EXPECT_EQ(error.field(), "axes.lora.alpha");
        EXPECT_NE(std::string(error.what()).find("full fine-tune"), std::string::npos);
    }
    // Found by the sweep_grid harness's seeds: json::value() threw type_error, past JobError.
    EXPECT_NE(error_of(R"({"name": 3, "axes": {"max_steps": [1]}})").find("\"name\""),
              std::string::npos);
}

// 2^64 combinations used to wrap to an empty grid of zero runs.
TEST(SweepGrid, CombinationCountSaturatesInsteadOfWrapping) {
    json axes = json::object();
    for (int axis = 0; axis < 64; ++axis) {
        axes["field" + std::to_string(axis)] = {1, 2};
    }
    try {
        SweepGrid::from_json({{"axes", axes}}, "grid.json");
        FAIL() << "a grid of 2^64 combinations was accepted";
    } catch (const JobError& error) {
        EXPECT_NE(std::string(error.what()).find("more than 256"), std::string::npos)
            << error.what();
    }
}

// The grid's own fields have limits as the job's do (issue 39): unknown fields, null, newer
// versions, a name too long for a folder and too many axes are refused, naming the field.
TEST(SweepGrid, TheGridsFieldsHaveLimits) {
    auto field_of = [](const json& input) {
        try {
            SweepGrid::from_json(input, "grid.json").expand(json::object(), "job");
        } catch (const JobError& error) {
            EXPECT_FALSE(error.hint().empty());
            return error.field();
        }
        return std::string("no error");
    };
    const json axes = {{"optimizer.lr", {1e-4, 3e-4}}};
    EXPECT_EQ(field_of({{"axes", axes}, {"v", 1}}), "no error");
    EXPECT_EQ(field_of({{"axes", axes}, {"v", 2}}), "v");
    try {
        SweepGrid::from_json({{"axes", axes}, {"v", 2}}, "grid.json");
    } catch (const JobError& error) {
        EXPECT_NE(std::string(error.what()).find("grid.json: \"v\" is 2, newer"), std::string::npos)
            << error.what();
    }
    EXPECT_EQ(field_of({{"axes", axes}, {"v", "1"}}), "v");
    EXPECT_EQ(field_of({{"axes", axes}, {"v", nullptr}}), "v");
    EXPECT_EQ(field_of({{"axes", axes}, {"runs", 3}}), "runs");
    EXPECT_EQ(field_of({{"axes", axes}, {"name", nullptr}}), "name");
    EXPECT_EQ(field_of({{"axes", axes}, {"name", std::string(kMaxSweepNameBytes + 1, 'n')}}),
              "name");
    EXPECT_EQ(field_of({{"axes", axes}, {"name", std::string(10 << 20, 'n')}}), "name");
    EXPECT_EQ(field_of({{"axes", axes}, {"name", std::string("a\0b", 3)}}), "name");
    json many = json::object();
    for (std::size_t axis = 0; axis <= kMaxSweepAxes; ++axis) {
        many["field" + std::to_string(axis)] = {1};
    }
    EXPECT_EQ(field_of({{"axes", many}}), "axes");
    // A null value is refused by the job reader where the field has no unset state.
    EXPECT_EQ(field_of({{"axes", {{"max_steps", {10, nullptr}}}}}), "max_steps");
    // Fields written only when set are fields all the same.
    EXPECT_EQ(field_of({{"axes", {{"flow_matching.shift", {3.0, 5.0}}}}}), "no error");
    const SweepGrid grid = SweepGrid::from_json({{"name", "g"}, {"axes", axes}}, "grid.json");
    EXPECT_EQ(grid.to_json()["v"], kSweepVersion);
    EXPECT_EQ(SweepGrid::from_json(grid.to_json(), "again").to_json(), grid.to_json());
    ASSERT_EQ(sweep_field_limits().size(), 4u);
    EXPECT_EQ(sweep_field_limits()[1].max_bytes, kMaxSweepNameBytes);
}

} // namespace
} // namespace tuneframe::common
