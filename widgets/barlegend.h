#pragma once
// What each colour of a chart's bars means, laid in as many columns as the width allows: every
// entry shows whole however little height the chart's dock leaves (a QChart's own legend drops
// the entries that do not fit beside its plot).

#include <QWidget>
#include <vector>

#include "gpucolors.h"

class BarLegend : public QWidget {
    Q_OBJECT
public:
    explicit BarLegend(QWidget* parent = nullptr);
    void setEntries(std::vector<LegendEntry> entries);
    const std::vector<LegendEntry>& entries() const { return m_entries; }
    // Columns and rows of entries at a width; the rows times the line height fill heightForWidth.
    int columnsAt(int width) const;
    int rowsAt(int width) const;
    // Whether every label shows whole at the current size (no entry cut to "...").
    bool showsEveryEntryWhole() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    QFont labelFont() const;
    double swatchSize() const;
    double columnWidth() const; // the longest label's, with its swatch and a gap
    double lineHeight() const;
    void fitHeight();

    std::vector<LegendEntry> m_entries;
};
