#pragma once
// Work that may take long (an evaluation near the size limits takes a second or two, a trace
// export a few more, a file of measured runs one evaluation a row) runs on a worker thread,
// never on the GUI thread, so that the window keeps painting and answering.

#include <QString>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

class QObject;
class QWidget;

// What the work sees while it runs: whether it was cancelled, and where to say how far it got
// (from the worker thread; 0 total: no measure, just busy).
struct TaskProgress {
    const std::atomic<bool>& cancelled;
    std::function<void(int64_t done, int64_t total)> report;
};

// Runs work on a worker thread and returns when it is done, while a window-modal progress
// dialog with Cancel shows (after a short while). True when it ran to its end; false when
// Cancel was pressed (the work is told through `cancelled` and should return early).
bool runWithProgress(QWidget* parent, const QString& label,
                     const std::function<void(TaskProgress&)>& work);

// For a view that recomputes what it shows after each edit: each start cancels the work before
// it, and only the newest work's result is delivered, on the GUI thread.
class LatestWork {
public:
    LatestWork() = default;
    LatestWork(const LatestWork&) = delete;
    LatestWork& operator=(const LatestWork&) = delete;
    ~LatestWork(); // cancels whatever runs and waits for it

    // work runs on a worker; the function it returns then runs in `owner`'s thread unless a
    // newer start came first. The owner is the object this LatestWork is a member of: its
    // destruction waits for the worker, and drops a result still on its way.
    void start(QObject* owner,
               std::function<std::function<void()>(const std::atomic<bool>& cancelled)> work);
    bool busy() const;

private:
    struct Task;
    void reap();

    std::vector<std::shared_ptr<Task>> m_tasks;
    std::shared_ptr<std::atomic<int64_t>> m_latest = std::make_shared<std::atomic<int64_t>>(0);
};
