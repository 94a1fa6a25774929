#include "bookmarkslist.h"

#include <QContextMenuEvent>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QMenu>

#include "text.h"

BookmarksList::BookmarksList(QWidget* parent)
    : QListWidget(parent)
{
    setToolTip(tr("Click a bookmark (or Enter) to go to it, F2 to rename, Delete to remove;\n"
                  "right-click to edit its caption and speaker notes. Ctrl+B adds the current\n"
                  "view; Page Down/Up step through them."));
    setWordWrap(true);
    // A click goes there, so a click on the selected one does not start renaming it.
    setEditTriggers(QAbstractItemView::EditKeyPressed);
    connect(this, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { emit goToRequested(row(item)); });
    connect(this, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        // A double-click's first click went there already.
        if (QGuiApplication::mouseButtons() == Qt::NoButton)
            emit goToRequested(row(item));
    });
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
        QString tip = tr("Colour by %1, zoom %2, at %3")
                          .arg(QString::fromStdString(cs::labelOf(b.view.colorBy)))
                          .arg(b.view.zoom, 0, 'g', 3)
                          .arg(QString::fromStdString(cs::inStepTimeText(b.view.timeS)));
        if (b.view.highlightRank >= 0)
            tip += tr(", rank %1 selected").arg(b.view.highlightRank);
        if (!b.notes.empty())
            tip += QStringLiteral("\n\n") + QString::fromStdString(b.notes);
        item->setToolTip(tip);
    }
    setCurrentRow(std::min(current, count() - 1));
}

void BookmarksList::contextMenuEvent(QContextMenuEvent* event)
{
    QListWidgetItem* item = itemAt(event->pos());
    if (!item)
        return;
    const int index = row(item);
    QMenu menu(this);
    menu.addAction(tr("Go To"), this, [this, index] { emit goToRequested(index); });
    menu.addAction(tr("Rename"), this, [this, item] { editItem(item); });
    menu.addAction(tr("Edit Caption and Notes..."), this,
                   [this, index] { emit editRequested(index); });
    menu.addAction(tr("Delete"), this, [this, index] { emit removeRequested(index); });
    menu.exec(event->globalPos());
}

void BookmarksList::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Delete && currentRow() >= 0) {
        emit removeRequested(currentRow());
        return;
    }
    QListWidget::keyPressEvent(event);
}
