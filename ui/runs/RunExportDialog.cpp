#include "ui/runs/RunExportDialog.h"

#include "app/engine/EngineCommand.h"
#include "app/jobs/ModelInspector.h"

#include <QComboBox>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QDir>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QStandardItemModel>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace {

const QStringList kFormats = {QStringLiteral("diffusers"), QStringLiteral("comfyui"),
                              QStringLiteral("wan"),       QStringLiteral("musubi"),
                              QStringLiteral("merged"),    QStringLiteral("pipeline")};
// The formats with the transformer itself, the only ones a full fine-tune has.
const QStringList kModelFormats = {QStringLiteral("merged"), QStringLiteral("pipeline")};

// The model folder a run's job.json names (relative paths are to the job file's folder).
QString jobModel(const QString& runFolder) {
    QFile file(QDir(runFolder).filePath(QStringLiteral("job.json")));
    // A job file is a few kilobytes (the engine refuses one past 4 MiB).
    if (!file.open(QIODevice::ReadOnly) || file.size() > 4 * 1024 * 1024)
        return {};
    const QString model =
        QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("model")).toString();
    return model.isEmpty() ? model : QDir(runFolder).absoluteFilePath(model);
}

QString expertTitle(const QString& expert) {
    if (expert == QLatin1String("high_noise"))
        return RunExportDialog::tr("high-noise expert");
    if (expert == QLatin1String("low_noise"))
        return RunExportDialog::tr("low-noise expert");
    return expert;
}

} // namespace

RunExportDialog::RunExportDialog(const QString& enginePath, QWidget* parent)
    : QDialog(parent)
    , m_enginePath(enginePath)
    , m_command(new EngineCommand(enginePath, this))
    , m_inspector(new ModelInspector(enginePath, this))
    , m_runLabel(new QLabel(this))
    , m_runCombo(new QComboBox(this))
    , m_stepLabel(new QLabel(this))
    , m_stepCombo(new QComboBox(this))
    , m_formatLabel(new QLabel(this))
    , m_formatCombo(new QComboBox(this))
    , m_formatHelp(new QLabel(this))
    , m_destinationLabel(new QLabel(this))
    , m_destinationEdit(new QLineEdit(this))
    , m_browseButton(new QPushButton(this))
    , m_progress(new QProgressBar(this))
    , m_resultLabel(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Close, this)) {
    setObjectName(QStringLiteral("runExportDialog"));
    // Wide enough that the formats' help reads in a few lines.
    setMinimumWidth(520);
    m_runCombo->setObjectName(QStringLiteral("exportRunCombo"));
    m_stepCombo->setObjectName(QStringLiteral("exportStepCombo"));
    m_formatCombo->setObjectName(QStringLiteral("exportFormatCombo"));
    for (const QString& format : kFormats)
        m_formatCombo->addItem(QString(), format);
    m_formatHelp->setWordWrap(true);
    m_formatHelp->setForegroundRole(QPalette::PlaceholderText);
    m_destinationEdit->setObjectName(QStringLiteral("exportDestinationEdit"));
    m_progress->setObjectName(QStringLiteral("exportProgress"));
    m_progress->setRange(0, 0);
    m_progress->hide();
    m_resultLabel->setObjectName(QStringLiteral("exportResultLabel"));
    m_resultLabel->setWordWrap(true);
    m_resultLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_exportButton = m_buttons->addButton(QString(), QDialogButtonBox::AcceptRole);
    m_exportButton->setObjectName(QStringLiteral("startExportButton"));
    m_openFolderButton = m_buttons->addButton(QString(), QDialogButtonBox::ActionRole);
    m_openFolderButton->setObjectName(QStringLiteral("openExportFolderButton"));
    m_openFolderButton->hide(); // until an export has written something to show

    auto* destinationRow = new QHBoxLayout;
    destinationRow->addWidget(m_destinationEdit, 1);
    destinationRow->addWidget(m_browseButton);
    auto* form = new QFormLayout;
    form->addRow(m_runLabel, m_runCombo);
    form->addRow(m_stepLabel, m_stepCombo);
    form->addRow(m_formatLabel, m_formatCombo);
    form->addRow(QString(), m_formatHelp);
    form->addRow(m_destinationLabel, destinationRow);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addWidget(m_resultLabel);
    layout->addWidget(m_buttons);

    // What the last export said is about that run, step and format: another choice clears it.
    for (QComboBox* box : {m_runCombo, m_stepCombo, m_formatCombo}) {
        connect(box, &QComboBox::currentIndexChanged, this, [this] {
            if (isExporting())
                return;
            m_resultText.clear();
            m_resultLabel->clear();
            m_exportedPath.clear();
            m_openFolderButton->hide();
        });
    }
    connect(m_runCombo, &QComboBox::currentIndexChanged, this, &RunExportDialog::onRunChosen);
    connect(m_stepCombo, &QComboBox::currentIndexChanged, this,
            &RunExportDialog::updateDefaultDestination);
    connect(m_formatCombo, &QComboBox::currentIndexChanged, this, [this] {
        retranslateUi();
        updateDefaultDestination();
        growToFit();
    });
    connect(m_destinationEdit, &QLineEdit::textEdited, this,
            [this] { m_destinationEdited = true; });
    connect(m_browseButton, &QPushButton::clicked, this, [this] {
        auto* dialog = new QFileDialog(this, tr("Export Destination"), destination());
        dialog->setFileMode(QFileDialog::Directory);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& folder) {
            m_destinationEdited = true;
            setDestination(folder);
        });
        dialog->open();
    });
    connect(m_exportButton, &QPushButton::clicked, this, &RunExportDialog::startExport);
    connect(m_openFolderButton, &QPushButton::clicked, this, [this] {
        // The folder a ComfyUI file lies in; a diffusers or merged export is a folder itself.
        const QFileInfo exported(m_exportedPath);
        const QString folder =
            exported.isDir() ? exported.absoluteFilePath() : exported.absolutePath();
        QDesktopServices::openUrl(QUrl::fromLocalFile(folder));
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &RunExportDialog::reject);
    connect(m_inspector, &ModelInspector::inspected, this, &RunExportDialog::onModelInspected);
    connect(m_command, &EngineCommand::succeeded, this, &RunExportDialog::onSucceeded);
    connect(m_command, &EngineCommand::failed, this, &RunExportDialog::onFailed);
    connect(m_command, &EngineCommand::eventReceived, this, [this](const EngineEvent& event) {
        if (event.type == tuneframe::protocol::EventType::Log)
            m_resultLabel->setText(event.string(QStringLiteral("message")));
    });
    retranslateUi();
}

RunExportDialog::~RunExportDialog() = default;

void RunExportDialog::growToFit() {
    layout()->activate();
    const int needed = layout()->hasHeightForWidth() ? layout()->totalHeightForWidth(width())
                                                     : sizeHint().height();
    if (needed > height())
        resize(width(), needed);
}

void RunExportDialog::addRun(qint64 runId, const QString& name, const QString& folder,
                             const QVector<qint64>& checkpointSteps, bool fullFineTune) {
    m_runs.append({runId, name, folder, checkpointSteps, fullFineTune, jobModel(folder), {}});
    m_runCombo->addItem(name, runId);
}

void RunExportDialog::selectRun(qint64 runId) {
    const int index = m_runCombo->findData(runId);
    if (index >= 0)
        m_runCombo->setCurrentIndex(index);
}

void RunExportDialog::setFormat(const QString& format) {
    const int index = m_formatCombo->findData(format);
    if (index >= 0 &&
        m_formatCombo->model()->flags(m_formatCombo->model()->index(index, 0)) & Qt::ItemIsEnabled)
        m_formatCombo->setCurrentIndex(index);
}

void RunExportDialog::setDestination(const QString& folder) {
    m_destinationEdit->setText(QDir::toNativeSeparators(folder));
}

QString RunExportDialog::destination() const {
    return QDir::fromNativeSeparators(m_destinationEdit->text().trimmed());
}

void RunExportDialog::startExport() {
    const int runIndex = m_runCombo->currentIndex();
    if (runIndex < 0 || isExporting())
        return;
    if (destination().isEmpty()) {
        m_resultLabel->setText(tr("Choose a destination folder."));
        return;
    }
    const Run& run = m_runs.at(runIndex);
    m_resultText.clear();
    m_exportedPath.clear();
    m_openFolderButton->hide();
    setBusy(true);
    m_resultLabel->setText(tr("Exporting and verifying…"));
    m_command->start({QStringLiteral("export"), QStringLiteral("--run"), run.folder,
                      QStringLiteral("--format"), m_formatCombo->currentData().toString(),
                      QStringLiteral("--out"), destination(), QStringLiteral("--step"),
                      QString::number(m_stepCombo->currentData().toLongLong())});
}

bool RunExportDialog::isExporting() const {
    return m_command->isRunning();
}

QString RunExportDialog::resultText() const {
    return m_resultText;
}

void RunExportDialog::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QDialog::changeEvent(event);
}

void RunExportDialog::reject() {
    m_command->cancel();
    QDialog::reject();
}

void RunExportDialog::retranslateUi() {
    // A full fine-tune has no adapter: what it exports is the model.
    setWindowTitle(chosenRunIsFull() ? tr("Export the Fine-Tuned Model") : tr("Export Adapter"));
    m_runLabel->setText(tr("Run"));
    m_stepLabel->setText(tr("Checkpoint"));
    m_formatLabel->setText(tr("Format"));
    m_destinationLabel->setText(tr("Destination"));
    m_browseButton->setText(tr("Browse…"));
    m_exportButton->setText(tr("Export"));
    m_openFolderButton->setText(tr("Open Folder"));
    m_openFolderButton->setToolTip(tr("Shows the exported adapter in the file manager."));
    m_formatCombo->setItemText(0, tr("Diffusers LoRA"));
    m_formatCombo->setItemText(1, tr("ComfyUI LoRA"));
    m_formatCombo->setItemText(2, tr("Wan LoRA (ComfyUI, original Wan)"));
    m_formatCombo->setItemText(3, tr("musubi-tuner LoRA"));
    m_formatCombo->setItemText(4, chosenRunIsFull() ? tr("Fine-tuned transformer")
                                                    : tr("Merged transformer"));
    m_formatCombo->setItemText(5, tr("Whole pipeline"));
    const QString format = m_formatCombo->currentData().toString();
    const Run* run = chosenRun();
    const bool wan = run && run->facts && run->facts->trainsByFlowMatching();
    const bool twoExperts = run && run->facts && run->facts->hasTwoExperts();
    // Each format names the loader it was checked against (engine/lora/comfyui_lora_keys.h,
    // engine/models/wan/lora_keys.h).
    if (wan && format == QLatin1String("diffusers"))
        m_formatHelp->setText(
            twoExperts
                ? tr("For diffusers: WanPipeline.load_lora_weights() reads each expert's "
                     "pytorch_lora_weights file (PEFT keys, strength folded in, so weight 1 is "
                     "the trained strength): the _high_noise one as it is, the _low_noise one "
                     "with load_into_transformer_2=True.")
                : tr("For diffusers: WanPipeline.load_lora_weights() reads this "
                     "pytorch_lora_weights.safetensors (PEFT keys, strength folded in, so weight "
                     "1 is the trained strength)."));
    else if (format == QLatin1String("wan"))
        m_formatHelp->setText(
            tr("For ComfyUI's LoraLoader with Wan models and the original Wan code: the original "
               "Wan layout (diffusion_model.blocks.N.self_attn.q.lora_down, an alpha per layer), "
               "which diffusers' WanPipeline.load_lora_weights() converts too. A two-expert "
               "model gets a _high_noise and a _low_noise file, one for each expert's loader."));
    else if (format == QLatin1String("musubi"))
        m_formatHelp->setText(
            tr("For musubi-tuner (to train further or merge there) and diffusers through its "
               "converter: kohya-style keys of the blocks' layers (lora_unet_blocks_N_…, an "
               "alpha per layer). A two-expert model gets a _high_noise and a _low_noise file."));
    else if (wan && format == QLatin1String("pipeline"))
        m_formatHelp->setText(
            tr("A whole diffusers pipeline folder: the trained transformer (both experts' of a "
               "two-expert model) with the base model's VAE, text encoder, tokenizer, scheduler "
               "and image encoder as hard links to its files where the disk allows. "
               "WanPipeline.from_pretrained() loads it as it is, and Tuneframe can train further "
               "from it: choose it as a new run's model folder."));
    else if (wan && format == QLatin1String("merged"))
        m_formatHelp->setText(
            twoExperts
                ? tr("The transformers with the adapters merged in: transformer/ and "
                     "transformer_2/ (WanTransformer3DModel.from_pretrained each), to put in "
                     "place of the pipeline's; an expert the run did not train is the base's.")
                : tr("For any diffusers reader: the transformer with the adapter merged in (or "
                     "the fine-tuned one), as a diffusers transformer folder "
                     "(WanTransformer3DModel.from_pretrained); no LoRA support needed to load "
                     "it."));
    else if (format == QLatin1String("diffusers"))
        m_formatHelp->setText(
            tr("For diffusers: CogVideoXPipeline.load_lora_weights() reads this "
               "pytorch_lora_weights.safetensors (PEFT keys, strength folded in, so weight 1 is "
               "the trained strength). ComfyUI's CogVideoXWrapper reads it too."));
    else if (format == QLatin1String("comfyui"))
        m_formatHelp->setText(
            tr("For ComfyUI with kijai's CogVideoXWrapper: put the file in models/CogVideo/loras "
               "and choose it in the “CogVideo LoraSelect” node (or in models/loras with “CogVideo "
               "LoraSelect Comfy”), then connect that node to the lora input of the model loader. "
               "kohya-style keys (lora_unet_…, an alpha per layer), merged into the model as it "
               "loads; for CogVideoX 1.0 and 1.5 alike."));
    else if (format == QLatin1String("pipeline"))
        m_formatHelp->setText(
            tr("A whole diffusers pipeline folder: the trained transformer with the base model's "
               "VAE, text encoder, tokenizer and scheduler, which are hard links to the base "
               "model's files where the disk allows, so they take no extra space. "
               "CogVideoXPipeline.from_pretrained() loads it as it is, ComfyUI's CogVideoXWrapper "
               "loads it from models/CogVideo, and Tuneframe can train further from it: choose it "
               "as a new run's model folder."));
    else if (chosenRunIsFull())
        m_formatHelp->setText(
            tr("A full fine-tune has no adapter: this is the trained transformer as a diffusers "
               "transformer folder (CogVideoXTransformer3DModel.from_pretrained), to put in "
               "place of the pipeline's transformer/."));
    else
        m_formatHelp->setText(
            tr("For any diffusers reader: the transformer with the adapter merged in, as a "
               "diffusers transformer folder (CogVideoXTransformer3DModel.from_pretrained); no "
               "LoRA support needed to load it."));
    for (int index = 0; index < m_stepCombo->count(); ++index)
        m_stepCombo->setItemText(index,
                                 tr("Step %1").arg(m_stepCombo->itemData(index).toLongLong()));
}

void RunExportDialog::onRunChosen() {
    m_stepCombo->clear();
    const int index = m_runCombo->currentIndex();
    if (index < 0)
        return;
    const Run& run = m_runs.at(index);
    for (auto step = run.steps.crbegin(); step != run.steps.crend(); ++step)
        m_stepCombo->addItem(tr("Step %1").arg(*step), *step);
    if (!run.facts && !run.model.isEmpty())
        m_inspector->inspect(run.model);
    updateFormats();
    m_formatCombo->setEnabled(!isExporting());
    retranslateUi();
    updateDefaultDestination();
}

void RunExportDialog::onModelInspected(const ModelFacts& facts) {
    for (Run& run : m_runs) {
        if (run.model == facts.folder)
            run.facts = facts;
    }
    updateFormats();
    retranslateUi();
    updateDefaultDestination();
    growToFit();
}

void RunExportDialog::updateFormats() {
    const Run* run = chosenRun();
    // The engine refuses the kohya-style layouts for a full fine-tune, and its "diffusers" would
    // be the same folder as merged under a LoRA's name: a full run offers the model formats only.
    // A LoRA run offers its family's layouts once the engine has named the family; before (and
    // for a model folder gone since) all of them, the engine refusing another family's by name.
    QStringList offered = kModelFormats;
    if (run && !run->full)
        offered = run->facts ? offered + run->facts->adapterFormats() : kFormats;
    auto* formats = qobject_cast<QStandardItemModel*>(m_formatCombo->model());
    auto* list = qobject_cast<QListView*>(m_formatCombo->view());
    for (int row = 0; formats && row < formats->rowCount(); ++row) {
        const bool fits = offered.contains(m_formatCombo->itemData(row).toString());
        formats->item(row)->setEnabled(fits);
        if (list)
            list->setRowHidden(row, !fits);
    }
    if (!offered.contains(m_formatCombo->currentData().toString()))
        m_formatCombo->setCurrentIndex(m_formatCombo->findData(
            run && !run->full ? QStringLiteral("diffusers") : kModelFormats.first()));
}

const RunExportDialog::Run* RunExportDialog::chosenRun() const {
    const int index = m_runCombo->currentIndex();
    return index >= 0 && index < m_runs.size() ? &m_runs.at(index) : nullptr;
}

bool RunExportDialog::chosenRunIsFull() const {
    const Run* run = chosenRun();
    return run && run->full;
}

void RunExportDialog::updateDefaultDestination() {
    const int index = m_runCombo->currentIndex();
    if (m_destinationEdited || index < 0 || m_stepCombo->currentIndex() < 0)
        return;
    setDestination(QDir(m_runs.at(index).folder)
                       .filePath(QStringLiteral("export/%1-step-%2")
                                     .arg(m_formatCombo->currentData().toString())
                                     .arg(m_stepCombo->currentData().toLongLong())));
}

void RunExportDialog::onSucceeded(const QJsonObject& summary) {
    setBusy(false);
    const QLocale locale;
    auto number = [&locale](const QJsonObject& object, const char* key) {
        return locale.toString(object.value(QLatin1String(key)).toDouble(), 'g', 3);
    };
    const QJsonArray files = summary.value(QStringLiteral("files")).toArray();
    const bool experts = std::any_of(files.begin(), files.end(), [](const QJsonValue& file) {
        return file.toObject().contains(QStringLiteral("expert"));
    });
    if (files.size() > 1 || experts) {
        // A two-expert model's export: each file verified against its own expert.
        QStringList lines{tr("Exported and verified, each file reloaded and compared with its "
                             "trained expert:")};
        for (const QJsonValue& value : files) {
            const QJsonObject file = value.toObject();
            lines.append(
                tr("• %1 (%2): differs by at most %3 (tolerance %4)")
                    .arg(QDir::toNativeSeparators(file.value(QStringLiteral("path")).toString()),
                         expertTitle(file.value(QStringLiteral("expert")).toString()),
                         number(file, "verified_max_abs_diff"), number(file, "tolerance")));
        }
        m_resultText = lines.join(QLatin1Char('\n'));
    } else {
        m_resultText =
            tr("Exported to %1 and verified: reloaded, it differs from the trained model by at "
               "most %2 (tolerance %3).")
                .arg(QDir::toNativeSeparators(summary.value(QStringLiteral("path")).toString()),
                     number(summary, "verified_max_abs_diff"), number(summary, "tolerance"));
    }
    m_resultLabel->setText(m_resultText);
    growToFit();
    m_exportedPath = summary.value(QStringLiteral("path")).toString();
    m_openFolderButton->setVisible(!m_exportedPath.isEmpty());
    emit exportFinished(m_runs.at(m_runCombo->currentIndex()).id,
                        summary.value(QStringLiteral("step")).toInteger(),
                        summary.value(QStringLiteral("format")).toString(),
                        summary.value(QStringLiteral("path")).toString());
}

void RunExportDialog::onFailed(const QString& message, const QString& hint) {
    setBusy(false);
    QString text = message;
    if (!hint.isEmpty())
        text += QLatin1Char('\n') + tr("What to do: %1").arg(hint);
    m_resultLabel->setText(text);
    growToFit();
    emit exportFailed(text);
}

void RunExportDialog::setBusy(bool busy) {
    m_progress->setVisible(busy);
    m_exportButton->setEnabled(!busy);
    m_runCombo->setEnabled(!busy);
    m_stepCombo->setEnabled(!busy);
    m_formatCombo->setEnabled(!busy);
    m_destinationEdit->setEnabled(!busy);
    m_browseButton->setEnabled(!busy);
}
