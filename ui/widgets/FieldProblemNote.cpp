#include "ui/widgets/FieldProblemNote.h"

#include <QFormLayout>
#include <QLabel>

FieldProblemNote::FieldProblemNote(QObject* parent)
    : QObject(parent) {}

FieldProblemNote::~FieldProblemNote() = default;

void FieldProblemNote::show(QFormLayout* layout, int row, const QString& text) {
    clear();
    auto* label = new QLabel(text);
    label->setObjectName(QStringLiteral("fieldProblemLabel"));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setStyleSheet(QStringLiteral("color: #c0392b;"));
    layout->insertRow(row + 1, label); // the layout's widget takes ownership
    m_layout = layout;
    m_label = label;
}

void FieldProblemNote::clear() {
    if (m_layout && m_label)
        m_layout->removeRow(m_label); // deletes the label with its row
    m_layout = nullptr;
    m_label = nullptr;
}
