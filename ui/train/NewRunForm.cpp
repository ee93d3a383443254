#include "ui/train/NewRunForm.h"

#include "ui/train/AdvancedJobFields.h"
#include "ui/train/FactoryImportDialog.h"
#include "ui/train/FormFields.h"
#include "ui/train/HubDownloadDialog.h"
#include "ui/train/MachinesFields.h"
#include "ui/train/ModelFamilyRows.h"
#include "ui/train/ParallelPlanRows.h"
#include "ui/widgets/FieldProblemNote.h"

#include "app/engine/EngineLocator.h"
#include "app/hub/HuggingFaceCache.h"
#include "app/jobs/MemoryEstimator.h"
#include "app/jobs/ModelInspector.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QThreadPool>
#include <QTimer>
#include <QToolButton>

#include <utility>

namespace {

constexpr int kValidateDelayMs = 150;
// The estimate starts an engine process: wait until the typing stops.
constexpr int kEstimateDelayMs = 400;
// How long validateNow waits for the engine's description of a model folder just chosen.
constexpr int kInspectionWaitMs = 15000;

const QStringList kOptimizers = FormFields::jobChoices("optimizer.name");
// lora.base_quantization: how the frozen base transformer is stored while a LoRA trains.
const QStringList kBaseWeights = FormFields::jobChoices("lora.base_quantization");
const QStringList kPrecisions = FormFields::jobChoices("precision");
const QStringList kDevices = {QStringLiteral("auto"), QStringLiteral("cpu"),
                              QStringLiteral("cuda")};
// The device entry that trains on the GPUs ticked in the list, one worker each.
const QString kSeveralGpus = QStringLiteral("several-gpus");
QJsonObject object(const QJsonObject& parent, const char* key) {
    return parent.value(QLatin1String(key)).toObject();
}

// The family's name as people write it; the engine's own name for one this studio does not know.
QString familyTitle(const QString& family) {
    if (family == QLatin1String("cogvideox"))
        return QStringLiteral("CogVideoX");
    if (family == QLatin1String("wan"))
        return QStringLiteral("Wan");
    return family;
}

} // namespace

NewRunForm::NewRunForm(QWidget* parent)
    : QWidget(parent)
    , m_form(new QFormLayout)
    , m_presetCombo(new QComboBox(this))
    , m_savePresetButton(new QPushButton(this))
    , m_deletePresetButton(new QPushButton(this))
    , m_inspector(new ModelInspector(EngineLocator::enginePath(), this))
    , m_familyRows(nullptr)
    , m_presetDescription(new QLabel(this))
    , m_modelEdit(new QLineEdit(this))
    , m_modelBrowse(new QPushButton(this))
    , m_modelCacheButton(new QToolButton(this))
    , m_importButton(new QPushButton(this))
    , m_rankSpin(FormFields::jobSpinBox(this, "rankSpin", "lora.rank"))
    , m_alphaSpin(FormFields::jobSpinBox(this, "alphaSpin", "lora.alpha"))
    , m_baseWeightsCombo(FormFields::valueCombo(this, "baseWeightsCombo", kBaseWeights))
    , m_optimizerCombo(FormFields::valueCombo(this, "optimizerCombo", kOptimizers))
    , m_learningRateEdit(new QLineEdit(this))
    // At least 1: the form trains by steps (a job may instead give epochs).
    , m_stepsSpin(FormFields::jobSpinBox(this, "maxStepsSpin", "max_steps", 1))
    , m_batchSpin(FormFields::jobSpinBox(this, "batchSpin", "batch_size"))
    , m_precisionCombo(FormFields::valueCombo(this, "precisionCombo", kPrecisions))
    , m_checkpointSpin(
          FormFields::jobSpinBox(this, "checkpointEverySpin", "checkpoints.every_steps"))
    , m_validationEverySpin(
          FormFields::jobSpinBox(this, "validationEverySpin", "validation.every_steps"))
    , m_validateAtStartCheck(new QCheckBox(this))
    , m_promptsEdit(new QPlainTextEdit(this))
    , m_triggerEdit(new QLineEdit(this))
    , m_deviceCombo(FormFields::valueCombo(this, "deviceCombo", kDevices))
    , m_deviceNote(new QLabel(this))
    , m_gpuList(new QListWidget(this))
    , m_cpuRanksSpin(FormFields::spinBox(this, "cpuRanksSpin", 1, FormFields::kMostProcesses))
    , m_machinesFields(new MachinesFields(this))
    , m_planRows(nullptr)
    , m_memoryLabel(new QLabel(this))
    , m_advanced(new AdvancedJobFields(this))
    , m_errorLabel(new QLabel(this))
    , m_fieldProblem(new FieldProblemNote(this))
    , m_modelRow(nullptr)
    , m_validateTimer(new QTimer(this))
    , m_estimateTimer(new QTimer(this))
    , m_estimator(new MemoryEstimator(EngineLocator::enginePath(), this)) {
    setObjectName(QStringLiteral("newRunForm"));
    m_presetCombo->setObjectName(QStringLiteral("presetCombo"));
    m_savePresetButton->setObjectName(QStringLiteral("savePresetButton"));
    m_deletePresetButton->setObjectName(QStringLiteral("deletePresetButton"));
    m_savePresetButton->setEnabled(false);
    m_deletePresetButton->setEnabled(false);
    m_presetDescription->setObjectName(QStringLiteral("presetDescription"));
    m_presetDescription->setWordWrap(true);
    m_presetDescription->setForegroundRole(QPalette::PlaceholderText);
    m_modelEdit->setObjectName(QStringLiteral("modelFolderEdit"));
    m_modelBrowse->setObjectName(QStringLiteral("modelFolderBrowse"));
    m_modelCacheButton->setObjectName(QStringLiteral("modelCacheButton"));
    m_modelCacheButton->setPopupMode(QToolButton::InstantPopup);
    auto* cacheMenu = new QMenu(m_modelCacheButton);
    cacheMenu->setObjectName(QStringLiteral("modelCacheMenu"));
    m_modelCacheButton->setMenu(cacheMenu);
    // Read when opened: a download may have finished since the form was built.
    connect(cacheMenu, &QMenu::aboutToShow, this, &NewRunForm::fillModelCacheMenu);
    m_importButton->setObjectName(QStringLiteral("importFactoryCommandButton"));
    m_learningRateEdit->setObjectName(QStringLiteral("learningRateEdit"));
    m_promptsEdit->setObjectName(QStringLiteral("validationPromptsEdit"));
    m_validateAtStartCheck->setObjectName(QStringLiteral("validateAtStartCheck"));
    m_promptsEdit->setMaximumHeight(90);
    m_triggerEdit->setObjectName(QStringLiteral("triggerWordEdit"));
    m_deviceNote->setObjectName(QStringLiteral("deviceNote"));
    m_gpuList->setObjectName(QStringLiteral("gpuList"));
    m_gpuList->setMaximumHeight(90);
    m_deviceNote->setWordWrap(true);
    m_deviceNote->setForegroundRole(QPalette::PlaceholderText);
    m_memoryLabel->setObjectName(QStringLiteral("memoryEstimateLabel"));
    m_memoryLabel->setWordWrap(true);
    m_memoryLabel->setTextFormat(Qt::RichText);
    m_errorLabel->setObjectName(QStringLiteral("jobErrorLabel"));
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_errorLabel->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_errorLabel->hide();

    // The folder's path over the whole field and its buttons under it: beside them, a narrow
    // column showed a few letters of the path ("-demo").
    auto* modelButtons = new QHBoxLayout;
    modelButtons->addWidget(m_modelBrowse);
    modelButtons->addWidget(m_modelCacheButton);
    modelButtons->addStretch(1);
    m_modelRow = new QVBoxLayout;
    m_modelRow->addWidget(m_modelEdit);
    m_modelRow->addLayout(modelButtons);
    auto addRow = [this](QWidget* field, QLayout* fieldLayout = nullptr) {
        auto* label = new QLabel(this);
        m_rowLabels.append(label);
        if (fieldLayout)
            m_form->addRow(label, fieldLayout);
        else
            m_form->addRow(label, field);
    };
    // A narrow column puts a label above its field instead of cutting the field off.
    m_form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    FormFields::letShrink(m_presetCombo);
    // The preset's name over the whole field and its buttons under it, as the model folder's:
    // beside them, the name showed as "CogVideoX tiny (dem".
    auto* presetButtons = new QHBoxLayout;
    presetButtons->addWidget(m_savePresetButton);
    presetButtons->addWidget(m_deletePresetButton);
    presetButtons->addStretch(1);
    auto* presetRow = new QVBoxLayout;
    presetRow->addWidget(m_presetCombo);
    presetRow->addLayout(presetButtons);
    addRow(nullptr, presetRow);
    m_form->addRow(m_presetDescription);
    addRow(nullptr, m_modelRow);
    m_familyRows = new ModelFamilyRows(this, m_form);
    for (QWidget* field : std::initializer_list<QWidget*>{
             m_rankSpin, m_alphaSpin, m_baseWeightsCombo, m_optimizerCombo, m_learningRateEdit,
             m_stepsSpin, m_batchSpin, m_precisionCombo, m_checkpointSpin, m_validationEverySpin,
             m_promptsEdit, m_triggerEdit, m_deviceCombo, m_gpuList, m_cpuRanksSpin,
             m_machinesFields})
        if (field == m_validationEverySpin) {
            auto* validationRow = new QHBoxLayout;
            validationRow->addWidget(m_validationEverySpin, 1);
            validationRow->addWidget(m_validateAtStartCheck);
            addRow(field, validationRow);
        } else {
            addRow(field);
        }
    m_planRows = new ParallelPlanRows(this, m_form);
    m_form->addRow(m_deviceNote);
    m_form->addRow(m_memoryLabel);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(m_form);
    layout->addWidget(m_advanced);
    layout->addWidget(m_importButton);
    layout->addWidget(m_errorLabel);

    m_validateTimer->setSingleShot(true);
    m_validateTimer->setInterval(kValidateDelayMs);
    connect(m_validateTimer, &QTimer::timeout, this, &NewRunForm::revalidate);
    m_estimateTimer->setSingleShot(true);
    m_estimateTimer->setInterval(kEstimateDelayMs);
    connect(m_estimateTimer, &QTimer::timeout, this, &NewRunForm::requestEstimate);
    connect(m_estimator, &MemoryEstimator::estimated, this, [this](const MemoryEstimate& estimate) {
        m_estimate = estimate;
        m_estimatedJob = m_requestedJob;
        m_estimateError.clear();
        updateMemoryText();
        emit memoryEstimateChanged();
    });
    connect(m_estimator, &MemoryEstimator::failed, this,
            [this](const QString& message, const QString& field) {
                if (m_requestedJob != estimateRequest())
                    return; // about settings edited since; their own estimate follows
                m_estimate.reset();
                m_estimateError.clear();
                if (field.isEmpty())
                    m_estimateError = message;
                else
                    showJobRefusal(field, message);
                updateMemoryText();
                emit memoryEstimateChanged();
            });
    connect(m_presetCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0 && index < m_presets.size())
            applyPreset(m_presets.at(index));
    });
    connect(m_savePresetButton, &QPushButton::clicked, this, &NewRunForm::saveAsPreset);
    connect(m_deletePresetButton, &QPushButton::clicked, this, &NewRunForm::deleteCurrentPreset);
    connect(m_modelBrowse, &QPushButton::clicked, this, [this] {
        auto* dialog = new QFileDialog(this, tr("Choose the Model Folder"), m_modelEdit->text());
        dialog->setFileMode(QFileDialog::Directory);
        dialog->setOption(QFileDialog::ShowDirsOnly);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QFileDialog::fileSelected, this, &NewRunForm::setModelFolder);
        dialog->open();
    });
    connect(m_importButton, &QPushButton::clicked, this, [this] {
        auto* dialog = new FactoryImportDialog(this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &FactoryImportDialog::importAccepted, this, &NewRunForm::applyOverrides);
        connect(dialog, &FactoryImportDialog::datasetImportRequested, this,
                &NewRunForm::datasetImportRequested);
        dialog->open();
    });
    for (QSpinBox* box : {m_rankSpin, m_alphaSpin, m_stepsSpin, m_batchSpin, m_checkpointSpin,
                          m_validationEverySpin, m_cpuRanksSpin})
        connect(box, &QSpinBox::valueChanged, this, &NewRunForm::onEdited);
    for (QComboBox* box : {m_baseWeightsCombo, m_optimizerCombo, m_precisionCombo, m_deviceCombo})
        connect(box, &QComboBox::currentIndexChanged, this, &NewRunForm::onEdited);
    connect(m_gpuList, &QListWidget::itemChanged, this, &NewRunForm::onEdited);
    connect(m_machinesFields, &MachinesFields::edited, this, &NewRunForm::onEdited);
    connect(m_planRows, &ParallelPlanRows::edited, this, &NewRunForm::onEdited);
    for (QLineEdit* edit : {m_modelEdit, m_learningRateEdit, m_triggerEdit})
        connect(edit, &QLineEdit::textChanged, this, &NewRunForm::onEdited);
    connect(m_promptsEdit, &QPlainTextEdit::textChanged, this, &NewRunForm::onEdited);
    // A long path may still be wider than the field.
    connect(m_modelEdit, &QLineEdit::textChanged, this, [this](const QString& folder) {
        m_modelEdit->setToolTip(QDir::toNativeSeparators(folder));
    });
    connect(m_validateAtStartCheck, &QCheckBox::toggled, this, &NewRunForm::onEdited);
    // Before onEdited, so the job it announces already has the offload the checkpointing allows.
    connect(m_advanced, &AdvancedJobFields::edited, this, [this] {
        m_familyRows->setGradientCheckpointing(m_advanced->gradientCheckpointing());
    });
    connect(m_advanced, &AdvancedJobFields::edited, this, &NewRunForm::onEdited);
    connect(m_familyRows, &ModelFamilyRows::edited, this, &NewRunForm::onEdited);
    connect(m_inspector, &ModelInspector::inspected, this, &NewRunForm::onModelInspected);
    connect(m_inspector, &ModelInspector::failed, this, &NewRunForm::onModelInspectionFailed);
    retranslateUi();
    updateProcessRows();
    revalidate();
    refreshGpus();
}

void NewRunForm::setEnginePath(const QString& enginePath) {
    m_estimator->setEnginePath(enginePath);
    m_inspector->setEnginePath(enginePath);
}

void NewRunForm::refreshGpus() {
    QPointer<NewRunForm> form(this);
    QThreadPool::globalInstance()->start([form] {
        const GpuInventory::Result inventory = GpuInventory::query();
        QMetaObject::invokeMethod(qApp, [form, inventory] {
            if (form)
                form->setGpus(inventory);
        });
    });
}

void NewRunForm::setGpus(const GpuInventory::Result& inventory) {
    m_gpus = inventory;
    const QString current =
        m_wantedDevice.isEmpty() ? m_deviceCombo->currentData().toString() : m_wantedDevice;
    m_wantedDevice.clear();
    {
        const QSignalBlocker blocker(m_deviceCombo);
        while (m_deviceCombo->count() > 2)
            m_deviceCombo->removeItem(2);
        if (inventory.gpus.isEmpty())
            m_deviceCombo->addItem(QString(), QStringLiteral("cuda"));
        for (const GpuInfo& gpu : inventory.gpus)
            m_deviceCombo->addItem(QString(), QStringLiteral("cuda:%1").arg(gpu.index));
        if (inventory.gpus.size() > 1)
            m_deviceCombo->addItem(QString(), kSeveralGpus);
        const int index = m_deviceCombo->findData(current);
        m_deviceCombo->setCurrentIndex(index >= 0 ? index : 0);
    }
    {
        const QSignalBlocker blocker(m_gpuList);
        m_gpuList->clear();
        for (const GpuInfo& gpu : inventory.gpus) {
            auto* item = new QListWidgetItem(m_gpuList);
            item->setData(Qt::UserRole, gpu.index);
            item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
            item->setCheckState(Qt::Checked);
        }
    }
    retranslateUi();
    updateProcessRows();
}

void NewRunForm::setPresets(const QVector<JobPreset>& presets) {
    const QString current = presetId();
    m_presets = presets;
    {
        const QSignalBlocker blocker(m_presetCombo);
        m_presetCombo->clear();
        for (const JobPreset& preset : presets)
            m_presetCombo->addItem(preset.user ? tr("%1 (yours)").arg(preset.displayName())
                                               : preset.displayName(),
                                   preset.id);
    }
    updatePresetChoices();
    if (!selectPreset(current) && !presets.isEmpty()) {
        m_presetCombo->setCurrentIndex(0);
        applyPreset(presets.first());
    }
}

bool NewRunForm::selectPreset(const QString& presetId) {
    const int index = m_presetCombo->findData(presetId);
    if (index < 0)
        return false;
    if (index == m_presetCombo->currentIndex())
        applyPreset(m_presets.at(index));
    else
        m_presetCombo->setCurrentIndex(index);
    return true;
}

QString NewRunForm::presetId() const {
    return m_presetCombo->currentData().toString();
}

QString NewRunForm::presetName() const {
    const JobPreset* preset = currentPreset();
    return preset ? preset->name : m_presetCombo->currentText();
}

const JobPreset* NewRunForm::currentPreset() const {
    const int index = m_presetCombo->currentIndex();
    return index >= 0 && index < m_presets.size() ? &m_presets.at(index) : nullptr;
}

void NewRunForm::setConditionImageSource(std::function<QStringList(int)> source) {
    m_conditionImages = std::move(source);
    m_validateTimer->start();
}

void NewRunForm::setUserPresetFolder(const QString& folder) {
    m_userPresetFolder = folder;
    m_savePresetButton->setEnabled(!folder.isEmpty() && m_valid);
}

void NewRunForm::saveAsPreset() {
    const JobPreset* base = currentPreset();
    if (!base || m_userPresetFolder.isEmpty())
        return;
    auto* dialog = new QInputDialog(this);
    dialog->setObjectName(QStringLiteral("savePresetDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Save as Preset"));
    dialog->setLabelText(tr("A name for these settings (the model folder is not saved):"));
    dialog->setTextValue(base->user ? base->name : tr("%1, my settings").arg(base->name));
    const JobPreset baseCopy = *base;
    connect(dialog, &QInputDialog::textValueSelected, this, [this, baseCopy](const QString& name) {
        // Validation images are this project's condition frames, not part of the settings.
        QJsonObject settings = job();
        QJsonObject validation = object(settings, "validation");
        validation.remove(QStringLiteral("images"));
        settings.insert(QStringLiteral("validation"), validation);
        QString error;
        const std::optional<JobPreset> saved =
            JobPresets::saveUser(m_userPresetFolder, name, baseCopy, settings, &error);
        if (!saved) {
            m_errorLabel->setText(error);
            m_errorLabel->setVisible(true);
            return;
        }
        emit userPresetsChanged(saved->id);
    });
    dialog->open();
}

void NewRunForm::deleteCurrentPreset() {
    const JobPreset* preset = currentPreset();
    if (!preset || !preset->user)
        return;
    auto* box = new QMessageBox(QMessageBox::Question, tr("Delete Preset"),
                                tr("Delete your preset “%1”? Runs made with it keep their "
                                   "settings.")
                                    .arg(preset->name),
                                QMessageBox::Yes | QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("deletePresetBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    const JobPreset doomed = *preset;
    connect(box->button(QMessageBox::Yes), &QPushButton::clicked, this, [this, doomed] {
        QString error;
        if (!JobPresets::removeUser(doomed, &error)) {
            m_errorLabel->setText(error);
            m_errorLabel->setVisible(true);
            return;
        }
        emit userPresetsChanged(QString());
    });
    box->open();
}

void NewRunForm::setModelFolder(const QString& folder) {
    m_modelEdit->setText(QDir::toNativeSeparators(folder));
}

QString NewRunForm::modelFolder() const {
    return QDir::fromNativeSeparators(m_modelEdit->text().trimmed());
}

std::optional<ModelFacts> NewRunForm::modelFacts() const {
    const std::optional<ModelFacts>& facts = m_familyRows->facts();
    return facts && facts->folder == modelFolder() ? facts : std::nullopt;
}

void NewRunForm::onModelInspected(const ModelFacts& facts) {
    if (facts.folder != m_inspectedFolder)
        return; // about a folder typed over since
    m_inspectionError.clear();
    m_familyRows->setFacts(facts);
    m_advanced->setModelFacts(facts);
    updatePresetChoices();
    emit modelFactsChanged();
    onEdited(); // the task and the rows that apply changed the job
}

void NewRunForm::onModelInspectionFailed(const QString& folder, const QString& message) {
    if (folder != m_inspectedFolder)
        return;
    m_inspectionError = message;
    m_familyRows->showProblem(message);
    m_validateTimer->start();
}

void NewRunForm::updatePresetChoices() {
    auto* items = qobject_cast<QStandardItemModel*>(m_presetCombo->model());
    const std::optional<ModelFacts> facts = modelFacts();
    for (int row = 0; items && row < items->rowCount() && row < m_presets.size(); ++row) {
        const JobPreset& preset = m_presets.at(row);
        const bool fits = !facts || preset.family == facts->family;
        items->item(row)->setEnabled(fits);
        items->item(row)->setToolTip(
            fits ? preset.displayDescription()
                 : tr("For %1 models; the model folder holds a %2 model.")
                       .arg(familyTitle(preset.family), familyTitle(facts->family)));
    }
}

std::optional<MemoryEstimate> NewRunForm::memoryEstimate() const {
    // One for other settings is not this job's, though its text stays until the next arrives.
    if (m_estimatedJob != estimateRequest())
        return std::nullopt;
    return m_estimate;
}

QJsonObject NewRunForm::estimateRequest() const {
    return QJsonObject{{QStringLiteral("job"), job()},
                       {QStringLiteral("processes"), launchPlan().worldSize()}};
}

void NewRunForm::requestEstimate() {
    if (!m_valid)
        return;
    m_requestedJob = estimateRequest();
    m_estimator->request(job(), launchPlan().worldSize());
}

NewRunForm::Capacity NewRunForm::capacity() const {
    const QString device = m_deviceCombo->currentData().toString();
    const bool cpu = device == QLatin1String("cpu") ||
                     (device == QLatin1String("auto") && m_gpus.gpus.isEmpty());
    Capacity result;
    if (cpu) {
        // CPU ranks share the machine's memory.
        result.bytes = m_gpus.hostAvailableBytes / qMax(1, launchPlan().processCount());
        result.where = tr("available to each process on this computer");
        result.host = true;
        return result;
    }
    QVector<int> chosen;
    if (device == kSeveralGpus)
        chosen = checkedGpus();
    else if (device.startsWith(QLatin1String("cuda:")))
        chosen = {device.mid(5).toInt()};
    else if (!m_gpus.gpus.isEmpty())
        chosen = {m_gpus.gpus.first().index};
    for (const GpuInfo& gpu : m_gpus.gpus) {
        if (!chosen.contains(gpu.index) || gpu.totalBytes <= 0)
            continue;
        if (result.bytes == 0 || gpu.freeBytes < result.bytes) {
            result.bytes = gpu.freeBytes;
            result.where = tr("free on GPU %1 (%2)").arg(gpu.index).arg(gpu.name);
        }
    }
    return result;
}

QString NewRunForm::memoryWarning() const {
    const MemoryEstimate::Phase* largest = m_estimate ? m_estimate->largestPhase() : nullptr;
    const Capacity available = capacity();
    const QLocale locale;
    // On a GPU, offloaded blocks and activations, a parked expert and an offloaded optimizer
    // wait in the computer's memory, which the processes share.
    const MemoryEstimate::Phase* host = m_estimate ? m_estimate->largestHostPhase() : nullptr;
    const qint64 hostNeeded = host ? host->totalBytes * launchPlan().processCount() : 0;
    if (host && !available.host && m_gpus.hostAvailableBytes > 0 &&
        hostNeeded > m_gpus.hostAvailableBytes &&
        (!largest || available.bytes <= 0 || largest->totalBytes <= available.bytes))
        return tr("%1 keeps about %2 in this computer's memory, more than the %3 available. "
                  "Offload fewer blocks or no activations, park the idle expert on the disk, or "
                  "close other programs.")
            .arg(MemoryEstimate::phaseTitle(host->name), locale.formattedDataSize(hostNeeded),
                 locale.formattedDataSize(m_gpus.hostAvailableBytes));
    if (!largest || available.bytes <= 0 || largest->totalBytes <= available.bytes)
        return QString();
    return tr("%1 needs about %2 per process, more than the %3 %4. Lower the batch size or the "
              "largest bucket, turn on gradient checkpointing or VAE tiling, choose an 8-bit or "
              "CPU-offloaded optimizer, store the base weights in int8 or fp8, offload blocks or "
              "activations to host memory, add GPUs with ZeRO-2, or pick a preset for less memory.")
        .arg(MemoryEstimate::phaseTitle(largest->name),
             locale.formattedDataSize(largest->totalBytes),
             locale.formattedDataSize(available.bytes), available.where);
}

void NewRunForm::updateMemoryText() {
    QString text;
    if (m_estimate) {
        const QLocale locale;
        QStringList phases;
        for (const MemoryEstimate::Phase& phase : m_estimate->phases) {
            QStringList parts;
            for (const MemoryEstimate::Part& part : phase.parts)
                parts.append(QStringLiteral("%1 %2").arg(
                    MemoryEstimate::partTitle(part.name).toHtmlEscaped(),
                    locale.formattedDataSize(part.bytes)));
            phases.append(phase.skipped
                              ? tr("%1: not run").arg(MemoryEstimate::phaseTitle(phase.name))
                              : QStringLiteral("<span title=\"%3\">%1 %2</span>")
                                    .arg(MemoryEstimate::phaseTitle(phase.name),
                                         locale.formattedDataSize(phase.totalBytes),
                                         parts.join(QStringLiteral(", "))));
        }
        text = tr("Memory estimate per process:") + QStringLiteral("<br>") +
               phases.join(QStringLiteral("<br>"));
        if (const MemoryEstimate::Phase* host = m_estimate->largestHostPhase()) {
            QStringList parts;
            for (const MemoryEstimate::Part& part : host->parts)
                parts.append(QStringLiteral("%1 %2").arg(
                    MemoryEstimate::partTitle(part.name).toHtmlEscaped(),
                    locale.formattedDataSize(part.bytes)));
            text += QStringLiteral("<br><span title=\"%2\">%1</span>")
                        .arg(tr("In host memory while training: %1")
                                 .arg(locale.formattedDataSize(host->totalBytes))
                                 .toHtmlEscaped(),
                             parts.join(QStringLiteral(", ")));
        }
        const QString warning = memoryWarning();
        if (!warning.isEmpty())
            text += QStringLiteral("<br><span style=\"color:#c0392b\">%1</span>")
                        .arg(warning.toHtmlEscaped());
    } else if (!m_estimateError.isEmpty()) {
        text = tr("No memory estimate: %1").arg(m_estimateError.toHtmlEscaped());
    }
    m_memoryLabel->setText(text);
    m_memoryLabel->setVisible(!text.isEmpty());
}

LaunchPlan NewRunForm::launchPlan() const {
    const QString device = m_deviceCombo->currentData().toString();
    const auto onMachines = [this](const LaunchPlan& plan) {
        return plan.onMachines(m_machinesFields->count(), m_machinesFields->address(),
                               m_machinesFields->port());
    };
    if (device == kSeveralGpus)
        return onMachines(LaunchPlan::gpus(checkedGpus()));
    if (device == QLatin1String("cpu"))
        return onMachines(LaunchPlan::cpuRanks(m_cpuRanksSpin->value()));
    return LaunchPlan::singleProcess();
}

QVector<int> NewRunForm::checkedGpus() const {
    QVector<int> indices;
    for (int row = 0; row < m_gpuList->count(); ++row) {
        const QListWidgetItem* item = m_gpuList->item(row);
        if (item->checkState() == Qt::Checked)
            indices.append(item->data(Qt::UserRole).toInt());
    }
    return indices;
}

void NewRunForm::updateProcessRows() {
    const QString device = m_deviceCombo->currentData().toString();
    m_form->setRowVisible(m_gpuList, device == kSeveralGpus);
    m_form->setRowVisible(m_cpuRanksSpin, device == QLatin1String("cpu"));
    m_form->setRowVisible(m_machinesFields,
                          device == kSeveralGpus || device == QLatin1String("cpu"));
    m_planRows->setProcessCount(launchPlan().worldSize());
}

QJsonObject NewRunForm::job() const {
    return JobPresets::merge(m_presetJob, formValues());
}

bool NewRunForm::isValid() const {
    return m_valid;
}

QString NewRunForm::validationError() const {
    return m_error;
}

void NewRunForm::applyOverrides(const QJsonObject& job) {
    JobPreset preset;
    const int index = m_presetCombo->currentIndex();
    if (index >= 0 && index < m_presets.size())
        preset = m_presets.at(index);
    // What the user already typed stays the base; the import replaces what it names.
    preset.job = JobPresets::merge(JobPresets::merge(m_presetJob, formValues()), job);
    preset.job.remove(QStringLiteral("model"));
    const QString model = modelFolder();
    applyPreset(preset);
    setModelFolder(model);
}

QJsonObject NewRunForm::formState() const {
    QJsonObject settings = job();
    settings.remove(QStringLiteral("model"));
    QJsonObject validation = object(settings, "validation");
    validation.remove(QStringLiteral("images"));
    settings.insert(QStringLiteral("validation"), validation);
    return QJsonObject{{QStringLiteral("job"), settings},
                       {QStringLiteral("model"), modelFolder()},
                       {QStringLiteral("cpu_processes"), m_cpuRanksSpin->value()}};
}

void NewRunForm::restoreFormState(const QString& presetId, const QJsonObject& state) {
    if (!presetId.isEmpty())
        selectPreset(presetId);
    const QJsonObject settings = object(state, "job");
    if (!settings.isEmpty())
        applyOverrides(settings);
    const QString model = state.value(QStringLiteral("model")).toString();
    if (!model.isEmpty())
        setModelFolder(model);
    if (state.contains(QStringLiteral("cpu_processes")))
        m_cpuRanksSpin->setValue(state.value(QStringLiteral("cpu_processes")).toInt(1));
}

void NewRunForm::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void NewRunForm::retranslateUi() {
    const QStringList labels{tr("Preset"),
                             tr("Model folder"),
                             tr("LoRA rank"),
                             tr("LoRA alpha"),
                             tr("Base weights"),
                             tr("Optimizer"),
                             tr("Learning rate"),
                             tr("Steps"),
                             tr("Batch size"),
                             tr("Precision"),
                             tr("Checkpoint every"),
                             tr("Validate every"),
                             tr("Validation prompts"),
                             tr("Trigger word"),
                             tr("Device"),
                             tr("GPUs to use"),
                             tr("CPU processes"),
                             tr("Machines")};
    for (qsizetype row = 0; row < m_rowLabels.size() && row < labels.size(); ++row)
        m_rowLabels.at(row)->setText(labels.at(row));
    m_baseWeightsCombo->setItemText(0, tr("Full precision"));
    m_baseWeightsCombo->setItemText(1, tr("int8 (smaller, any device)"));
    m_baseWeightsCombo->setItemText(2, tr("fp8 (smaller, CUDA)"));
    m_baseWeightsCombo->setToolTip(
        tr("How the model being fine-tuned is kept in memory while the LoRA trains. int8 and fp8 "
           "store its large layers in one byte per weight instead of two, which roughly halves "
           "the memory they take, at a small cost in accuracy. The LoRA you export still works "
           "with the original model. int8 works everywhere; fp8 needs an engine built with "
           "LibTorch 2.1 or newer and is meant for NVIDIA GPUs."));
    m_modelBrowse->setText(tr("Browse…"));
    m_modelCacheButton->setText(tr("Hugging Face"));
    m_modelCacheButton->setToolTip(
        tr("CogVideoX and Wan pipelines in the Hugging Face cache (downloaded with "
           "huggingface-cli or by a trainer built on huggingface_hub), by repository and "
           "revision."));
    m_savePresetButton->setText(tr("Save as Preset…"));
    m_savePresetButton->setToolTip(tr("Keep these settings as a preset of your own."));
    m_deletePresetButton->setText(tr("Delete"));
    m_deletePresetButton->setToolTip(tr("Delete this preset (only presets you saved)."));
    for (int index = 0; index < m_presetCombo->count() && index < m_presets.size(); ++index) {
        const JobPreset& preset = m_presets.at(index);
        m_presetCombo->setItemText(index, preset.user ? tr("%1 (yours)").arg(preset.displayName())
                                                      : preset.displayName());
    }
    if (const JobPreset* preset = currentPreset())
        m_presetDescription->setText(preset->displayDescription());
    updatePresetChoices();
    m_familyRows->retranslateUi();
    m_importButton->setText(tr("Import cogvideox-factory Command…"));
    m_modelEdit->setPlaceholderText(tr("A diffusers CogVideoX or Wan pipeline folder"));
    m_promptsEdit->setPlaceholderText(tr("One prompt per line"));
    m_triggerEdit->setPlaceholderText(tr("Optional: a word put before every caption"));
    m_checkpointSpin->setSpecialValueText(tr("only at the end"));
    m_validationEverySpin->setSpecialValueText(tr("never"));
    m_validateAtStartCheck->setText(tr("and before the first step"));
    m_validateAtStartCheck->setToolTip(
        tr("Also render the validation prompts before training starts, so the gallery shows "
           "what the model made before it learned anything, next to what it makes later."));
    m_deviceCombo->setItemText(0, tr("Automatic (a GPU when there is one)"));
    m_deviceCombo->setItemText(1, tr("CPU"));
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    auto gpuText = [](const GpuInfo& info) {
        return tr("GPU %1: %2, %3 of %4 GiB free")
            .arg(info.index)
            .arg(info.name, QLocale().toString(info.freeBytes / kGiB, 'f', 1),
                 QLocale().toString(info.totalBytes / kGiB, 'f', 1));
    };
    for (int index = 2; index < m_deviceCombo->count(); ++index) {
        const int gpu = index - 2;
        if (m_deviceCombo->itemData(index).toString() == kSeveralGpus)
            m_deviceCombo->setItemText(index, tr("Several GPUs (one worker each)"));
        else if (gpu < m_gpus.gpus.size())
            m_deviceCombo->setItemText(index, gpuText(m_gpus.gpus.at(gpu)));
        else
            m_deviceCombo->setItemText(index, tr("GPU (CUDA)"));
    }
    for (int row = 0; row < m_gpuList->count() && row < m_gpus.gpus.size(); ++row)
        m_gpuList->item(row)->setText(gpuText(m_gpus.gpus.at(row)));
    m_cpuRanksSpin->setToolTip(tr("More than one process trains data parallel on the CPU, the "
                                  "way several GPUs would; each process gets a share of the "
                                  "cores."));
    m_planRows->retranslateUi();
    m_deviceNote->setText(m_gpus.gpus.isEmpty() ? m_gpus.problem : QString());
    m_deviceNote->setVisible(!m_deviceNote->text().isEmpty());
    revalidate();
    updateMemoryText();
}

void NewRunForm::applyPreset(const JobPreset& preset) {
    m_applying = true;
    m_presetJob = preset.job;
    m_presetDescription->setText(preset.displayDescription());
    m_deletePresetButton->setEnabled(preset.user);
    const QJsonObject lora = object(preset.job, "lora");
    const QJsonObject optimizer = object(preset.job, "optimizer");
    const QJsonObject checkpoints = object(preset.job, "checkpoints");
    const QJsonObject validation = object(preset.job, "validation");
    const bool isLora = preset.job.value(QStringLiteral("mode")).toString(QStringLiteral("lora")) ==
                        QLatin1String("lora");
    m_rankSpin->setValue(lora.value(QStringLiteral("rank")).toInt(64));
    m_alphaSpin->setValue(lora.value(QStringLiteral("alpha")).toInt(64));
    m_rankSpin->setEnabled(isLora);
    m_alphaSpin->setEnabled(isLora);
    FormFields::selectValue(
        m_baseWeightsCombo,
        lora.value(QStringLiteral("base_quantization")).toString(kBaseWeights.first()));
    // A full fine-tune trains the base itself, which cannot be stored quantized.
    m_baseWeightsCombo->setEnabled(isLora);
    FormFields::selectValue(
        m_optimizerCombo,
        optimizer.value(QStringLiteral("name")).toString(QStringLiteral("adamw")));
    m_learningRateEdit->setText(
        QString::number(optimizer.value(QStringLiteral("lr")).toDouble(1e-4), 'g', 6));
    m_stepsSpin->setValue(preset.job.value(QStringLiteral("max_steps")).toInt(1000));
    m_batchSpin->setValue(preset.job.value(QStringLiteral("batch_size")).toInt(1));
    FormFields::selectValue(
        m_precisionCombo,
        preset.job.value(QStringLiteral("precision")).toString(QStringLiteral("bf16")));
    m_checkpointSpin->setValue(checkpoints.value(QStringLiteral("every_steps")).toInt(500));
    m_validationEverySpin->setValue(validation.value(QStringLiteral("every_steps")).toInt(0));
    m_validateAtStartCheck->setChecked(validation.value(QStringLiteral("at_start")).toBool(false));
    QStringList prompts;
    for (const QJsonValue& prompt : validation.value(QStringLiteral("prompts")).toArray())
        prompts.append(prompt.toString());
    m_promptsEdit->setPlainText(prompts.join(QLatin1Char('\n')));
    m_triggerEdit->setText(preset.job.value(QStringLiteral("trigger_word")).toString());
    const QString device =
        preset.job.value(QStringLiteral("device")).toString(QStringLiteral("auto"));
    FormFields::selectValue(m_deviceCombo, device);
    m_wantedDevice = m_deviceCombo->currentData().toString() == device ? QString() : device;
    const QJsonObject parallel = object(preset.job, "parallel");
    m_planRows->setParallel(parallel);
    m_advanced->setJob(preset.job);
    m_familyRows->setJob(preset.job);
    m_applying = false;
    // A demo preset trains its own demo model, which lies beside the other in the demo
    // project's models/ folder.
    if (!preset.demoModel.isEmpty() && !modelFolder().isEmpty()) {
        const QString sibling =
            QDir(QFileInfo(modelFolder()).absolutePath()).filePath(preset.demoModel);
        if (sibling != QFileInfo(modelFolder()).absoluteFilePath() &&
            QFileInfo(QDir(sibling).filePath(QStringLiteral("model_index.json"))).isFile())
            setModelFolder(sibling);
    }
    onEdited();
}

void NewRunForm::onEdited() {
    updateProcessRows();
    if (m_applying)
        return;
    m_validateTimer->start();
    emit jobChanged();
}

void NewRunForm::inspectModelAndPictures() {
    const QString folder = modelFolder();
    if (folder != m_inspectedFolder) {
        m_inspectedFolder = folder;
        m_inspectionError.clear();
        m_modelFolderExists = !folder.isEmpty() && QFileInfo(folder).isDir();
        const bool hadFacts = m_familyRows->facts().has_value();
        if (m_modelFolderExists) {
            m_familyRows->showInspecting();
            m_inspector->inspect(folder);
        } else {
            m_inspector->cancel();
            m_familyRows->clear();
        }
        m_advanced->setModelFacts(std::nullopt);
        updatePresetChoices();
        if (hadFacts)
            emit modelFactsChanged();
    }
    m_imageToVideo = m_familyRows->task() == QLatin1String("i2v");
    const int prompts = static_cast<int>(
        m_promptsEdit->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts).size());
    m_conditionPictures = m_imageToVideo && prompts > 0 && m_conditionImages
                              ? m_conditionImages(prompts)
                              : QStringList();
}

void NewRunForm::validateNow() {
    m_validateTimer->stop();
    // Train decides at once: a model folder chosen a moment ago is read to its end first (a
    // second at most: configs and weight headers).
    inspectModelAndPictures();
    m_inspector->waitForAnswer(kInspectionWaitMs);
    revalidate();
}

void NewRunForm::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    m_validateTimer->start();
}

void NewRunForm::showJobRefusal(const QString& field, const QString& message) {
    QFormLayout* layout = nullptr;
    int row = -1;
    if (locateField(field, layout, row)) {
        m_fieldProblem->show(layout, row, message);
    } else {
        m_errorLabel->setText(message);
        m_errorLabel->show();
    }
    m_error = message;
    if (m_valid) {
        m_valid = false;
        m_savePresetButton->setEnabled(false);
        emit validityChanged(false);
    }
}

bool NewRunForm::locateField(const QString& field, QFormLayout*& layout, int& row) const {
    QFormLayout::ItemRole role;
    layout = m_form;
    row = -1;
    if (QWidget* familyField = m_familyRows->fieldWidget(field);
        familyField && familyField->isVisibleTo(const_cast<NewRunForm*>(this))) {
        m_form->getWidgetPosition(familyField, &row, &role);
        return row >= 0;
    }
    if (field == QLatin1String("task") || field == QLatin1String("model")) {
        m_form->getLayoutPosition(m_modelRow, &row, &role);
        return row >= 0;
    }
    const std::initializer_list<std::pair<const char*, QWidget*>> fields{
        {"lora.rank", m_rankSpin},
        {"lora.alpha", m_alphaSpin},
        {"lora.base_quantization", m_baseWeightsCombo},
        {"optimizer.name", m_optimizerCombo},
        {"optimizer.lr", m_learningRateEdit},
        {"max_steps", m_stepsSpin},
        {"batch_size", m_batchSpin},
        {"precision", m_precisionCombo},
        {"validation.every_steps", m_validationEverySpin},
        {"trigger_word", m_triggerEdit}};
    for (const auto& [name, widget] : fields) {
        if (field == QLatin1String(name)) {
            m_form->getWidgetPosition(widget, &row, &role);
            return row >= 0;
        }
    }
    if (QWidget* planField = m_planRows->fieldWidget(field)) {
        m_form->getWidgetPosition(planField, &row, &role);
        return row >= 0;
    }
    // The validation videos' size and length come with the preset; the prompts are what the
    // form shows of validation.
    if (field.startsWith(QLatin1String("validation."))) {
        m_form->getWidgetPosition(m_promptsEdit, &row, &role);
        return row >= 0;
    }
    QWidget* advanced = m_advanced->fieldWidget(field);
    if (!advanced)
        return false;
    m_advanced->setExpanded(true); // the field it names is in view
    layout = qobject_cast<QFormLayout*>(advanced->parentWidget()->layout());
    if (layout)
        layout->getWidgetPosition(advanced, &row, &role);
    return layout && row >= 0;
}

void NewRunForm::revalidate() {
    m_fieldProblem->clear(); // the edited job is checked again by the next estimate
    inspectModelAndPictures();
    QString error;
    bool waiting = false;
    bool numberOk = false;
    QLocale::c().toDouble(m_learningRateEdit->text().trimmed(), &numberOk);
    if (m_presets.isEmpty())
        error = tr("No training presets were found. Reinstall Tuneframe, or set "
                   "TUNEFRAME_PRESETS_DIR to a folder of presets.");
    else if (modelFolder().isEmpty())
        error = tr("Choose the model folder to train (a diffusers CogVideoX or Wan pipeline).");
    else if (!QFileInfo(modelFolder()).isDir())
        error = tr("The model folder %1 does not exist. Choose a diffusers CogVideoX or Wan "
                   "pipeline folder.")
                    .arg(QDir::toNativeSeparators(modelFolder()));
    else if (!modelFacts() && m_inspectionError.isEmpty())
        waiting = true; // the engine is reading the folder; the summary row says so
    else if (const JobPreset* preset = currentPreset();
             preset && modelFacts() && preset->family != modelFacts()->family)
        error = tr("“%1” is a preset for %2 models, and the model folder holds a %3 model. "
                   "Choose a %3 preset.")
                    .arg(preset->displayName(), familyTitle(preset->family),
                         familyTitle(modelFacts()->family));
    else if (m_deviceCombo->currentData().toString() == kSeveralGpus && checkedGpus().isEmpty())
        error = tr("Tick at least one GPU to train on.");
    else if (const QString machines =
                 launchPlan().worldSize() > 1 ? m_machinesFields->inputError() : QString();
             !machines.isEmpty())
        error = machines;
    else if (const QString plan = m_planRows->inputError(launchPlan().worldSize()); !plan.isEmpty())
        error = plan;
    else if (!numberOk)
        error = tr("The learning rate “%1” is not a number. Write it like 1e-4 or 0.0001.")
                    .arg(m_learningRateEdit->text());
    else if (const QString advanced = m_advanced->inputError(); !advanced.isEmpty()) {
        error = advanced;
        m_advanced->setExpanded(true); // the field it names is in view
    } else
        error = JobPresets::validate(job());
    m_error = waiting ? tr("Reading the model folder…") : error;
    if (m_error.isEmpty()) {
        m_estimateTimer->start();
    } else {
        m_estimateTimer->stop();
        m_estimate.reset();
        m_estimateError.clear();
    }
    updateMemoryText();
    m_errorLabel->setText(error);
    m_errorLabel->setVisible(!error.isEmpty());
    const bool valid = m_error.isEmpty();
    m_savePresetButton->setEnabled(valid && !m_userPresetFolder.isEmpty());
    if (valid != m_valid) {
        m_valid = valid;
        emit validityChanged(valid);
    }
}

QJsonObject NewRunForm::formValues() const {
    QJsonObject values;
    values.insert(QStringLiteral("model"), modelFolder());
    if (m_rankSpin->isEnabled())
        values.insert(QStringLiteral("lora"),
                      QJsonObject{{QStringLiteral("rank"), m_rankSpin->value()},
                                  {QStringLiteral("alpha"), m_alphaSpin->value()},
                                  {QStringLiteral("base_quantization"),
                                   m_baseWeightsCombo->currentData().toString()}});
    values.insert(QStringLiteral("optimizer"),
                  QJsonObject{{QStringLiteral("name"), m_optimizerCombo->currentData().toString()},
                              {QStringLiteral("lr"),
                               QLocale::c().toDouble(m_learningRateEdit->text().trimmed())}});
    values.insert(QStringLiteral("max_steps"), m_stepsSpin->value());
    values.insert(QStringLiteral("batch_size"), m_batchSpin->value());
    values.insert(QStringLiteral("precision"), m_precisionCombo->currentData().toString());
    values.insert(QStringLiteral("checkpoints"),
                  QJsonObject{{QStringLiteral("every_steps"), m_checkpointSpin->value()}});
    QJsonArray prompts;
    for (const QString& line : m_promptsEdit->toPlainText().split(QLatin1Char('\n'))) {
        if (!line.trimmed().isEmpty())
            prompts.append(line.trimmed());
    }
    QJsonObject validation{{QStringLiteral("every_steps"), m_validationEverySpin->value()},
                           {QStringLiteral("at_start"), m_validateAtStartCheck->isChecked()},
                           {QStringLiteral("prompts"), prompts}};
    // An image-to-video run's validation prompts each need a picture: the preset's or the
    // restored run's, one per prompt while it names enough, else the dataset's condition frames.
    // The task decides, whether or not the engine has read the folder yet: a job must not gain
    // or lose its pictures with the timing of that answer.
    const QJsonArray named =
        object(m_presetJob, "validation").value(QStringLiteral("images")).toArray();
    if (m_imageToVideo && !prompts.isEmpty()) {
        QJsonArray images;
        if (named.size() >= prompts.size()) {
            for (qsizetype index = 0; index < prompts.size(); ++index)
                images.append(named.at(index));
        } else if (!m_conditionPictures.isEmpty()) {
            for (qsizetype index = 0; index < prompts.size(); ++index)
                images.append(m_conditionPictures.at(index % m_conditionPictures.size()));
        }
        if (!images.isEmpty())
            validation.insert(QStringLiteral("images"), images);
    }
    values.insert(QStringLiteral("validation"), validation);
    values.insert(QStringLiteral("trigger_word"), m_triggerEdit->text().trimmed());
    const QJsonObject advanced = m_advanced->values();
    for (auto field = advanced.begin(); field != advanced.end(); ++field)
        values.insert(field.key(), field.value());
    // The task and the rows of this model (its expert, the blocks it offloads), merged into the
    // objects the Advanced section wrote.
    values = JobPresets::merge(values, m_familyRows->values());
    const LaunchPlan plan = launchPlan();
    QString device = m_deviceCombo->currentData().toString();
    if (device == kSeveralGpus) {
        // One ticked GPU trains alone on it; several get one each from `launch`.
        device = plan.gpuIndices().size() == 1
                     ? QStringLiteral("cuda:%1").arg(plan.gpuIndices().first())
                     : QStringLiteral("cuda");
    }
    values.insert(QStringLiteral("device"), device);
    if (plan.worldSize() > 1)
        values.insert(QStringLiteral("parallel"), m_planRows->parallel());
    return values;
}

void NewRunForm::fillModelCacheMenu() {
    QMenu* menu = m_modelCacheButton->menu();
    menu->clear();
    const QString hub = HuggingFaceCache::hubFolder(QProcessEnvironment::systemEnvironment());
    const QVector<HuggingFaceCache::Model> models = HuggingFaceCache::videoPipelines(hub);
    if (models.isEmpty()) {
        menu->addAction(tr("No CogVideoX or Wan pipeline in %1").arg(QDir::toNativeSeparators(hub)))
            ->setEnabled(false);
    }
    for (const HuggingFaceCache::Model& model : models) {
        QAction* action = menu->addAction(model.label());
        action->setToolTip(QDir::toNativeSeparators(model.folder));
        connect(action, &QAction::triggered, this,
                [this, folder = model.folder] { setModelFolder(folder); });
    }
    menu->addSeparator();
    QAction* download = menu->addAction(tr("Download…"));
    download->setObjectName(QStringLiteral("hubDownloadAction"));
    download->setToolTip(tr("Download a CogVideoX or Wan pipeline from the Hugging Face Hub into "
                            "this cache."));
    connect(download, &QAction::triggered, this, &NewRunForm::openHubDownloadDialog);
}

void NewRunForm::openHubDownloadDialog() {
    auto* dialog = new HubDownloadDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &HubDownloadDialog::modelChosen, this, &NewRunForm::setModelFolder);
    dialog->open();
}
