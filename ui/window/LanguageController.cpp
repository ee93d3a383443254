#include "ui/window/LanguageController.h"

#include <QCoreApplication>
#include <QLibraryInfo>

LanguageController::LanguageController(Settings* settings, QObject* parent)
    : QObject(parent) {
    connect(settings, &Settings::languageChanged, this, &LanguageController::onLanguageChanged);
    apply(settings->language());
}

LanguageController::~LanguageController() {
    removeTranslators();
}

Settings::Language LanguageController::effectiveLanguage() const {
    return m_effectiveLanguage;
}

QLocale LanguageController::localeFor(Settings::Language language) {
    switch (language) {
    case Settings::Language::English:
        return QLocale(QLocale::English, QLocale::UnitedStates);
    case Settings::Language::SimplifiedChinese:
        return QLocale(QLocale::Chinese, QLocale::SimplifiedHanScript, QLocale::China);
    case Settings::Language::System:
    case Settings::Language::Invalid:
        break;
    }
    return QLocale::system();
}

QString LanguageController::translationsPrefix() {
    return QStringLiteral(":/i18n");
}

void LanguageController::onLanguageChanged(Settings::Language language) {
    apply(language);
}

void LanguageController::apply(Settings::Language language) {
    removeTranslators();
    m_effectiveLanguage = Settings::Language::English;
    // English is the source language: its translator only holds the plural forms of %n strings.
    if (language == Settings::Language::English) {
        if (m_studioTranslator.load(localeFor(language), QStringLiteral("tuneframe"),
                                    QStringLiteral("_"), translationsPrefix()))
            m_studioInstalled = QCoreApplication::installTranslator(&m_studioTranslator);
    } else {
        const QLocale locale = localeFor(language);
        if (m_studioTranslator.load(locale, QStringLiteral("tuneframe"), QStringLiteral("_"),
                                    translationsPrefix())) {
            m_studioInstalled = QCoreApplication::installTranslator(&m_studioTranslator);
            if (m_studioInstalled && locale.language() == QLocale::Chinese)
                m_effectiveLanguage = Settings::Language::SimplifiedChinese;
            // Qt's own strings (standard buttons, file dialogs) only when ours matched, so the
            // window never mixes two languages.
            if (m_qtTranslator.load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                                    QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
                m_qtInstalled = QCoreApplication::installTranslator(&m_qtTranslator);
        }
    }
    emit languageApplied(m_effectiveLanguage);
}

void LanguageController::removeTranslators() {
    if (m_studioInstalled)
        QCoreApplication::removeTranslator(&m_studioTranslator);
    if (m_qtInstalled)
        QCoreApplication::removeTranslator(&m_qtTranslator);
    m_studioInstalled = false;
    m_qtInstalled = false;
}
