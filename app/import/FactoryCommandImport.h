#pragma once

#include "app/import/FactoryDatasetSource.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QStringList>

// Reads a cogvideox-factory training command — the `accelerate launch … training/
// cogvideox_text_to_video_lora.py --rank 128 …` line of its train scripts, line continuations,
// quotes and a `cmd="…"` wrapper included — into a partial job: the flags Tuneframe has an
// equivalent for are mapped (and listed), the others are listed as not understood with their
// values, so nothing is dropped silently.
class FactoryCommandImport {
    Q_DECLARE_TR_FUNCTIONS(FactoryCommandImport)

public:
    struct Result {
        QJsonObject job;
        QStringList mapped;        // "--rank 128 → lora.rank = 128"
        QStringList notUnderstood; // "--report_to wandb"
        QString script;            // the training script named, if any
        QString error;             // set when nothing could be read
        // --data_root and the flags that say how to read it; empty when the command names none
        // (or names them through shell variables).
        FactoryDataset dataset;
    };

    static Result parse(const QString& commandLine);
    // POSIX-shell words: quotes, backslash escapes, backslash-newline continuations.
    static QStringList shellWords(const QString& text, QString* error);

private:
    // What the factory's optimizer flags choose, in the engine's optimizer names.
    struct OptimizerFlags {
        QString name; // --optimizer, lower case; empty when not given
        bool use8bit = false;
        bool cpuOffload = false;
        bool torchao = false;
        double weightDecay = 1e-4; // the factory's default
    };
    static void mapOptimizer(const OptimizerFlags& flags, Result& result);
};
