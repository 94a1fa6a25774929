#pragma once
// Counts the paint events of the widgets it watches (GUI benchmarks).

#include <QEvent>
#include <QObject>
#include <map>

class PaintCounter : public QObject {
public:
    void watch(QObject* widget)
    {
        widget->installEventFilter(this);
        m_paints[widget] = 0;
    }
    void reset()
    {
        for (auto& [widget, paints] : m_paints)
            paints = 0;
    }
    bool allPainted() const
    {
        for (const auto& [widget, paints] : m_paints)
            if (paints == 0)
                return false;
        return true;
    }
    long paints(QObject* widget) const { return m_paints.at(widget); }
    size_t watched() const { return m_paints.size(); }

protected:
    bool eventFilter(QObject* object, QEvent* event) override
    {
        if (event->type() == QEvent::Paint)
            ++m_paints[object];
        return false;
    }

private:
    std::map<QObject*, long> m_paints;
};
