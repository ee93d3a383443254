// The export dialog says what it exports (an adapter, or a full fine-tune's model) and never
// shows one export's result beside another choice. The engine is a stand-in script that answers
// `export` the way tuneframe-engine does (a `done` event with its summary), so no model is needed.
#include "ui/runs/RunExportDialog.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

class TestRunExportDialog : public QObject {
    Q_OBJECT

private slots:
    void init();
    void titleSaysWhatIsExported();
    void anotherChoiceClearsTheLastResult();

private:
    QString writeEngine();

    std::unique_ptr<QTemporaryDir> m_folder;
};

void TestRunExportDialog::init() {
    m_folder = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folder->isValid());
}

QString TestRunExportDialog::writeEngine() {
    const QString path = m_folder->filePath(QStringLiteral("engine.sh"));
    QFile script(path);
    if (!script.open(QIODevice::WriteOnly))
        return {};
    script.write(R"(#!/bin/sh
echo '{"v":1,"type":"done","status":"ok","summary":{"path":"/tmp/exported","step":2,"format":"diffusers","verified_max_abs_diff":0.0001,"tolerance":0.001}}'
)");
    script.close();
    script.setPermissions(script.permissions() | QFileDevice::ExeOwner);
    return path;
}

void TestRunExportDialog::titleSaysWhatIsExported() {
    RunExportDialog dialog(writeEngine());
    dialog.addRun(1, QStringLiteral("lora run"), m_folder->path(), {1, 2}, false);
    dialog.addRun(2, QStringLiteral("full run"), m_folder->path(), {1, 2}, true);
    dialog.selectRun(2);
    QCOMPARE(dialog.windowTitle(), QStringLiteral("Export the Fine-Tuned Model"));
    dialog.selectRun(1);
    QCOMPARE(dialog.windowTitle(), QStringLiteral("Export Adapter"));
}

void TestRunExportDialog::anotherChoiceClearsTheLastResult() {
    RunExportDialog dialog(writeEngine());
    dialog.addRun(1, QStringLiteral("lora run"), m_folder->path(), {1, 2}, false);
    dialog.selectRun(1);
    dialog.setFormat(QStringLiteral("diffusers"));
    dialog.setDestination(m_folder->filePath(QStringLiteral("out")));
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QSignalSpy finished(&dialog, &RunExportDialog::exportFinished);
    auto* exportButton = dialog.findChild<QPushButton*>(QStringLiteral("startExportButton"));
    QVERIFY(exportButton && exportButton->isEnabled());
    QTest::mouseClick(exportButton, Qt::LeftButton);
    QTRY_COMPARE(finished.count(), 1);
    auto* result = dialog.findChild<QLabel*>(QStringLiteral("exportResultLabel"));
    QVERIFY(result->text().contains(QStringLiteral("verified")));
    auto* openFolder = dialog.findChild<QPushButton*>(QStringLiteral("openExportFolderButton"));
    QVERIFY(openFolder && openFolder->isVisible());

    // Another format: the ComfyUI file is not what was verified.
    auto* formats = dialog.findChild<QComboBox*>(QStringLiteral("exportFormatCombo"));
    QVERIFY(formats);
    formats->setCurrentIndex(formats->findData(QStringLiteral("comfyui")));
    QVERIFY(result->text().isEmpty());
    QVERIFY(dialog.resultText().isEmpty());
    QVERIFY(!openFolder->isVisible());
}

QTEST_MAIN(TestRunExportDialog)
#include "TestRunExportDialog.moc"
