#include "messagetext.h"

#include <QCoreApplication>
#include <QStringList>

QString boundedMessage(const QString& text, int maxLines, int maxChars)
{
    QStringList shown;
    qsizetype start = 0, lines = 0;
    while (start <= text.size()) {
        qsizetype end = text.indexOf(QLatin1Char('\n'), start);
        if (end < 0)
            end = text.size();
        if (lines < maxLines) {
            const QStringView line = QStringView(text).mid(start, end - start);
            shown << (line.size() > maxChars
                          ? line.left(maxChars).toString() + QStringLiteral("...")
                          : line.toString());
        }
        ++lines;
        start = end + 1;
    }
    const qsizetype more = lines - maxLines;
    if (more == 1)
        shown << QCoreApplication::translate("boundedMessage", "and 1 more line");
    else if (more > 1)
        shown << QCoreApplication::translate("boundedMessage", "and %1 more lines").arg(more);
    return shown.join(QLatin1Char('\n'));
}
