#pragma once

#include "app/jobs/ModelFacts.h"

#include <QJsonObject>
#include <QWidget>

#include <optional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;
class QToolButton;

// The job fields past the everyday ones, behind an "Advanced" disclosure on the Train form:
// gradient checkpointing and accumulation, clipping, the learning-rate schedule and its warmup,
// the seed, the frame and resolution buckets, how clips are fitted to them, caption dropout
// and the VAE's tiling and slicing, and for a model trained by flow matching (Wan) the flow
// shift, where the noise levels are drawn and how the loss weighs them. Each field says in its
// tooltip what it changes. Buckets snap to what the chosen model takes (4k + 1 frames, sides in
// multiples of 16, or 32 for Wan 2.2 TI2V-5B) when typing ends, with a note saying so.
class AdvancedJobFields : public QWidget {
    Q_OBJECT

public:
    explicit AdvancedJobFields(QWidget* parent = nullptr);

    // Shows a job's values (a preset's, or one restored); fields it lacks show the engine's
    // defaults.
    void setJob(const QJsonObject& job);
    // The fields as job JSON, to merge over the preset.
    QJsonObject values() const;
    // What is wrong with a field's text (the buckets), naming the field; empty when all parse.
    QString inputError() const;
    // The widget that sets a job field ("dataset.frame_buckets"), or null for one not here.
    QWidget* fieldWidget(const QString& jobField) const;
    // Whether blocks recompute their activations in the backward pass (gradient_checkpointing).
    bool gradientCheckpointing() const;
    void setExpanded(bool expanded);
    bool isExpanded() const;
    // The chosen model, or none while it is unknown: which rows apply and what buckets it takes.
    void setModelFacts(const std::optional<ModelFacts>& facts);

signals:
    void edited();

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void updateModelRows();
    // Rounds the buckets' frame counts and sides to what the model takes; says so in the note.
    void snapBuckets();

    QToolButton* m_toggle;
    QWidget* m_body;
    QFormLayout* m_form;
    QCheckBox* m_checkpointingCheck;
    QSpinBox* m_checkpointedBlocksSpin;
    QCheckBox* m_keepAttentionCheck;
    QSpinBox* m_accumulationSpin;
    QDoubleSpinBox* m_clipSpin;
    QComboBox* m_scheduleCombo;
    QSpinBox* m_warmupSpin;
    QSpinBox* m_seedSpin;
    QLineEdit* m_frameBucketsEdit;
    QLineEdit* m_resolutionBucketsEdit;
    QComboBox* m_resizeCombo;
    QDoubleSpinBox* m_captionDropoutSpin;
    QCheckBox* m_vaeTilingCheck;
    QCheckBox* m_vaeSlicingCheck;
    QDoubleSpinBox* m_flowShiftSpin; // 0 shows as the model's own shift (null in the job)
    QComboBox* m_densityCombo;
    QComboBox* m_lossWeightingCombo;
    QLabel* m_bucketNote; // what snapping changed, under the buckets
    QList<QLabel*> m_labels;
    std::optional<ModelFacts> m_facts;
};
