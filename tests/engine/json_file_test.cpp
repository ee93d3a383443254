#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

namespace tuneframe::core {
namespace {

using test::TemporaryDirectory;

TEST(JsonFile, RoundTripsAtomically) {
    TemporaryDirectory dir;
    nlohmann::json value = {{"num_layers", 30}, {"name", "tïny"}};
    write_json_file(dir / "config.json", value);
    EXPECT_EQ(read_json_file(dir / "config.json"), value);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                            std::filesystem::directory_iterator()),
              1);
}

TEST(JsonFile, SyntaxErrorNamesFileLineAndColumn) {
    TemporaryDirectory dir;
    test::write_bytes(dir / "bad.json", "{\n  \"a\": 1,\n  \"b\": ]\n}\n");
    try {
        read_json_file(dir / "bad.json");
        FAIL();
    } catch (const Error& error) {
        std::string message = error.what();
        EXPECT_EQ(error.code(), ErrorCode::BadInput);
        EXPECT_NE(message.find("bad.json"), std::string::npos) << message;
        EXPECT_NE(message.find("line 3"), std::string::npos) << message;
    }
}

// Found by the job_file and dataset_manifest fuzzers: nlohmann refuses a number past double's
// range with out_of_range rather than parse_error, which escaped as an uncaught exception.
TEST(JsonFile, NumberOutOfRangeIsBadInputNamingTheFile) {
    TemporaryDirectory dir;
    test::write_bytes(dir / "huge.json", "{\"lr\": 1e600}\n");
    try {
        read_json_file(dir / "huge.json");
        FAIL();
    } catch (const Error& error) {
        std::string message = error.what();
        EXPECT_EQ(error.code(), ErrorCode::BadInput);
        EXPECT_NE(message.find("huge.json"), std::string::npos) << message;
        EXPECT_NE(message.find("1e600"), std::string::npos) << message;
    }
}

// The parser stops at a NUL as at the end of the text: a trainer_state.json or launch.json cut
// short by a NUL and followed by anything would otherwise read as its first part.
TEST(JsonFile, NulByteIsBadInputNamingTheFileAndWhere) {
    TemporaryDirectory dir;
    test::write_bytes(dir / "state.json", std::string("{\"step\": 3}\n\0{\"step\": 9}\n", 25));
    try {
        read_json_file(dir / "state.json");
        FAIL();
    } catch (const Error& error) {
        const std::string message = error.what();
        EXPECT_EQ(error.code(), ErrorCode::BadInput);
        EXPECT_NE(message.find("state.json"), std::string::npos) << message;
        EXPECT_NE(message.find("line 2, column 1"), std::string::npos) << message;
    }
}

TEST(JsonFile, MissingFileIsAnIoError) {
    TemporaryDirectory dir;
    try {
        read_json_file(dir / "absent.json");
        FAIL();
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::Io);
        EXPECT_NE(std::string(error.what()).find("absent.json"), std::string::npos);
    }
}

TEST(JsonFields, TypedAccessWithDefaults) {
    nlohmann::json object = {{"layers", 4}, {"scale", 0.5}, {"name", "x"}, {"flag", true}};
    JsonFields fields(object, "config.json");
    EXPECT_EQ(fields.required<int>("layers"), 4);
    EXPECT_DOUBLE_EQ(fields.required<double>("scale"), 0.5);
    EXPECT_DOUBLE_EQ(fields.required<double>("layers"), 4.0) << "integers are numbers";
    EXPECT_EQ(fields.required<std::string>("name"), "x");
    EXPECT_TRUE(fields.required<bool>("flag"));
    EXPECT_EQ(fields.optional<int>("absent", 7), 7);
    EXPECT_FALSE(fields.maybe<int>("absent").has_value());
    EXPECT_EQ(fields.maybe<int>("layers"), 4);
}

TEST(JsonFields, WrongTypeAndMissingFieldNameTheField) {
    nlohmann::json object = {{"layers", "four"}, {"scale", 0.5}};
    JsonFields fields(object, "transformer/config.json");
    try {
        fields.required<int>("layers");
        FAIL();
    } catch (const Error& error) {
        std::string message = error.what();
        EXPECT_NE(message.find("transformer/config.json"), std::string::npos) << message;
        EXPECT_NE(message.find("\"layers\""), std::string::npos) << message;
        EXPECT_NE(message.find("integer"), std::string::npos) << message;
    }
    EXPECT_THROW(fields.required<int>("scale"), Error) << "0.5 is not an integer";
    EXPECT_THROW(fields.required<int>("missing"), Error);
    EXPECT_THROW(JsonFields(nlohmann::json::array(), "x.json"), Error);
}

} // namespace
} // namespace tuneframe::core
