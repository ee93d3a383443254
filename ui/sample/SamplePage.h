#pragma once

#include "ui/window/StudioPage.h"

#include <QJsonObject>

class EngineCommand;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class TrainingRuns;
class VideoPlayerWidget;

// The Sample page: a video from a base model plus, optionally, an adapter a run exported,
// rendered by `tuneframe-engine sample` into <project>/samples/ and played here: text to video,
// or image to video from a picture, with a negative prompt, the scheduler and dynamic guidance.
// Choosing a run's adapter takes that run's validation settings (sampler, steps, guidance,
// frames and size, seed) and its base model, so a sample matches the run's gallery videos.
// Each video gets a <video>.json beside it with what made it, and the project's samples are
// listed again when it is reopened.
class SamplePage : public StudioPage {
    Q_OBJECT

public:
    explicit SamplePage(QWidget* parent = nullptr);

    void setEnginePath(const QString& enginePath);
    void setTrainingRuns(TrainingRuns* runs);
    void setDefaultModelFolder(const QString& folder);
    // Renders with the form's values (what Generate does).
    void generate();
    bool isGenerating() const;
    VideoPlayerWidget* player() const;
    QString lastVideo() const;
    // <video>.json: the record Generate wrote beside a sample; empty when there is none.
    static QJsonObject record(const QString& video);

protected:
    void retranslateUi() override;
    void onProjectChanged() override;

private:
    void reloadAdapters();
    // The chosen adapter's run: its base model and validation settings become the form's.
    void applyRunDefaults();
    // The scheduler item for a sampler name, added when the list lacks it (a family's own).
    void selectSampler(const QString& sampler);
    static QString formatText(const QString& format, bool fullFineTune);
    bool chosenIsTransformerFolder() const;
    void reloadResults();
    void addResult(const QString& video, const QString& prompt, bool first);
    void writeRecord(const QJsonObject& summary) const;
    static QString recordFile(const QString& video);
    void setBusy(bool busy);
    void onSucceeded(const QJsonObject& summary);
    void onFailed(const QString& message, const QString& hint);

    TrainingRuns* m_runs = nullptr;
    EngineCommand* m_command = nullptr;
    QString m_lastVideo;
    QString m_pendingVideo;

    QLabel* m_modelLabel;
    QLineEdit* m_modelEdit;
    QPushButton* m_modelBrowse;
    QLabel* m_adapterLabel;
    QComboBox* m_adapterCombo;
    qint64 m_defaultsRunId = 0; // the run whose validation settings the form holds
    QLabel* m_scaleLabel;
    QDoubleSpinBox* m_scaleSpin;
    QLabel* m_promptLabel;
    QPlainTextEdit* m_promptEdit;
    QLabel* m_negativeLabel;
    QLineEdit* m_negativeEdit;
    QLabel* m_imageLabel;
    QLineEdit* m_imageEdit;
    QPushButton* m_imageBrowse;
    QLabel* m_schedulerLabel;
    QComboBox* m_schedulerCombo;
    QCheckBox* m_dynamicCfgCheck;
    QLabel* m_sizeLabel;
    QSpinBox* m_framesSpin;
    QSpinBox* m_heightSpin;
    QSpinBox* m_widthSpin;
    QLabel* m_stepsLabel;
    QSpinBox* m_stepsSpin;
    QLabel* m_guidanceLabel;
    QDoubleSpinBox* m_guidanceSpin;
    QLabel* m_seedLabel;
    QSpinBox* m_seedSpin;
    QPushButton* m_generateButton;
    QPushButton* m_cancelButton;
    QProgressBar* m_progress;
    QLabel* m_statusLabel;
    QListWidget* m_results;
    VideoPlayerWidget* m_player;
};
