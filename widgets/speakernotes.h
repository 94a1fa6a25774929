#pragma once
// The presenter's view of the bookmarks: the current caption and its notes in large type, and
// the next caption. A window of its own, so that it can sit on a second screen.

#include <QWidget>
#include <vector>

#include "description.h"

class QLabel;
class QTextBrowser;

class SpeakerNotes : public QWidget {
    Q_OBJECT
public:
    explicit SpeakerNotes(QWidget* parent = nullptr);
    void show(const std::vector<cs::Bookmark>& bookmarks, int current);
    QString notesText() const;

private:
    QLabel* m_title = nullptr;
    QTextBrowser* m_notes = nullptr;
    QLabel* m_next = nullptr;
};
