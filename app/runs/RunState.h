#pragma once

#include <QCoreApplication>
#include <QMetaType>
#include <QString>

// Where a training run is. Stored in the project database by name (runStateName), shown through
// RunStateText. Stopped is a run the user stopped with a checkpoint: it can be resumed.
enum class RunState {
    None,
    Queued,
    Preparing,
    Training,
    Validating,
    Paused,
    Stopping,
    Stopped,
    Finished,
    Failed,
};

Q_DECLARE_METATYPE(RunState)

// "queued", "preparing", … ; the names the database keeps.
QString runStateName(RunState state);
RunState runStateFromName(const QString& name);
// An engine process may be working for the run (or about to): preparing to stopping.
bool isActiveRunState(RunState state);
// The run has ended for now: stopped, finished or failed.
bool isEndedRunState(RunState state);

// Translated names of the states, for labels and tables.
class RunStateText {
    Q_DECLARE_TR_FUNCTIONS(RunStateText)

public:
    static QString display(RunState state);
};
