#include "theme.h"

#include <QApplication>
#include <QPalette>
#include <QProxyStyle>
#include <QStyle>
#include <QStyleFactory>
#include <QStyleOptionButton>
#include <QStyleOptionViewItem>

namespace {

QPalette darkPalette(QPalette p)
{
    const QColor text(220, 223, 228);
    for (QPalette::ColorGroup group : {QPalette::Active, QPalette::Inactive}) {
        p.setColor(group, QPalette::Window, QColor(37, 40, 45));
        p.setColor(group, QPalette::WindowText, text);
        p.setColor(group, QPalette::Base, QColor(28, 30, 34));
        p.setColor(group, QPalette::AlternateBase, QColor(45, 48, 54));
        p.setColor(group, QPalette::Text, text);
        p.setColor(group, QPalette::Button, QColor(45, 48, 54));
        p.setColor(group, QPalette::ButtonText, text);
        p.setColor(group, QPalette::BrightText, Qt::white);
        p.setColor(group, QPalette::Highlight, QColor(64, 128, 200));
        p.setColor(group, QPalette::HighlightedText, Qt::white);
        p.setColor(group, QPalette::ToolTipBase, QColor(45, 48, 54));
        p.setColor(group, QPalette::ToolTipText, text);
        p.setColor(group, QPalette::PlaceholderText, QColor(140, 144, 150));
        p.setColor(group, QPalette::Link, QColor(110, 170, 240));
        p.setColor(group, QPalette::Light, QColor(70, 74, 80));
        p.setColor(group, QPalette::Midlight, QColor(55, 58, 64));
        p.setColor(group, QPalette::Mid, QColor(45, 48, 54));
        p.setColor(group, QPalette::Dark, QColor(20, 22, 25));
        p.setColor(group, QPalette::Shadow, QColor(10, 10, 12));
    }
    const QColor disabled(120, 124, 130);
    p.setColor(QPalette::Disabled, QPalette::Window, QColor(37, 40, 45));
    p.setColor(QPalette::Disabled, QPalette::Base, QColor(32, 34, 38));
    p.setColor(QPalette::Disabled, QPalette::Button, QColor(40, 43, 48));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

// Fusion draws a check box's or radio button's frame a shade darker than the window and fills
// it with the base colour: on a dark window both are near black, and the box all but vanishes.
// In the dark theme the indicators get a frame and fill that stand out from the window.
class IndicatorStyle : public QProxyStyle {
public:
    using QProxyStyle::QProxyStyle;

    void drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter,
                       const QWidget* widget) const override
    {
        const bool indicator = element == PE_IndicatorCheckBox ||
                               element == PE_IndicatorRadioButton ||
                               element == PE_IndicatorItemViewItemCheck;
        if (!indicator || !isDark(option->palette)) {
            QProxyStyle::drawPrimitive(element, option, painter, widget);
            return;
        }
        if (const auto* item = qstyleoption_cast<const QStyleOptionViewItem*>(option)) {
            QStyleOptionViewItem lit(*item);
            lit.palette = indicatorPalette(option->palette);
            QProxyStyle::drawPrimitive(element, &lit, painter, widget);
        } else if (const auto* button = qstyleoption_cast<const QStyleOptionButton*>(option)) {
            QStyleOptionButton lit(*button);
            lit.palette = indicatorPalette(option->palette);
            QProxyStyle::drawPrimitive(element, &lit, painter, widget);
        } else {
            QStyleOption lit(*option);
            lit.palette = indicatorPalette(option->palette);
            QProxyStyle::drawPrimitive(element, &lit, painter, widget);
        }
    }

private:
    // Fusion's frame is the window colour darkened: a light "window" makes it a mid grey.
    static QPalette indicatorPalette(QPalette p)
    {
        for (QPalette::ColorGroup group : {QPalette::Active, QPalette::Inactive}) {
            p.setColor(group, QPalette::Window, QColor(190, 194, 200));
            p.setColor(group, QPalette::Base, QColor(62, 66, 73));
        }
        return p;
    }
};

} // namespace

void applyTheme(bool dark)
{
    QStyle* fusion = new IndicatorStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    const QPalette standard = fusion->standardPalette();
    qApp->setStyle(fusion);
    qApp->setPalette(dark ? darkPalette(standard) : standard);
}

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightnessF() < 0.5;
}
