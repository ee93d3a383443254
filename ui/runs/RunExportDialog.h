#pragma once

#include "app/jobs/ModelFacts.h"

#include <QDialog>
#include <QVector>

#include <optional>

class EngineCommand;
class ModelInspector;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

// Exports a run's checkpoint through `tuneframe-engine export`: run and step, format (diffusers,
// the family's kohya-style layouts (ComfyUI for CogVideoX; Wan's and musubi-tuner's for Wan),
// merged or a whole pipeline, each named with the loader it is for; a full fine-tune has no
// adapter, so its formats are the fine-tuned transformer folder and the pipeline), destination;
// the engine reloads what it wrote and the dialog shows the difference it measured, for each file
// of a two-expert model's export (Wan 2.2 A14B: one per expert). The run's family comes from its
// model folder through the engine (ModelInspector). The dialog never waits on the engine.
class RunExportDialog : public QDialog {
    Q_OBJECT

public:
    RunExportDialog(const QString& enginePath, QWidget* parent = nullptr);
    ~RunExportDialog() override;

    void addRun(qint64 runId, const QString& name, const QString& folder,
                const QVector<qint64>& checkpointSteps, bool fullFineTune = false);
    void selectRun(qint64 runId);
    void setFormat(const QString& format);
    void setDestination(const QString& folder);
    QString destination() const;
    // Starts the export with the chosen values (what the Export button does).
    void startExport();
    // What the last successful export wrote; empty before one or while exporting.
    QString exportedPath() const { return m_exportedPath; }
    bool isExporting() const;
    QString resultText() const;

signals:
    void exportFinished(qint64 runId, qint64 step, const QString& format, const QString& path);
    void exportFailed(const QString& message);

protected:
    void changeEvent(QEvent* event) override;
    void reject() override;

private:
    struct Run {
        qint64 id = 0;
        QString name;
        QString folder;
        QVector<qint64> steps;
        bool full = false;
        QString model; // the base model folder its job names
        std::optional<ModelFacts> facts;
    };

    void retranslateUi();
    // Taller when a longer help text or result needs it, so that neither is cut off.
    void growToFit();
    void onRunChosen();
    void updateDefaultDestination();
    bool chosenRunIsFull() const;
    const Run* chosenRun() const;
    // Offers the formats of the chosen run's family and mode only.
    void updateFormats();
    void onModelInspected(const ModelFacts& facts);
    void onSucceeded(const QJsonObject& summary);
    void onFailed(const QString& message, const QString& hint);
    void setBusy(bool busy);

    QString m_enginePath;
    QVector<Run> m_runs;
    EngineCommand* m_command;
    ModelInspector* m_inspector;
    QString m_resultText;
    QString m_exportedPath; // what the last export wrote
    bool m_destinationEdited = false;

    QLabel* m_runLabel;
    QComboBox* m_runCombo;
    QLabel* m_stepLabel;
    QComboBox* m_stepCombo;
    QLabel* m_formatLabel;
    QComboBox* m_formatCombo;
    QLabel* m_formatHelp;
    QLabel* m_destinationLabel;
    QLineEdit* m_destinationEdit;
    QPushButton* m_browseButton;
    QProgressBar* m_progress;
    QLabel* m_resultLabel;
    QDialogButtonBox* m_buttons;
    QPushButton* m_exportButton;
    QPushButton* m_openFolderButton;
};
