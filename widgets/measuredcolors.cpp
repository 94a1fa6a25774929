#include "measuredcolors.h"

#include <QObject>
#include <algorithm>
#include <array>

#include "text.h"

namespace {

constexpr QRgb kNoMeasure = 0xff5a5f66;

// Faster than the median in blues, at it in a quiet green, slower in yellow to dark red.
constexpr std::array<QRgb, kStepColors> kStepPalette{0xff3b6fb6, 0xff7fa8d8, 0xff6aa57a, 0xffe3c34a,
                                                     0xffe8903a, 0xffd9482b, 0xff8e1b1b};

int stepBin(double overMedian)
{
    int bin = 0;
    while (bin < int(std::size(kStepBins)) && overMedian > kStepBins[bin])
        ++bin;
    return bin;
}

QString percent(double fraction)
{
    return QStringLiteral("%1%2 %").arg(fraction > 0 ? "+" : "").arg(fraction * 100, 0, 'f', 1);
}

QString ms(double seconds)
{
    return QString::fromStdString(cs::inStepTimeText(seconds));
}

// Light to dark through the dimensions' communication hue: more exposed time, darker.
QColor commColor(int step)
{
    const double t = double(step) / (kCommSteps - 1);
    return QColor::fromHsvF(0.08 - 0.08 * t, 0.25 + 0.7 * t, 0.98 - 0.45 * t);
}

std::vector<LegendEntry> stepLegend()
{
    std::vector<LegendEntry> entries;
    for (int b = 0; b < kStepColors; ++b) {
        QString label;
        if (b == 0)
            label = QObject::tr("faster than %1").arg(percent(kStepBins[0]));
        else if (b == kStepColors - 1)
            label = QObject::tr("slower than %1").arg(percent(kStepBins[b - 1]));
        else
            label =
                QStringLiteral("%1 to %2").arg(percent(kStepBins[b - 1]), percent(kStepBins[b]));
        entries.push_back({QColor(kStepPalette[size_t(b)]), label});
    }
    return entries;
}

} // namespace

bool isMeasuredMode(const cs::ColorMode& mode)
{
    return mode.kind == cs::ColorKind::MeasuredStep || mode.kind == cs::ColorKind::MeasuredComm;
}

GpuColoring measuredColoring(const cs::ColorMode& mode,
                             const std::vector<std::optional<double>>& values, bool hasProfile,
                             double medianStepS)
{
    GpuColoring c;
    const bool step = mode.kind == cs::ColorKind::MeasuredStep;
    c.colors.index.assign(values.size(), 0);
    c.colors.palette = {kNoMeasure};
    if (!hasProfile) {
        c.legend.title = step ? QObject::tr("Measured step: no measured profile open")
                              : QObject::tr("Measured communication: no measured profile open");
        c.legend.notes << QObject::tr("File > Open Measured Profile... reads PyTorch profiler "
                                      "traces, one per rank");
        return c;
    }
    double largest = 0;
    for (const std::optional<double>& v : values)
        if (v)
            largest = std::max(largest, *v);
    if (step) {
        c.colors.palette.insert(c.colors.palette.end(), kStepPalette.begin(), kStepPalette.end());
        c.legend.title =
            QObject::tr("Measured step against the median rank's (%1): stragglers in red")
                .arg(QString::fromStdString(cs::stepTimeText(medianStepS)));
        c.legend.entries = stepLegend();
    } else {
        for (int s = 0; s < kCommSteps; ++s)
            c.colors.palette.push_back(commColor(s).rgb());
        c.legend.title = QObject::tr("Measured communication not hidden under compute, per GPU");
        c.legend.gradient = true;
        for (int s = 0; s <= 4; ++s)
            c.legend.entries.push_back(
                {commColor(s * (kCommSteps - 1) / 4), ms(largest * s / 4.0)});
    }
    for (size_t g = 0; g < values.size(); ++g) {
        if (!values[g])
            continue;
        const int key =
            step ? stepBin(*values[g])
                 : (largest > 0 ? std::min(kCommSteps - 1, int(*values[g] / largest * kCommSteps))
                                : 0);
        c.colors.index[g] = uint16_t(1 + key);
    }
    c.legend.entries.push_back({QColor(kNoMeasure), QObject::tr("no measured rank")});
    return c;
}
