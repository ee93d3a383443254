#pragma once

#include <QObject>
#include <QPointer>

class QFormLayout;
class QLabel;

// One message on its own row directly under the form row of the field it is about (the engine
// refusing a job field: "LoRA rank 64 does not fit…" under LoRA rank), in the form's error
// colour. Showing it elsewhere moves it; the row goes away with clear().
class FieldProblemNote : public QObject {
    Q_OBJECT

public:
    explicit FieldProblemNote(QObject* parent = nullptr);
    ~FieldProblemNote() override;

    // Shows `text` on a new row after row `row` of `layout`.
    void show(QFormLayout* layout, int row, const QString& text);
    void clear();
    // The label while it is shown, else null.
    QLabel* label() const { return m_label; }

private:
    QPointer<QFormLayout> m_layout;
    QPointer<QLabel> m_label;
};
