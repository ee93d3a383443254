#pragma once

#include <QString>

#include <functional>

class NewRunForm;
class TrainPage;

// Starts runs from the Train page's form as a person would: the CPU demo preset on a model
// folder, a few steps, then Train (or Add to Queue), for the tests that need a real run.
class TrainFormDriver {
public:
    // The new run's id; 0 when the form stayed invalid (its reason is logged) or nothing
    // launched. adjust may change the form before the click.
    // A project at projectFolder holding clipCount accepted 12-frame pattern clips written to
    // mediaFolder ("a pattern N moving right"); returns what went wrong, empty on success.
    static QString createPatternProject(const QString& projectFolder, const QString& mediaFolder,
                                        int clipCount);
    static qint64 launch(TrainPage* page, const QString& modelFolder, int steps,
                         int checkpointEvery, int validateEvery, const char* button = "trainButton",
                         const std::function<void(NewRunForm*)>& adjust = {});
};
