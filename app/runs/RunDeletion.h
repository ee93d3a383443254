#pragma once

#include <QCoreApplication>
#include <QString>

// The file side of deleting a run: its folder (checkpoints, validation videos, logs, TensorBoard
// files) goes, so a project's disk can be reclaimed. The folder is renamed out of sight before
// anything is removed, so an interruption never leaves a run whose checkpoints are half gone: a
// run is either whole, or its folder is a "<run>.deleting" leftover that the next session
// removes. The shared latent cache and adapters exported elsewhere are not the run's and stay.
class RunDeletion {
    Q_DECLARE_TR_FUNCTIONS(RunDeletion)

public:
    // What deleting the run frees.
    struct Footprint {
        qint64 bytes = 0;
        int checkpoints = 0;
    };
    static Footprint footprint(const QString& runFolder);

    // Renames runFolder aside and returns the new path; empty (with error set) when it cannot.
    // A folder that does not exist is fine: there is nothing to move, and "" comes back with no
    // error.
    static QString moveAside(const QString& runFolder, QString* error);
    // Puts a folder moved aside back, when the rest of the deletion failed.
    static bool putBack(const QString& asidePath, const QString& runFolder);
    static void remove(const QString& asidePath);
    // Removes the folders interrupted deletions left in runsFolder; returns how many.
    static int removeLeftovers(const QString& runsFolder);
};
