#include "ui/window/ThemeController.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>

#include <memory>

namespace {

const QString kFusion = QStringLiteral("Fusion");

} // namespace

ThemeController::ThemeController(Settings* settings, QObject* parent)
    : QObject(parent)
    , m_systemStyleName(QApplication::style()->name())
    , m_systemPalette(QApplication::palette()) {
    connect(settings, &Settings::themeChanged, this, &ThemeController::onThemeChanged);
    apply(settings->theme());
}

ThemeController::~ThemeController() {
    setStyleName(m_systemStyleName);
    QApplication::setPalette(m_systemPalette);
}

Settings::Theme ThemeController::effectiveTheme() const {
    return m_effectiveTheme;
}

Settings::Theme ThemeController::systemTheme() const {
    return isDark(m_systemPalette) ? Settings::Theme::Dark : Settings::Theme::Light;
}

bool ThemeController::isDark(const QPalette& palette) {
    return palette.color(QPalette::Window).lightness() <
           palette.color(QPalette::WindowText).lightness();
}

QPalette ThemeController::lightPalette() {
    const std::unique_ptr<QStyle> fusion(QStyleFactory::create(kFusion));
    QPalette palette = fusion->standardPalette();
    palette.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xdb));
    palette.setColor(QPalette::Link, QColor(0x1f, 0x5f, 0xc8));
    return palette;
}

QPalette ThemeController::darkPalette() {
    const QColor window(0x2b, 0x2d, 0x31);
    const QColor base(0x1e, 0x1f, 0x22);
    const QColor button(0x36, 0x38, 0x3d);
    const QColor text(0xe3, 0xe5, 0xe8);
    const QColor disabledText(0x7c, 0x80, 0x87);

    QPalette palette;
    palette.setColor(QPalette::Window, window);
    palette.setColor(QPalette::WindowText, text);
    palette.setColor(QPalette::Base, base);
    palette.setColor(QPalette::AlternateBase, window);
    palette.setColor(QPalette::ToolTipBase, button);
    palette.setColor(QPalette::ToolTipText, text);
    palette.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9e, 0xa6));
    palette.setColor(QPalette::Text, text);
    palette.setColor(QPalette::Button, button);
    palette.setColor(QPalette::ButtonText, text);
    palette.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    palette.setColor(QPalette::Light, button.lighter(140));
    palette.setColor(QPalette::Midlight, button.lighter(120));
    palette.setColor(QPalette::Mid, button.darker(120));
    palette.setColor(QPalette::Dark, base.darker(130));
    palette.setColor(QPalette::Shadow, QColor(0x10, 0x10, 0x12));
    palette.setColor(QPalette::Highlight, QColor(0x3d, 0x7e, 0xea));
    palette.setColor(QPalette::HighlightedText, Qt::white);
    palette.setColor(QPalette::Link, QColor(0x6a, 0xa5, 0xff));
    palette.setColor(QPalette::LinkVisited, QColor(0xa7, 0x8b, 0xfa));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        palette.setColor(QPalette::Disabled, role, disabledText);
    palette.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x4a, 0x4d, 0x53));
    return palette;
}

void ThemeController::onThemeChanged(Settings::Theme theme) {
    apply(theme);
}

void ThemeController::apply(Settings::Theme theme) {
    switch (theme) {
    case Settings::Theme::Light:
        setStyleName(kFusion);
        QApplication::setPalette(lightPalette());
        m_effectiveTheme = Settings::Theme::Light;
        break;
    case Settings::Theme::Dark:
        setStyleName(kFusion);
        QApplication::setPalette(darkPalette());
        m_effectiveTheme = Settings::Theme::Dark;
        break;
    case Settings::Theme::System:
    case Settings::Theme::Invalid:
        setStyleName(m_systemStyleName);
        QApplication::setPalette(m_systemPalette);
        m_effectiveTheme = systemTheme();
        break;
    }
    emit themeApplied(m_effectiveTheme);
}

void ThemeController::setStyleName(const QString& styleName) {
    if (QApplication::style()->name().compare(styleName, Qt::CaseInsensitive) != 0)
        QApplication::setStyle(styleName);
}
