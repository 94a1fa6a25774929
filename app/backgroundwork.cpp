#include "backgroundwork.h"

#include <QApplication>
#include <QEventLoop>
#include <QPointer>
#include <QProgressDialog>
#include <QTimer>
#include <algorithm>

namespace {

// Until the window-modal progress dialog shows (after its minimum duration) the window would
// still take clicks and keys: an edit typed while a save runs would be marked saved without
// being in the file, a second Open would start inside the first. Until the work ends they are
// dropped; painting, timers and the dialog itself go on.
class InputBlocker : public QObject {
public:
    explicit InputBlocker(QWidget* parent)
        : m_window(parent ? parent->window() : nullptr)
    {
        if (m_window)
            qApp->installEventFilter(this);
    }
    ~InputBlocker() override
    {
        if (m_window)
            qApp->removeEventFilter(this);
    }

protected:
    bool eventFilter(QObject* target, QEvent* event) override
    {
        switch (event->type()) {
        case QEvent::Shortcut: // to an action or shortcut of the window, not a widget
            return true;
        case QEvent::MouseButtonPress:
        case QEvent::MouseButtonRelease:
        case QEvent::MouseButtonDblClick:
        case QEvent::KeyPress:
        case QEvent::KeyRelease:
        case QEvent::Wheel:
        case QEvent::ContextMenu:
        case QEvent::Drop:
        case QEvent::Close: {
            const auto* widget = qobject_cast<QWidget*>(target);
            if (widget && widget->window() == m_window) {
                event->ignore();
                return true;
            }
            return false;
        }
        default:
            return false;
        }
    }

private:
    QPointer<QWidget> m_window;
};

} // namespace

bool runWithProgress(QWidget* parent, const QString& label,
                     const std::function<void(TaskProgress&)>& work)
{
    // On the heap, watched: closing the parent while the work runs deletes its children.
    const QPointer<QProgressDialog> dialog =
        new QProgressDialog(label, QObject::tr("Cancel"), 0, 0, parent);
    dialog->setWindowModality(Qt::WindowModal);
    dialog->setMinimumDuration(400);
    dialog->setAutoClose(false);
    dialog->setAutoReset(false);
    // Starts the clock of minimumDuration: without a first value the dialog never shows.
    dialog->setValue(0);
    std::atomic<bool> cancelled{false};
    // Cancel hides the dialog (QProgressDialog::cancel); work that stops only where it next
    // looks (a file being read) may take a while more, and the window stays blocked and says so
    // until it has.
    QObject::connect(dialog, &QProgressDialog::canceled, dialog, [&cancelled, dialog] {
        cancelled = true;
        dialog->setLabelText(QObject::tr("Cancelling..."));
        dialog->setCancelButton(nullptr);
        QTimer::singleShot(200, dialog, [dialog] { dialog->show(); });
    });
    const InputBlocker blocker(parent);
    QEventLoop loop;
    TaskProgress progress{cancelled, [dialog](int64_t done, int64_t total) {
                              // Queued to the dialog: dropped if it is gone.
                              QMetaObject::invokeMethod(
                                  dialog,
                                  [dialog, done, total] {
                                      constexpr int64_t kSteps = 1000;
                                      dialog->setMaximum(total > 0 ? int(kSteps) : 0);
                                      if (total > 0)
                                          dialog->setValue(int(done * kSteps / total));
                                  },
                                  Qt::QueuedConnection);
                          }};
    std::thread worker([&] {
        work(progress);
        QMetaObject::invokeMethod(&loop, &QEventLoop::quit, Qt::QueuedConnection);
    });
    loop.exec();
    worker.join();
    delete dialog.data();
    return !cancelled;
}

struct LatestWork::Task {
    std::atomic<bool> cancelled{false};
    std::atomic<bool> finished{false};
    std::thread thread;
};

LatestWork::~LatestWork()
{
    for (const std::shared_ptr<Task>& t : m_tasks) {
        t->cancelled = true;
        t->thread.join();
    }
}

void LatestWork::reap()
{
    std::erase_if(m_tasks, [](const std::shared_ptr<Task>& t) {
        if (!t->finished)
            return false;
        t->thread.join();
        return true;
    });
}

void LatestWork::start(QObject* owner,
                       std::function<std::function<void()>(const std::atomic<bool>&)> work)
{
    reap();
    for (const std::shared_ptr<Task>& t : m_tasks)
        t->cancelled = true;
    const int64_t generation = ++*m_latest;
    auto task = std::make_shared<Task>();
    task->thread = std::thread(
        [task = task.get(), latest = m_latest, generation, owner, work = std::move(work)] {
            std::function<void()> deliver = work(task->cancelled);
            if (deliver && !task->cancelled)
                QMetaObject::invokeMethod(
                    owner,
                    [latest, generation, deliver = std::move(deliver)] {
                        if (*latest == generation)
                            deliver();
                    },
                    Qt::QueuedConnection);
            task->finished = true;
        });
    m_tasks.push_back(std::move(task));
}

bool LatestWork::busy() const
{
    return std::any_of(m_tasks.begin(), m_tasks.end(),
                       [](const std::shared_ptr<Task>& t) { return !t->finished; });
}
