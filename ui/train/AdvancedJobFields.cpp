#include "ui/train/AdvancedJobFields.h"

#include "ui/train/FormFields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <optional>
#include <utility>

namespace {

const QStringList kSchedules = FormFields::jobChoices("lr_schedule.name");
const QStringList kResizeModes = FormFields::jobChoices("dataset.resize_mode");
const QStringList kDensities = FormFields::jobChoices("flow_matching.density");
const QStringList kLossWeightings = FormFields::jobChoices("flow_matching.loss_weighting");

QJsonObject child(const QJsonObject& object, const char* key) {
    return object.value(QLatin1String(key)).toObject();
}

// "9, 17, 49" as whole numbers; nullopt when a part is not one.
std::optional<QJsonArray> frameBuckets(const QString& text) {
    QJsonArray frames;
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int value = part.trimmed().toInt(&ok);
        if (!ok)
            return std::nullopt;
        frames.append(value);
    }
    return frames;
}

// "480x720, 240x360" (height x width) as [[480, 720], [240, 360]]; nullopt when a part is not.
std::optional<QJsonArray> resolutionBuckets(const QString& text) {
    static const QRegularExpression size(QStringLiteral(R"(^\s*(\d+)\s*[x×]\s*(\d+)\s*$)"));
    QJsonArray sizes;
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QRegularExpressionMatch match = size.match(part);
        if (!match.hasMatch())
            return std::nullopt;
        sizes.append(QJsonArray{match.captured(1).toInt(), match.captured(2).toInt()});
    }
    return sizes;
}

} // namespace

AdvancedJobFields::AdvancedJobFields(QWidget* parent)
    : QWidget(parent)
    , m_toggle(new QToolButton(this))
    , m_body(new QWidget(this))
    , m_form(new QFormLayout(m_body))
    , m_checkpointingCheck(new QCheckBox(m_body))
    // 0 shows as "All blocks": with checkpointing on, none is what unchecking it means.
    , m_checkpointedBlocksSpin(
          FormFields::jobSpinBox(m_body, "checkpointedBlocksSpin", "checkpointed_blocks", 0))
    , m_keepAttentionCheck(new QCheckBox(m_body))
    , m_accumulationSpin(
          FormFields::jobSpinBox(m_body, "gradientAccumulationSpin", "gradient_accumulation"))
    , m_clipSpin(new QDoubleSpinBox(m_body))
    , m_scheduleCombo(new QComboBox(m_body))
    , m_warmupSpin(FormFields::jobSpinBox(m_body, "warmupStepsSpin", "lr_schedule.warmup_steps"))
    , m_seedSpin(FormFields::jobSpinBox(m_body, "seedSpin", "seed"))
    , m_frameBucketsEdit(new QLineEdit(m_body))
    , m_resolutionBucketsEdit(new QLineEdit(m_body))
    , m_resizeCombo(new QComboBox(m_body))
    , m_captionDropoutSpin(new QDoubleSpinBox(m_body))
    , m_vaeTilingCheck(new QCheckBox(m_body))
    , m_vaeSlicingCheck(new QCheckBox(m_body))
    , m_flowShiftSpin(new QDoubleSpinBox(m_body))
    , m_densityCombo(FormFields::valueCombo(m_body, "timestepDensityCombo", kDensities))
    , m_lossWeightingCombo(FormFields::valueCombo(m_body, "lossWeightingCombo", kLossWeightings))
    , m_bucketNote(new QLabel(m_body)) {
    setObjectName(QStringLiteral("advancedJobFields"));
    m_toggle->setObjectName(QStringLiteral("advancedToggle"));
    m_toggle->setCheckable(true);
    m_toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_toggle->setArrowType(Qt::RightArrow);
    m_toggle->setAutoRaise(true);
    connect(m_toggle, &QToolButton::toggled, this, &AdvancedJobFields::setExpanded);

    m_checkpointingCheck->setObjectName(QStringLiteral("gradientCheckpointingCheck"));
    connect(m_checkpointingCheck, &QCheckBox::toggled, m_checkpointedBlocksSpin,
            &QWidget::setEnabled);
    m_keepAttentionCheck->setObjectName(QStringLiteral("keepAttentionCheck"));
    connect(m_checkpointingCheck, &QCheckBox::toggled, m_keepAttentionCheck, &QWidget::setEnabled);
    m_clipSpin->setObjectName(QStringLiteral("maxGradNormSpin"));
    FormFields::setJobRange(m_clipSpin, "max_grad_norm");
    m_clipSpin->setDecimals(2);
    m_clipSpin->setSingleStep(0.1);
    m_scheduleCombo->setObjectName(QStringLiteral("lrScheduleCombo"));
    for (const QString& name : kSchedules)
        m_scheduleCombo->addItem(QString(), name);
    m_frameBucketsEdit->setObjectName(QStringLiteral("frameBucketsEdit"));
    m_resolutionBucketsEdit->setObjectName(QStringLiteral("resolutionBucketsEdit"));
    m_resizeCombo->setObjectName(QStringLiteral("resizeModeCombo"));
    for (const QString& mode : kResizeModes)
        m_resizeCombo->addItem(QString(), mode);
    m_captionDropoutSpin->setObjectName(QStringLiteral("captionDropoutSpin"));
    FormFields::setJobRange(m_captionDropoutSpin, "dataset.caption_dropout");
    m_captionDropoutSpin->setDecimals(2);
    m_captionDropoutSpin->setSingleStep(0.05);
    m_vaeTilingCheck->setObjectName(QStringLiteral("vaeTilingCheck"));
    m_vaeSlicingCheck->setObjectName(QStringLiteral("vaeSlicingCheck"));
    m_flowShiftSpin->setObjectName(QStringLiteral("flowShiftSpin"));
    // 0 is below the job's open range (0, 100]: it stands for "unset", the model's own shift.
    m_flowShiftSpin->setRange(0.0, 100.0);
    m_flowShiftSpin->setDecimals(2);
    m_flowShiftSpin->setSingleStep(0.5);
    m_bucketNote->setObjectName(QStringLiteral("bucketSnapNote"));
    m_bucketNote->setWordWrap(true);
    m_bucketNote->setForegroundRole(QPalette::PlaceholderText);

    for (QWidget* field : std::initializer_list<QWidget*>{
             m_checkpointingCheck, m_checkpointedBlocksSpin, m_keepAttentionCheck,
             m_accumulationSpin, m_clipSpin, m_scheduleCombo, m_warmupSpin, m_seedSpin,
             m_frameBucketsEdit, m_resolutionBucketsEdit, m_resizeCombo, m_captionDropoutSpin,
             m_vaeTilingCheck, m_vaeSlicingCheck, m_flowShiftSpin, m_densityCombo,
             m_lossWeightingCombo}) {
        auto* label = new QLabel(m_body);
        label->setBuddy(field);
        m_labels.append(label);
        m_form->addRow(label, field);
    }
    int resolutionRow = -1;
    QFormLayout::ItemRole role;
    m_form->getWidgetPosition(m_resolutionBucketsEdit, &resolutionRow, &role);
    m_form->insertRow(resolutionRow + 1, QString(), m_bucketNote);
    m_form->setRowVisible(m_bucketNote, false);
    m_form->setContentsMargins(0, 0, 0, 0);
    m_form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    m_body->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_toggle, 0, Qt::AlignLeft);
    layout->addWidget(m_body);

    for (QCheckBox* box :
         {m_checkpointingCheck, m_keepAttentionCheck, m_vaeTilingCheck, m_vaeSlicingCheck})
        connect(box, &QCheckBox::toggled, this, &AdvancedJobFields::edited);
    for (QSpinBox* box : {m_checkpointedBlocksSpin, m_accumulationSpin, m_warmupSpin, m_seedSpin})
        connect(box, &QSpinBox::valueChanged, this, &AdvancedJobFields::edited);
    for (QDoubleSpinBox* box : {m_clipSpin, m_captionDropoutSpin, m_flowShiftSpin})
        connect(box, &QDoubleSpinBox::valueChanged, this, &AdvancedJobFields::edited);
    for (QComboBox* box : {m_scheduleCombo, m_resizeCombo, m_densityCombo, m_lossWeightingCombo})
        connect(box, &QComboBox::currentIndexChanged, this, &AdvancedJobFields::edited);
    for (QLineEdit* edit : {m_frameBucketsEdit, m_resolutionBucketsEdit}) {
        connect(edit, &QLineEdit::textChanged, this, &AdvancedJobFields::edited);
        connect(edit, &QLineEdit::editingFinished, this, &AdvancedJobFields::snapBuckets);
    }
    retranslateUi();
    setJob({});
    updateModelRows();
}

void AdvancedJobFields::setJob(const QJsonObject& job) {
    const QSignalBlocker blocker(this);
    const QJsonObject dataset = child(job, "dataset");
    const QJsonObject schedule = child(job, "lr_schedule");
    // The defaults are common/training_job.h's, for a field the job leaves out.
    m_checkpointingCheck->setChecked(
        job.value(QStringLiteral("gradient_checkpointing")).toBool(true));
    m_checkpointedBlocksSpin->setEnabled(m_checkpointingCheck->isChecked());
    m_checkpointedBlocksSpin->setValue(job.value(QStringLiteral("checkpointed_blocks")).toInt(0));
    m_keepAttentionCheck->setEnabled(m_checkpointingCheck->isChecked());
    m_keepAttentionCheck->setChecked(
        job.value(QStringLiteral("checkpoint_keeps_attention")).toBool(false));
    m_accumulationSpin->setValue(job.value(QStringLiteral("gradient_accumulation")).toInt(1));
    m_clipSpin->setValue(job.value(QStringLiteral("max_grad_norm")).toDouble(1.0));
    FormFields::selectValue(
        m_scheduleCombo,
        schedule.value(QStringLiteral("name")).toString(QStringLiteral("constant")));
    m_warmupSpin->setValue(schedule.value(QStringLiteral("warmup_steps")).toInt(0));
    m_seedSpin->setValue(job.value(QStringLiteral("seed")).toInt(42));
    QStringList frames;
    const QJsonArray frameList = dataset.contains(QStringLiteral("frame_buckets"))
                                     ? dataset.value(QStringLiteral("frame_buckets")).toArray()
                                     : QJsonArray{49};
    for (const QJsonValue& value : frameList)
        frames.append(QString::number(value.toInt()));
    m_frameBucketsEdit->setText(frames.join(QStringLiteral(", ")));
    QStringList sizes;
    const QJsonArray sizeList = dataset.contains(QStringLiteral("resolution_buckets"))
                                    ? dataset.value(QStringLiteral("resolution_buckets")).toArray()
                                    : QJsonArray{QJsonValue(QJsonArray{480, 720})};
    for (const QJsonValue& value : sizeList) {
        const QJsonArray size = value.toArray();
        sizes.append(QStringLiteral("%1x%2").arg(size.at(0).toInt()).arg(size.at(1).toInt()));
    }
    m_resolutionBucketsEdit->setText(sizes.join(QStringLiteral(", ")));
    FormFields::selectValue(
        m_resizeCombo,
        dataset.value(QStringLiteral("resize_mode")).toString(QStringLiteral("stretch")));
    m_captionDropoutSpin->setValue(dataset.value(QStringLiteral("caption_dropout")).toDouble(0.0));
    m_vaeTilingCheck->setChecked(dataset.value(QStringLiteral("vae_tiling")).toBool(false));
    m_vaeSlicingCheck->setChecked(dataset.value(QStringLiteral("vae_slicing")).toBool(false));
    const QJsonObject flow = child(job, "flow_matching");
    m_flowShiftSpin->setValue(flow.value(QStringLiteral("shift")).toDouble(0.0));
    FormFields::selectValue(m_densityCombo,
                            flow.value(QStringLiteral("density")).toString(kDensities.first()));
    FormFields::selectValue(
        m_lossWeightingCombo,
        flow.value(QStringLiteral("loss_weighting")).toString(kLossWeightings.first()));
    m_form->setRowVisible(m_bucketNote, false);
}

QJsonObject AdvancedJobFields::values() const {
    QJsonObject dataset{
        {QStringLiteral("resize_mode"), m_resizeCombo->currentData().toString()},
        {QStringLiteral("caption_dropout"), m_captionDropoutSpin->value()},
        {QStringLiteral("vae_tiling"), m_vaeTilingCheck->isChecked()},
        {QStringLiteral("vae_slicing"), m_vaeSlicingCheck->isChecked()},
    };
    // Text that does not parse leaves the preset's buckets; inputError() says why.
    if (const std::optional<QJsonArray> frames = frameBuckets(m_frameBucketsEdit->text()))
        dataset.insert(QStringLiteral("frame_buckets"), *frames);
    if (const std::optional<QJsonArray> sizes = resolutionBuckets(m_resolutionBucketsEdit->text()))
        dataset.insert(QStringLiteral("resolution_buckets"), *sizes);
    QJsonObject values{
        {QStringLiteral("gradient_checkpointing"), m_checkpointingCheck->isChecked()},
        {QStringLiteral("checkpointed_blocks"), m_checkpointedBlocksSpin->value() > 0
                                                    ? QJsonValue(m_checkpointedBlocksSpin->value())
                                                    : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("checkpoint_keeps_attention"), m_keepAttentionCheck->isChecked()},
        {QStringLiteral("gradient_accumulation"), m_accumulationSpin->value()},
        {QStringLiteral("max_grad_norm"), m_clipSpin->value()},
        {QStringLiteral("seed"), m_seedSpin->value()},
        {QStringLiteral("lr_schedule"),
         QJsonObject{{QStringLiteral("name"), m_scheduleCombo->currentData().toString()},
                     {QStringLiteral("warmup_steps"), m_warmupSpin->value()}}},
        {QStringLiteral("dataset"), dataset},
    };
    // The other families have no flow_matching settings to write.
    if (m_facts && m_facts->trainsByFlowMatching()) {
        values.insert(
            QStringLiteral("flow_matching"),
            QJsonObject{{QStringLiteral("shift"), m_flowShiftSpin->value() > 0
                                                      ? QJsonValue(m_flowShiftSpin->value())
                                                      : QJsonValue(QJsonValue::Null)},
                        {QStringLiteral("density"), m_densityCombo->currentData().toString()},
                        {QStringLiteral("loss_weighting"),
                         m_lossWeightingCombo->currentData().toString()}});
    }
    return values;
}

QString AdvancedJobFields::inputError() const {
    if (!frameBuckets(m_frameBucketsEdit->text()))
        return tr("Frame buckets: “%1” is not a list of frame counts. Write them like 9, 17, "
                  "49, 81 (each 4k + 1).")
            .arg(m_frameBucketsEdit->text());
    if (!resolutionBuckets(m_resolutionBucketsEdit->text()))
        return tr("Resolution buckets: “%1” is not a list of sizes. Write them as height x "
                  "width, like 480x720, 240x360.")
            .arg(m_resolutionBucketsEdit->text());
    return {};
}

QWidget* AdvancedJobFields::fieldWidget(const QString& jobField) const {
    const std::initializer_list<std::pair<const char*, QWidget*>> fields{
        {"gradient_checkpointing", m_checkpointingCheck},
        {"checkpointed_blocks", m_checkpointedBlocksSpin},
        {"checkpoint_keeps_attention", m_keepAttentionCheck},
        {"gradient_accumulation", m_accumulationSpin},
        {"max_grad_norm", m_clipSpin},
        {"lr_schedule.name", m_scheduleCombo},
        {"lr_schedule.warmup_steps", m_warmupSpin},
        {"seed", m_seedSpin},
        {"dataset.frame_buckets", m_frameBucketsEdit},
        {"dataset.resolution_buckets", m_resolutionBucketsEdit},
        {"dataset.resize_mode", m_resizeCombo},
        {"dataset.caption_dropout", m_captionDropoutSpin},
        {"dataset.vae_tiling", m_vaeTilingCheck},
        {"dataset.vae_slicing", m_vaeSlicingCheck},
        {"flow_matching.shift", m_flowShiftSpin},
        {"flow_matching.density", m_densityCombo},
        {"flow_matching.loss_weighting", m_lossWeightingCombo}};
    for (const auto& [name, widget] : fields) {
        if (jobField == QLatin1String(name))
            return widget;
    }
    return nullptr;
}

bool AdvancedJobFields::gradientCheckpointing() const {
    return m_checkpointingCheck->isChecked();
}

void AdvancedJobFields::setExpanded(bool expanded) {
    const QSignalBlocker blocker(m_toggle);
    m_toggle->setChecked(expanded);
    m_toggle->setArrowType(expanded ? Qt::DownArrow : Qt::RightArrow);
    m_body->setVisible(expanded);
}

bool AdvancedJobFields::isExpanded() const {
    return m_toggle->isChecked();
}

void AdvancedJobFields::setModelFacts(const std::optional<ModelFacts>& facts) {
    if (facts == m_facts)
        return;
    m_facts = facts;
    updateModelRows();
    retranslateUi();
}

void AdvancedJobFields::updateModelRows() {
    const bool flowMatching = m_facts && m_facts->trainsByFlowMatching();
    for (QWidget* field :
         std::initializer_list<QWidget*>{m_flowShiftSpin, m_densityCombo, m_lossWeightingCombo})
        m_form->setRowVisible(field, flowMatching);
}

void AdvancedJobFields::snapBuckets() {
    // Without a model, a model's facts' defaults: the job's own limits (4k + 1 frames, sides in
    // multiples of 16).
    const ModelFacts rules = m_facts.value_or(ModelFacts{});
    QStringList notes;
    if (std::optional<QJsonArray> frames = frameBuckets(m_frameBucketsEdit->text())) {
        QStringList texts;
        QStringList changed;
        for (const QJsonValue& value : *frames) {
            const int count = value.toInt();
            const int snapped = rules.snappedFrames(count);
            texts.append(QString::number(snapped));
            if (snapped != count)
                changed.append(tr("%1 became %2").arg(count).arg(snapped));
        }
        if (!changed.isEmpty()) {
            const QSignalBlocker blocker(m_frameBucketsEdit);
            m_frameBucketsEdit->setText(texts.join(QStringLiteral(", ")));
            notes.append(tr("This model takes frame counts of %1k + 1: %2.")
                             .arg(rules.frameStep())
                             .arg(changed.join(QStringLiteral(", "))));
        }
    }
    if (std::optional<QJsonArray> sizes = resolutionBuckets(m_resolutionBucketsEdit->text())) {
        QStringList texts;
        QStringList changed;
        auto snap = [&](int pixels) {
            return rules.snappedSide(pixels);
        };
        for (const QJsonValue& value : *sizes) {
            const QJsonArray size = value.toArray();
            const int height = size.at(0).toInt();
            const int width = size.at(1).toInt();
            const QString snapped = QStringLiteral("%1x%2").arg(snap(height)).arg(snap(width));
            texts.append(snapped);
            if (snap(height) != height || snap(width) != width)
                changed.append(tr("%1x%2 became %3").arg(height).arg(width).arg(snapped));
        }
        if (!changed.isEmpty()) {
            const QSignalBlocker blocker(m_resolutionBucketsEdit);
            m_resolutionBucketsEdit->setText(texts.join(QStringLiteral(", ")));
            notes.append(tr("This model takes sides in multiples of %1 pixels: %2.")
                             .arg(rules.sizeMultiple())
                             .arg(changed.join(QStringLiteral(", "))));
        }
    }
    m_bucketNote->setText(notes.join(QLatin1Char('\n')));
    m_form->setRowVisible(m_bucketNote, !notes.isEmpty());
    if (!notes.isEmpty())
        emit edited();
}

void AdvancedJobFields::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void AdvancedJobFields::retranslateUi() {
    m_toggle->setText(tr("Advanced"));
    const QStringList labels{tr("Gradient checkpointing"),
                             tr("Recomputed blocks"),
                             tr("Attention"),
                             tr("Gradient accumulation"),
                             tr("Gradient clipping"),
                             tr("Learning-rate schedule"),
                             tr("Warmup steps"),
                             tr("Seed"),
                             tr("Frame buckets"),
                             tr("Resolution buckets"),
                             tr("Fit clips by"),
                             tr("Caption dropout"),
                             tr("VAE tiling"),
                             tr("VAE slicing"),
                             tr("Flow shift"),
                             tr("Noise levels"),
                             tr("Loss weighting")};
    for (qsizetype index = 0; index < labels.size(); ++index)
        m_labels.at(index)->setText(labels.at(index));
    m_checkpointingCheck->setText(tr("Recompute activations in the backward pass"));
    m_checkpointingCheck->setToolTip(
        tr("Saves most of the activation memory for about a third more time per step. Leave it "
           "on unless the model fits without it."));
    m_checkpointedBlocksSpin->setSpecialValueText(tr("All blocks"));
    m_checkpointedBlocksSpin->setToolTip(
        m_facts ? tr("Recompute only the first this many transformer blocks; the others keep "
                     "their activations. Each kept block makes a step faster and takes more "
                     "memory: the estimate below shows how much. This model has %n blocks.",
                     nullptr, m_facts->layers)
                : tr("Recompute only the first this many transformer blocks; the others keep "
                     "their activations. Each kept block makes a step faster and takes more "
                     "memory: the estimate below shows how much. CogVideoX-2b has 30 blocks, 5b "
                     "has 42."));
    m_keepAttentionCheck->setText(tr("Keep attention results"));
    m_keepAttentionCheck->setToolTip(
        tr("Recomputed blocks keep what attention computed, so the backward pass does not run "
           "attention again: on a GPU about a tenth faster per step, for about 2 GiB more with "
           "CogVideoX-2b at 49 × 480 × 720 (4.4 GiB with 5b). The estimate below counts it."));
    m_accumulationSpin->setToolTip(
        tr("Steps whose gradients add up before the optimizer moves: the effective batch is the "
           "batch size times this, at the memory of one batch."));
    m_clipSpin->setSpecialValueText(tr("Off"));
    m_clipSpin->setToolTip(
        tr("Gradients whose norm exceeds this are scaled down to it, which keeps a bad batch "
           "from throwing training off. 0 turns clipping off."));
    const QStringList schedules{
        tr("Constant"),     tr("Constant after warmup"), tr("Linear decay"),
        tr("Cosine decay"), tr("Cosine with restarts"),  tr("Polynomial decay")};
    for (int index = 0; index < m_scheduleCombo->count(); ++index)
        m_scheduleCombo->setItemText(index, schedules.at(index));
    m_scheduleCombo->setToolTip(tr("How the learning rate changes over the run's steps."));
    m_warmupSpin->setToolTip(
        tr("Steps over which the learning rate rises from 0 to its value at the start."));
    m_seedSpin->setToolTip(tr("Seeds the LoRA's initial weights, the noise and the crops: the "
                              "same seed and data repeat a run exactly."));
    const int multiple = m_facts.value_or(ModelFacts{}).sizeMultiple();
    m_frameBucketsEdit->setToolTip(
        tr("The clip lengths trained, in frames (each 4k + 1: 9, 17, 33, 49, 81, …). A clip "
           "trains at the longest that fits it; one shorter than all is left out. Other counts "
           "are rounded to the nearest that fits when you leave the field."));
    m_resolutionBucketsEdit->setToolTip(
        tr("The sizes trained, height x width in pixels (multiples of %1 for this model). Each "
           "clip trains at the size nearest its own shape. Other sizes are rounded to the "
           "nearest multiple when you leave the field.")
            .arg(multiple));
    m_flowShiftSpin->setSpecialValueText(tr("The model's own"));
    m_flowShiftSpin->setToolTip(
        tr("Moves the noise levels trained toward the noisy end: higher for larger videos, as "
           "more pixels need more noise before their content is gone. Wan trains with 3 at 480p "
           "and 5 at 720p; the model's own is its scheduler's."));
    m_densityCombo->setItemText(0, tr("Evenly over all levels"));
    m_densityCombo->setItemText(1, tr("Mostly middle levels (logit-normal)"));
    m_densityCombo->setItemText(2, tr("Middle levels, gently (mode)"));
    m_densityCombo->setToolTip(
        tr("Where the noise level of each training step is drawn: evenly, or more often in the "
           "middle, where a model learns the most (Stable Diffusion 3's logit-normal, as "
           "musubi-tuner's shift sampling draws them). The flow shift applies after."));
    m_lossWeightingCombo->setItemText(0, tr("Equal"));
    m_lossWeightingCombo->setItemText(1, tr("By noise level (σ²)"));
    m_lossWeightingCombo->setItemText(2, tr("Cosine map"));
    m_lossWeightingCombo->setToolTip(
        tr("How much each step's loss counts by its noise level. Equal is what Wan was trained "
           "with; the others weigh noisier steps more (σ²) or follow Stable Diffusion 3's "
           "cosine map."));
    const QStringList resizeModes{tr("Stretching"), tr("Cropping the centre"),
                                  tr("Cropping at random")};
    for (int index = 0; index < m_resizeCombo->count(); ++index)
        m_resizeCombo->setItemText(index, resizeModes.at(index));
    m_resizeCombo->setToolTip(
        tr("How a clip whose shape differs from its bucket is fitted to it: stretched whole, or "
           "scaled to cover it and cropped."));
    m_captionDropoutSpin->setToolTip(
        tr("The share of steps that train on an empty caption, which helps guidance-free "
           "sampling. 0 keeps every caption."));
    m_vaeTilingCheck->setText(tr("Encode and decode in tiles"));
    m_vaeTilingCheck->setToolTip(
        tr("Less memory while preparing clips and decoding validation videos, at some speed."));
    m_vaeSlicingCheck->setText(tr("One video at a time"));
    m_vaeSlicingCheck->setToolTip(
        tr("The VAE encodes and decodes a batch one video at a time: less memory, same result."));
}
