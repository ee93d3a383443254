#pragma once

#include "app/jobs/ModelFacts.h"
#include "app/runs/ExpertExport.h"
#include "ui/window/StudioPage.h"

#include <QJsonObject>

#include <optional>

class EngineCommand;
class ModelInspector;
class QFormLayout;
class QTimer;
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
    // The low-noise expert's adapter and guidance under the adapter and the guidance, the flow
    // shift at the end; shown for the models they apply to.
    void addModelRows(QFormLayout* form);
    // Wan: the model folder's family decides the schedulers, the flow shift and, for two experts
    // (Wan 2.2 A14B), the low-noise expert's guidance and adapter.
    void inspectModel();
    void onModelInspected(const ModelFacts& facts);
    void updateModelRows();
    void updateSchedulerTexts();
    // The chosen export's experts (a two-expert run's pair), from the project's exports.
    ExpertExport chosenExperts() const;
    // --lora / --transformer and, for two experts, --lora-2 / --transformer-2.
    QStringList adapterArguments() const;

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
    // The rows that follow the model (addModelRows).
    QFormLayout* m_form = nullptr;
    ModelInspector* m_inspector = nullptr;
    QTimer* m_inspectTimer = nullptr; // the model folder is read once typing pauses
    std::optional<ModelFacts> m_facts;
    QLabel* m_adapter2Label = nullptr;
    QComboBox* m_adapter2Combo = nullptr; // the low-noise expert's adapter
    QString m_adapter2For;                // the adapter above when m_adapter2Combo was filled
    QLabel* m_guidance2Label = nullptr;
    QDoubleSpinBox* m_guidance2Spin = nullptr;
    QLabel* m_flowShiftLabel = nullptr;
    QDoubleSpinBox* m_flowShiftSpin = nullptr; // 0: the scheduler's own
};
