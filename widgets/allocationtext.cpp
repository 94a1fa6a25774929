#include "allocationtext.h"

#include <QObject>
#include <QRegularExpression>
#include <QStringList>

#include "placejob.h"

QString allocationText(const std::optional<cs::Allocation>& allocation)
{
    return allocation ? QString::fromStdString(cs::allocationText(*allocation))
                      : QObject::tr("the whole cluster");
}

std::optional<cs::Allocation> allocationFromText(const QString& text, QString* error)
{
    const auto fail = [error](const QString& why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    const QString trimmed = text.trimmed();
    const qsizetype space = trimmed.indexOf(QLatin1Char(' '));
    const QString unit = trimmed.left(space).toLower();
    cs::Allocation allocation;
    if (unit == QLatin1String("racks") || unit == QLatin1String("rack"))
        allocation.unit = cs::Allocation::Unit::Racks;
    else if (unit == QLatin1String("nodes") || unit == QLatin1String("node"))
        allocation.unit = cs::Allocation::Unit::Nodes;
    else
        return fail(QObject::tr("begin with \"racks\" or \"nodes\", e.g. \"racks 0-7, 12\""));
    if (space < 0)
        return fail(QObject::tr("name at least one %1 after \"%2\"").arg(unit, unit));
    static const QRegularExpression range(
        QStringLiteral("^\\s*(\\d{1,9})\\s*(?:-\\s*(\\d{1,9}))?\\s*$"));
    for (const QString& part : trimmed.mid(space + 1).split(QLatin1Char(','))) {
        const QRegularExpressionMatch m = range.match(part);
        if (!m.hasMatch())
            return fail(
                QObject::tr("\"%1\" is not an index or a range first-last").arg(part.trimmed()));
        const int first = m.captured(1).toInt();
        const int last = m.captured(2).isEmpty() ? first : m.captured(2).toInt();
        if (last < first)
            return fail(QObject::tr("the range %1-%2 ends before it begins").arg(first).arg(last));
        allocation.ranges.emplace_back(first, last);
    }
    return allocation;
}
