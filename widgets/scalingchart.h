#pragma once
// Weak scaling of the run: step time and efficiency against the GPU count, at constant work
// per GPU, with the cluster's own size marked.

#include <QWidget>
#include <vector>

#include "scaling.h"

class QChart;
class CachedChartView;

// The base of the GPU axis's powers for GPU counts from `from` to `to`: the smallest of 2, 4, 8,
// 16 and 32 that labels no more than six of them.
double logAxisBase(double from, double to);

class ScalingChart : public QWidget {
    Q_OBJECT
public:
    explicit ScalingChart(QWidget* parent = nullptr);

    void setPoints(const std::vector<cs::ScalingPoint>& points);
    QChart* chart() const;

    QSize sizeHint() const override { return {420, 320}; }

private:
    CachedChartView* m_view = nullptr;
};
