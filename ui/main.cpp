#include "app/ApplicationInfo.h"
#include "app/CommandLine.h"
#include "app/Settings.h"
#include "ui/MainWindow.h"

#include <QApplication>
#include <QIcon>

#include <cstdio>

namespace {

QStringList argumentsOf(int argc, char** argv) {
    QStringList arguments;
    for (int index = 0; index < argc; ++index)
        arguments.append(QString::fromLocal8Bit(argv[index]));
    return arguments;
}

void print(std::FILE* stream, const QString& text) {
    std::fputs(text.toLocal8Bit().constData(), stream);
    std::fflush(stream);
}

} // namespace

int main(int argc, char* argv[]) {
    ApplicationInfo::registerWithQt();

    // --version and --help are answered before QApplication exists, so they work with no
    // display and no platform plugin at all.
    const CommandLine early = CommandLine::parse(argumentsOf(argc, argv));
    if (early.action() == CommandLine::Action::ShowVersion) {
        print(stdout, CommandLine::versionText() + QLatin1Char('\n'));
        return 0;
    }
    if (early.action() == CommandLine::Action::ShowHelp) {
        print(stdout, CommandLine::helpText());
        return 0;
    }

    QApplication application(argc, argv);
    QGuiApplication::setApplicationDisplayName(ApplicationInfo::displayName());
    QGuiApplication::setDesktopFileName(QStringLiteral("io.tuneframe.Tuneframe"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/tuneframe.svg")));

    // Parsed again now that QApplication has taken its own options (-platform, -style) out.
    const CommandLine commandLine = CommandLine::parse(QCoreApplication::arguments());
    if (commandLine.action() == CommandLine::Action::Fail) {
        print(stderr, QStringLiteral("tuneframe: %1\nTry 'tuneframe --help'.\n")
                          .arg(commandLine.errorMessage()));
        return 2;
    }

    Settings settings;
    MainWindow window(&settings);
    QObject::connect(&window, &MainWindow::projectOpenFailed,
                     [](const QString&, const QString& message) {
                         print(stderr, QStringLiteral("tuneframe: %1\n").arg(message));
                     });
    window.show();
    if (!commandLine.projectFolder().isEmpty())
        window.openProject(commandLine.projectFolder());
    return QApplication::exec();
}
