#pragma once
// A measured profile beside the prediction, part by part: for each part of the step (compute,
// each dimension's exposed communication, idle) a bar of what the trace measured over a bar of
// what the model predicts for the same GPU, in the part's colour (the predicted one paler), with
// both times; the comparison's summary under them. Drawn directly: a few bars, repainted when
// the profile or the prediction changes.

#include <QColor>
#include <QString>
#include <QWidget>
#include <vector>

struct ProfileBar {
    QString label;
    QColor color;
    double measuredS = 0;
    double predictedS = 0;
};

class ProfileBreakdown : public QWidget {
    Q_OBJECT
public:
    explicit ProfileBreakdown(QWidget* parent = nullptr);

    // No bars: the widget says how to open a profile.
    void setBars(std::vector<ProfileBar> bars, const QString& title, const QString& summary);
    const std::vector<ProfileBar>& bars() const { return m_bars; }
    QString title() const { return m_title; }
    QString summary() const { return m_summary; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return {240, 160}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    int rowHeight() const;

    std::vector<ProfileBar> m_bars;
    QString m_title;
    QString m_summary;
};
