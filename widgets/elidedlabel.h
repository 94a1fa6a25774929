#pragma once
// A one-line label that fits whatever width it is given: past it, its text ends in an ellipsis
// (the whole line belongs in its tooltip), so that a long line never widens or overflows the
// bar it sits in (the status bar's step figure).

#include <QLabel>

class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    using QLabel::QLabel;
    // Whether the text is cut at the label's width now.
    bool elided() const;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
};
