#include "app/CommandLine.h"

#include "app/ApplicationInfo.h"

#include <QCommandLineOption>
#include <QCommandLineParser>

CommandLine CommandLine::parse(const QStringList& arguments) {
    QCommandLineParser parser;
    const QCommandLineOption versionOption(
        QStringList{QStringLiteral("v"), QStringLiteral("version")});
    const QCommandLineOption helpOption(QStringList{QStringLiteral("h"), QStringLiteral("help")});
    parser.addOption(versionOption);
    parser.addOption(helpOption);
    parser.addPositionalArgument(QStringLiteral("PROJECT_DIR"), QString());
    const bool parsed = parser.parse(arguments);

    CommandLine result;
    // --version and --help win over anything else on the line, unknown options included.
    if (parser.isSet(versionOption)) {
        result.m_action = Action::ShowVersion;
        return result;
    }
    if (parser.isSet(helpOption)) {
        result.m_action = Action::ShowHelp;
        return result;
    }
    if (!parsed) {
        result.m_action = Action::Fail;
        result.m_errorMessage = parser.errorText();
        return result;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        result.m_action = Action::Fail;
        result.m_errorMessage = tr("Only one project folder can be opened at a time; got %n.", "",
                                   static_cast<int>(positional.size()));
        return result;
    }
    result.m_action = Action::Run;
    if (!positional.isEmpty())
        result.m_projectFolder = positional.constFirst();
    return result;
}

CommandLine::Action CommandLine::action() const {
    return m_action;
}

QString CommandLine::projectFolder() const {
    return m_projectFolder;
}

QString CommandLine::errorMessage() const {
    return m_errorMessage;
}

QString CommandLine::versionText() {
    return ApplicationInfo::executableName() + QLatin1Char(' ') + ApplicationInfo::version();
}

QString CommandLine::helpText() {
    return tr("Usage: %1 [options] [PROJECT_DIR]\n"
              "\n"
              "Tuneframe studio: build video datasets and fine-tune video diffusion models.\n"
              "\n"
              "Arguments:\n"
              "  PROJECT_DIR    a project folder (one holding project.sqlite) to open\n"
              "\n"
              "Options:\n"
              "  -h, --help     show this help and exit\n"
              "  -v, --version  show the version and exit\n"
              "\n"
              "Settings are read from $TUNEFRAME_CONFIG_DIR when it is set.\n")
        .arg(ApplicationInfo::executableName());
}
