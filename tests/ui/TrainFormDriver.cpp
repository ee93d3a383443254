#include "TrainFormDriver.h"

#include "tests/app/DatasetFixture.h"
#include "ui/train/NewRunForm.h"
#include "ui/train/TrainPage.h"

#include <QCheckBox>
#include <QDir>
#include <QPushButton>
#include <QSpinBox>
#include <QTest>

#include <memory>

QString TrainFormDriver::createPatternProject(const QString& projectFolder,
                                              const QString& mediaFolder, int clipCount) {
    std::unique_ptr<Project> project = DatasetFixture::createProject(projectFolder);
    if (!project)
        return QStringLiteral("no project at %1").arg(projectFolder);
    QVector<ClipRecord> clips;
    for (int index = 0; index < clipCount; ++index) {
        const QString path = QDir(mediaFolder).filePath(QStringLiteral("clip-%1.mp4").arg(index));
        const QString error = DatasetFixture::writeVideo(path, 12, index);
        if (!error.isEmpty())
            return error;
        clips.append(DatasetFixture::acceptedVideo(
            path, index, 12, QStringLiteral("a pattern %1 moving right").arg(index)));
    }
    if (DatasetFixture::store(*project, clips).size() != clipCount)
        return QStringLiteral("the clips were not stored in %1").arg(projectFolder);
    return {};
}

qint64 TrainFormDriver::launch(TrainPage* page, const QString& modelFolder, int steps,
                               int checkpointEvery, int validateEvery, const char* button,
                               const std::function<void(NewRunForm*)>& adjust) {
    NewRunForm* form = page->newRunForm();
    if (!form->selectPreset(QStringLiteral("cogvideox-tiny.lora.cpu")))
        return 0;
    form->setModelFolder(modelFolder);
    form->findChild<QSpinBox*>(QStringLiteral("maxStepsSpin"))->setValue(steps);
    form->findChild<QSpinBox*>(QStringLiteral("checkpointEverySpin"))->setValue(checkpointEvery);
    form->findChild<QSpinBox*>(QStringLiteral("validationEverySpin"))->setValue(validateEvery);
    // Validations only where the caller asks for them, whatever the CPU preset adds.
    form->findChild<QCheckBox*>(QStringLiteral("validateAtStartCheck"))->setChecked(false);
    if (adjust)
        adjust(form);
    if (!QTest::qWaitFor([form] { return form->isValid(); }, 5000)) {
        qWarning("form invalid: %s", qPrintable(form->validationError()));
        return 0;
    }
    const qint64 before = page->selectedRunId();
    page->findChild<QPushButton*>(QString::fromLatin1(button))->click();
    const qint64 runId = page->selectedRunId();
    return runId != before ? runId : 0;
}
