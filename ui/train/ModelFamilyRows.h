#pragma once

#include "app/jobs/ModelFacts.h"

#include <QJsonObject>
#include <QList>
#include <QObject>

#include <optional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QSpinBox;
class QWidget;

// The new-run form's rows that follow the chosen model, under its folder: what the engine found
// there (family, variant, size, stored dtype, experts, tasks), and only the choices that fit
// it: the task of a model that trains both (Wan 2.2 TI2V-5B), which expert of a two-expert
// model trains (Wan 2.2 A14B) and where the other waits, how many blocks wait in host memory
// (block swap, for any model), whether recomputed blocks' inputs wait there too (activation
// offload, for any model, offered only while some block recomputes) and CogVideoX
// image-to-video's first-frame dropout. The rows live in the form's own layout, so their labels
// line up with the form's.
class ModelFamilyRows : public QObject {
    Q_OBJECT

public:
    // Appends the rows to `form`; their widgets are children of `parent`.
    ModelFamilyRows(QWidget* parent, QFormLayout* form);

    // While the engine reads the folder; the rows of the last model hide.
    void showInspecting();
    // The folder is not a model the engine trains: why, in the summary row.
    void showProblem(const QString& message);
    // No folder chosen: nothing to show.
    void clear();
    void setFacts(const ModelFacts& facts);
    const std::optional<ModelFacts>& facts() const { return m_facts; }

    // Shows a job's values (a preset's, or one restored) in the rows; fields it lacks show the
    // engine's defaults.
    void setJob(const QJsonObject& job);
    // The job fields the rows set for the current model, to merge over the preset; empty before
    // the engine has described the model.
    QJsonObject values() const;
    // The task the run trains ("t2v", "i2v"): the one asked for until the model is known.
    QString task() const;
    // The widget that sets a job field ("flow_matching.expert"), or null for one not here.
    QWidget* fieldWidget(const QString& jobField) const;
    QLabel* summaryLabel() const { return m_summary; }
    // Whether the form's gradient checkpointing is on: with it off and no block offloaded no
    // block recomputes, so there is no input to offload and the engine refuses the option.
    void setGradientCheckpointing(bool on);
    void retranslateUi();

signals:
    void edited();

private:
    void updateRows();
    // Enables the activation offload only where some block recomputes; shows the wish then.
    void updateOffloadActivations();

    QFormLayout* m_form;
    QList<QLabel*> m_labels;
    QLabel* m_summary;
    QComboBox* m_taskCombo;
    QComboBox* m_expertCombo;
    QComboBox* m_inactiveExpertCombo;
    QSpinBox* m_blocksToSwapSpin;
    QCheckBox* m_offloadActivationsCheck;
    QDoubleSpinBox* m_imageDropoutSpin;
    std::optional<ModelFacts> m_facts;
    QString m_problem;
    bool m_inspecting = false;
    // The job's task when the model lets the run choose (kept across models that do not).
    QString m_wantedTask;
    bool m_gradientCheckpointing = true;
    // memory.offload_activations as the job or the user asked, kept while the box is off.
    bool m_wantsActivationOffload = false;
};
