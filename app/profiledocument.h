#pragma once
// The measured profile of the open document (issue 37): kept in the session's extensions
// (profilesession.h), so that saving, undo and recovery carry it like any edit, and laid beside
// the current prediction (cs::compareWithPrediction) each time the run changes. The views read
// it here.

#include <QObject>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "placement.h"
#include "profilemapping.h"

class Document;

// What a GPU measured: its rank's step closest to the rank's median step.
struct GpuMeasure {
    int rank = -1;
    double stepS = 0;        // the rank's median step
    double computeS = 0;     // compute busy
    double exposedCommS = 0; // communication not hidden under compute
    double idleS = 0;
    double stepVsMedian = 0; // stepS over the profile's median of ranks' steps, minus one
};

// A rank's median step beside its pipeline stage's predicted step, read the same way.
struct RankComparison {
    GpuMeasure measure;
    int stage = 0;
    cs::Breakdown measured;
    cs::Breakdown predicted;
    double predictedStepS = 0;
};

// What a topology colour mode of the profile shows per GPU.
enum class MeasuredQuantity { Step, Communication };

// Every GPU's measured figures (index: GPU; rank -1 where none) and the median over ranks of
// their median step.
struct GpuMeasures {
    std::vector<GpuMeasure> byGpu;
    double medianRankStepS = 0;

    std::optional<GpuMeasure> of(int gpu) const;
    // One value per GPU: the step against the median, or the exposed communication in
    // seconds; nothing for GPUs without a measured rank.
    std::vector<std::optional<double>> values(MeasuredQuantity quantity) const;
};
GpuMeasures gpuMeasuresOf(const cs::MeasuredProfile& profile, const cs::Placement& placement,
                          size_t gpus);

class ProfileDocument : public QObject {
    Q_OBJECT
public:
    explicit ProfileDocument(Document* document, QObject* parent = nullptr);

    bool hasProfile() const { return m_profile.has_value(); }
    // Valid while hasProfile().
    const cs::MeasuredProfile& profile() const { return *m_profile; }
    const cs::ProfileComparison& comparison() const { return m_comparison; }
    // The trace files the profile was read from (they need not exist any more).
    QStringList files() const;
    // What the session's stored profile got wrong, if it did (then there is no profile).
    QString problem() const { return m_problem; }

    // Each GPU's measured figures, for the current placement.
    const GpuMeasures& measures() const { return m_measures; }
    // A GPU's measured figures; nothing for a GPU that holds no measured rank.
    std::optional<GpuMeasure> measureOfGpu(int gpu) const { return m_measures.of(gpu); }
    std::vector<std::optional<double>> valuesPerGpu(MeasuredQuantity quantity) const
    {
        return m_measures.values(quantity);
    }
    // A measured rank beside the prediction of its stage; nothing for a rank not measured.
    std::optional<RankComparison> compareRank(int rank) const;
    double medianRankStepS() const { return m_measures.medianRankStepS; }

    // Makes `profile` the document's, as one undo step named `text`; an empty profile (no
    // ranks) removes it.
    void setProfile(const cs::MeasuredProfile& profile, const QString& text);

signals:
    void changed(); // a profile came or went, or the prediction beside it changed

private:
    void readStored();
    void compare();

    Document* m_document;
    std::optional<cs::MeasuredProfile> m_profile;
    cs::ProfileComparison m_comparison;
    GpuMeasures m_measures;
    QString m_problem;
};
