#include "ui/train/ModelFamilyRows.h"

#include "ui/train/FormFields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>

#include <algorithm>

namespace {

const QStringList kTasks = FormFields::jobChoices("task");
// flow_matching.expert: both (each step the expert its noise level belongs to), or one.
const QStringList kExperts = {QStringLiteral("high_noise"), QStringLiteral("low_noise"),
                              QStringLiteral("both")};
const QStringList kInactiveExperts = FormFields::jobChoices("memory.inactive_expert");

QJsonObject child(const QJsonObject& object, const char* key) {
    return object.value(QLatin1String(key)).toObject();
}

} // namespace

ModelFamilyRows::ModelFamilyRows(QWidget* parent, QFormLayout* form)
    : QObject(parent)
    , m_form(form)
    , m_summary(new QLabel(parent))
    , m_taskCombo(FormFields::valueCombo(parent, "modelTaskCombo", kTasks))
    , m_expertCombo(FormFields::valueCombo(parent, "expertCombo", kExperts))
    , m_inactiveExpertCombo(FormFields::valueCombo(parent, "inactiveExpertCombo", kInactiveExperts))
    // At most the model's depth (the engine refuses more); setFacts narrows it.
    , m_blocksToSwapSpin(
          FormFields::jobSpinBox(parent, "blocksToSwapSpin", "memory.blocks_to_swap"))
    , m_offloadActivationsCheck(new QCheckBox(parent))
    , m_imageDropoutSpin(new QDoubleSpinBox(parent)) {
    m_summary->setObjectName(QStringLiteral("modelSummaryLabel"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setForegroundRole(QPalette::PlaceholderText);
    m_form->addRow(m_summary);
    m_offloadActivationsCheck->setObjectName(QStringLiteral("offloadActivationsCheck"));
    m_imageDropoutSpin->setObjectName(QStringLiteral("noisedImageDropoutSpin"));
    FormFields::setJobRange(m_imageDropoutSpin, "dataset.noised_image_dropout");
    m_imageDropoutSpin->setDecimals(2);
    m_imageDropoutSpin->setSingleStep(0.05);
    for (QWidget* field : std::initializer_list<QWidget*>{
             m_taskCombo, m_expertCombo, m_inactiveExpertCombo, m_blocksToSwapSpin,
             m_offloadActivationsCheck, m_imageDropoutSpin}) {
        auto* label = new QLabel(parent);
        label->setBuddy(field);
        m_labels.append(label);
        m_form->addRow(label, field);
    }
    connect(m_taskCombo, &QComboBox::currentIndexChanged, this, [this] {
        m_wantedTask = m_taskCombo->currentData().toString();
        emit edited();
    });
    connect(m_expertCombo, &QComboBox::currentIndexChanged, this, [this] {
        updateRows();
        emit edited();
    });
    connect(m_inactiveExpertCombo, &QComboBox::currentIndexChanged, this, &ModelFamilyRows::edited);
    connect(m_blocksToSwapSpin, &QSpinBox::valueChanged, this, [this] {
        updateOffloadActivations();
        emit edited();
    });
    connect(m_offloadActivationsCheck, &QCheckBox::toggled, this, [this](bool checked) {
        m_wantsActivationOffload = checked;
        emit edited();
    });
    connect(m_imageDropoutSpin, &QDoubleSpinBox::valueChanged, this, &ModelFamilyRows::edited);
    retranslateUi();
    clear();
}

void ModelFamilyRows::showInspecting() {
    m_facts.reset();
    m_problem.clear();
    m_inspecting = true;
    updateRows();
}

void ModelFamilyRows::showProblem(const QString& message) {
    m_facts.reset();
    m_problem = message;
    m_inspecting = false;
    updateRows();
}

void ModelFamilyRows::clear() {
    m_facts.reset();
    m_problem.clear();
    m_inspecting = false;
    updateRows();
}

void ModelFamilyRows::setFacts(const ModelFacts& facts) {
    m_facts = facts;
    m_problem.clear();
    m_inspecting = false;
    {
        const QSignalBlocker blocker(m_taskCombo);
        const QString task = facts.hasTask(m_wantedTask) ? m_wantedTask : facts.tasks.first();
        FormFields::selectValue(m_taskCombo, task);
    }
    const QSignalBlocker blocker(m_blocksToSwapSpin);
    m_blocksToSwapSpin->setMaximum(std::max(0, facts.layers));
    updateRows();
}

void ModelFamilyRows::setJob(const QJsonObject& job) {
    const QSignalBlocker taskBlocker(m_taskCombo);
    const QSignalBlocker expertBlocker(m_expertCombo);
    const QSignalBlocker inactiveBlocker(m_inactiveExpertCombo);
    const QSignalBlocker swapBlocker(m_blocksToSwapSpin);
    const QSignalBlocker offloadBlocker(m_offloadActivationsCheck);
    const QSignalBlocker dropoutBlocker(m_imageDropoutSpin);
    // The defaults are common/training_job.h's, for a field the job leaves out.
    m_wantedTask = job.value(QStringLiteral("task")).toString(QStringLiteral("t2v"));
    if (!m_facts || m_facts->hasTask(m_wantedTask))
        FormFields::selectValue(m_taskCombo, m_wantedTask);
    FormFields::selectValue(
        m_expertCombo,
        child(job, "flow_matching").value(QStringLiteral("expert")).toString(kExperts.last()));
    const QJsonObject memory = child(job, "memory");
    FormFields::selectValue(
        m_inactiveExpertCombo,
        memory.value(QStringLiteral("inactive_expert")).toString(kInactiveExperts.first()));
    // A preset's count past this model's depth shows as all of them; the engine has the last
    // word on the value written.
    m_blocksToSwapSpin->setValue(memory.value(QStringLiteral("blocks_to_swap")).toInt(0));
    m_wantsActivationOffload = memory.value(QStringLiteral("offload_activations")).toBool(false);
    m_gradientCheckpointing = job.value(QStringLiteral("gradient_checkpointing")).toBool(true);
    m_imageDropoutSpin->setValue(
        child(job, "dataset").value(QStringLiteral("noised_image_dropout")).toDouble(0.05));
    updateRows();
}

QJsonObject ModelFamilyRows::values() const {
    if (!m_facts)
        return {};
    QJsonObject values{{QStringLiteral("task"), task()}};
    // Off where no block recomputes, which the engine would refuse.
    QJsonObject memory{
        {QStringLiteral("blocks_to_swap"), m_blocksToSwapSpin->value()},
        {QStringLiteral("offload_activations"),
         m_offloadActivationsCheck->isEnabled() && m_offloadActivationsCheck->isChecked()}};
    if (m_facts->hasTwoExperts()) {
        values.insert(
            QStringLiteral("flow_matching"),
            QJsonObject{{QStringLiteral("expert"), m_expertCombo->currentData().toString()}});
        memory.insert(QStringLiteral("inactive_expert"),
                      m_inactiveExpertCombo->currentData().toString());
    }
    values.insert(QStringLiteral("memory"), memory);
    if (!m_facts->trainsByFlowMatching() && task() == QLatin1String("i2v"))
        values.insert(
            QStringLiteral("dataset"),
            QJsonObject{{QStringLiteral("noised_image_dropout"), m_imageDropoutSpin->value()}});
    return values;
}

QString ModelFamilyRows::task() const {
    // Until the engine has read the folder (or where it cannot), the task asked for stands; the
    // engine refuses it at start if the model does not do it.
    if (!m_facts)
        return m_wantedTask;
    const QString chosen = m_taskCombo->currentData().toString();
    return m_facts->hasTask(chosen) ? chosen : m_facts->tasks.first();
}

QWidget* ModelFamilyRows::fieldWidget(const QString& jobField) const {
    if (jobField == QLatin1String("task"))
        return m_taskCombo;
    if (jobField == QLatin1String("flow_matching.expert"))
        return m_expertCombo;
    if (jobField == QLatin1String("memory.inactive_expert"))
        return m_inactiveExpertCombo;
    if (jobField == QLatin1String("memory.blocks_to_swap"))
        return m_blocksToSwapSpin;
    if (jobField == QLatin1String("memory.offload_activations"))
        return m_offloadActivationsCheck;
    if (jobField == QLatin1String("dataset.noised_image_dropout"))
        return m_imageDropoutSpin;
    return nullptr;
}

void ModelFamilyRows::setGradientCheckpointing(bool on) {
    if (on == m_gradientCheckpointing)
        return;
    m_gradientCheckpointing = on;
    updateOffloadActivations();
}

void ModelFamilyRows::updateOffloadActivations() {
    const bool recomputes = m_gradientCheckpointing || m_blocksToSwapSpin->value() > 0;
    m_offloadActivationsCheck->setEnabled(recomputes);
    {
        const QSignalBlocker blocker(m_offloadActivationsCheck);
        m_offloadActivationsCheck->setChecked(recomputes && m_wantsActivationOffload);
    }
    m_offloadActivationsCheck->setToolTip(
        recomputes
            ? tr("Keeps the input each recomputed block saves for the backward pass in host "
                 "memory instead of on the GPU, copying it back just before the block "
                 "recomputes: saves about one tensor as large as the video's tokens per block of "
                 "GPU "
                 "memory (about 13 GB for a 14B model at 81 × 480 × 832), for as much host RAM and "
                 "a copy "
                 "each way over PCIe per block. Training gives the same results. The estimate "
                 "below counts it.")
            : tr("Only blocks that recompute their activations have an input to offload: turn "
                 "on gradient checkpointing (under Advanced) or offload some blocks."));
}

void ModelFamilyRows::updateRows() {
    QString summary;
    if (m_facts)
        summary = m_facts->summaryText();
    else if (m_inspecting)
        summary = tr("Reading the model folder…");
    else
        summary = m_problem;
    m_summary->setText(summary);
    m_summary->setToolTip(m_facts ? QDir::toNativeSeparators(m_facts->folder) : QString());
    m_form->setRowVisible(m_summary, !summary.isEmpty());
    const bool known = m_facts.has_value();
    const bool twoExperts = known && m_facts->hasTwoExperts();
    m_form->setRowVisible(m_taskCombo, known && m_facts->tasks.size() > 1);
    m_form->setRowVisible(m_expertCombo, twoExperts);
    m_form->setRowVisible(m_inactiveExpertCombo,
                          twoExperts && m_expertCombo->currentData().toString() == kExperts.last());
    m_form->setRowVisible(m_blocksToSwapSpin, known && m_facts->layers > 0);
    m_form->setRowVisible(m_offloadActivationsCheck, known);
    updateOffloadActivations();
    m_form->setRowVisible(m_imageDropoutSpin, known && !m_facts->trainsByFlowMatching() &&
                                                  m_facts->hasTask(QStringLiteral("i2v")));
    if (known)
        m_blocksToSwapSpin->setSuffix(tr(" of %n blocks", nullptr, m_facts->layers));
}

void ModelFamilyRows::retranslateUi() {
    const QStringList labels{tr("Task"),
                             tr("Expert"),
                             tr("Idle expert waits in"),
                             tr("Offload blocks"),
                             tr("Offload activations"),
                             tr("First-frame dropout")};
    for (qsizetype row = 0; row < m_labels.size(); ++row)
        m_labels.at(row)->setText(labels.at(row));
    m_taskCombo->setItemText(0, tr("Text to video"));
    m_taskCombo->setItemText(1, tr("Image to video (from each clip's first frame)"));
    m_taskCombo->setToolTip(
        tr("This model makes videos from a prompt alone and from a prompt with a first frame. "
           "Image to video trains on each clip's first frame (or the one chosen with Use This "
           "Frame on the Dataset page) as the picture to start from."));
    m_expertCombo->setItemText(0, tr("High-noise expert"));
    m_expertCombo->setItemText(1, tr("Low-noise expert"));
    m_expertCombo->setItemText(2, tr("Both (one at a time)"));
    m_expertCombo->setToolTip(
        tr("This model has two transformers: the high-noise expert lays out composition and "
           "motion in the first denoising steps, the low-noise expert refines detail in the "
           "last ones. Train one (its noise levels only; about half the memory of both), or "
           "both in one run, each step training the one whose noise levels it drew while the "
           "other waits. Validation always samples with both."));
    m_inactiveExpertCombo->setItemText(0, tr("Host memory"));
    m_inactiveExpertCombo->setItemText(1, tr("Disk (read again when its turn comes)"));
    m_inactiveExpertCombo->setToolTip(
        tr("Where the expert that is not training the current step waits. Host memory takes "
           "about 28 GB of RAM for a 14B expert; disk takes none but reads it from the model "
           "folder each time the experts change places, which is slower."));
    m_blocksToSwapSpin->setSpecialValueText(tr("None"));
    m_blocksToSwapSpin->setToolTip(
        tr("Keeps the last this many transformer blocks in host memory and copies each to the "
           "GPU just before it runs, in the forward and the backward pass: the GPU holds the "
           "other blocks and two swapped ones. Lets a model larger than the GPU train, at some "
           "speed (the copies overlap the computation); swapped blocks always recompute their "
           "activations. The estimate below counts it."));
    m_offloadActivationsCheck->setText(tr("Keep recomputed blocks' inputs in host memory"));
    m_imageDropoutSpin->setToolTip(
        tr("The share of steps that train without the first frame's picture, so the model also "
           "learns to follow the prompt alone (cogvideox-factory's noised image dropout)."));
    updateRows();
}
