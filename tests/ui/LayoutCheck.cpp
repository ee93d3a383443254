#include "tests/ui/LayoutCheck.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractScrollArea>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QScrollBar>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QStyleOptionHeader>
#include <QTextEdit>
#include <QWidget>

namespace {

// A desktop's task bar and a window's title bar, together.
constexpr int kScreenChrome = 70;
// Rounding in style metrics; a pixel is not a cut-off letter.
constexpr int kTolerance = 2;

bool isControl(const QWidget* widget) {
    if (qobject_cast<const QScrollBar*>(widget))
        return false;
    // A spin box's or combo box's own line edit is the box's business.
    if (qobject_cast<const QLineEdit*>(widget))
        return !qobject_cast<const QAbstractSpinBox*>(widget->parentWidget()) &&
               !qobject_cast<const QComboBox*>(widget->parentWidget());
    if (const auto* label = qobject_cast<const QLabel*>(widget))
        return !label->text().isEmpty();
    return qobject_cast<const QAbstractButton*>(widget) ||
           qobject_cast<const QAbstractSpinBox*>(widget) ||
           qobject_cast<const QComboBox*>(widget) || qobject_cast<const QAbstractSlider*>(widget) ||
           qobject_cast<const QProgressBar*>(widget) ||
           qobject_cast<const QPlainTextEdit*>(widget) || qobject_cast<const QTextEdit*>(widget) ||
           (qobject_cast<const QAbstractItemView*>(widget) &&
            !qobject_cast<const QHeaderView*>(widget));
}

bool isViewportOf(const QWidget* widget, const QWidget* parent) {
    const auto* area = qobject_cast<const QAbstractScrollArea*>(parent);
    return area && area->viewport() == widget;
}

QString rectText(const QRect& rect) {
    return QStringLiteral("%1x%2 at %3,%4")
        .arg(rect.width())
        .arg(rect.height())
        .arg(rect.x())
        .arg(rect.y());
}

struct Visibility {
    bool clipped = false;  // cut by a parent that does not scroll it
    bool scrolled = false; // below or above the fold of a scroll area
    QString where;
};

// Follows the widget's rectangle up to its window, cutting it by every ancestor on the way.
Visibility visibility(const QWidget* widget) {
    Visibility result;
    QRect rect = widget->rect();
    const QWidget* child = widget;
    while (!child->isWindow() && child->parentWidget()) {
        const QWidget* parent = child->parentWidget();
        rect.translate(child->pos());
        const QRect bounds = parent->rect();
        const bool viewport =
            parent->parentWidget() && isViewportOf(parent, parent->parentWidget());
        const bool sideways = rect.left() < bounds.left() - kTolerance + 1 ||
                              rect.right() > bounds.right() + kTolerance - 1;
        const bool vertically = rect.top() < bounds.top() - kTolerance + 1 ||
                                rect.bottom() > bounds.bottom() + kTolerance - 1;
        if (sideways || (vertically && !viewport)) {
            result.clipped = true;
            result.where = QStringLiteral("%1 in %2 (%3)")
                               .arg(rectText(rect), LayoutCheck::pathOf(parent), rectText(bounds));
            return result;
        }
        if (vertically) {
            result.scrolled = true;
            result.where = QStringLiteral("below the fold of %1").arg(LayoutCheck::pathOf(parent));
        }
        rect &= bounds;
        if (rect.isEmpty())
            return result; // wholly scrolled out of sight; nothing above can cut it further
        child = parent;
    }
    return result;
}

QList<const QWidget*> visibleControls(const QWidget* root) {
    QList<const QWidget*> controls;
    for (const QWidget* widget : root->findChildren<QWidget*>()) {
        if (widget->isVisible() && !widget->isWindow() && widget->window() == root->window() &&
            isControl(widget))
            controls.append(widget);
    }
    return controls;
}

QString plainText(const QString& text) {
    QString plain = text;
    plain.remove(QLatin1Char('&'));
    return plain;
}

QString labelProblem(const QLabel* label) {
    const QRect contents = label->contentsRect();
    if (label->wordWrap()) {
        const int needed = label->heightForWidth(label->width());
        if (needed > label->height() + kTolerance)
            return QStringLiteral("needs %1 px of height, has %2").arg(needed).arg(label->height());
        return {};
    }
    const int needed = label->sizeHint().width();
    if (needed > label->width() + kTolerance)
        return QStringLiteral("needs %1 px, has %2").arg(needed).arg(label->width());
    if (label->sizeHint().height() > label->height() + kTolerance && contents.height() > 0)
        return QStringLiteral("needs %1 px of height, has %2")
            .arg(label->sizeHint().height())
            .arg(label->height());
    return {};
}

QString comboProblem(const QComboBox* box) {
    if (box->currentText().isEmpty())
        return {};
    QStyleOptionComboBox option;
    option.initFrom(box);
    option.editable = box->isEditable();
    option.currentText = box->currentText();
    option.currentIcon = box->itemIcon(box->currentIndex());
    option.iconSize = box->iconSize();
    const QRect field = box->style()->subControlRect(QStyle::CC_ComboBox, &option,
                                                     QStyle::SC_ComboBoxEditField, box);
    int needed = box->fontMetrics().horizontalAdvance(box->currentText());
    if (!option.currentIcon.isNull())
        needed += box->iconSize().width() + 4;
    if (needed > field.width() + kTolerance)
        return QStringLiteral("“%1” needs %2 px, its field has %3")
            .arg(box->currentText())
            .arg(needed)
            .arg(field.width());
    return {};
}

QStringList headerProblems(const QHeaderView* header) {
    QStringList problems;
    if (!header->isVisible() || header->orientation() != Qt::Horizontal || !header->model())
        return problems;
    const int margin = header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
    for (int section = 0; section < header->count(); ++section) {
        if (header->isSectionHidden(section) || header->sectionSize(section) <= 0)
            continue;
        const QString text =
            header->model()->headerData(section, Qt::Horizontal, Qt::DisplayRole).toString();
        int needed = 0;
        for (const QString& line : text.split(QLatin1Char('\n')))
            needed = std::max(needed, header->fontMetrics().horizontalAdvance(line));
        needed += 2 * margin;
        if (needed > header->sectionSize(section) + kTolerance)
            problems.append(QStringLiteral("%1: column “%2” needs %3 px, has %4")
                                .arg(LayoutCheck::pathOf(header), text)
                                .arg(needed)
                                .arg(header->sectionSize(section)));
    }
    return problems;
}

} // namespace

QList<QSize> LayoutCheck::screens() {
    return {QSize(1280, 720), QSize(1366, 768), QSize(1920, 1080)};
}

QSize LayoutCheck::windowSizeOn(const QSize& screen) {
    return QSize(screen.width(), screen.height() - kScreenChrome);
}

QString LayoutCheck::pathOf(const QWidget* widget) {
    QStringList names;
    for (const QWidget* at = widget; at; at = at->isWindow() ? nullptr : at->parentWidget()) {
        if (!at->objectName().isEmpty())
            names.prepend(at->objectName());
        else if (at == widget)
            names.prepend(QString::fromLatin1(at->metaObject()->className()));
    }
    return names.join(QLatin1Char('/'));
}

QStringList LayoutCheck::clippedControls(const QWidget* root) {
    QStringList problems;
    for (const QWidget* control : visibleControls(root)) {
        if (control->width() <= 0 || control->height() <= 0) {
            problems.append(QStringLiteral("%1 has no room (%2)")
                                .arg(pathOf(control), rectText(control->geometry())));
            continue;
        }
        const Visibility seen = visibility(control);
        if (seen.clipped)
            problems.append(QStringLiteral("%1 is cut off: %2").arg(pathOf(control), seen.where));
    }
    return problems;
}

QStringList LayoutCheck::textsThatDoNotFit(const QWidget* root) {
    QStringList problems;
    for (const QWidget* control : visibleControls(root)) {
        QString problem;
        if (const auto* label = qobject_cast<const QLabel*>(control))
            problem = labelProblem(label);
        else if (const auto* button = qobject_cast<const QAbstractButton*>(control)) {
            if (!plainText(button->text()).isEmpty() &&
                button->sizeHint().width() > button->width() + kTolerance)
                problem = QStringLiteral("“%1” needs %2 px, has %3")
                              .arg(plainText(button->text()))
                              .arg(button->sizeHint().width())
                              .arg(button->width());
        } else if (const auto* box = qobject_cast<const QComboBox*>(control))
            problem = comboProblem(box);
        if (!problem.isEmpty())
            problems.append(QStringLiteral("%1: %2").arg(pathOf(control), problem));
    }
    for (const QHeaderView* header : root->findChildren<QHeaderView*>())
        problems += headerProblems(header);
    return problems;
}

QString LayoutCheck::notInView(const QWidget* widget) {
    if (!widget)
        return QStringLiteral("a widget the page must show does not exist");
    if (!widget->isVisible())
        return QStringLiteral("%1 is not shown").arg(pathOf(widget));
    const Visibility seen = visibility(widget);
    if (seen.clipped)
        return QStringLiteral("%1 is cut off: %2").arg(pathOf(widget), seen.where);
    if (seen.scrolled)
        return QStringLiteral("%1 needs scrolling: %2").arg(pathOf(widget), seen.where);
    return {};
}

QStringList LayoutCheck::problems(const QWidget* root, const QList<const QWidget*>& mustBeInView) {
    QStringList all = clippedControls(root) + textsThatDoNotFit(root);
    for (const QWidget* widget : mustBeInView) {
        const QString problem = notInView(widget);
        if (!problem.isEmpty())
            all.append(problem);
    }
    return all;
}
