#pragma once

#include "app/runs/RunState.h"

#include <QString>
#include <QTemporaryDir>

#include <memory>

class MainWindow;
class Settings;
class TrainPage;
class QWidget;

// What the Train-page tests share: a project of accepted pattern clips, the studio's settings in
// a folder of their own, and a real MainWindow on that project's Train page, with the engine
// (TUNEFRAME_ENGINE) and the tiny pipeline (TUNEFRAME_TINY_PIPELINE) from ctest.
class TrainStudio {
public:
    // A bound on waiting for the engine, not a speed target: a run of a train-page test took
    // 200 s on a two-core machine compiling beside it. ctest's TIMEOUT still ends a hang.
    static constexpr int kEngineTimeoutMs = 480000;

    TrainStudio();
    ~TrainStudio();

    // Creates the project with `clipCount` clips and opens it on the Train page; returns what
    // went wrong, empty on success.
    QString open(int clipCount);
    // Another studio window on the same settings (the first was closed, say).
    std::unique_ptr<MainWindow> newWindow() const;
    TrainPage* page() const;
    RunState stateOf(qint64 runId) const;

    // Selects all of the field's text and types text over it, as a user would.
    static void typeInto(QWidget* field, const QString& text);
    // Saves the widget as NAME in TUNEFRAME_SCREENSHOT_DIR, when that is set.
    static void screenshot(QWidget* widget, const QString& name);

    QString tinyPipeline;
    QString projectFolder;
    QTemporaryDir media;    // the clips
    QTemporaryDir config;   // TUNEFRAME_CONFIG_DIR: settings and user presets
    QTemporaryDir projects; // the project and any other a test makes
    std::unique_ptr<MainWindow> window;

private:
    std::unique_ptr<Settings> m_settings;
};
