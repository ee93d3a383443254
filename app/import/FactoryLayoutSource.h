#pragma once

#include "app/import/ImportOptions.h"
#include "app/import/ImportPlan.h"

#include <QCoreApplication>
#include <QString>

#include <atomic>

// cogvideox-factory's dataset layout: a folder with videos.txt (one clip path per line,
// relative to the folder) and prompt.txt (or prompts.txt; the caption on the same line). When
// the two files differ in length the pairing is unknowable, so the folder is refused with both
// counts instead of guessing. Listed paths stay inside the folder (DatasetPathResolver).
class FactoryLayoutSource {
    Q_DECLARE_TR_FUNCTIONS(FactoryLayoutSource)

public:
    static const QString kVideosFileName;
    static const QString kPromptFileName;
    static const QString kPromptsFileName;

    // True when videos.txt and a prompt file are there, whatever their type: a FIFO or a
    // device in their place is then refused with its reason rather than scanned past.
    static bool isFactoryLayout(const QString& folder);
    // prompt.txt, or prompts.txt when only that exists.
    static QString promptFile(const QString& folder);
    static void add(const QString& folder, ImportPlan& plan, const ImportOptions& options,
                    const std::atomic<bool>* cancelRequested);
};
