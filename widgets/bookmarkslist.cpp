#include "bookmarkslist.h"

#include <QKeyEvent>

BookmarksList::BookmarksList(QWidget* parent)
    : QListWidget(parent)
{
    setToolTip(tr("Double-click to go to a bookmark, F2 to rename, Delete to remove.\n"
                  "Ctrl+B adds the current view; Page Down/Up step through them."));
    setEditTriggers(QAbstractItemView::EditKeyPressed | QAbstractItemView::SelectedClicked);
    connect(this, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { emit goToRequested(row(item)); });
    connect(this, &QListWidget::itemChanged, this,
            [this](QListWidgetItem* item) { emit renameRequested(row(item), item->text()); });
}

void BookmarksList::setBookmarks(const std::vector<cs::Bookmark>& bookmarks)
{
    const QSignalBlocker block(this);
    const int current = currentRow();
    clear();
    for (const cs::Bookmark& b : bookmarks) {
        auto* item = new QListWidgetItem(QString::fromStdString(b.title), this);
        item->setFlags(item->flags() | Qt::ItemIsEditable);
        item->setToolTip(tr("Colour by %1, zoom %2, t = %3 s")
                             .arg(QString::fromStdString(cs::labelOf(b.view.colorBy)))
                             .arg(b.view.zoom, 0, 'g', 3)
                             .arg(b.view.timeS, 0, 'f', 3));
    }
    setCurrentRow(std::min(current, count() - 1));
}

void BookmarksList::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Delete && currentRow() >= 0) {
        emit removeRequested(currentRow());
        return;
    }
    QListWidget::keyPressEvent(event);
}
