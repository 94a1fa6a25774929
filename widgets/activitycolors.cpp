#include "activitycolors.h"

#include <QObject>
#include <algorithm>
#include <string_view>

namespace {

// Compute in blues and greens, waiting in greys and reds, so that an exposed tail stands out.
constexpr QRgb kForward = 0xff4c8fd6;
constexpr QRgb kBackward = 0xff2e9d6a;
constexpr QRgb kRecompute = 0xff8fc96b;
constexpr QRgb kOptimizer = 0xffb08d57;
constexpr QRgb kBubble = 0xffd9d9d9;
constexpr QRgb kIdle = 0xff6b6f76;
constexpr QRgb kExposed = 0xffc8102e;

} // namespace

QColor activityColor(cs::Activity a)
{
    switch (a) {
    case cs::Activity::Idle:
        return QColor::fromRgb(kIdle);
    case cs::Activity::Forward:
        return QColor::fromRgb(kForward);
    case cs::Activity::Backward:
        return QColor::fromRgb(kBackward);
    case cs::Activity::Recompute:
        return QColor::fromRgb(kRecompute);
    case cs::Activity::Bubble:
        return QColor::fromRgb(kBubble);
    case cs::Activity::Communication:
        return QColor::fromRgb(kExposed);
    case cs::Activity::Optimizer:
        return QColor::fromRgb(kOptimizer);
    }
    return QColor::fromRgb(kIdle);
}

QColor dimensionColor(cs::Dim d)
{
    return QColor::fromRgb(0xff000000u | cs::dimInfo(d).rgb);
}

QColor eventColor(const cs::Event& e)
{
    switch (e.kind) {
    case cs::EventKind::Forward:
        return activityColor(cs::Activity::Forward);
    case cs::EventKind::Backward:
        return activityColor(cs::Activity::Backward);
    case cs::EventKind::Recompute:
        return activityColor(cs::Activity::Recompute);
    case cs::EventKind::Optimizer:
        return activityColor(cs::Activity::Optimizer);
    case cs::EventKind::Bubble:
        return activityColor(cs::Activity::Bubble);
    case cs::EventKind::Comm:
        return dimensionColor(e.dim);
    }
    return activityColor(cs::Activity::Idle);
}

QColor linkColor(cs::Dim d, double share)
{
    const QColor full = dimensionColor(d);
    // Never fully dark: a link in use at all must differ from an idle one.
    const double k = 0.55 + 0.45 * std::clamp(share, 0.0, 1.0);
    return QColor::fromRgbF(float(full.redF() * k), float(full.greenF() * k),
                            float(full.blueF() * k));
}

QColor breakdownColor(const cs::Breakdown::Part& part)
{
    if (part.dim)
        return dimensionColor(*part.dim);
    struct Entry {
        std::string_view key;
        QRgb color;
    };
    static constexpr Entry entries[] = {
        {"compute", kForward},     {"recompute", kRecompute}, {"bubble", 0xffa8a8a8},
        {"optimizer", kOptimizer}, {"overhead", kIdle},
    };
    for (const Entry& e : entries)
        if (e.key == part.key)
            return QColor::fromRgb(e.color);
    return QColor::fromRgb(kIdle);
}

std::vector<LegendEntry> activityLegend()
{
    std::vector<LegendEntry> entries;
    for (int i = 0; i < cs::kActivityCount; ++i) {
        const auto a = cs::Activity(i);
        const std::string_view label = cs::labelOf(a);
        entries.push_back({activityColor(a), QString::fromLatin1(label.data(), int(label.size()))});
    }
    return entries;
}

std::vector<LegendEntry> dimensionLegend(bool experts)
{
    std::vector<LegendEntry> entries;
    for (const cs::DimInfo& d : cs::kDims) {
        if (d.dim == cs::Dim::EP && !experts)
            continue;
        const QString name = QString::fromLatin1(d.shortLabel.data(), int(d.shortLabel.size()));
        entries.push_back({dimensionColor(d.dim),
                           d.collective ? QObject::tr("%1 traffic").arg(name)
                                        : QObject::tr("%1 sends (point to point)").arg(name)});
    }
    return entries;
}
