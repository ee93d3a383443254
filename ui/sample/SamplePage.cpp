#include "ui/sample/SamplePage.h"

#include "app/engine/EngineCommand.h"
#include "app/engine/EngineLocator.h"
#include "app/jobs/ModelInspector.h"
#include "app/project/Project.h"
#include "app/runs/TrainingRuns.h"
#include "ui/playback/VideoPlayerWidget.h"
#include "ui/widgets/FittedScrollArea.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace {

// Marks the adapter choices that are transformer folders (sampled with --transformer).
constexpr int kTransformerFolderRole = Qt::UserRole + 1;
// The run an adapter choice came from.
constexpr int kRunRole = Qt::UserRole + 2;
// Characters of an adapter's name the closed box shows (the list shows them whole).
constexpr int kAdapterTextLength = 22;

template <typename Box>
Box* box(const char* name, double minimum, double maximum, double value) {
    auto* widget = new Box;
    widget->setObjectName(QString::fromLatin1(name));
    widget->setRange(minimum, maximum);
    widget->setValue(value);
    return widget;
}

} // namespace

SamplePage::SamplePage(QWidget* parent)
    : StudioPage(parent)
    , m_modelLabel(new QLabel)
    , m_modelEdit(new QLineEdit)
    , m_modelBrowse(new QPushButton)
    , m_adapterLabel(new QLabel)
    , m_adapterCombo(new QComboBox)
    , m_scaleLabel(new QLabel)
    , m_scaleSpin(box<QDoubleSpinBox>("sampleLoraScaleSpin", 0, 4, 1))
    , m_promptLabel(new QLabel)
    , m_promptEdit(new QPlainTextEdit)
    , m_negativeLabel(new QLabel)
    , m_negativeEdit(new QLineEdit)
    , m_imageLabel(new QLabel)
    , m_imageEdit(new QLineEdit)
    , m_imageBrowse(new QPushButton)
    , m_schedulerLabel(new QLabel)
    , m_schedulerCombo(new QComboBox)
    , m_dynamicCfgCheck(new QCheckBox)
    , m_sizeLabel(new QLabel)
    // The tiny demo model's sizes; frame counts are 8k+1 and sizes multiples of 16.
    , m_framesSpin(box<QSpinBox>("sampleFramesSpin", 1, 161, 9))
    , m_heightSpin(box<QSpinBox>("sampleHeightSpin", 16, 1360, 64))
    , m_widthSpin(box<QSpinBox>("sampleWidthSpin", 16, 1360, 96))
    , m_stepsLabel(new QLabel)
    , m_stepsSpin(box<QSpinBox>("sampleStepsSpin", 1, 500, 8))
    , m_guidanceLabel(new QLabel)
    , m_guidanceSpin(box<QDoubleSpinBox>("sampleGuidanceSpin", 0, 30, 6))
    , m_seedLabel(new QLabel)
    , m_seedSpin(box<QSpinBox>("sampleSeedSpin", 0, 2147483647, 42))
    , m_generateButton(new QPushButton)
    , m_cancelButton(new QPushButton)
    , m_progress(new QProgressBar)
    , m_statusLabel(new QLabel)
    , m_results(new QListWidget)
    , m_player(new VideoPlayerWidget) {
    setObjectName(QStringLiteral("samplePage"));
    m_player->setControls(VideoPlayerWidget::Controls::PlaybackOnly);
    m_modelEdit->setObjectName(QStringLiteral("sampleModelEdit"));
    m_adapterCombo->setObjectName(QStringLiteral("sampleAdapterCombo"));
    m_promptEdit->setObjectName(QStringLiteral("samplePromptEdit"));
    m_promptEdit->setMaximumHeight(90);
    m_modelBrowse->setObjectName(QStringLiteral("sampleModelBrowse"));
    m_negativeEdit->setObjectName(QStringLiteral("sampleNegativePromptEdit"));
    m_imageEdit->setObjectName(QStringLiteral("sampleImageEdit"));
    m_imageBrowse->setObjectName(QStringLiteral("sampleImageBrowse"));
    m_schedulerCombo->setObjectName(QStringLiteral("sampleSchedulerCombo"));
    m_schedulerCombo->addItem(QString(), QStringLiteral("dpm"));
    m_schedulerCombo->addItem(QString(), QStringLiteral("ddim"));
    m_dynamicCfgCheck->setObjectName(QStringLiteral("sampleDynamicCfgCheck"));
    m_framesSpin->setSingleStep(8);
    m_heightSpin->setSingleStep(16);
    m_widthSpin->setSingleStep(16);
    m_generateButton->setObjectName(QStringLiteral("sampleGenerateButton"));
    m_cancelButton->setObjectName(QStringLiteral("sampleCancelButton"));
    m_progress->setObjectName(QStringLiteral("sampleProgress"));
    m_progress->hide();
    m_statusLabel->setObjectName(QStringLiteral("sampleStatusLabel"));
    m_statusLabel->setWordWrap(true);
    m_statusLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_results->setObjectName(QStringLiteral("sampleResults"));
    m_player->setObjectName(QStringLiteral("samplePlayer"));

    auto* size = new QHBoxLayout;
    size->addWidget(m_framesSpin);
    size->addWidget(m_heightSpin);
    size->addWidget(m_widthSpin);
    // The strength under the adapter: a run's name and step need the row's whole width.
    m_adapterCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_adapterCombo->setMinimumContentsLength(kAdapterTextLength);
    auto* strength = new QHBoxLayout;
    strength->addWidget(m_scaleLabel);
    strength->addWidget(m_scaleSpin);
    strength->addStretch(1);
    auto* adapter = new QVBoxLayout;
    adapter->addWidget(m_adapterCombo);
    adapter->addLayout(strength);
    auto* modelRow = new QHBoxLayout;
    modelRow->addWidget(m_modelEdit, 1);
    modelRow->addWidget(m_modelBrowse);
    auto* imageRow = new QHBoxLayout;
    imageRow->addWidget(m_imageEdit, 1);
    imageRow->addWidget(m_imageBrowse);
    auto* form = new QFormLayout;
    form->addRow(m_modelLabel, modelRow);
    form->addRow(m_adapterLabel, adapter);
    form->addRow(m_promptLabel, m_promptEdit);
    form->addRow(m_negativeLabel, m_negativeEdit);
    form->addRow(m_imageLabel, imageRow);
    form->addRow(m_sizeLabel, size);
    form->addRow(m_stepsLabel, m_stepsSpin);
    form->addRow(m_schedulerLabel, m_schedulerCombo);
    form->addRow(m_guidanceLabel, m_guidanceSpin);
    form->addRow(QString(), m_dynamicCfgCheck);
    form->addRow(m_seedLabel, m_seedSpin);
    addModelRows(form);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_generateButton);
    buttons->addWidget(m_cancelButton);
    buttons->addStretch(1);
    // The form scrolls in a short window; Generate and the results stay in view under it.
    auto* formPanel = new QWidget;
    auto* formPanelLayout = new QVBoxLayout(formPanel);
    formPanelLayout->setContentsMargins(0, 0, 0, 0);
    formPanelLayout->addLayout(form);
    formPanelLayout->addStretch(1);
    auto* formScroll = new FittedScrollArea;
    formScroll->setObjectName(QStringLiteral("sampleFormScroll"));
    formScroll->setFrameShape(QFrame::NoFrame);
    formScroll->setWidget(formPanel);
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->addWidget(formScroll, 3);
    leftLayout->addLayout(buttons);
    leftLayout->addWidget(m_progress);
    leftLayout->addWidget(m_statusLabel);
    leftLayout->addWidget(m_results, 1);
    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->setObjectName(QStringLiteral("sampleSplitter"));
    splitter->addWidget(left);
    splitter->addWidget(m_player);
    splitter->setStretchFactor(1, 1);
    setProjectContent(splitter);

    connect(m_generateButton, &QPushButton::clicked, this, &SamplePage::generate);
    // A transformer folder replaces the model's transformer: there is no adapter strength.
    connect(m_adapterCombo, &QComboBox::currentIndexChanged, this, [this] {
        m_scaleSpin->setEnabled(!chosenIsTransformerFolder());
        m_adapterCombo->setToolTip(m_adapterCombo->currentText());
        applyRunDefaults();
    });
    connect(m_modelBrowse, &QPushButton::clicked, this, [this] {
        auto* dialog = new QFileDialog(this, tr("Choose the Model Folder"),
                                       QDir::fromNativeSeparators(m_modelEdit->text()));
        dialog->setFileMode(QFileDialog::Directory);
        dialog->setOption(QFileDialog::ShowDirsOnly);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& folder) {
            m_modelEdit->setText(QDir::toNativeSeparators(folder));
        });
        dialog->open();
    });
    connect(m_imageBrowse, &QPushButton::clicked, this, [this] {
        auto* dialog = new QFileDialog(this, tr("Choose the Condition Image"),
                                       QDir::fromNativeSeparators(m_imageEdit->text()),
                                       tr("Images and videos (*.png *.jpg *.jpeg *.webp *.bmp "
                                          "*.mp4 *.mov *.mkv *.webm);;All files (*)"));
        dialog->setFileMode(QFileDialog::ExistingFile);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& file) {
            m_imageEdit->setText(QDir::toNativeSeparators(file));
        });
        dialog->open();
    });
    connect(m_cancelButton, &QPushButton::clicked, this, [this] {
        m_command->cancel();
        setBusy(false);
        m_statusLabel->setText(tr("Cancelled."));
    });
    connect(m_results, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        m_player->openClip(item->data(Qt::UserRole).toString());
    });
    connect(m_results, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        m_player->openClip(item->data(Qt::UserRole).toString());
    });
    setEnginePath(QString());
    retranslateUi();
    setBusy(false);
}

void SamplePage::setEnginePath(const QString& enginePath) {
    if (m_inspector && !enginePath.isEmpty())
        m_inspector->setEnginePath(enginePath);
    delete m_command; // null on the first call
    m_command = new EngineCommand(enginePath, this);
    connect(m_command, &EngineCommand::progressed, this, [this](qint64 done, qint64 total) {
        m_progress->setRange(0, static_cast<int>(qMax<qint64>(1, total)));
        m_progress->setValue(static_cast<int>(done));
    });
    connect(m_command, &EngineCommand::succeeded, this, &SamplePage::onSucceeded);
    connect(m_command, &EngineCommand::failed, this, &SamplePage::onFailed);
}

void SamplePage::setTrainingRuns(TrainingRuns* runs) {
    if (m_runs)
        disconnect(m_runs, nullptr, this, nullptr);
    m_runs = runs;
    m_defaultsRunId = 0;
    if (m_runs)
        connect(m_runs, &TrainingRuns::adaptersChanged, this, &SamplePage::reloadAdapters);
    reloadAdapters();
}

void SamplePage::setDefaultModelFolder(const QString& folder) {
    if (!folder.isEmpty())
        m_modelEdit->setText(QDir::toNativeSeparators(folder));
}

void SamplePage::generate() {
    if (!project() || m_command->isRunning())
        return;
    const QString model = QDir::fromNativeSeparators(m_modelEdit->text().trimmed());
    const QString prompt = m_promptEdit->toPlainText().trimmed();
    if (model.isEmpty() || prompt.isEmpty()) {
        m_statusLabel->setText(tr("Choose a model folder and write a prompt."));
        return;
    }
    QDir samples(project()->folder());
    samples.mkpath(QStringLiteral("samples"));
    m_pendingVideo = samples.filePath(
        QStringLiteral("samples/%1.mp4")
            .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"))));
    QStringList arguments{QStringLiteral("sample"),
                          QStringLiteral("--model"),
                          model,
                          QStringLiteral("--prompt"),
                          prompt,
                          QStringLiteral("--frames"),
                          QString::number(m_framesSpin->value()),
                          QStringLiteral("--height"),
                          QString::number(m_heightSpin->value()),
                          QStringLiteral("--width"),
                          QString::number(m_widthSpin->value()),
                          QStringLiteral("--steps"),
                          QString::number(m_stepsSpin->value()),
                          QStringLiteral("--guidance"),
                          QString::number(m_guidanceSpin->value()),
                          QStringLiteral("--seed"),
                          QString::number(m_seedSpin->value()),
                          QStringLiteral("--out"),
                          m_pendingVideo};
    const QString negative = m_negativeEdit->text().trimmed();
    if (!negative.isEmpty())
        arguments << QStringLiteral("--negative-prompt") << negative;
    const QString image = QDir::fromNativeSeparators(m_imageEdit->text().trimmed());
    if (!image.isEmpty())
        arguments << QStringLiteral("--image") << image;
    arguments << QStringLiteral("--scheduler") << m_schedulerCombo->currentData().toString();
    // Dynamic guidance is CogVideoX's; the flow shift and the second expert's guidance Wan's.
    if (m_dynamicCfgCheck->isChecked() && m_dynamicCfgCheck->isVisibleTo(this))
        arguments << QStringLiteral("--dynamic-cfg");
    if (m_facts && m_facts->trainsByFlowMatching() && m_flowShiftSpin->value() > 0)
        arguments << QStringLiteral("--flow-shift") << QString::number(m_flowShiftSpin->value());
    if (m_facts && m_facts->hasTwoExperts())
        arguments << QStringLiteral("--guidance-2") << QString::number(m_guidance2Spin->value());
    arguments << adapterArguments();
    setBusy(true);
    m_statusLabel->setText(tr("Rendering…"));
    m_command->start(arguments);
}

bool SamplePage::isGenerating() const {
    return m_command->isRunning();
}

VideoPlayerWidget* SamplePage::player() const {
    return m_player;
}

QString SamplePage::lastVideo() const {
    return m_lastVideo;
}

void SamplePage::retranslateUi() {
    StudioPage::retranslateUi();
    setHeader(tr("Sample"), tr("Render a video from a model and one of your adapters"));
    m_modelLabel->setText(tr("Model folder"));
    m_adapterLabel->setText(tr("Adapter"));
    m_scaleLabel->setText(tr("Strength"));
    m_promptLabel->setText(tr("Prompt"));
    m_negativeLabel->setText(tr("Negative prompt"));
    m_negativeEdit->setPlaceholderText(tr("Optional: what the video should not show"));
    m_imageLabel->setText(tr("Condition image"));
    m_imageEdit->setPlaceholderText(tr("Image-to-video models only: the first frame's picture"));
    m_imageBrowse->setText(tr("Browse…"));
    m_modelBrowse->setText(tr("Browse…"));
    m_schedulerLabel->setText(tr("Scheduler"));
    m_schedulerCombo->setItemText(0, tr("DPM"));
    m_schedulerCombo->setItemText(1, tr("DDIM"));
    m_schedulerCombo->setToolTip(tr("Choosing a run's adapter sets the sampler its validation "
                                    "videos were made with."));
    m_dynamicCfgCheck->setText(tr("Dynamic guidance"));
    m_dynamicCfgCheck->setToolTip(
        tr("Guidance that grows over the denoising steps (CogVideoX's dynamic CFG): often "
           "steadier motion at high guidance."));
    m_sizeLabel->setText(tr("Frames, height, width"));
    m_stepsLabel->setText(tr("Steps"));
    m_guidanceLabel->setText(tr("Guidance"));
    m_seedLabel->setText(tr("Seed"));
    m_generateButton->setText(tr("Generate"));
    m_cancelButton->setText(tr("Cancel"));
    if (m_adapterCombo->count() > 0)
        m_adapterCombo->setItemText(0, tr("No adapter (the base model)"));
    updateSchedulerTexts();
    updateModelRows();
}

void SamplePage::reloadAdapters() {
    const QString current = m_adapterCombo->currentData().toString();
    m_adapterCombo->clear();
    m_adapterCombo->addItem(tr("No adapter (the base model)"), QString());
    if (m_runs) {
        const QVector<TrainingRuns::Adapter> adapters = m_runs->adapters();
        for (const TrainingRuns::Adapter& adapter : adapters) {
            const bool full = m_runs->job(adapter.runId).value(QStringLiteral("mode")).toString() ==
                              QLatin1String("full");
            QString text = tr("%1 · step %2 · %3")
                               .arg(adapter.runName)
                               .arg(adapter.step)
                               .arg(formatText(adapter.format, full));
            // The same export twice (two folders): the folder tells them apart.
            const auto same = std::count_if(
                adapters.cbegin(), adapters.cend(), [&adapter](const TrainingRuns::Adapter& other) {
                    return other.runId == adapter.runId && other.step == adapter.step &&
                           other.format == adapter.format;
                });
            if (same > 1) {
                // A pipeline is sampled through its transformer/: the folder named is the export's.
                const QFileInfo path(adapter.path);
                const QString folder = adapter.format == QLatin1String("pipeline")
                                           ? QFileInfo(path.absolutePath()).fileName()
                                           : path.fileName();
                text = tr("%1 (%2)").arg(text, folder);
            }
            m_adapterCombo->addItem(text, adapter.path);
            const int row = m_adapterCombo->count() - 1;
            m_adapterCombo->setItemData(row, adapter.transformerFolder, kTransformerFolderRole);
            m_adapterCombo->setItemData(row, adapter.runId, kRunRole);
            m_adapterCombo->setItemData(row, QDir::toNativeSeparators(adapter.path),
                                        Qt::ToolTipRole);
        }
    }
    const int index = m_adapterCombo->findData(current);
    m_adapterCombo->setCurrentIndex(index < 0 ? 0 : index);
}

QString SamplePage::formatText(const QString& format, bool fullFineTune) {
    if (format == QLatin1String("diffusers"))
        return tr("diffusers LoRA");
    if (format == QLatin1String("comfyui"))
        return tr("ComfyUI LoRA");
    if (format == QLatin1String("merged"))
        return fullFineTune ? tr("fine-tuned transformer") : tr("LoRA merged into the transformer");
    if (format == QLatin1String("pipeline"))
        return tr("whole pipeline");
    return format;
}

void SamplePage::applyRunDefaults() {
    const qint64 runId = m_adapterCombo->currentData(kRunRole).toLongLong();
    if (!m_runs || runId == 0 || runId == m_defaultsRunId)
        return;
    m_defaultsRunId = runId;
    const QJsonObject job = m_runs->job(runId);
    const QJsonObject validation = job.value(QStringLiteral("validation")).toObject();
    const QString model = job.value(QStringLiteral("model")).toString();
    if (!model.isEmpty() && QFileInfo(model).isDir())
        m_modelEdit->setText(QDir::toNativeSeparators(model));
    selectSampler(validation.value(QStringLiteral("sampler")).toString());
    if (validation.contains(QStringLiteral("steps")))
        m_stepsSpin->setValue(validation.value(QStringLiteral("steps")).toInt());
    if (validation.contains(QStringLiteral("guidance")))
        m_guidanceSpin->setValue(validation.value(QStringLiteral("guidance")).toDouble());
    m_dynamicCfgCheck->setChecked(validation.value(QStringLiteral("dynamic_cfg")).toBool());
    // 0 is the model's own size: the form keeps what it has.
    for (const auto& [key, box] :
         {std::pair{"frames", m_framesSpin}, std::pair{"height", m_heightSpin},
          std::pair{"width", m_widthSpin}}) {
        const int value = validation.value(QLatin1String(key)).toInt();
        if (value > 0)
            box->setValue(value);
    }
    if (validation.contains(QStringLiteral("seed")))
        m_seedSpin->setValue(validation.value(QStringLiteral("seed")).toInt());
    const QJsonArray prompts = validation.value(QStringLiteral("prompts")).toArray();
    if (m_promptEdit->toPlainText().trimmed().isEmpty() && !prompts.isEmpty())
        m_promptEdit->setPlainText(prompts.first().toString());
    m_statusLabel->setText(tr("The settings of “%1”'s validation videos: %2 steps, guidance %3.")
                               .arg(m_runs->summary(runId).name)
                               .arg(m_stepsSpin->value())
                               .arg(QLocale().toString(m_guidanceSpin->value())));
}

void SamplePage::selectSampler(const QString& sampler) {
    if (sampler.isEmpty())
        return; // the family's own, which the engine picks
    int index = m_schedulerCombo->findData(sampler);
    if (index < 0) {
        m_schedulerCombo->addItem(sampler, sampler);
        index = m_schedulerCombo->count() - 1;
    }
    m_schedulerCombo->setCurrentIndex(index);
}

bool SamplePage::chosenIsTransformerFolder() const {
    return m_adapterCombo->currentData(kTransformerFolderRole).toBool();
}

void SamplePage::setBusy(bool busy) {
    // Another studio's project: its samples are made there.
    m_generateButton->setEnabled(!busy && !isReadOnly());
    m_cancelButton->setEnabled(busy);
    m_progress->setVisible(busy);
    if (busy)
        m_progress->setRange(0, 0);
}

void SamplePage::onSucceeded(const QJsonObject& summary) {
    setBusy(false);
    m_lastVideo = summary.value(QStringLiteral("video")).toString(m_pendingVideo);
    m_statusLabel->setText(
        tr("Rendered in %1 s.")
            .arg(summary.value(QStringLiteral("seconds")).toDouble(), 0, 'f', 1));
    writeRecord(summary);
    addResult(m_lastVideo, m_promptEdit->toPlainText().trimmed(), true);
    m_player->openClip(m_lastVideo);
}

QString SamplePage::recordFile(const QString& video) {
    return video + QStringLiteral(".json");
}

QJsonObject SamplePage::record(const QString& video) {
    QFile file(recordFile(video));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

// What made the video, beside it: the form's values and what the engine says it used.
void SamplePage::writeRecord(const QJsonObject& summary) const {
    QJsonObject record = summary;
    record.insert(QStringLiteral("model"), QDir::fromNativeSeparators(m_modelEdit->text()));
    record.insert(QStringLiteral("prompt"), m_promptEdit->toPlainText().trimmed());
    record.insert(QStringLiteral("adapter"), m_adapterCombo->currentData().toString());
    record.insert(QStringLiteral("image"), QDir::fromNativeSeparators(m_imageEdit->text()));
    const QStringList adapters = adapterArguments();
    for (const QString& option : {QStringLiteral("--lora-2"), QStringLiteral("--transformer-2")}) {
        if (const qsizetype at = adapters.indexOf(option); at >= 0 && at + 1 < adapters.size())
            record.insert(QStringLiteral("adapter_2"), adapters.at(at + 1));
    }
    QSaveFile file(recordFile(m_lastVideo));
    const QByteArray bytes = QJsonDocument(record).toJson();
    // A sample without its record still plays; the list then shows its file name only.
    if (file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size())
        file.commit();
}

void SamplePage::addResult(const QString& video, const QString& prompt, bool first) {
    auto* item = new QListWidgetItem(QFileInfo(video).fileName());
    item->setData(Qt::UserRole, video);
    item->setToolTip(prompt);
    m_results->insertItem(first ? 0 : m_results->count(), item);
}

// The project's samples, newest first, as earlier sessions left them.
void SamplePage::reloadResults() {
    m_results->clear();
    if (!project())
        return;
    const QDir samples(QDir(project()->folder()).filePath(QStringLiteral("samples")));
    for (const QFileInfo& video :
         samples.entryInfoList({QStringLiteral("*.mp4")}, QDir::Files, QDir::Time)) {
        addResult(video.absoluteFilePath(),
                  record(video.absoluteFilePath()).value(QStringLiteral("prompt")).toString(),
                  false);
    }
}

void SamplePage::onProjectChanged() {
    StudioPage::onProjectChanged();
    m_generateButton->setEnabled(m_cancelButton->isEnabled() ? false : !isReadOnly());
    m_lastVideo.clear();
    reloadResults();
}

void SamplePage::onFailed(const QString& message, const QString& hint) {
    setBusy(false);
    m_statusLabel->setText(hint.isEmpty() ? message : tr("%1\nWhat to do: %2").arg(message, hint));
}

void SamplePage::addModelRows(QFormLayout* form) {
    m_form = form;
    m_inspector = new ModelInspector(EngineLocator::enginePath(), this);
    m_inspectTimer = new QTimer(this);
    m_adapter2Label = new QLabel;
    m_adapter2Combo = new QComboBox;
    m_guidance2Label = new QLabel;
    m_guidance2Spin = box<QDoubleSpinBox>("sampleGuidance2Spin", 0, 30, 3);
    m_flowShiftLabel = new QLabel;
    m_flowShiftSpin = box<QDoubleSpinBox>("sampleFlowShiftSpin", 0, 100, 0);
    m_adapter2Combo->setObjectName(QStringLiteral("sampleAdapter2Combo"));
    m_adapter2Combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_adapter2Combo->setMinimumContentsLength(22);
    m_flowShiftSpin->setSingleStep(0.5);
    auto rowOf = [form](QWidget* field) {
        int row = -1;
        QFormLayout::ItemRole role;
        form->getWidgetPosition(field, &row, &role);
        return row;
    };
    form->insertRow(rowOf(m_guidanceSpin) + 1, m_guidance2Label, m_guidance2Spin);
    int adapterRow = -1;
    QFormLayout::ItemRole role;
    form->getWidgetPosition(m_adapterLabel, &adapterRow, &role);
    form->insertRow(adapterRow + 1, m_adapter2Label, m_adapter2Combo);
    form->addRow(m_flowShiftLabel, m_flowShiftSpin);
    m_inspectTimer->setSingleShot(true);
    m_inspectTimer->setInterval(300);
    connect(m_inspectTimer, &QTimer::timeout, this, &SamplePage::inspectModel);
    connect(m_modelEdit, &QLineEdit::textChanged, m_inspectTimer, qOverload<>(&QTimer::start));
    connect(m_inspector, &ModelInspector::inspected, this, &SamplePage::onModelInspected);
    connect(m_inspector, &ModelInspector::failed, this, [this] {
        m_facts.reset();
        updateModelRows();
    });
    connect(m_adapterCombo, &QComboBox::currentIndexChanged, this, &SamplePage::updateModelRows);
    updateModelRows();
}

void SamplePage::inspectModel() {
    const QString folder = QDir::fromNativeSeparators(m_modelEdit->text().trimmed());
    if (m_facts && m_facts->folder == folder)
        return;
    m_facts.reset();
    if (!folder.isEmpty() && QFileInfo(folder).isDir())
        m_inspector->inspect(folder);
    else
        m_inspector->cancel();
    updateModelRows();
}

void SamplePage::onModelInspected(const ModelFacts& facts) {
    if (facts.folder != QDir::fromNativeSeparators(m_modelEdit->text().trimmed()))
        return;
    m_facts = facts;
    // The family's samplers, the one it validates with first; the choice stays when it fits.
    const QString current = m_schedulerCombo->currentData().toString();
    {
        const QSignalBlocker blocker(m_schedulerCombo);
        m_schedulerCombo->clear();
        for (const QString& sampler : facts.samplers())
            m_schedulerCombo->addItem(QString(), sampler);
        const int index = m_schedulerCombo->findData(current);
        m_schedulerCombo->setCurrentIndex(index < 0 ? 0 : index);
    }
    updateSchedulerTexts();
    updateModelRows();
}

void SamplePage::updateModelRows() {
    if (!m_form)
        return;
    const bool flowMatching = m_facts && m_facts->trainsByFlowMatching();
    const bool twoExperts = m_facts && m_facts->hasTwoExperts();
    m_form->setRowVisible(m_dynamicCfgCheck, !flowMatching);
    m_form->setRowVisible(m_flowShiftSpin, flowMatching);
    m_form->setRowVisible(m_guidance2Spin, twoExperts);
    // A merged pair samples with both of its transformers; a LoRA with a second adapter.
    m_form->setRowVisible(m_adapter2Combo, twoExperts && !chosenIsTransformerFolder());
    m_adapter2Label->setText(tr("Low-noise adapter"));
    m_adapter2Combo->setToolTip(
        tr("The adapter of the low-noise expert, which refines detail in the last denoising "
           "steps; the adapter above goes to the high-noise expert."));
    m_guidance2Label->setText(tr("Guidance (low noise)"));
    m_guidance2Spin->setToolTip(
        tr("The guidance of the low-noise expert's steps (Wan 2.2 A14B uses 3 there and 4 "
           "before)."));
    m_flowShiftLabel->setText(tr("Flow shift"));
    m_flowShiftSpin->setSpecialValueText(tr("The scheduler's own"));
    m_flowShiftSpin->setToolTip(tr("Moves the denoising steps toward the noisy end: Wan uses 3 "
                                   "at 480p and 5 at 720p."));
    if (!twoExperts)
        return;
    // The low-noise expert's adapter: the chosen export's own (a pair), none, or any export
    // that has one, from another run or step. A choice made for this adapter stays; another
    // adapter starts from its own pair.
    const QString adapter = m_adapterCombo->currentData().toString();
    const bool sameAdapter = m_adapter2Combo->count() > 0 && m_adapter2For == adapter;
    const QString chosen = m_adapter2Combo->currentData().toString();
    m_adapter2For = adapter;
    const QSignalBlocker blocker(m_adapter2Combo);
    m_adapter2Combo->clear();
    const ExpertExport experts = chosenExperts();
    m_adapter2Combo->addItem(experts.lowNoise.isEmpty()
                                 ? tr("None (the low-noise expert as released)")
                                 : tr("The chosen export's low-noise expert"),
                             experts.lowNoise);
    if (!experts.lowNoise.isEmpty())
        m_adapter2Combo->addItem(tr("None (the low-noise expert as released)"), QString());
    if (m_runs) {
        for (const TrainingRuns::Adapter& adapter : m_runs->adapters()) {
            if (adapter.transformerFolder || adapter.experts.lowNoise.isEmpty() ||
                adapter.experts.lowNoise == experts.lowNoise)
                continue;
            m_adapter2Combo->addItem(
                tr("%1 · step %2 · %3").arg(adapter.runName).arg(adapter.step).arg(adapter.format),
                adapter.experts.lowNoise);
        }
    }
    const int index = sameAdapter ? m_adapter2Combo->findData(chosen) : -1;
    m_adapter2Combo->setCurrentIndex(index < 0 ? 0 : index);
}

void SamplePage::updateSchedulerTexts() {
    for (int index = 0; index < m_schedulerCombo->count(); ++index) {
        const QString sampler = m_schedulerCombo->itemData(index).toString();
        if (sampler == QLatin1String("unipc"))
            m_schedulerCombo->setItemText(index, tr("UniPC"));
        else if (sampler == QLatin1String("euler"))
            m_schedulerCombo->setItemText(index, tr("Flow-match Euler"));
        else if (sampler == QLatin1String("dpm"))
            m_schedulerCombo->setItemText(index, tr("DPM"));
        else if (sampler == QLatin1String("ddim"))
            m_schedulerCombo->setItemText(index, tr("DDIM"));
    }
}

ExpertExport SamplePage::chosenExperts() const {
    const QString path = m_adapterCombo->currentData().toString();
    if (!m_runs || path.isEmpty())
        return {};
    for (const TrainingRuns::Adapter& adapter : m_runs->adapters()) {
        if (adapter.path == path)
            return adapter.experts;
    }
    return {};
}

QStringList SamplePage::adapterArguments() const {
    const QString adapter = m_adapterCombo->currentData().toString();
    const bool folder = chosenIsTransformerFolder();
    const QStringList strength = {QStringLiteral("--lora-scale"),
                                  QString::number(m_scaleSpin->value())};
    if (!m_facts || !m_facts->hasTwoExperts()) {
        if (adapter.isEmpty())
            return {};
        return folder ? QStringList{QStringLiteral("--transformer"), adapter}
                      : QStringList{QStringLiteral("--lora"), adapter} + strength;
    }
    // Two experts: a merged export's transformer/ and transformer_2/; else the export's
    // high-noise file for the first and the chosen low-noise one for the second (an export of
    // a run that trained one expert adapts that expert only).
    const ExpertExport experts = chosenExperts();
    if (folder && experts.isPair())
        return {QStringLiteral("--transformer"), experts.highNoise,
                QStringLiteral("--transformer-2"), experts.lowNoise};
    if (folder)
        return adapter.isEmpty() ? QStringList()
                                 : QStringList{QStringLiteral("--transformer"), adapter};
    const QString first = experts.hasExperts() ? experts.highNoise : adapter;
    const QString second = m_adapter2Combo->currentData().toString();
    QStringList arguments;
    if (!first.isEmpty())
        arguments << QStringLiteral("--lora") << first;
    if (!second.isEmpty())
        arguments << QStringLiteral("--lora-2") << second;
    if (!arguments.isEmpty())
        arguments << strength;
    return arguments;
}
