#pragma once

#include "app/runs/RunState.h"

#include <QString>
#include <QVector>

#include <memory>

class Project;

// Runs in a real project's history as engines leave them: a folder under runs/ with checkpoint
// folders, and validation videos recorded through the same `validation` events the studio reads.
class RunFixture {
public:
    // A new project in `folder` with its runs under runs/; null (with a warning) on failure.
    static std::shared_ptr<Project> createProject(const QString& folder);
    // A run named `name` (also its folder's name) in `state`, whose folder holds `checkpoints`
    // checkpoints of `checkpointBytes` each. Returns its id; 0 (with a warning) on failure.
    static qint64 addRun(const std::shared_ptr<Project>& project, const QString& name,
                         RunState state, int checkpoints = 0, qsizetype checkpointBytes = 1000);
    // A copy of `video` in the run's folder for every step and prompt, recorded as the engine's
    // validation events are.
    static bool addValidations(const std::shared_ptr<Project>& project, qint64 runId,
                               const QVector<qint64>& steps, int prompts, const QString& video);
    static bool writeFile(const QString& path, qsizetype bytes);
};
