#include "tests/ui/TrainStudio.h"

#include "app/project/Settings.h"
#include "app/runs/TrainingRuns.h"
#include "media/log_level.h"
#include "tests/ui/TrainFormDriver.h"
#include "ui/train/TrainPage.h"
#include "ui/window/MainWindow.h"

#include <QDir>
#include <QFileInfo>
#include <QTest>

TrainStudio::TrainStudio() = default;

TrainStudio::~TrainStudio() = default;

QString TrainStudio::open(int clipCount) {
    tuneframe::media::set_log_level();
    tinyPipeline = qEnvironmentVariable("TUNEFRAME_TINY_PIPELINE");
    if (!QFileInfo(tinyPipeline).isDir())
        return QStringLiteral("TUNEFRAME_TINY_PIPELINE must name the pipeline");
    if (!QFileInfo(qEnvironmentVariable("TUNEFRAME_ENGINE")).isExecutable())
        return QStringLiteral("TUNEFRAME_ENGINE must name tuneframe-engine");
    if (!media.isValid() || !config.isValid() || !projects.isValid())
        return QStringLiteral("no temporary folders");
    qputenv("TUNEFRAME_CONFIG_DIR", config.path().toLocal8Bit());

    projectFolder = projects.filePath(QStringLiteral("project"));
    const QString error =
        TrainFormDriver::createPatternProject(projectFolder, media.path(), clipCount);
    if (!error.isEmpty())
        return error;
    m_settings = std::make_unique<Settings>(config.path());
    window = newWindow();
    if (!window->openProject(projectFolder))
        return QStringLiteral("the studio did not open %1").arg(projectFolder);
    window->showPage(MainWindow::Page::Train);
    return {};
}

std::unique_ptr<MainWindow> TrainStudio::newWindow() const {
    auto created = std::make_unique<MainWindow>(m_settings.get());
    created->resize(1500, 950);
    created->show();
    return created;
}

TrainPage* TrainStudio::page() const {
    return window->trainPage();
}

RunState TrainStudio::stateOf(qint64 runId) const {
    return window->trainingRuns()->state(runId);
}

void TrainStudio::typeInto(QWidget* field, const QString& text) {
    QVERIFY2(field->isVisible() && field->isEnabled(), qPrintable(field->objectName()));
    field->setFocus();
    QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(field, text);
}

void TrainStudio::screenshot(QWidget* widget, const QString& name) {
    const QString folder = qEnvironmentVariable("TUNEFRAME_SCREENSHOT_DIR");
    if (folder.isEmpty())
        return;
    QTest::qWait(200); // layouts settle as the window would before anyone looked at it
    QVERIFY(widget->grab().save(QDir(folder).filePath(name)));
}
