// launch.json, which the studio writes and both the studio and the engine's queue runner start
// runs from: its form, what it refuses, and the arguments it turns into.
#include "common/launch_spec.h"
#include "common/training_job.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tuneframe::common {
namespace {

using Arguments = std::vector<std::string>;

LaunchSpec read(const char* text) {
    return LaunchSpec::from_json(nlohmann::json::parse(text));
}

std::string refusal(const char* text) {
    try {
        read(text);
    } catch (const JobError& error) {
        EXPECT_NE(error.hint().find("\"gpus\": [0, 1]"), std::string::npos) << error.hint();
        return error.field();
    }
    return "accepted";
}

TEST(LaunchSpec, AnEmptyPlanIsOneProcess) {
    const LaunchSpec spec = read("{}");
    EXPECT_EQ(spec, LaunchSpec{});
    EXPECT_EQ(spec.world_size(), 1);
    EXPECT_EQ(spec.to_json(), nlohmann::json::object());
}

TEST(LaunchSpec, GpusAndCpuRanksBecomeTheirFlags) {
    const LaunchSpec gpus = read(R"({"gpus": [2, 0]})");
    EXPECT_EQ(gpus.world_size(), 2);
    EXPECT_EQ(gpus.process_arguments(0), (Arguments{"--gpus", "2,0"}));
    const LaunchSpec ranks = read(R"({"cpu_ranks": 3})");
    EXPECT_EQ(ranks.world_size(), 3);
    EXPECT_EQ(ranks.process_arguments(0), (Arguments{"--cpu-ranks", "3"}));
    // One CPU rank is one process: nothing to launch.
    EXPECT_EQ(read(R"({"cpu_ranks": 1})"), LaunchSpec{});
}

TEST(LaunchSpec, SeveralMachinesMeetAtMachineZero) {
    const LaunchSpec spec =
        read(R"({"machines": 2, "master_addr": "10.0.0.5", "master_port": 29555})");
    // One CPU rank per machine, joined by `launch`.
    EXPECT_EQ(spec.cpu_ranks, 1);
    EXPECT_EQ(spec.world_size(), 2);
    EXPECT_EQ(spec.process_arguments(1),
              (Arguments{"--cpu-ranks", "1", "--nnodes", "2", "--node-rank", "1", "--master-addr",
                         "10.0.0.5", "--master-port", "29555"}));
}

TEST(LaunchSpec, OneMachineKeepsNoMeetingPoint) {
    LaunchSpec gpus;
    gpus.gpus = {0, 1};
    EXPECT_EQ(gpus.on_machines(1, "10.0.0.5", 29555), gpus);
    const LaunchSpec two = gpus.on_machines(2, "10.0.0.5", 29555);
    EXPECT_EQ(two.cpu_ranks, 0); // GPU workers, not CPU ranks
    EXPECT_EQ(two.world_size(), 4);
    EXPECT_EQ(two.on_machines(1, "10.0.0.5", 29555), gpus);
}

TEST(LaunchSpec, WritesWhatItReadsBack) {
    LaunchSpec gpus;
    gpus.gpus = {1, 0};
    LaunchSpec machines;
    machines.cpu_ranks = 1;
    machines.machines = 3;
    machines.master_addr = "node0";
    machines.master_port = 6000;
    LaunchSpec ranks;
    ranks.cpu_ranks = 4;
    for (const LaunchSpec& spec : {gpus, machines, ranks}) {
        EXPECT_EQ(LaunchSpec::from_json(spec.to_json()), spec) << spec.to_json().dump();
    }
}

TEST(LaunchSpec, RefusesWhatCannotBeStarted) {
    EXPECT_EQ(refusal("[0, 1]"), "The plan");
    EXPECT_EQ(refusal(R"({"gpus": 0})"), "gpus");
    EXPECT_EQ(refusal(R"({"gpus": [-1]})"), "gpus");
    EXPECT_EQ(refusal(R"({"gpus": ["0"]})"), "gpus");
    EXPECT_EQ(refusal(R"({"gpus": [0], "cpu_ranks": 2})"), "cpu_ranks");
    EXPECT_EQ(refusal(R"({"cpu_ranks": 1.5})"), "cpu_ranks");
    EXPECT_EQ(refusal(R"({"machines": 0})"), "machines");
    EXPECT_EQ(refusal(R"({"machines": 2, "master_port": 29555})"), "master_addr");
    EXPECT_EQ(refusal(R"({"machines": 2, "master_addr": "a"})"), "master_port");
    EXPECT_EQ(refusal(R"({"machines": 2, "master_addr": "a", "master_port": 70000})"),
              "master_port");
}

} // namespace
} // namespace tuneframe::common
