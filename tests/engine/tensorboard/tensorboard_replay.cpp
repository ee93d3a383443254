// tensorboard_replay JOB_JSON EVENTS_JSONL OUT_FOLDER [--test-video PATH]
// Feeds the protocol events of EVENTS_JSONL (one per line, as events.jsonl holds them) to a
// TensorBoardSink writing into OUT_FOLDER, so a reader in another language can check the file.
// --test-video first writes a 9-frame 48x32 MP4 whose frame k is flat_colour(k) all over.
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/tensorboard/tensorboard_sink.h"
#include "tests/engine/tensorboard/flat_colour_video.h"

#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace tuneframe;

int replay(int argc, char** argv) {
    if (argc != 4 && !(argc == 6 && std::string(argv[4]) == "--test-video")) {
        std::cerr << "usage: tensorboard_replay JOB_JSON EVENTS_JSONL OUT_FOLDER "
                     "[--test-video PATH]\n";
        return 2;
    }
    if (argc == 6) {
        test::write_flat_colour_video(argv[5], 9, 48, 32);
    }
    const nlohmann::json job = core::read_json_file(argv[1]);
    tensorboard::TensorBoardSink sink(argv[3], job);
    std::ifstream events(argv[2]);
    std::string line;
    while (std::getline(events, line)) {
        const nlohmann::json event = nlohmann::json::parse(line);
        sink.on_event(protocol::event_type_from_string(event.at("type").get<std::string>()), event);
    }
    std::cout << sink.path().string() << '\n';
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    try {
        return replay(argc, argv);
    } catch (const std::exception& error) {
        std::cerr << "error: " << error.what() << '\n';
        return 1;
    }
}
