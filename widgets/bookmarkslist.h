#pragma once
// The session's bookmarks: a click (or Enter) on one goes there; F2 renames it, Delete removes it.

#include <QListWidget>
#include <vector>

#include "description.h"

class BookmarksList : public QListWidget {
    Q_OBJECT
public:
    explicit BookmarksList(QWidget* parent = nullptr);
    void setBookmarks(const std::vector<cs::Bookmark>& bookmarks);

signals:
    void goToRequested(int index);
    void renameRequested(int index, const QString& title);
    void editRequested(int index); // caption and speaker notes
    void removeRequested(int index);

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
};
