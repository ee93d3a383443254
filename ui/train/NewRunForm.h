#pragma once

#include "app/engine/GpuInventory.h"
#include "app/engine/LaunchPlan.h"
#include "app/import/FactoryDatasetSource.h"
#include "app/jobs/JobPresets.h"
#include "app/jobs/MemoryEstimate.h"
#include "app/jobs/ModelFacts.h"

#include <QJsonObject>
#include <QVector>
#include <QWidget>

#include <functional>
#include <optional>

class AdvancedJobFields;
class MachinesFields;
class ModelFamilyRows;
class ModelInspector;
class ParallelPlanRows;
class FieldProblemNote;
class QHBoxLayout;
class QVBoxLayout;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QListWidget;
class MemoryEstimator;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTimer;
class QToolButton;

// A new run's settings: a preset, the model folder, and the fields people tune (rank, optimizer,
// learning rate, steps, batch, precision, checkpoints, validation prompts, trigger word,
// device). Every change is checked at once with the engine's own job reader; the message names
// the field and says what to write instead. The engine reads the model folder in the background
// (ModelInspector): the form shows what it found and offers only the rows and presets that fit
// that model (ModelFamilyRows, the Advanced section's flow-matching rows).
class NewRunForm : public QWidget {
    Q_OBJECT

public:
    explicit NewRunForm(QWidget* parent = nullptr);

    void setPresets(const QVector<JobPreset>& presets);
    // Gives up to n pictures for image-to-video validation prompts (the dataset's condition
    // frames); used when the model is image-to-video and the job names too few images.
    void setConditionImageSource(std::function<QStringList(int)> source);
    // Where "Save as Preset" writes; without one the user cannot save presets.
    void setUserPresetFolder(const QString& folder);
    bool selectPreset(const QString& presetId);
    QString presetId() const;
    QString presetName() const;
    void setModelFolder(const QString& folder);
    QString modelFolder() const;
    // What the engine found in the model folder; none while it reads it, or when it is no
    // model. The bucket preview reads its frame and size rules from here.
    std::optional<ModelFacts> modelFacts() const;

    // The preset merged with the form's values: what the run will be asked to do.
    QJsonObject job() const;
    bool isValid() const;
    // Checks the current values at once instead of after the typing pause (before a launch).
    void validateNow();
    // The engine that estimates memory (Preferences may choose another).
    void setEnginePath(const QString& enginePath);
    // The device choices: automatic, the CPU, and each GPU NVML lists (a plain CUDA entry
    // when it lists none).
    void setGpus(const GpuInventory::Result& inventory);
    // Asks NVML again, off the GUI thread; setGpus follows.
    void refreshGpus();
    // The processes that train: the chosen GPUs, or CPU ranks when the device is the CPU.
    LaunchPlan launchPlan() const;
    // Settings from elsewhere (an imported cogvideox-factory command) over the current preset.
    void applyOverrides(const QJsonObject& job);
    // What the project keeps of the form: the job without its model folder and validation
    // images (the project's condition frames are read again), the model folder and the CPU
    // process count.
    QJsonObject formState() const;
    // The preset (when it still exists) with a formState() over it; an empty state leaves the
    // preset as it is, an empty model folder leaves the current one.
    void restoreFormState(const QString& presetId, const QJsonObject& state);
    QString validationError() const;
    // The engine's estimate for the current settings, once it has answered.
    std::optional<MemoryEstimate> memoryEstimate() const;
    // Why the run will probably not fit the chosen devices; empty when it fits or is unknown.
    QString memoryWarning() const;

signals:
    void jobChanged();
    void validityChanged(bool valid);
    void memoryEstimateChanged();
    // A user preset was saved (selectId: the new one) or deleted (selectId empty).
    void userPresetsChanged(const QString& selectId);
    // An imported cogvideox-factory command named its dataset; the project should import it.
    void datasetImportRequested(const FactoryDataset& dataset);
    // The engine described another model folder (or the folder stopped being one): modelFacts().
    void modelFactsChanged();

protected:
    void changeEvent(QEvent* event) override;
    // Coming back from the Dataset page: condition frames may have changed there.
    void showEvent(QShowEvent* event) override;

private:
    void fillModelCacheMenu();
    void openHubDownloadDialog();
    void retranslateUi();
    void applyPreset(const JobPreset& preset);
    void onEdited();
    void revalidate();
    // The engine refused `field` of the job (as "lora.rank"): the message goes under that
    // field's row (the bottom line for a field the form has no widget for) and Train is off
    // until an edit makes the engine accept the job.
    void showJobRefusal(const QString& field, const QString& message);
    // The form layout and row holding the widget that sets `field`; false for none.
    bool locateField(const QString& field, QFormLayout*& layout, int& row) const;
    QJsonObject formValues() const;
    QVector<int> checkedGpus() const;
    void updateProcessRows();
    void requestEstimate();
    QJsonObject estimateRequest() const;
    // Asks the engine about the model folder when it changed and the source for pictures, so
    // job() itself does no file or database work.
    void inspectModelAndPictures();
    void onModelInspected(const ModelFacts& facts);
    void onModelInspectionFailed(const QString& folder, const QString& message);
    // Presets of another family than the model's are offered greyed out.
    void updatePresetChoices();
    const JobPreset* currentPreset() const;
    void saveAsPreset();
    void deleteCurrentPreset();
    void updateMemoryText();
    struct Capacity {
        qint64 bytes = 0; // 0: unknown
        QString where;
        bool host = false; // the computer's own memory (the run is on the CPU)
    };
    Capacity capacity() const;

    QVector<JobPreset> m_presets;
    QJsonObject m_presetJob;
    bool m_applying = false;
    bool m_valid = false;
    QString m_error;

    QFormLayout* m_form;
    QList<QLabel*> m_rowLabels;
    QComboBox* m_presetCombo;
    QPushButton* m_savePresetButton;
    QPushButton* m_deletePresetButton;
    QString m_userPresetFolder;
    std::function<QStringList(int)> m_conditionImages;
    QString m_inspectedFolder; // the model folder the engine was last asked about
    bool m_modelFolderExists = false;
    bool m_imageToVideo = false; // the run trains image-to-video (the model's task, or the choice)
    ModelInspector* m_inspector;
    ModelFamilyRows* m_familyRows;   // after the model row in m_form
    QString m_inspectionError;       // why the engine cannot use m_inspectedFolder
    QStringList m_conditionPictures; // for the validation prompts of an I2V job
    QLabel* m_presetDescription;
    QLineEdit* m_modelEdit;
    QPushButton* m_modelBrowse;
    QToolButton* m_modelCacheButton; // the Hugging Face cache's CogVideoX and Wan pipelines
    QPushButton* m_importButton;
    QSpinBox* m_rankSpin;
    QSpinBox* m_alphaSpin;
    QComboBox* m_baseWeightsCombo; // lora.base_quantization
    QComboBox* m_optimizerCombo;
    QLineEdit* m_learningRateEdit;
    QSpinBox* m_stepsSpin;
    QSpinBox* m_batchSpin;
    QComboBox* m_precisionCombo;
    QSpinBox* m_checkpointSpin;
    QSpinBox* m_validationEverySpin;
    QCheckBox* m_validateAtStartCheck; // validation.at_start, beside the spin
    QPlainTextEdit* m_promptsEdit;
    QLineEdit* m_triggerEdit;
    QComboBox* m_deviceCombo;
    // A GPU the preset or restored form names before NVML has listed it; setGpus selects it.
    QString m_wantedDevice;
    QLabel* m_deviceNote;
    QListWidget* m_gpuList;
    QSpinBox* m_cpuRanksSpin;
    MachinesFields* m_machinesFields;
    ParallelPlanRows* m_planRows; // after the rows above in m_form
    GpuInventory::Result m_gpus;
    QLabel* m_memoryLabel;
    AdvancedJobFields* m_advanced;
    QLabel* m_errorLabel;
    // The engine's refusal of one job field (estimate's check), under that field's row.
    FieldProblemNote* m_fieldProblem;
    QVBoxLayout* m_modelRow;
    QTimer* m_validateTimer;
    QTimer* m_estimateTimer;
    MemoryEstimator* m_estimator;
    std::optional<MemoryEstimate> m_estimate;
    // The job and process count of the estimate in flight, and of m_estimate.
    QJsonObject m_requestedJob;
    QJsonObject m_estimatedJob;
    QString m_estimateError;
};
