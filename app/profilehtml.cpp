#include "profilehtml.h"

#include <QObject>

#include "profiledocument.h"
#include "text.h"

namespace {

QString ms(double seconds)
{
    return QString::fromStdString(cs::inStepTimeText(seconds));
}

QString cell(const QString& text, bool key = false)
{
    return key ? QStringLiteral("<td style='color:#9aa3ad;padding-right:8px'>%1</td>").arg(text)
               : QStringLiteral("<td style='padding-right:8px' align='right'>%1</td>").arg(text);
}

QString differenceText(double measured, double predicted)
{
    if (predicted <= 0)
        return measured > 0 ? QObject::tr("not predicted") : QString();
    return QString::fromStdString(cs::signedPercentText(measured / predicted - 1));
}

} // namespace

QString measuredRankHtml(const ProfileDocument& profile, int rank)
{
    if (!profile.hasProfile() || rank < 0)
        return {};
    const QString heading = QStringLiteral("<h4>%1</h4>").arg(QObject::tr("Measured profile"));
    const auto c = profile.compareRank(rank);
    if (!c)
        return heading + QObject::tr("Rank %1 is not in the measured profile.").arg(rank);
    QString html = heading + QStringLiteral("<table><tr>") + cell(QString(), true) +
                   cell(QObject::tr("<b>measured</b>")) + cell(QObject::tr("predicted")) +
                   cell(QObject::tr("difference")) + QStringLiteral("</tr>");
    const auto line = [&](const QString& label, double measured, double predicted) {
        html += QStringLiteral("<tr>") + cell(label.toHtmlEscaped(), true) + cell(ms(measured)) +
                cell(ms(predicted)) + cell(differenceText(measured, predicted)) +
                QStringLiteral("</tr>");
    };
    line(QObject::tr("step"), c->measure.stepS, c->predictedStepS);
    const auto measured = c->measured.parts();
    const auto predicted = c->predicted.parts();
    for (size_t i = 0; i < measured.size() && i < predicted.size(); ++i)
        if (measured[i].seconds > 0 || predicted[i].seconds > 0)
            line(QString::fromStdString(measured[i].key == "bubble" ? std::string("idle")
                                                                    : measured[i].label),
                 measured[i].seconds, predicted[i].seconds);
    html +=
        QStringLiteral("</table><p>%1</p>")
            .arg(QObject::tr("Its median step is %1 the median rank's (%2); the prediction "
                             "is of pipeline stage %3, per GPU.")
                     .arg(QString::fromStdString(cs::signedPercentText(c->measure.stepVsMedian)))
                     .arg(ms(profile.medianRankStepS()))
                     .arg(c->stage));
    return html;
}
