// assign_bucket() against hand-worked cases of cogvideox-factory's rules (cogvideox-spec.md
// 6.1): nearest frame bucket, strided indices from trim_in, nearest resolution, first on ties.
#include "common/bucket_assignment.h"

#include <gtest/gtest.h>

namespace tuneframe::common {
namespace {

BucketConfig config(std::vector<int> frames,
                    std::vector<ResolutionBucket> resolutions = {{480, 720}},
                    std::int64_t max_frames = 0) {
    return {std::move(frames), std::move(resolutions), max_frames};
}

ClipGeometry clip(std::int64_t frames, int width = 1280, int height = 720) {
    ClipGeometry geometry;
    geometry.frame_count = frames;
    geometry.width = width;
    geometry.height = height;
    return geometry;
}

std::vector<std::int64_t> strided(std::int64_t first, std::int64_t stride, int count) {
    std::vector<std::int64_t> indices;
    for (int i = 0; i < count; ++i) {
        indices.push_back(first + i * stride);
    }
    return indices;
}

TEST(BucketAssignment, LongClipIsSubsampledWithTheIntegerStride) {
    const BucketAssignment result = assign_bucket(clip(100), config({49}));
    ASSERT_TRUE(result.assigned()) << result.message;
    EXPECT_EQ(result.frames, 49);
    EXPECT_EQ(result.height, 480);
    EXPECT_EQ(result.width, 720);
    // range(0, 100, 100 // 49 = 2)[:49]
    EXPECT_EQ(result.frame_indices, strided(0, 2, 49));
    EXPECT_TRUE(result.message.empty());
}

TEST(BucketAssignment, ExactLengthUsesEveryFrame) {
    const BucketAssignment result = assign_bucket(clip(49), config({49}));
    ASSERT_TRUE(result.assigned());
    EXPECT_EQ(result.frame_indices, strided(0, 1, 49));
}

TEST(BucketAssignment, NearestFrameBucketWins) {
    const BucketAssignment result = assign_bucket(clip(60), config({81, 49}));
    ASSERT_TRUE(result.assigned()) << result.message;
    EXPECT_EQ(result.frames, 49);
    EXPECT_EQ(result.frame_indices, strided(0, 1, 49));
}

TEST(BucketAssignment, ShorterThanTheNearestBucketIsDropped) {
    // |81 - 70| < |49 - 70|, and 70 frames cannot fill 81: the factory fails here, we drop.
    const BucketAssignment result = assign_bucket(clip(70), config({49, 81}));
    EXPECT_FALSE(result.assigned());
    EXPECT_EQ(result.drop_reason, BucketDropReason::TooShort);
    EXPECT_NE(result.message.find("81"), std::string::npos) << result.message;
    EXPECT_NE(result.message.find("70 frames"), std::string::npos) << result.message;
    EXPECT_TRUE(result.frame_indices.empty());
}

TEST(BucketAssignment, ShorterThanTheSmallestBucketIsDropped) {
    const BucketAssignment result = assign_bucket(clip(30), config({49, 81}));
    EXPECT_EQ(result.drop_reason, BucketDropReason::TooShort);
    EXPECT_NE(result.message.find("smallest"), std::string::npos) << result.message;
    EXPECT_EQ(to_string(result.drop_reason), "too_short");
}

TEST(BucketAssignment, MaxFramesCapsTheTargetButNotTheStride) {
    const BucketAssignment result = assign_bucket(clip(200), config({49, 81}, {{480, 720}}, 49));
    ASSERT_TRUE(result.assigned());
    EXPECT_EQ(result.frames, 49);
    EXPECT_EQ(result.frame_indices, strided(0, 200 / 49, 49));
}

TEST(BucketAssignment, TrimShiftsAndShortensTheRange) {
    ClipGeometry geometry = clip(100);
    geometry.trim_in = 10;
    geometry.trim_out = 70; // 60 frames: 10..69
    const BucketAssignment result = assign_bucket(geometry, config({49}));
    ASSERT_TRUE(result.assigned()) << result.message;
    EXPECT_EQ(result.frame_indices, strided(10, 1, 49));
    EXPECT_EQ(result.frame_indices.back(), 58);

    geometry.trim_out = 40; // 30 frames
    EXPECT_EQ(assign_bucket(geometry, config({49})).drop_reason, BucketDropReason::TooShort);

    geometry.trim_in = 0;
    geometry.trim_out = 99; // 99 frames, stride 2
    const BucketAssignment open = assign_bucket(geometry, config({49}));
    EXPECT_EQ(open.frame_indices, strided(0, 2, 49));
}

TEST(BucketAssignment, TrimWithoutAnOutPointRunsToTheEnd) {
    ClipGeometry geometry = clip(60);
    geometry.trim_in = 11;
    const BucketAssignment result = assign_bucket(geometry, config({49}));
    ASSERT_TRUE(result.assigned());
    EXPECT_EQ(result.frame_indices.front(), 11);
    EXPECT_EQ(result.frame_indices.back(), 59);
}

TEST(BucketAssignment, InvalidTrimsAreDropped) {
    for (const auto& [trim_in, trim_out] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {-1, 50}, {20, 20}, {30, 10}, {0, 101}}) {
        ClipGeometry geometry = clip(100);
        geometry.trim_in = trim_in;
        geometry.trim_out = trim_out;
        const BucketAssignment result = assign_bucket(geometry, config({1}));
        EXPECT_EQ(result.drop_reason, BucketDropReason::InvalidTrim) << trim_in << ".." << trim_out;
        EXPECT_NE(result.message.find("100 frames"), std::string::npos) << result.message;
    }
}

TEST(BucketAssignment, FrameBucketTiesGoToTheFirstListed) {
    // n = 49 is 4 away from both 45 and 53.
    const BucketAssignment first_small = assign_bucket(clip(49), config({45, 53}));
    ASSERT_TRUE(first_small.assigned());
    EXPECT_EQ(first_small.frames, 45);
    // Listed the other way round, 53 wins the tie and 49 frames cannot fill it.
    EXPECT_EQ(assign_bucket(clip(49), config({53, 45})).drop_reason, BucketDropReason::TooShort);
}

TEST(BucketAssignment, NearestResolutionByManhattanDistance) {
    const std::vector<ResolutionBucket> buckets = {{256, 256}, {480, 720}, {720, 480}, {768, 1360}};
    const auto at = [&](int width, int height) {
        const BucketAssignment result =
            assign_bucket(clip(49, width, height), config({49}, buckets));
        EXPECT_TRUE(result.assigned());
        return std::pair(result.height, result.width);
    };
    EXPECT_EQ(at(1920, 1080), std::pair(768, 1360));
    EXPECT_EQ(at(720, 480), std::pair(480, 720));
    EXPECT_EQ(at(480, 720), std::pair(720, 480));
    EXPECT_EQ(at(200, 300), std::pair(256, 256));
}

TEST(BucketAssignment, ResolutionTiesGoToTheFirstListed) {
    // 600x600 is 240 away from both 480x720 and 720x480.
    const BucketAssignment forward =
        assign_bucket(clip(49, 600, 600), config({49}, {{480, 720}, {720, 480}}));
    EXPECT_EQ(std::pair(forward.height, forward.width), std::pair(480, 720));
    const BucketAssignment backward =
        assign_bucket(clip(49, 600, 600), config({49}, {{720, 480}, {480, 720}}));
    EXPECT_EQ(std::pair(backward.height, backward.width), std::pair(720, 480));
}

TEST(BucketAssignment, ImagesNeedAOneFrameBucket) {
    const BucketAssignment still = assign_bucket(clip(1, 720, 480), config({1, 49}));
    ASSERT_TRUE(still.assigned()) << still.message;
    EXPECT_EQ(still.frames, 1);
    EXPECT_EQ(still.frame_indices, std::vector<std::int64_t>{0});
    const BucketAssignment no_bucket = assign_bucket(clip(1, 720, 480), config({49}));
    EXPECT_EQ(no_bucket.drop_reason, BucketDropReason::TooShort);
    EXPECT_NE(no_bucket.message.find("1 frame "), std::string::npos) << no_bucket.message;
}

TEST(BucketAssignment, UnknownFactsAndEmptyConfigurationsAreDropped) {
    EXPECT_EQ(assign_bucket(clip(0), config({49})).drop_reason,
              BucketDropReason::UnknownFrameCount);
    EXPECT_EQ(assign_bucket(clip(60, 0, 0), config({49})).drop_reason,
              BucketDropReason::UnknownSize);
    EXPECT_EQ(assign_bucket(clip(60), config({})).drop_reason, BucketDropReason::NoFrameBuckets);
    EXPECT_EQ(assign_bucket(clip(60), config({0, -3})).drop_reason,
              BucketDropReason::NoFrameBuckets);
    EXPECT_EQ(assign_bucket(clip(60), config({49}, {})).drop_reason,
              BucketDropReason::NoResolutionBuckets);
    EXPECT_EQ(assign_bucket(clip(60), config({49}, {{0, 720}})).drop_reason,
              BucketDropReason::NoResolutionBuckets);
}

TEST(BucketAssignment, NonPositiveEntriesAreIgnoredAndReported) {
    const BucketConfig mixed = config({-1, 49, 0}, {{0, 0}, {480, 720}});
    const BucketAssignment result = assign_bucket(clip(60), mixed);
    ASSERT_TRUE(result.assigned());
    EXPECT_EQ(result.frames, 49);
    EXPECT_EQ(result.height, 480);
    EXPECT_EQ(check_bucket_config(mixed).size(), 3u);
    EXPECT_TRUE(check_bucket_config(config({49})).empty());
    EXPECT_EQ(check_bucket_config(config({}, {})).size(), 2u);
}

TEST(BucketAssignment, ResolutionGridIsHeightsOuter) {
    const std::vector<ResolutionBucket> grid = resolution_grid({480, 720}, {720, 1280, 480});
    ASSERT_EQ(grid.size(), 6u);
    EXPECT_EQ(grid[0].height, 480);
    EXPECT_EQ(grid[0].width, 720);
    EXPECT_EQ(grid[2].width, 480);
    EXPECT_EQ(grid[3].height, 720);
    EXPECT_EQ(grid[3].width, 720);
}

} // namespace
} // namespace tuneframe::common
