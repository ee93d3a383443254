#pragma once

#include <QList>
#include <QSize>
#include <QString>
#include <QStringList>

class QWidget;

// What a page must look like at a window size, as a person would check it: every visible
// control wholly on screen (never cut off by its parent, never pushed sideways out of a scroll
// area), every button's and label's text fitting its widget, and the controls a page is for
// (its primary action) in view without scrolling. Each check returns one line per problem,
// naming the widget by its object names, so a failing test says what to fix.
class LayoutCheck {
public:
    // The laptop and desktop screens the studio is designed for, smallest first.
    static QList<QSize> screens();
    // The window a maximised studio gets on that screen: the width, and the height less a task
    // bar and the window's title bar.
    static QSize windowSizeOn(const QSize& screen);

    // Visible controls under root cut off by an ancestor, or with no room at all. Being below
    // the fold of a scroll area is scrolling, not clipping; sticking out sideways is clipping.
    static QStringList clippedControls(const QWidget* root);
    // Buttons, check boxes, labels and combo boxes whose text is wider (or, wrapped, taller)
    // than the widget shows, and header sections whose titles are cut.
    static QStringList textsThatDoNotFit(const QWidget* root);
    // Empty when the widget is visible and wholly in view, with no scrolling; else why not.
    static QString notInView(const QWidget* widget);
    // All of the above: root's controls, and each of mustBeInView.
    static QStringList problems(const QWidget* root, const QList<const QWidget*>& mustBeInView);

    // "trainPage/newRunScroll/…/trainButton": the widget's object names up to its window.
    static QString pathOf(const QWidget* widget);
};
