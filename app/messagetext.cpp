#include "messagetext.h"

#include <QCoreApplication>
#include <QStringList>

#include "comparison.h"
#include "diagnostics.h"

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

namespace {
QString capitalized(QString text)
{
    if (!text.isEmpty())
        text[0] = text[0].toUpper();
    return text;
}
} // namespace

QString problemsForPeople(const cs::Diagnostics& diags)
{
    QStringList lines;
    for (const cs::Diagnostic& d : diags.items()) {
        QString message = QString::fromStdString(d.message);
        if (!message.endsWith(QLatin1Char('.')))
            message += QLatin1Char('.');
        const bool namesItself = d.pointer.empty() || d.pointer.ends_with("/failures");
        lines << (namesItself ? capitalized(message)
                              : QStringLiteral("%1: %2").arg(
                                    capitalized(QString::fromStdString(cs::inputLabel(d.pointer))),
                                    message));
    }
    return lines.join(QLatin1Char('\n'));
}
