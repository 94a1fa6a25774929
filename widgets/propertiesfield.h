#pragma once
// One field of the Properties panel: where its value lives in the cluster or run, how it is
// edited and what else an edit of it changes. Shared by the panel (propertiespanel.cpp) and its
// table of fields (propertiesfields.cpp).

#include <QString>
#include <QStringList>
#include <QVariant>
#include <functional>

#include "description.h"
#include "propertiespanel.h"

namespace propertiesfield {

enum class Kind { Text, Int, Real, Choice, Bool };
// What else an edit of a field changes.
enum class Follow { Nothing, Dp, DpAndBatch };

} // namespace propertiesfield

struct PropertiesPanel::Field {
    QString group;
    QString label;
    QString tip;
    propertiesfield::Kind kind;
    std::function<QVariant(const cs::ClusterRun&)> get;
    std::function<void(cs::ClusterRun&, const QVariant&)> set;
    QStringList choices = {};
    double step = 1;
    propertiesfield::Follow follow = propertiesfield::Follow::Nothing;
};
