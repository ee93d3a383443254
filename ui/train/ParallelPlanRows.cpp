#include "ui/train/ParallelPlanRows.h"

#include "ui/train/FormFields.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>

namespace {

// parallel.plan; the last is the hybrid plan, the only one with sizes of its own.
const QStringList kPlans = {QStringLiteral("ddp"), QStringLiteral("zero1"), QStringLiteral("zero2"),
                            QStringLiteral("hybrid")};
// A hybrid plan's data-parallel axis: parallel.zero_stage.
const QStringList kZeroStages = {QStringLiteral("0"), QStringLiteral("1"), QStringLiteral("2")};
} // namespace

ParallelPlanRows::ParallelPlanRows(QWidget* parent, QFormLayout* form)
    : QObject(parent)
    , m_form(form)
    , m_planCombo(FormFields::valueCombo(parent, "parallelPlanCombo", kPlans))
    , m_spSizeSpin(
          FormFields::spinBox(parent, "sequenceParallelSpin", 1, FormFields::kMostProcesses))
    , m_tpSizeSpin(FormFields::spinBox(parent, "tensorParallelSpin", 1, FormFields::kMostProcesses))
    , m_ppSizeSpin(
          FormFields::spinBox(parent, "pipelineParallelSpin", 1, FormFields::kMostProcesses))
    , m_zeroStageCombo(FormFields::valueCombo(parent, "hybridZeroStageCombo", kZeroStages)) {
    for (QWidget* field : std::initializer_list<QWidget*>{m_planCombo, m_spSizeSpin, m_tpSizeSpin,
                                                          m_ppSizeSpin, m_zeroStageCombo}) {
        auto* label = new QLabel(parent);
        m_labels.append(label);
        m_form->addRow(label, field);
    }
    for (QSpinBox* box : {m_spSizeSpin, m_tpSizeSpin, m_ppSizeSpin})
        connect(box, &QSpinBox::valueChanged, this, &ParallelPlanRows::edited);
    connect(m_planCombo, &QComboBox::currentIndexChanged, this, [this] {
        updateVisibility();
        emit edited();
    });
    connect(m_zeroStageCombo, &QComboBox::currentIndexChanged, this, &ParallelPlanRows::edited);
    retranslateUi();
    updateVisibility();
}

void ParallelPlanRows::setParallel(const QJsonObject& parallel) {
    FormFields::selectValue(m_planCombo,
                            parallel.value(QStringLiteral("plan")).toString(kPlans.first()));
    m_spSizeSpin->setValue(parallel.value(QStringLiteral("sp_size")).toInt(1));
    m_tpSizeSpin->setValue(parallel.value(QStringLiteral("tp_size")).toInt(1));
    m_ppSizeSpin->setValue(parallel.value(QStringLiteral("pp_size")).toInt(1));
    FormFields::selectValue(m_zeroStageCombo,
                            QString::number(parallel.value(QStringLiteral("zero_stage")).toInt(0)));
}

QJsonObject ParallelPlanRows::parallel() const {
    const bool sized = hybrid();
    return QJsonObject{{QStringLiteral("plan"), m_planCombo->currentData().toString()},
                       {QStringLiteral("sp_size"), sized ? m_spSizeSpin->value() : 1},
                       {QStringLiteral("tp_size"), sized ? m_tpSizeSpin->value() : 1},
                       {QStringLiteral("pp_size"), sized ? m_ppSizeSpin->value() : 1},
                       {QStringLiteral("zero_stage"),
                        sized ? m_zeroStageCombo->currentData().toString().toInt() : 0}};
}

void ParallelPlanRows::setProcessCount(int processes) {
    m_processes = processes;
    updateVisibility();
}

QString ParallelPlanRows::inputError(int processes) const {
    if (processes < 2 || !hybrid() || processes % groupSize() == 0)
        return {};
    return tr("%1 processes cannot be split into groups of %2 tensor-parallel × %3 "
              "sequence-parallel ranks × %4 pipeline stages. Choose sizes whose product "
              "divides the process count.")
        .arg(processes)
        .arg(m_tpSizeSpin->value())
        .arg(m_spSizeSpin->value())
        .arg(m_ppSizeSpin->value());
}

QWidget* ParallelPlanRows::fieldWidget(const QString& jobField) const {
    if (jobField == QLatin1String("parallel.sp_size"))
        return m_spSizeSpin;
    if (jobField == QLatin1String("parallel.tp_size"))
        return m_tpSizeSpin;
    if (jobField == QLatin1String("parallel.pp_size"))
        return m_ppSizeSpin;
    if (jobField == QLatin1String("parallel.zero_stage"))
        return m_zeroStageCombo;
    if (jobField.startsWith(QLatin1String("parallel.")))
        return m_planCombo;
    return nullptr;
}

bool ParallelPlanRows::hybrid() const {
    return m_planCombo->currentData().toString() == kPlans.last();
}

int ParallelPlanRows::groupSize() const {
    return m_spSizeSpin->value() * m_tpSizeSpin->value() * m_ppSizeSpin->value();
}

void ParallelPlanRows::updateVisibility() {
    const bool several = m_processes > 1;
    m_form->setRowVisible(m_planCombo, several);
    for (QWidget* field : std::initializer_list<QWidget*>{m_spSizeSpin, m_tpSizeSpin, m_ppSizeSpin,
                                                          m_zeroStageCombo})
        m_form->setRowVisible(field, several && hybrid());
}

void ParallelPlanRows::retranslateUi() {
    const QStringList labels{tr("Parallel plan"), tr("Sequence-parallel ranks"),
                             tr("Tensor-parallel ranks"), tr("Pipeline stages"),
                             tr("Optimizer sharding")};
    for (qsizetype row = 0; row < m_labels.size(); ++row)
        m_labels.at(row)->setText(labels.at(row));
    m_planCombo->setItemText(0, tr("Data parallel (DDP)"));
    m_planCombo->setItemText(1, tr("ZeRO-1 (optimizer state sharded)"));
    m_planCombo->setItemText(2, tr("ZeRO-2 (optimizer state and gradients sharded)"));
    m_planCombo->setItemText(3, tr("Hybrid (pipeline, tensor and sequence parallel with data "
                                   "parallel)"));
    m_planCombo->setItemData(0,
                             tr("Every GPU holds the whole model and trains on its own clips; "
                                "gradients are averaged once per step."),
                             Qt::ToolTipRole);
    m_planCombo->setItemData(1,
                             tr("As data parallel, but each GPU keeps the optimizer state of its "
                                "share of the weights only."),
                             Qt::ToolTipRole);
    m_planCombo->setItemData(2,
                             tr("As ZeRO-1, and each GPU also keeps only its share of the "
                                "gradients: the least memory of the data-parallel plans."),
                             Qt::ToolTipRole);
    m_planCombo->setItemData(3,
                             tr("For models or videos too large for one GPU: pipeline parallel "
                                "gives each GPU a run of the blocks, tensor parallel splits every "
                                "block's heads and features between GPUs, sequence parallel "
                                "splits each video's tokens, and the rest of the GPUs train data "
                                "parallel."),
                             Qt::ToolTipRole);
    m_tpSizeSpin->setToolTip(tr("GPUs that share every block's weights, each holding a part of "
                                "the attention heads and feed-forward features. Fastest within "
                                "one machine; the heads must divide by it times the "
                                "sequence-parallel ranks."));
    m_ppSizeSpin->setToolTip(
        tr("GPUs that hold a run of the model's blocks each, the step's batches flowing through "
           "them one after another (gradient accumulation sets how many). Each holds only its "
           "blocks' weights and optimizer state; it passes one video's tokens per batch to the "
           "next, so it suits GPUs on different machines. Accumulate at least as many batches as "
           "there are stages to keep every GPU busy."));
    m_zeroStageCombo->setItemText(0, tr("None (every replica keeps all)"));
    m_zeroStageCombo->setItemText(1, tr("ZeRO-1 (optimizer state sharded)"));
    m_zeroStageCombo->setItemText(2, tr("ZeRO-2 (optimizer state and gradients sharded)"));
    m_spSizeSpin->setToolTip(tr("Processes that share one video's tokens. The model's attention "
                                "heads and the process count must both divide by it."));
}
