#pragma once

#include "app/import/ImportPlan.h"

#include <QCoreApplication>
#include <QString>

// The dataset a cogvideox-factory training command names (training/args.py): --data_root, and
// either two line files in it (--caption_column, --video_column) or a CSV (--dataset_file)
// whose columns those two flags name. The defaults are the factory's own.
struct FactoryDataset {
    QString root;
    QString datasetFile;
    QString captionColumn = QStringLiteral("text");
    QString videoColumn = QStringLiteral("video");

    bool isEmpty() const { return root.isEmpty() && datasetFile.isEmpty(); }
};

// Lists a FactoryDataset's clips and captions the way the factory's VideoDataset reads them:
// line files hold one caption or clip path per non-empty line, paired in order; CSV rows give
// both in the named columns. Clip paths are relative to --data_root in both cases (for a CSV
// too, unlike CSV files imported by themselves). A pairing that cannot be known (line counts
// that differ, a missing column) refuses the whole dataset instead of guessing.
class FactoryDatasetSource {
    Q_DECLARE_TR_FUNCTIONS(FactoryDatasetSource)

public:
    static void add(const FactoryDataset& dataset, ImportPlan& plan);

private:
    static void addLineFiles(const FactoryDataset& dataset, ImportPlan& plan);
    static void addCsv(const FactoryDataset& dataset, ImportPlan& plan);
};
